// A Moore state machine (traffic light) with per-state durations.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  localparam RED = 2'd0, GREEN = 2'd1, YELLOW = 2'd2;
  reg [1:0] state = RED;
  reg [3:0] timer = 0;
  integer cycles = 0;
  always @(posedge clock) begin
    timer <= timer + 1;
    case (state)
      RED: if (timer == 3) begin state <= GREEN; timer <= 0; $display("%0d: red -> green", cycles); end
      GREEN: if (timer == 4) begin state <= YELLOW; timer <= 0; $display("%0d: green -> yellow", cycles); end
      YELLOW: if (timer == 1) begin state <= RED; timer <= 0; $display("%0d: yellow -> red", cycles); end
      default: state <= RED;
    endcase
    cycles = cycles + 1;
    if (cycles == 25) $finish;
  end
endmodule
