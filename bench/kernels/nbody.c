/*===- nbody.c - all-pairs gravitational n-body ----------------------------===*
 *
 * Leapfrog-style time steps of an all-pairs n-body system with softening.
 * The inner loop is scalar floating-point work dominated by sqrt and
 * division (a strict reduction, so neither target vectorizes it): it
 * measures plain code generation quality rather than memory access. sqrt
 * is a single IEEE instruction on both targets and no other libm call is
 * used, so the positions match bit for bit.
 *
 * Usage: nbody [bodies]   (default 2000 bodies, 60 steps)
 *
 *===----------------------------------------------------------------------===*/
#include <math.h>

#include "kernel_support.h"

enum { STEPS = 60 };

typedef struct {
  long count;
  double *x, *y, *z;
  double *vx, *vy, *vz;
  double *mass;
} Bodies;

static void step(Bodies *b, double dt) {
  const double softening = 1e-3;
  const long n = b->count;
  double *restrict x = b->x, *restrict y = b->y, *restrict z = b->z;
  double *restrict vx = b->vx, *restrict vy = b->vy, *restrict vz = b->vz;
  const double *restrict mass = b->mass;
  for (long i = 0; i < n; ++i) {
    const double xi = x[i], yi = y[i], zi = z[i];
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (long j = 0; j < n; ++j) {
      const double dx = x[j] - xi;
      const double dy = y[j] - yi;
      const double dz = z[j] - zi;
      const double r2 = dx * dx + dy * dy + dz * dz + softening;
      const double inv_r3 = 1.0 / (r2 * sqrt(r2));
      const double s = mass[j] * inv_r3;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    vx[i] += dt * ax;
    vy[i] += dt * ay;
    vz[i] += dt * az;
  }
  for (long i = 0; i < n; ++i) {
    x[i] += dt * vx[i];
    y[i] += dt * vy[i];
    z[i] += dt * vz[i];
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 2000);
  const size_t bytes = (size_t)n * sizeof(double);
  Bodies b = {n,
              kernel_alloc(bytes), kernel_alloc(bytes), kernel_alloc(bytes),
              kernel_alloc(bytes), kernel_alloc(bytes), kernel_alloc(bytes),
              kernel_alloc(bytes)};
  KernelRng rng = {314159};
  for (long i = 0; i < n; ++i) {
    b.x[i] = kernel_rng_unit(&rng) * 2.0 - 1.0;
    b.y[i] = kernel_rng_unit(&rng) * 2.0 - 1.0;
    b.z[i] = kernel_rng_unit(&rng) * 2.0 - 1.0;
    b.vx[i] = 0.0;
    b.vy[i] = 0.0;
    b.vz[i] = 0.0;
    b.mass[i] = (kernel_rng_unit(&rng) + 0.5) / (double)n;
  }

  KernelTimer timer = kernel_timer_start();
  for (int s = 0; s < STEPS; ++s) {
    step(&b, 1e-3);
    kernel_round_end(&timer, 1);
  }

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, b.x, bytes);
  kernel_checksum_bytes(&sum, b.y, bytes);
  kernel_checksum_bytes(&sum, b.z, bytes);
  kernel_checksum_bytes(&sum, b.vx, bytes);
  kernel_checksum_bytes(&sum, b.vy, bytes);
  kernel_checksum_bytes(&sum, b.vz, bytes);
  printf("kernel nbody bodies=%ld steps=%d\n", n, STEPS);
  kernel_report(&sum, &timer);
  free(b.x);
  free(b.y);
  free(b.z);
  free(b.vx);
  free(b.vy);
  free(b.vz);
  free(b.mass);
  return 0;
}
