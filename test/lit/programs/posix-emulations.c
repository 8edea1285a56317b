// Differential: a program that uses signals, process clocks, mmap and getpid
// compiles with synergy-cc exactly as with cc (no -D_WASI_EMULATED_* and no
// -lwasi-emulated-* flags) and prints the same as natively.
// RUN: %host-clang -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// CHECK: signal: handler ran for SIGUSR1 (count 1), SIG_IGN ignored SIGUSR2
// CHECK-NEXT: clock: clock() ok, times() ok, getrusage() ok
// CHECK-NEXT: mmap: 262144 bytes, sum 8761699860480, munmap 0
// CHECK-NEXT: getpid: positive, stable
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void onSignal(int number) {
  if (number == SIGUSR1) ++handled;
}

static void checkSignals(void) {
  signal(SIGUSR1, onSignal);
  raise(SIGUSR1);
  signal(SIGUSR2, SIG_IGN);
  raise(SIGUSR2);
  printf("signal: handler ran for SIGUSR1 (count %d), SIG_IGN ignored SIGUSR2\n", (int)handled);
}

static void checkClocks(void) {
  volatile double work = 0;
  for (int i = 0; i < 100000; ++i) work += i * 0.5;
  clock_t cpu = clock();
  struct tms buffer;
  clock_t ticks = times(&buffer);
  struct rusage usage;
  int rusage = getrusage(RUSAGE_SELF, &usage);
  printf("clock: clock() %s, times() %s, getrusage() %s\n", cpu != (clock_t)-1 ? "ok" : "failed",
         ticks != (clock_t)-1 ? "ok" : "failed",
         rusage == 0 && usage.ru_utime.tv_sec >= 0 ? "ok" : "failed");
}

static void checkMmap(void) {
  size_t length = 256 * 1024;
  unsigned char* bytes = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (bytes == MAP_FAILED) {
    printf("mmap: failed\n");
    return;
  }
  // Anonymous mappings start zeroed.
  unsigned long long sum = 0;
  for (size_t i = 0; i < length; ++i) sum += bytes[i];
  memset(bytes, 0xff, length);
  for (size_t i = 0; i < length; ++i) sum += (unsigned long long)bytes[i] * i;
  printf("mmap: %zu bytes, sum %llu, munmap %d\n", length, sum, munmap(bytes, length));
}

int main(void) {
  checkSignals();
  checkClocks();
  checkMmap();
  pid_t pid = getpid();
  printf("getpid: %s, %s\n", pid > 0 ? "positive" : "not positive",
         getpid() == pid ? "stable" : "unstable");
  return 0;
}
