module  synergy_engine (
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
  reg signed [31:0] i = 32'd0;
  reg [7:0] mem [0:15];
  reg signed [31:0] n;
  reg __prev_clock = 1'd0;
  reg [31:0] __targ_0 = 32'd0;
  reg [7:0] __targ_1 = 8'd0;
  reg __finishing = 1'd0;
  reg __pos_clock;
  reg~__fire_0 = 1'b0;
  reg [7:0] __nbav_0 = 0;
  reg __nbap_0 = 1'b0;
  reg [31:0] __nbai_0 = 0;
  reg __memw0_en;
  reg [31:0] __memw0_index;
  reg [7:0] __memw0_value;
  initial begin
    n = 32'd0;
    n = 32'sb00000000000000000000000000000000;
  end
  reg [3:0] __state = 0;
  reg [1:0] __task_r = 0;
  reg __ol_active = 1'b0;
  reg [31:0] __ol_left = 32'd0;
  reg __ol_two_ticks = 1'b0;
function [32:0] __sext_32_33;
  input [31:0] __x;
  __sext_32_33 = {{1{__x[31]}}, __x};
endfunction
function [7:0] __trunc_32_8;
  input [31:0] __x;
  __trunc_32_8 = __x[7:0];
endfunction
  assign __task = __task_r;
  assign __done = __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock));
  assign __there_are_updates = __nbap_0;
  assign __open_loop_active = __ol_active;
  assign __ticks_left = __ol_left;
  always @* begin
    __sa_rdata = 64'd0;
    case (__sa_id[2:0])
      3'd0: __sa_rdata = {clock};
      3'd1: __sa_rdata = {i};
      3'd2: __sa_rdata = {mem[__sa_index]};
      3'd3: __sa_rdata = {n};
      3'd4: __sa_rdata = {__prev_clock};
      3'd5: __sa_rdata = {__targ_0};
      3'd6: __sa_rdata = {__targ_1};
      3'd7: __sa_rdata = {__finishing};
      default: __sa_rdata = 64'd0;
    endcase
  end
  always @(posedge __clk) begin
    __memw0_en = 1'b0; __memw0_index = __sa_index; __memw0_value = __sa_wdata[7:0];
    if (__sa_we) begin
      case (__sa_id[2:0])
        3'd0: clock = __sa_wdata[0:0];
        3'd1: i = __sa_wdata[31:0];
        3'd2: __memw0_en = 1'b1;
        3'd3: n = __sa_wdata[31:0];
        3'd4: __prev_clock = __sa_wdata[0:0];
        3'd5: __targ_0 = __sa_wdata[31:0];
        3'd6: __targ_1 = __sa_wdata[7:0];
        3'd7: __finishing = __sa_wdata[0:0];
        default: ;
      endcase
    end else begin
      if (!__update) begin
        if (__cont) __task_r = 16'd0;
        if (__open_loop) begin
          __ol_active = 1'b1; __ol_left = __open_loop_n;
        end
        if (__ol_active && __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock)) && !(__nbap_0)) begin
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
        if (__state == 0 && __task_r == 16'd0 && ((clock != __prev_clock))) begin
          __pos_clock = clock & ~__prev_clock;
   r == 16'd0 && __state == 4) begin
          n = $signed({n + 32'sb00000000000000000000000000000001});
          if ({n == 32'sb00000000000000000000000000001100}) __state = 4'd5; else __state = 4'd0;
        end
        if (__task_r == ne,
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
  reg signed [31:0] n;
  reg [3:0] slow;
  reg __prev_clock = 1'd0;
  reg __init_pending = 1'd1;
  reg __finishing = 1'd0;
  reg __pos_clock;
  reg __init;
  reg __fire_0 = 1'b0;
  reg __fire_1 = 1'b0;
  reg [3:0] __nba_slow = 0;
  reg __nbp_slow = 1'b0;
  initial begin
    n = 32'd0;
    sl16'd0 && __state == 5) begin
          i = 32'sb00000000000000000000000000000000;
          __state = 4'd6;
        end
        if (__task_r == 16'd0 && __state == 6) begin
          if ({i < 32'sb00000000000000000000000000001011}) __state = 4'd7; else __state = 4'd9;
        end
        if (__task_r == 16'd0 && __state == 7) begin
          __targ_0 = mem[i];
          __task_r = 16'd2; __state = 4'd8;
          if (__finishing) __state = 4'd0;
        end
        if (__task_r == 16'd0 && __state == 8) begin
          i = $signed({i + 32'sb00000000000000000000000000000011});
          __state = 4'd6;
        end
        if (__task_r == 16'd0 && __state == 9) begin
          __finishing = 1'b1;
          __task_r = 16'd3; __state = 4'd0;
        end
        if (__task_r != 16'd0) __ol_active = 1'b0;
      end
      if (__update || (__ol_active && __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock)))) begin
        if (__nbap_0) begin __memw0_en = 1'b1; __memw0_index = __nbai_0; __memw0_value = __nbav_0; __nbap_0 = 1'b0; end
      end
    end
    if (__memw0_en) mem[__memw0_index] = __memw0_value;
  en
endmodule
