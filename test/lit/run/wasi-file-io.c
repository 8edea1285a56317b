// File IO through a --dir preopen: create, write, seek, read back, pread and
// pwrite, append, truncate and fstat. The host then reads the same file, so
// the guest's writes are checked against the real file system.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t.dir:/data %t.wasm > %t.out
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=HOST < %t.dir/notes.txt
// CHECK: wrote 12
// CHECK-NEXT: size 12
// CHECK-NEXT: tell after seek 6
// CHECK-NEXT: read 'world'
// CHECK-NEXT: pread 'hello'
// CHECK-NEXT: pwrite ok, offset still 11
// CHECK-NEXT: appended, size 20
// CHECK-NEXT: truncated, size 5
// CHECK-NEXT: whole 'HELLO'
// CHECK-NEXT: reopen for append: 'HELLO plus'
// CHECK-NEXT: missing: errno=ENOENT
// CHECK-NEXT: exclusive create of existing: errno=EEXIST
// HOST: HELLO plus
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* errnoName(int e) {
  return e == ENOENT ? "ENOENT" : e == EEXIST ? "EEXIST" : strerror(e);
}

static long sizeOf(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? (long)st.st_size : -1;
}

int main(void) {
  int fd = open("/data/notes.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    perror("open");
    return 1;
  }
  printf("wrote %zd\n", write(fd, "hello world\n", 12));
  printf("size %ld\n", sizeOf(fd));
  lseek(fd, 6, SEEK_SET);
  printf("tell after seek %ld\n", (long)lseek(fd, 0, SEEK_CUR));
  char buf[64] = {0};
  read(fd, buf, 5);
  printf("read '%s'\n", buf);

  memset(buf, 0, sizeof buf);
  pread(fd, buf, 5, 0);
  printf("pread '%s'\n", buf);
  pwrite(fd, "HELLO", 5, 0);
  printf("pwrite ok, offset still %ld\n", (long)lseek(fd, 0, SEEK_CUR));

  lseek(fd, 0, SEEK_END);
  write(fd, "appended", 8);
  printf("appended, size %ld\n", sizeOf(fd));
  ftruncate(fd, 5);
  printf("truncated, size %ld\n", sizeOf(fd));
  memset(buf, 0, sizeof buf);
  pread(fd, buf, sizeof buf - 1, 0);
  printf("whole '%s'\n", buf);
  close(fd);

  FILE* f = fopen("/data/notes.txt", "a");
  fputs(" plus\n", f);
  fclose(f);
  f = fopen("/data/notes.txt", "r");
  memset(buf, 0, sizeof buf);
  fgets(buf, sizeof buf, f);
  fclose(f);
  buf[strcspn(buf, "\n")] = 0;
  printf("reopen for append: '%s'\n", buf);

  errno = 0;
  if (open("/data/absent.txt", O_RDONLY) < 0) printf("missing: errno=%s\n", errnoName(errno));
  if (open("/data/notes.txt", O_WRONLY | O_CREAT | O_EXCL, 0644) < 0)
    printf("exclusive create of existing: errno=%s\n", errnoName(errno));
  return 0;
}
