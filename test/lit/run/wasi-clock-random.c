// Clocks and randomness: plausible values, never a timing threshold.
// Realtime is after 2020, monotonic never goes back, CPU clocks exist,
// resolutions are non-zero, an unknown clock is EINVAL, and random_get fills
// buffers (large ones too) with bytes that differ between calls.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run %t.wasm | FileCheck %s
// CHECK: realtime after 2020: yes
// CHECK-NEXT: time() agrees with realtime: yes
// CHECK-NEXT: monotonic non-decreasing: yes
// CHECK-NEXT: process cputime: ok
// CHECK-NEXT: thread cputime: ok
// CHECK-NEXT: resolutions non-zero: yes
// CHECK-NEXT: unknown clock: EINVAL
// CHECK-NEXT: getentropy: ok
// CHECK-NEXT: two draws differ: yes
// CHECK-NEXT: large buffer has many distinct bytes: yes
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

static unsigned char big[1 << 20];

int main(void) {
  struct timespec real, res;
  clock_gettime(CLOCK_REALTIME, &real);
  printf("realtime after 2020: %s\n", real.tv_sec > 1577836800 ? "yes" : "no");
  time_t now = time(NULL);
  printf("time() agrees with realtime: %s\n", now - real.tv_sec <= 5 && now >= real.tv_sec ? "yes" : "no");

  int monotonic = 1;
  struct timespec previous, current;
  clock_gettime(CLOCK_MONOTONIC, &previous);
  for (int i = 0; i < 1000; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &current);
    if (current.tv_sec < previous.tv_sec ||
        (current.tv_sec == previous.tv_sec && current.tv_nsec < previous.tv_nsec))
      monotonic = 0;
    previous = current;
  }
  printf("monotonic non-decreasing: %s\n", monotonic ? "yes" : "no");

  __wasi_timestamp_t t;
  printf("process cputime: %s\n",
         __wasi_clock_time_get(__WASI_CLOCKID_PROCESS_CPUTIME_ID, 1, &t) == 0 ? "ok" : "failed");
  printf("thread cputime: %s\n",
         __wasi_clock_time_get(__WASI_CLOCKID_THREAD_CPUTIME_ID, 1, &t) == 0 ? "ok" : "failed");
  int nonZero = 1;
  for (__wasi_clockid_t id = 0; id < 4; ++id) {
    __wasi_timestamp_t resolution = 0;
    if (__wasi_clock_res_get(id, &resolution) != 0 || resolution == 0) nonZero = 0;
  }
  clock_getres(CLOCK_MONOTONIC, &res);
  if (res.tv_sec == 0 && res.tv_nsec == 0) nonZero = 0;
  printf("resolutions non-zero: %s\n", nonZero ? "yes" : "no");
  printf("unknown clock: %s\n", __wasi_clock_time_get(99, 1, &t) == __WASI_ERRNO_INVAL ? "EINVAL" : "other");

  unsigned char a[32] = {0}, b[32] = {0};
  printf("getentropy: %s\n", getentropy(a, sizeof a) == 0 ? "ok" : strerror(errno));
  getentropy(b, sizeof b);
  printf("two draws differ: %s\n", memcmp(a, b, sizeof a) ? "yes" : "no");

  (void)__wasi_random_get(big, sizeof big);
  int present[256] = {0}, distinct = 0;
  for (size_t i = 0; i < sizeof big; ++i) present[big[i]] = 1;
  for (int i = 0; i < 256; ++i) distinct += present[i];
  printf("large buffer has many distinct bytes: %s\n", distinct > 200 ? "yes" : "no");
  return 0;
}
