module synergy_engine (
  input wire __clk,
  input wire __cont,
  input wire __update,
  output wire [15:0] __task,
  output wire __done,
  output wire __there_are_updates,
  input wire __open_loop,
  input wire [31:0] __open_loop_n,
  output wire __open_loop_active,
  output wire [31:0] __ticks_left,
  input wire [15:0] __sa_id,
  input wire [31:0] __sa_index,
  input wire [15:0] __sa_word,
  input wire __sa_we,
  input wire [63:0] __sa_wdata,
  output reg [63:0] __sa_rdata
);
  reg clock = 1'd0;
  reg [7:0] data [0:15];
  reg signed [31:0] i;
  reg [31:0] imem [0:15];
  reg signed [31:0] k;
  reg [15:0] lookup [0:7];
  reg [3:0] nibbles [0:3];
  reg __prev_clock = 1'd0;
  reg __init_pending = 1'd1;
  reg [31:0] __targ_0 = 32'd0;
  reg [31:0] __targ_1 = 32'd0;
  reg [3:0] __targ_2 = 4'd0;
  reg [7:0] __targ_3 = 8'd0;
  reg __finishing = 1'd0;
  reg __pos_clock;
  reg __init;
  reg __fire_0 = 1'b0;
  reg __fire_1 = 1'b0;
  initial begin
    i = 32'd0;
    k = 32'd0;
    imem[0] = 32'h20080005;
    imem[1] = 32'h2009000a;
    imem[2] = 32'h1095020;
    imem[3] = 32'had0a0000;
    imem[4] = 32'h8c0b0000;
    imem[5] = 32'h1000ffff;
    imem[6] = 32'h0;
    imem[7] = 32'hc;
    imem[8] = 32'hdeadbeef;
    imem[9] = 32'hcafef00d;
    imem[10] = 32'hbadc0de;
    imem[11] = 32'h12345678;
    imem[12] = 32'h9abcdef0;
    imem[13] = 32'hfedcba9;
    imem[14] = 32'h76543210;
    imem[15] = 32'h1;
    lookup[0] = 16'h1;
    lookup[1] = 16'h2;
    lookup[2] = 16'h3;
    lookup[3] = 16'h4;
    lookup[4] = 16'habcd;
    lookup[5] = 16'hef01;
    lookup[6] = 16'h2345;
    lookup[7] = 16'h6789;
    nibbles[0] = 4'b1;
    nibbles[1] = 4'b10;
    nibbles[2] = 4'b100;
    nibbles[3] = 4'b1000;
    i = 32'sb00000000000000000000000000000000;
    for (k = 32'sb00000000000000000000000000000000; {k < 32'sb00000000000000000000000000010000}; k = $signed({k + 32'sb00000000000000000000000000000001})) begin
      data[k] = 8'b11101110;
    end
  end
  reg [3:0] __state = 0;
  reg [2:0] __task_r = 0;
  reg __ol_active = 1'b0;
  reg [31:0] __ol_left = 32'd0;
  reg __ol_two_ticks = 1'b0;
  assign __task = __task_r;
  assign __done = __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock) || __init_pending);
  assign __there_are_updates = 1'b0;
  assign __open_loop_active = __ol_active;
  assign __ticks_left = __ol_left;
  always @* begin
    __sa_rdata = 64'd0;
    case (__sa_id[3:0])
      4'd0: __sa_rdata = {clock};
      4'd1: __sa_rdata = {data[__sa_index]};
      4'd2: __sa_rdata = {i};
      4'd7: __sa_rdata = {__prev_clock};
      4'd8: __sa_rdata = {__init_pending};
      4'd9: __sa_rdata = {__targ_0};
      4'd10: __sa_rdata = {__targ_1};
      4'd11: __sa_rdata = {__targ_2};
      4'd12: __sa_rdata = {__targ_3};
      4'd13: __sa_rdata = {__finishing};
      default: __sa_rdata = 64'd0;
    endcase
  end
  always @(posedge __clk) begin
    if (__sa_we) begin
      case (__sa_id[3:0])
        4'd0: clock = __sa_wdata[0:0];
        4'd1: data[__sa_index] = __sa_wdata[7:0];
        4'd2: i = __sa_wdata[31:0];
        4'd7: __prev_clock = __sa_wdata[0:0];
        4'd8: __init_pending = __sa_wdata[0:0];
        4'd9: __targ_0 = __sa_wdata[31:0];
        4'd10: __targ_1 = __sa_wdata[31:0];
        4'd11: __targ_2 = __sa_wdata[3:0];
        4'd12: __targ_3 = __sa_wdata[7:0];
        4'd13: __finishing = __sa_wdata[0:0];
        default: ;
      endcase
    end else begin
      if (!__update) begin
        if (__cont) __task_r = 16'd0;
        if (__open_loop) begin
          __ol_active = 1'b1; __ol_left = __open_loop_n;
        end
        if (__ol_active && __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock) || __init_pending) && !(1'b0)) begin
          if (__ol_left == 32'd0) begin
            __ol_active = 1'b0;
          end else begin
            clock = ~clock;
            __ol_two_ticks = !clock && __ol_left != 32'd1;
            __ol_left = __ol_left - {30'd0, __ol_two_ticks, !__ol_two_ticks};
            if (__ol_two_ticks) begin
              __prev_clock = clock;
              clock = ~clock;
            end
          end
        end
        if (__state == 0 && __task_r == 16'd0 && ((clock != __prev_clock) || __init_pending)) begin
          __pos_clock = clock & ~__prev_clock;
          __init = __init_pending;
          __fire_0 = __init;
          __fire_1 = __pos_clock;
          __prev_clock = clock;
          __init_pending = 1'b0;
          __state = 1;
        end
        if (__task_r == 16'd0 && __state == 1) begin
          if (__fire_0) __state = 4'd2; else __state = 4'd3;
        end
        if (__task_r == 16'd0 && __state == 2) begin
          __targ_0 = 32'sb00000000000000000000000000000000;
          __targ_1 = 32'sb00000000000000000000000000001111;
          __task_r = 16'd1; __state = 4'd3;
        end
        if (__task_r == 16'd0 && __state == 3) begin
          if (__fire_1) __state = 4'd4; else __state = 4'd0;
        end
        if (__task_r == 16'd0 && __state == 4) begin
          __targ_0 = imem[i];
          __targ_1 = lookup[{{33'b000000000000000000000000000000100 + {{30{1'b0}}, i[2'sb00 +: 3]}} - 33'b000000000000000000000000000000100}];
          __targ_2 = nibbles[{{2{1'b0}}, i[2'sb00 +: 2]}];
          __targ_3 = data[i];
          __task_r = 16'd2; __state = 4'd5;
          if (__finishing) __state = 4'd0;
        end
        if (__task_r == 16'd0 && __state == 5) begin
          data[i] = imem[i][2'sb00 +: 8];
          i = $signed({i + 32'sb00000000000000000000000000000001});
          if ({i == 32'sb00000000000000000000000000010000}) __state = 4'd6; else __state = 4'd0;
        end
        if (__task_r == 16'd0 && __state == 6) begin
          i = 32'sb00000000000000000000000000000000;
          __state = 4'd7;
        end
        if (__task_r == 16'd0 && __state == 7) begin
          if ({i < 32'sb00000000000000000000000000010000}) __state = 4'd8; else __state = 4'd10;
        end
        if (__task_r == 16'd0 && __state == 8) begin
          __targ_0 = data[i];
          __task_r = 16'd3; __state = 4'd9;
          if (__finishing) __state = 4'd0;
        end
        if (__task_r == 16'd0 && __state == 9) begin
          i = $signed({i + 32'sb00000000000000000000000000000001});
          __state = 4'd7;
        end
        if (__task_r == 16'd0 && __state == 10) begin
          __finishing = 1'b1;
          __task_r = 16'd4; __state = 4'd0;
        end
        if (__task_r != 16'd0) __ol_active = 1'b0;
      end
    end
  end
endmodule
