// A -pthread program that uses opendir and fcntl links and runs: both reach
// errno (opendir in libc, fcntl through guestlib/FileLocks.c), which once
// failed to link in threaded builds. A second thread lists a directory,
// takes and queries a record lock, and reads back errors from a missing
// directory and a bad descriptor; the output is compared with native clang's.
// The granted directory is unchanged afterwards.
// RUN: rm -rf %t && mkdir -p %t/data/sub
// RUN: printf abc > %t/data/b.txt && printf xyz > %t/data/a.txt
// RUN: %host-clang -O2 -pthread %s -o %t/native
// RUN: %t/native %t/data > %t/expected
// RUN: FileCheck %s < %t/expected
// RUN: %synergy-cc -O2 -pthread %s -o %t/prog.wasm
// RUN: %synergy-run --dir %t/data:/data %t/prog.wasm /data > %t/granule
// RUN: diff %t/expected %t/granule
// RUN: %synergy-run --dsm --dir %t/data:/data %t/prog.wasm /data > %t/granule-dsm
// RUN: diff %t/expected %t/granule-dsm
// RUN: ls %t/data | FileCheck %s --check-prefix=FILES
// CHECK: entries: a.txt b.txt sub
// CHECK-NEXT: missing directory: NULL ENOENT
// CHECK-NEXT: write lock: 0
// CHECK-NEXT: lock type seen by its holder: unlocked
// CHECK-NEXT: getfl: read-write
// CHECK-NEXT: bad descriptor: -1 EBADF
// CHECK-NEXT: main errno: 0
// FILES: a.txt
// FILES-NEXT: b.txt
// FILES-NEXT: sub
// FILES-NOT: {{.}}
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* directory;

static const char* errnoName(int value) {
  switch (value) {
    case ENOENT: return "ENOENT";
    case EBADF: return "EBADF";
    case 0: return "0";
    default: return "other";
  }
}

static int compareNames(const void* left, const void* right) {
  return strcmp(*(char* const*)left, *(char* const*)right);
}

static void listDirectory(void) {
  DIR* dir = opendir(directory);
  if (!dir) {
    printf("opendir failed: %s\n", errnoName(errno));
    return;
  }
  char* names[16];
  int count = 0;
  struct dirent* entry;
  while ((entry = readdir(dir)) && count < 16)
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
      names[count++] = strdup(entry->d_name);
  closedir(dir);
  qsort(names, count, sizeof names[0], compareNames);
  printf("entries:");
  for (int i = 0; i < count; ++i) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf("\n");

  char missing[512];
  snprintf(missing, sizeof missing, "%s/no-such-directory", directory);
  errno = 0;
  DIR* none = opendir(missing);
  printf("missing directory: %s %s\n", none ? "opened" : "NULL", errnoName(errno));
}

static void lockFile(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/a.txt", directory);
  int fd = open(path, O_RDWR);
  if (fd < 0) {
    printf("open failed: %s\n", errnoName(errno));
    return;
  }
  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 2};
  printf("write lock: %d\n", fcntl(fd, F_SETLK, &lock));
  // POSIX: F_GETLK reports no conflict with the caller's own locks.
  struct flock query = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 2};
  fcntl(fd, F_GETLK, &query);
  printf("lock type seen by its holder: %s\n", query.l_type == F_UNLCK ? "unlocked" : "locked");
  int flags = fcntl(fd, F_GETFL);
  printf("getfl: %s\n", (flags & O_ACCMODE) == O_RDWR ? "read-write" : "other");
  close(fd);
  errno = 0;
  int bad = fcntl(fd, F_GETFL);
  printf("bad descriptor: %d %s\n", bad, errnoName(errno));
}

static void* threadMain(void* unused) {
  (void)unused;
  listDirectory();
  lockFile();
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) return 1;
  directory = argv[1];
  errno = 0;
  pthread_t thread;
  if (pthread_create(&thread, NULL, threadMain, NULL) != 0) return 1;
  pthread_join(thread, NULL);
  printf("main errno: %s\n", errnoName(errno));
  return 0;
}
