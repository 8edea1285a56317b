// Bitcoin-style proof of work: search for a nonce whose double SHA-256 over
// an 80-byte header (19 fixed big-endian words plus the nonce word) starts
// with DIFFICULTY zero bits. The SHA-256 core runs one round per clock tick;
// one nonce takes three compressions (two blocks of the header, one block of
// the first digest).
// SAVE-AT-TICK: 16000 (the split run in test/verilog/run_differential.py --save-restart)
module tb;
  reg clock = 0;
  always #1 clock = ~clock;

  parameter DIFFICULTY = 10;
  parameter FIRST_NONCE = 400;
  parameter MAX_NONCES = 2000;

  reg [31:0] k [0:63];
  reg [31:0] header [0:19];
  reg [31:0] w [0:15];
  reg [31:0] a, b, c, d, e, f, g, h;
  reg [255:0] chain, first_digest;
  reg [6:0] round;
  reg [1:0] phase;  // 0: header block 1, 1: header block 2, 2: digest block
  reg [31:0] nonce = FIRST_NONCE;
  reg [31:0] tried = 0;
  integer i;

  localparam [255:0] IV = {32'h6a09e667, 32'hbb67ae85, 32'h3c6ef372, 32'ha54ff53a,
                           32'h510e527f, 32'h9b05688c, 32'h1f83d9ab, 32'h5be0cd19};

  function [31:0] rotr(input [31:0] x, input [4:0] n);
    rotr = (x >> n) | (x << (32 - n));
  endfunction

  // Loads message block `which` of the current nonce into w and the working
  // variables from `start`.
  task load_block(input [1:0] which, input [255:0] start);
    integer j;
    begin
      for (j = 0; j < 16; j = j + 1) begin
        case (which)
          2'd0: w[j] = header[j];
          2'd1: w[j] = j < 4 ? (j == 3 ? nonce : header[16 + j]) : j == 4 ? 32'h80000000 : j == 15 ? 32'd640 : 32'd0;
          default: w[j] = j < 8 ? first_digest[255 - 32 * j -: 32] : j == 8 ? 32'h80000000 : j == 15 ? 32'd256 : 32'd0;
        endcase
      end
      {a, b, c, d, e, f, g, h} = start;
      chain = start;
      round = 0;
      phase = which;
    end
  endtask

  reg [31:0] s0, s1, ch, maj, t1, t2, wt, next_w;
  initial begin
    k[0] = 32'h428a2f98; k[1] = 32'h71374491; k[2] = 32'hb5c0fbcf; k[3] = 32'he9b5dba5;
    k[4] = 32'h3956c25b; k[5] = 32'h59f111f1; k[6] = 32'h923f82a4; k[7] = 32'hab1c5ed5;
    k[8] = 32'hd807aa98; k[9] = 32'h12835b01; k[10] = 32'h243185be; k[11] = 32'h550c7dc3;
    k[12] = 32'h72be5d74; k[13] = 32'h80deb1fe; k[14] = 32'h9bdc06a7; k[15] = 32'hc19bf174;
    k[16] = 32'he49b69c1; k[17] = 32'hefbe4786; k[18] = 32'h0fc19dc6; k[19] = 32'h240ca1cc;
    k[20] = 32'h2de92c6f; k[21] = 32'h4a7484aa; k[22] = 32'h5cb0a9dc; k[23] = 32'h76f988da;
    k[24] = 32'h983e5152; k[25] = 32'ha831c66d; k[26] = 32'hb00327c8; k[27] = 32'hbf597fc7;
    k[28] = 32'hc6e00bf3; k[29] = 32'hd5a79147; k[30] = 32'h06ca6351; k[31] = 32'h14292967;
    k[32] = 32'h27b70a85; k[33] = 32'h2e1b2138; k[34] = 32'h4d2c6dfc; k[35] = 32'h53380d13;
    k[36] = 32'h650a7354; k[37] = 32'h766a0abb; k[38] = 32'h81c2c92e; k[39] = 32'h92722c85;
    k[40] = 32'ha2bfe8a1; k[41] = 32'ha81a664b; k[42] = 32'hc24b8b70; k[43] = 32'hc76c51a3;
    k[44] = 32'hd192e819; k[45] = 32'hd6990624; k[46] = 32'hf40e3585; k[47] = 32'h106aa070;
    k[48] = 32'h19a4c116; k[49] = 32'h1e376c08; k[50] = 32'h2748774c; k[51] = 32'h34b0bcb5;
    k[52] = 32'h391c0cb3; k[53] = 32'h4ed8aa4a; k[54] = 32'h5b9cca4f; k[55] = 32'h682e6ff3;
    k[56] = 32'h748f82ee; k[57] = 32'h78a5636f; k[58] = 32'h84c87814; k[59] = 32'h8cc70208;
    k[60] = 32'h90befffa; k[61] = 32'ha4506ceb; k[62] = 32'hbef9a3f7; k[63] = 32'hc67178f2;
    header[0] = 32'h01000000;
    for (i = 1; i < 19; i = i + 1) header[i] = 32'h11111111 * ((i - 1) % 15 + 1);
    header[19] = 0;
    load_block(0, IV);
    $display("searching from nonce %0d for %0d leading zero bits", nonce, DIFFICULTY);
  end

  always @(posedge clock) begin
    if (round < 64) begin
      // One SHA-256 round; w is a 16-entry rolling message schedule.
      wt = w[0];
      s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      ch = (e & f) ^ (~e & g);
      t1 = h + s1 + ch + k[round] + wt;
      s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      maj = (a & b) ^ (a & c) ^ (b & c);
      t2 = s0 + maj;
      {a, b, c, d, e, f, g, h} = {t1 + t2, a, b, c, d + t1, e, f, g};
      next_w = (rotr(w[14], 17) ^ rotr(w[14], 19) ^ (w[14] >> 10)) + w[9] +
               (rotr(w[1], 7) ^ rotr(w[1], 18) ^ (w[1] >> 3)) + w[0];
      for (i = 0; i < 15; i = i + 1) w[i] = w[i + 1];
      w[15] = next_w;
      round = round + 1;
    end else begin
      chain = {chain[255:224] + a, chain[223:192] + b, chain[191:160] + c, chain[159:128] + d,
               chain[127:96] + e, chain[95:64] + f, chain[63:32] + g, chain[31:0] + h};
      case (phase)
        2'd0: load_block(1, chain);
        2'd1: begin first_digest = chain; load_block(2, IV); end
        default: begin
          tried = tried + 1;
          if (chain[255 -: DIFFICULTY] == 0) begin
            $display("nonce %0d hash %h", nonce, chain);
            $display("tried %0d nonces", tried);
            $finish;
          end else if (tried == MAX_NONCES) begin
            $display("no nonce found in %0d tries", tried);
            $finish;
          end
          nonce = nonce + 1;
          load_block(0, IV);
        end
      endcase
    end
  end
endmodule
