// User names reach the emitted Verilog only through our mangling, and string
// constants only as hex numbers: escaped identifiers spelling a keyword, a
// comment, a directive or a $c call, and a string holding such text, come
// out as plain identifiers and numbers. So synergy-run's check accepts the
// engine, and it prints exactly what vvp prints.
// REQUIRES: iverilog
// RUN: rm -rf %t && mkdir -p %t
// RUN: iverilog -o %t/tb.vvp %s && vvp -n %t/tb.vvp > %t/vvp.out
// RUN: FileCheck %s < %t/vvp.out
// RUN: %synergy-cc %s -o %t/tb.eng
// RUN: %synergy-run --engine compiled %t/tb.eng > %t/synergy.out
// RUN: FileCheck %s < %t/synergy.out
// CHECK: 3 */ $c("boom") `include 7 5
module \top*/ ;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] \begin = 0;
  reg [7:0] \x*/$c("boom") = 7;
  reg [22*8:1] \import"DPI-C" ;
  \sub/*x \inst*/ ();
  always @(posedge clock) begin
    \begin <= \begin + 1;
    \import"DPI-C" = "*/ $c(\"boom\") `include";
    if (\begin == 3) begin
      $display("%0d %0s %0d %0d", \begin , \import"DPI-C" , \x*/$c("boom") , \inst*/ .\end );
      $finish;
    end
  end
endmodule

module \sub/*x ;
  reg [7:0] \end = 5;
endmodule
