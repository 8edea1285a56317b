// fcntl record locks (SQLite's unix VFS locking) on a granted directory work
// as natively: the same program, built natively and as a granule, runs while
// another process holds a write lock on bytes [0,10) of the file and while
// nobody does, and prints the same. The granule sees the other process's lock
// (F_GETLK) and is refused it (F_SETLK); nothing is a disk I/O error (EIO).
// The holder is python3's fcntl.lockf, a plain F_SETLK.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && printf 0123456789abcdef > %t.dir/db
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %t.native %t.dir/db > %t.native-free
// RUN: %synergy-run --dir %t.dir:/data %t.wasm /data/db > %t.granule-free
// RUN: diff %t.native-free %t.granule-free
// RUN: FileCheck %s --check-prefix=FREE < %t.granule-free
// RUN: python3 %S/Inputs/hold-write-lock.py %t.dir/db %t.native %t.dir/db > %t.native-held
// RUN: python3 %S/Inputs/hold-write-lock.py %t.dir/db %synergy-run --dir %t.dir:/data %t.wasm /data/db > %t.granule-held
// RUN: diff %t.native-held %t.granule-held
// RUN: FileCheck %s --check-prefix=HELD < %t.granule-held
// FREE: F_GETLK write [0,10): free
// FREE-NEXT: F_SETLK write [0,10): ok
// FREE-NEXT: F_GETLK on a second descriptor: free (locks belong to the process)
// FREE-NEXT: F_SETLK read [12,4): ok
// FREE-NEXT: F_SETLK unlock [0,0): ok
// FREE-NEXT: F_SETLK bad type: EINVAL
// FREE-NEXT: F_SETLK bad fd: EBADF
// HELD: F_GETLK write [0,10): held by another process: write lock on [0,10)
// HELD-NEXT: F_SETLK write [0,10): busy
// HELD-NEXT: F_GETLK on a second descriptor: held by another process
// HELD-NEXT: F_SETLK read [12,4): ok
// HELD-NEXT: F_SETLK unlock [0,0): ok
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static int setLock(int fd, int command, short type, off_t start, off_t length) {
  struct flock lock = {0};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = start;
  lock.l_len = length;
  return fcntl(fd, command, &lock);
}

static const char* outcome(int result) {
  if (result == 0) return "ok";
  if (errno == EAGAIN || errno == EACCES) return "busy";
  if (errno == EINVAL) return "EINVAL";
  if (errno == EBADF) return "EBADF";
  if (errno == EIO) return "EIO";
  return "other error";
}

static void describeHolder(int fd, int first, const char* what) {
  struct flock probe = {0};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0;
  probe.l_len = 10;
  if (fcntl(fd, F_GETLK, &probe) != 0) {
    printf("%s: %s\n", what, outcome(-1));
  } else if (probe.l_type == F_UNLCK) {
    printf("%s: free%s\n", what, first ? "" : " (locks belong to the process)");
  } else if (first) {
    printf("%s: held by another process: %s lock on [%lld,%lld)\n", what,
           probe.l_type == F_WRLCK ? "write" : "read", (long long)probe.l_start,
           (long long)(probe.l_start + probe.l_len));
  } else {
    printf("%s: held by another process\n", what);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int fd = open(argv[1], O_RDWR);
  if (fd < 0) {
    printf("open: %s\n", outcome(-1));
    return 1;
  }
  describeHolder(fd, 1, "F_GETLK write [0,10)");
  int held = setLock(fd, F_SETLK, F_WRLCK, 0, 10);
  printf("F_SETLK write [0,10): %s\n", outcome(held));
  int second = open(argv[1], O_RDONLY);
  describeHolder(second, 0, "F_GETLK on a second descriptor");
  printf("F_SETLK read [12,4): %s\n", outcome(setLock(fd, F_SETLK, F_RDLCK, 12, 4)));
  printf("F_SETLK unlock [0,0): %s\n", outcome(setLock(fd, F_SETLK, F_UNLCK, 0, 0)));
  if (held == 0) {
    printf("F_SETLK bad type: %s\n", outcome(setLock(fd, F_SETLK, 7, 0, 1)));
    printf("F_SETLK bad fd: %s\n", outcome(setLock(99, F_SETLK, F_RDLCK, 0, 1)));
  }
  close(second);
  close(fd);
  return 0;
}
