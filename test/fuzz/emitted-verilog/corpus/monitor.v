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
    slow = 4'd0;
    slow = 4'sb0000;
    n = 32'sb00000000000000000000000000000000;
  end
  reg [2:0] __state = 0;
  reg [1:0] __task_r = 0;
  reg __ol_active = 1'b0;
  reg [31:0] __ol_left = 32'd0;
  reg __ol_two_ticks = 1'b0;
  assign __task = __task_r;
  assign __done = __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock) || __init_pending);
  assign __there_are_updates = __nbp_slow;
  assign __open_loop_active = __ol_active;
  assign __ticks_left = __ol_left;
  always @* begin
    __sa_rdata = 64'd0;
    case (__sa_id[2:0])
      3'd0: __sa_rdata = {clock};
      3'd1: __sa_rdata = {n};
      3'd2: __sa_rdata = {slow};
      3'd3: __sa_rdata = {__prev_clock};
      3'd4: __sa_rdata = {__init_pending};
      3'd5: __sa_rdata = {__finishing};
      default: __sa_rdata = 64'd0;
    endcase
  end
  always @(posedge __clk) begin
    if (__sa_we) begin
      case (__sa_id[2:0])
        3'd0: clock = __sa_wdata[0:0];
        3'd1: n = __sa_wdata[31:0];
        3'd2: slow = __sa_wdata[3:0];
        3'd3: __prev_clock = __sa_wdata[0:0];
        3'd4: __init_pending = __sa_wdata[0:0];
        3'd5: __finishing = __sa_wdata[0:0];
        default: ;
      endcase
    end else begin
      if (!__update) begin
        if (__cont) __task_r = 16'd0;
        if (__open_loop) begin
          __ol_active = 1'b1; __ol_left = __open_loop_n;
        end
        if (__ol_active && __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock) || __init_pending) && !(__nbp_slow)) begin
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
          if (__fire_0) __state = 3'd2; else __state = 3'd3;
        end
        if (__task_r == 16'd0 && __state == 2) begin
          __task_r = 16'd1; __state = 3'd3;
        end
        if (__task_r == 16'd0 && __state == 3) begin
          if (__fire_1) __state = 3'd4; else __state = 3'd0;
        end
        if (__task_r == 16'd0 && __state == 4) begin
          n = $signed({n + 32'sb00000000000000000000000000000001});
          if ({$signed({n % 32'sb00000000000000000000000000000011}) == 32'sb00000000000000000000000000000000}) begin
            __nba_slow = {slow + 4'b0001}; __nbp_slow = 1'b1;
          end
          if ({n == 32'sb00000000000000000000000000001010}) __state = 3'd5; else __state = 3'd0;
        end
        if (__task_r == 16'd0 && __state == 5) begin
          __finishing = 1'b1;
          __task_r = 16'd2; __state = 3'd0;
        end
        if (__task_r != 16'd0) __ol_active = 1'b0;
      end
      if (__update || (__ol_active && __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock) || __init_pending))) begin
        if (__nbp_slow) begin slow = __nba_slow; __nbp_slow = 1'b0; end
      end
    end
  end
endmodule
