// Differential: printf of floats in every conversion, and libm, match native.
// RUN: %host-clang -O2 -ffp-contract=off %s -o %t.native -lm && %t.native > %t.expected
// RUN: %synergy-cc -O2 -ffp-contract=off %s -o %t.wasm -lm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// CHECK: pi %f=3.141593 %e=3.141593e+00 %g=3.14159 %.10f=3.1415926536
// CHECK: sqrt(2)=1.41421356237309515
#include <float.h>
#include <math.h>
#include <stdio.h>

int main(void) {
  double pi = acos(-1.0);
  printf("pi %%f=%f %%e=%e %%g=%g %%.10f=%.10f\n", pi, pi, pi, pi);
  printf("sqrt(2)=%.18g\n", sqrt(2.0));
  printf("widths [%10.3f] [%-10.2e] [%+g] [%08.3f]\n", pi, -pi, 1e-5, -2.5);
  printf("extremes %g %g %g %e\n", DBL_MAX, DBL_MIN, 1.0 / 3.0, 6.02214076e23);
  printf("float %f %a\n", (double)3.14159265f, 1.0);
  printf("special %f %f %f\n", INFINITY, -INFINITY, NAN);
  for (int i = -3; i <= 3; ++i) {
    double x = i * 0.75;
    printf("x=%+.2f exp=%.15g log1p=%.15g sin=%.15g cos=%.15g tanh=%.15g cbrt=%.15g\n", x, exp(x),
           log1p(fabs(x)), sin(x), cos(x), tanh(x), cbrt(x));
  }
  printf("pow=%.17g atan2=%.17g hypot=%.17g fmod=%.17g\n", pow(1.0001, 10000.0), atan2(1.0, -2.0),
         hypot(3e200, 4e200), fmod(10.5, 3.25));
  printf("round %.1f %.1f %.1f %.1f\n", round(2.5), floor(-2.5), ceil(-2.5), trunc(-2.7));
  float f = 0.1f;
  double sum = 0;
  for (int i = 0; i < 1000; ++i) sum += f;
  printf("sum %.12f\n", sum);
  return 0;
}
