// IMA-ADPCM: encode 16-bit samples streamed from a file (one $fread per
// tick) into 4-bit codes written to codes.bin, then stream the codes back
// ($fgetc per tick), decode them, and report the reconstruction error.
// SAVE-AT-TICK: 80 (the split run in test/verilog/run_differential.py --save-restart)
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  localparam ENCODE = 0, DECODE = 1;
  reg [15:0] steps [0:88];
  reg signed [15:0] originals [0:255];
  reg phase = ENCODE;
  integer in_fd, out_fd, code_fd, got, c, count = 0, decoded = 0, checksum = 0, max_error = 0, error;
  reg [15:0] raw;

  // Predictor state of the encoder and of the decoder.
  integer enc_predicted = 0, enc_index = 0, dec_predicted = 0, dec_index = 0;
  integer diff, step, vpdiff;
  reg [3:0] code;

  function integer index_delta(input [2:0] magnitude);
    index_delta = magnitude[2] ? 2 * magnitude[1:0] + 2 : -1;
  endfunction

  function integer clamp_sample(input integer value);
    clamp_sample = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
  endfunction

  function integer clamp_index(input integer value);
    clamp_index = value > 88 ? 88 : value < 0 ? 0 : value;
  endfunction

  initial begin
    steps[0] = 7; steps[1] = 8; steps[2] = 9; steps[3] = 10; steps[4] = 11; steps[5] = 12;
    steps[6] = 13; steps[7] = 14; steps[8] = 16; steps[9] = 17; steps[10] = 19; steps[11] = 21;
    steps[12] = 23; steps[13] = 25; steps[14] = 28; steps[15] = 31; steps[16] = 34; steps[17] = 37;
    steps[18] = 41; steps[19] = 45; steps[20] = 50; steps[21] = 55; steps[22] = 60; steps[23] = 66;
    steps[24] = 73; steps[25] = 80; steps[26] = 88; steps[27] = 97; steps[28] = 107; steps[29] = 118;
    steps[30] = 130; steps[31] = 143; steps[32] = 157; steps[33] = 173; steps[34] = 190; steps[35] = 209;
    steps[36] = 230; steps[37] = 253; steps[38] = 279; steps[39] = 307; steps[40] = 337; steps[41] = 371;
    steps[42] = 408; steps[43] = 449; steps[44] = 494; steps[45] = 544; steps[46] = 598; steps[47] = 658;
    steps[48] = 724; steps[49] = 796; steps[50] = 876; steps[51] = 963; steps[52] = 1060; steps[53] = 1166;
    steps[54] = 1282; steps[55] = 1411; steps[56] = 1552; steps[57] = 1707; steps[58] = 1878; steps[59] = 2066;
    steps[60] = 2272; steps[61] = 2499; steps[62] = 2749; steps[63] = 3024; steps[64] = 3327; steps[65] = 3660;
    steps[66] = 4026; steps[67] = 4428; steps[68] = 4871; steps[69] = 5358; steps[70] = 5894; steps[71] = 6484;
    steps[72] = 7132; steps[73] = 7845; steps[74] = 8630; steps[75] = 9493; steps[76] = 10442; steps[77] = 11487;
    steps[78] = 12635; steps[79] = 13899; steps[80] = 15289; steps[81] = 16818; steps[82] = 18500; steps[83] = 20350;
    steps[84] = 22385; steps[85] = 24623; steps[86] = 27086; steps[87] = 29794; steps[88] = 32767;
    in_fd = $fopen("samples.bin", "rb");
    out_fd = $fopen("codes.bin", "wb");
  end

  always @(posedge clock) begin
    if (phase == ENCODE) begin
      got = $fread(raw, in_fd);
      if (got < 2) begin
        $fclose(out_fd);
        $fclose(in_fd);
        code_fd = $fopen("codes.bin", "rb");
        $display("encoded %0d samples", count);
        phase = DECODE;
      end else begin
        originals[count] = raw;
        diff = $signed(raw) - enc_predicted;
        code = diff < 0 ? 4'd8 : 4'd0;
        if (diff < 0) diff = -diff;
        step = steps[enc_index];
        vpdiff = step >>> 3;
        if (diff >= step) begin code = code | 4; diff = diff - step; vpdiff = vpdiff + step; end
        step = step >>> 1;
        if (diff >= step) begin code = code | 2; diff = diff - step; vpdiff = vpdiff + step; end
        step = step >>> 1;
        if (diff >= step) begin code = code | 1; vpdiff = vpdiff + step; end
        enc_predicted = clamp_sample(code[3] ? enc_predicted - vpdiff : enc_predicted + vpdiff);
        enc_index = clamp_index(enc_index + index_delta(code[2:0]));
        $fwrite(out_fd, "%c", code);
        count = count + 1;
      end
    end else begin
      c = $fgetc(code_fd);
      if (c == -1) begin
        $display("decoded %0d codes, checksum %0d, max error %0d", decoded, checksum, max_error);
        $finish;
      end else begin
        code = c;
        checksum = checksum + code;
        step = steps[dec_index];
        vpdiff = step >>> 3;
        if (code[2]) vpdiff = vpdiff + step;
        if (code[1]) vpdiff = vpdiff + (step >>> 1);
        if (code[0]) vpdiff = vpdiff + (step >>> 2);
        dec_predicted = clamp_sample(code[3] ? dec_predicted - vpdiff : dec_predicted + vpdiff);
        dec_index = clamp_index(dec_index + index_delta(code[2:0]));
        error = dec_predicted - originals[decoded];
        if (error < 0) error = -error;
        if (error > max_error) max_error = error;
        if (decoded < 8) $display("sample %0d: original %0d decoded %0d code %h", decoded, originals[decoded], dec_predicted, code);
        decoded = decoded + 1;
      end
    end
  end
endmodule
