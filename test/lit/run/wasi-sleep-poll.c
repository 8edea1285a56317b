// Waiting: nanosleep, usleep and poll() timeouts are clock
// subscriptions to poll_oneoff; they must wait at least as long as asked
// (a lower bound, which no scheduler can break). poll() on a piped stdin is
// an fd subscription that reports the data as readable.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: echo "from the pipe" | %synergy-run %t.wasm | FileCheck %s
// CHECK: nanosleep 30ms: rc=0 waited enough: yes
// CHECK-NEXT: usleep 20ms: waited enough: yes
// CHECK-NEXT: poll timeout 25ms: rc=0 waited enough: yes
// CHECK-NEXT: sched_yield: 0
// CHECK-NEXT: stdin readable: rc=1 POLLIN=yes
// CHECK-NEXT: read: from the pipe
// CHECK-NEXT: raw poll_oneoff, clock and bad fd: 2 events, bad fd EBADF, clock fired
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wasi/api.h>

static long long nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void) {
  long long start = nowNs();
  struct timespec wait = {0, 30 * 1000000};
  int rc = nanosleep(&wait, NULL);
  printf("nanosleep 30ms: rc=%d waited enough: %s\n", rc, nowNs() - start >= 30000000 ? "yes" : "no");

  start = nowNs();
  usleep(20000);
  printf("usleep 20ms: waited enough: %s\n", nowNs() - start >= 20000000 ? "yes" : "no");

  start = nowNs();
  rc = poll(NULL, 0, 25);
  printf("poll timeout 25ms: rc=%d waited enough: %s\n", rc, nowNs() - start >= 25000000 ? "yes" : "no");
  printf("sched_yield: %d\n", sched_yield());

  struct pollfd in = {.fd = 0, .events = POLLIN};
  rc = poll(&in, 1, 5000);
  printf("stdin readable: rc=%d POLLIN=%s\n", rc, (in.revents & POLLIN) ? "yes" : "no");
  char line[64] = {0};
  fgets(line, sizeof line, stdin);
  printf("read: %s", line);

  __wasi_subscription_t subs[2];
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 11;
  subs[0].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[0].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[0].u.u.clock.timeout = 0;
  subs[1].userdata = 22;
  subs[1].u.tag = __WASI_EVENTTYPE_FD_READ;
  subs[1].u.u.fd_read.file_descriptor = 1234;
  __wasi_event_t events[2];
  __wasi_size_t count = 0;
  (void)__wasi_poll_oneoff(subs, events, 2, &count);
  int badFd = 0, clockFired = 0;
  for (__wasi_size_t i = 0; i < count; ++i) {
    if (events[i].userdata == 22 && events[i].error == __WASI_ERRNO_BADF) badFd = 1;
    if (events[i].userdata == 11 && events[i].error == 0 && events[i].type == __WASI_EVENTTYPE_CLOCK)
      clockFired = 1;
  }
  printf("raw poll_oneoff, clock and bad fd: %u events, bad fd %s, clock %s\n", count,
         badFd ? "EBADF" : "?", clockFired ? "fired" : "pending");
  return 0;
}
