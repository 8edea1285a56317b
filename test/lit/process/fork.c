// fork() in a process granule, differential against the same source built
// natively: the child runs from a copy of the parent's memory (a global, a
// deep stack and stdio's unflushed buffer, which natively is copied too),
// shares its open files' offsets, and its exit status, a nested fork's and
// an abort's reach waitpid as Linux encodes them. Every parent waits before
// it writes again, so the output's order is fixed.
// RUN: rm -rf %t.dir %t.native-dir && mkdir -p %t.dir %t.native-dir
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run --dir %t.dir:/data %t.wasm /data > %t.out 2> %t.err
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %t.native %t.native-dir > %t.native.out
// RUN: diff %t.native.out %t.out
// RUN: diff %t.native-dir/shared.txt %t.dir/shared.txt
// RUN: FileCheck %s < %t.out
// The child that aborts traps, and says so as synergy-run does:
// RUN: FileCheck %s --check-prefix=TRAP < %t.err
// CHECK: before fork, buffered
// CHECK: child: counter 42
// CHECK: before fork, buffered
// CHECK: parent: child 1 exited 7, counter still 41
// CHECK: depth 40 child sum
// CHECK: nested: grandchild exited 3, child exited 13
// CHECK: ids: child's parent is the parent, child's id differs
// CHECK: children: 4 reaped, statuses sum 10
// CHECK: aborted child: signalled 1 signal 6
// CHECK: no child: errno ECHILD 1
// CHECK: file: 'Achildparent'
// TRAP: trap: unreachable
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int counter = 41;

static pid_t waitOrDie(pid_t pid, int* status) {
  pid_t got = waitpid(pid, status, 0);
  if (got != pid) {
    printf("waitpid(%d) gave %d, errno %d\n", (int)pid, (int)got, errno);
    exit(1);
  }
  return got;
}

// Forks at the bottom of `depth` frames, each with its own array on the
// stack; both sides then sum the arrays on their way back up, so the child
// needs every frame of the copied stack.
static long forkDeep(int depth, pid_t* child) {
  volatile int frame[64];
  for (int i = 0; i < 64; ++i) frame[i] = depth * 64 + i;
  long sum = 0;
  if (depth == 0) {
    *child = fork();
  } else {
    sum = forkDeep(depth - 1, child);
  }
  for (int i = 0; i < 64; ++i) sum += frame[i];
  return sum;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  setvbuf(stdout, NULL, _IOFBF, 4096);  // a file's buffering, wherever stdout goes

  // 1. The child gets a copy of memory, stdio's buffer included.
  printf("before fork, buffered\n");
  pid_t child = fork();
  if (child == 0) {
    ++counter;
    printf("child: counter %d\n", counter);
    exit(7);
  }
  int status = 0;
  waitOrDie(child, &status);
  printf("parent: child %d exited %d, counter still %d\n", child > 0,
         WIFEXITED(status) ? WEXITSTATUS(status) : -1, counter);
  fflush(stdout);

  // 2. A fork at the bottom of a deep stack.
  pid_t deepChild = -1;
  long sum = forkDeep(40, &deepChild);
  if (deepChild == 0) {
    printf("depth 40 child sum %ld\n", sum);
    fflush(stdout);
    _exit(0);
  }
  waitOrDie(deepChild, &status);
  printf("depth 40 parent sum %ld, child status %d\n", sum, status);
  fflush(stdout);

  // 3. A child that forks and waits too.
  child = fork();
  if (child == 0) {
    pid_t grandchild = fork();
    if (grandchild == 0) _exit(3);
    int inner = 0;
    waitOrDie(grandchild, &inner);
    printf("nested: grandchild exited %d, ", WEXITSTATUS(inner));
    fflush(stdout);
    _exit(10 + WEXITSTATUS(inner));
  }
  waitOrDie(child, &status);
  printf("child exited %d\n", WEXITSTATUS(status));

  // 4. Process ids.
  pid_t parentId = getpid();
  child = fork();
  if (child == 0) _exit(getppid() == parentId && getpid() != parentId ? 0 : 1);
  waitOrDie(child, &status);
  printf("ids: %s\n", WEXITSTATUS(status) == 0 ? "child's parent is the parent, child's id differs"
                                                : "wrong");
  fflush(stdout);

  // 5. Several children at once, reaped in any order by wait().
  for (int i = 1; i <= 4; ++i)
    if (fork() == 0) _exit(i);
  int reaped = 0, statusSum = 0;
  while (wait(&status) > 0) {
    ++reaped;
    statusSum += WEXITSTATUS(status);
  }
  printf("children: %d reaped, statuses sum %d\n", reaped, statusSum);

  // 6. A child that aborts is reported as killed by SIGABRT.
  fflush(stdout);
  child = fork();
  if (child == 0) abort();
  waitOrDie(child, &status);
  printf("aborted child: signalled %d signal %d\n", WIFSIGNALED(status), WTERMSIG(status));

  // 7. Nothing left to wait for.
  errno = 0;
  pid_t none = wait(&status);
  printf("no child: errno ECHILD %d\n", none == -1 && errno == ECHILD);
  fflush(stdout);

  // 8. Parent and child write one file through the same descriptor, whose
  //    offset they share.
  char path[4096];
  snprintf(path, sizeof path, "%s/shared.txt", argv[1]);
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return 3;
  if (write(fd, "A", 1) != 1) return 4;
  child = fork();
  if (child == 0) _exit(write(fd, "child", 5) == 5 ? 0 : 1);
  waitOrDie(child, &status);
  if (write(fd, "parent", 6) != 6) return 5;
  close(fd);
  char text[64] = {0};
  fd = open(path, O_RDONLY);
  if (fd < 0 || read(fd, text, sizeof text - 1) < 0) return 6;
  close(fd);
  printf("file: '%s'\n", text);
  return 0;
}
