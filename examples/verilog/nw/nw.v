// Needleman-Wunsch global alignment over sequence pairs streamed from a file
// (two lines per pair, read one character per tick with $fgetc). The score
// matrix is filled one cell per tick, keeping only the previous row.
// Scores: match +1, mismatch -1, gap -1.
// SAVE-AT-TICK: 200 (the split run in test/verilog/run_differential.py --save-restart)
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  localparam MAXLEN = 16;
  localparam READ_A = 0, READ_B = 1, FILL = 2;
  reg [7:0] seq_a [0:MAXLEN-1];
  reg [7:0] seq_b [0:MAXLEN-1];
  reg signed [15:0] prev_row [0:MAXLEN];
  reg signed [15:0] row [0:MAXLEN];
  integer len_a = 0, len_b = 0, i, j, k, fd, c, pairs = 0;
  reg [1:0] phase = READ_A;
  reg signed [15:0] diag, up, left, best;

  initial fd = $fopen("pairs.txt", "r");

  always @(posedge clock) begin
    case (phase)
      READ_A, READ_B: begin
        c = $fgetc(fd);
        if (c == -1) begin
          $display("%0d pairs aligned", pairs);
          $finish;
        end else if (c == "\n") begin
          if (phase == READ_A) phase = READ_B;
          else begin
            // Row 0 of the matrix: j gaps.
            for (k = 0; k <= MAXLEN; k = k + 1) prev_row[k] = -k;
            i = 1;
            j = 1;
            row[0] = -1;
            phase = FILL;
          end
        end else if (phase == READ_A) begin
          seq_a[len_a] = c;
          len_a = len_a + 1;
        end else begin
          seq_b[len_b] = c;
          len_b = len_b + 1;
        end
      end
      FILL: begin
        diag = prev_row[j - 1] + (seq_a[i - 1] == seq_b[j - 1] ? 1 : -1);
        up = prev_row[j] - 1;
        left = row[j - 1] - 1;
        best = diag;
        if (up > best) best = up;
        if (left > best) best = left;
        row[j] = best;
        if (j == len_b) begin
          if (i == len_a) begin
            pairs = pairs + 1;
            $write("pair %0d: ", pairs);
            for (k = 0; k < len_a; k = k + 1) $write("%c", seq_a[k]);
            $write(" / ");
            for (k = 0; k < len_b; k = k + 1) $write("%c", seq_b[k]);
            $display(" score %0d", best);
            len_a = 0;
            len_b = 0;
            phase = READ_A;
          end else begin
            for (k = 0; k <= MAXLEN; k = k + 1) prev_row[k] = row[k];
            i = i + 1;
            j = 1;
            row[0] = -i;
          end
        end else
          j = j + 1;
      end
      default: phase = READ_A;
    endcase
  end
endmodule
