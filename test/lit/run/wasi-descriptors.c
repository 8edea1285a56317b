// Descriptor-level calls: fdstat and its flags, renumbering, prestat,
// sync and advice calls, times, and the errors of misused descriptors.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t.dir:/box --dir %t.dir:/alias %t.wasm < /dev/null | FileCheck %s
// CHECK: prestat 3: /box
// CHECK-NEXT: prestat 4: /alias
// CHECK-NEXT: prestat 5: EBADF
// CHECK-NEXT: stdout is a tty: no
// CHECK-NEXT: stdin filetype: character device
// CHECK-NEXT: file filetype: regular
// CHECK-NEXT: O_RDONLY reported: yes
// CHECK-NEXT: O_WRONLY reported: yes
// CHECK-NEXT: O_APPEND after F_SETFL: yes
// CHECK-NEXT: append write lands at end: 0123456789tail
// CHECK-NEXT: fsync: 0 fdatasync: 0
// CHECK-NEXT: posix_fadvise: 0
// CHECK-NEXT: posix_fallocate to 4096: 0 size 4096
// CHECK-NEXT: futimens: 0 mtime 1000000000
// CHECK-NEXT: utimensat: 0 mtime 2000000000
// CHECK-NEXT: renumber onto open fd: 0, old fd closed: EBADF
// CHECK-NEXT: renumber content: 0123456789
// CHECK-NEXT: renumber onto closed fd: EBADF
// CHECK-NEXT: write to a read-only fd: EBADF
// CHECK-NEXT: read from a closed fd: EBADF
// CHECK-NEXT: seek on a pipe or device: ESPIPE
// CHECK-NEXT: double close: EBADF
// CHECK-NEXT: fdstat_set_rights can shrink: 0, cannot grow: ENOTCAPABLE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasi/api.h>

static const char* name(int e) {
  switch (e) {
    case 0: return "0";
    case EBADF: return "EBADF";
    case ESPIPE: return "ESPIPE";
    case ENOTCAPABLE: return "ENOTCAPABLE";
    default: return strerror(e);
  }
}

static void prestat(__wasi_fd_t fd) {
  __wasi_prestat_t p;
  __wasi_errno_t e = __wasi_fd_prestat_get(fd, &p);
  if (e) {
    printf("prestat %u: %s\n", fd, name(e));
    return;
  }
  char path[64] = {0};
  e = __wasi_fd_prestat_dir_name(fd, (uint8_t*)path, p.u.dir.pr_name_len);
  printf("prestat %u: %s\n", fd, e ? name(e) : path);
}

static const char* filetype(int fd) {
  __wasi_fdstat_t st;
  if (__wasi_fd_fdstat_get(fd, &st)) return "error";
  switch (st.fs_filetype) {
    case __WASI_FILETYPE_CHARACTER_DEVICE: return "character device";
    case __WASI_FILETYPE_REGULAR_FILE: return "regular";
    case __WASI_FILETYPE_DIRECTORY: return "directory";
    default: return "other";
  }
}

int main(void) {
  prestat(3);
  prestat(4);
  prestat(5);
  printf("stdout is a tty: %s\n", isatty(1) ? "yes" : "no");
  printf("stdin filetype: %s\n", filetype(0));

  int fd = open("/box/f.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
  write(fd, "0123456789", 10);
  printf("file filetype: %s\n", filetype(fd));
  int ro = open("/box/f.txt", O_RDONLY);
  int wo = open("/box/f.txt", O_WRONLY);
  printf("O_RDONLY reported: %s\n", (fcntl(ro, F_GETFL) & O_ACCMODE) == O_RDONLY ? "yes" : "no");
  printf("O_WRONLY reported: %s\n", (fcntl(wo, F_GETFL) & O_ACCMODE) == O_WRONLY ? "yes" : "no");
  fcntl(wo, F_SETFL, O_APPEND);
  printf("O_APPEND after F_SETFL: %s\n", (fcntl(wo, F_GETFL) & O_APPEND) ? "yes" : "no");
  write(wo, "tail", 4);
  char buf[64] = {0};
  pread(fd, buf, sizeof buf - 1, 0);
  printf("append write lands at end: %s\n", buf);
  ftruncate(fd, 10);

  printf("fsync: %s fdatasync: %s\n", name(fsync(fd) ? errno : 0), name(fdatasync(fd) ? errno : 0));
  printf("posix_fadvise: %d\n", posix_fadvise(fd, 0, 10, POSIX_FADV_SEQUENTIAL));
  int rc = posix_fallocate(fd, 0, 4096);
  struct stat st;
  fstat(fd, &st);
  printf("posix_fallocate to 4096: %d size %lld\n", rc, (long long)st.st_size);
  ftruncate(fd, 10);

  struct timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
  rc = futimens(fd, times);
  fstat(fd, &st);
  printf("futimens: %d mtime %lld\n", rc, (long long)st.st_mtim.tv_sec);
  times[1].tv_sec = 2000000000;
  rc = utimensat(AT_FDCWD, "/box/f.txt", times, 0);
  stat("/box/f.txt", &st);
  printf("utimensat: %d mtime %lld\n", rc, (long long)st.st_mtim.tv_sec);

  __wasi_errno_t e = __wasi_fd_renumber(fd, wo);
  printf("renumber onto open fd: %s, old fd closed: %s\n", name(e),
         name(__wasi_fd_close(fd)));
  memset(buf, 0, sizeof buf);
  pread(wo, buf, sizeof buf - 1, 0);
  printf("renumber content: %s\n", buf);
  printf("renumber onto closed fd: %s\n", name(__wasi_fd_renumber(wo, 99)));

  printf("write to a read-only fd: %s\n", name(write(ro, "x", 1) < 0 ? errno : 0));
  close(ro);
  printf("read from a closed fd: %s\n", name(read(ro, buf, 1) < 0 ? errno : 0));
  printf("seek on a pipe or device: %s\n", name(lseek(1, 0, SEEK_CUR) < 0 ? errno : 0));
  close(wo);
  printf("double close: %s\n", name(close(wo) ? errno : 0));

  int dirfd = open("/box", O_RDONLY | O_DIRECTORY);
  __wasi_fdstat_t fs;
  (void)__wasi_fd_fdstat_get(dirfd, &fs);
  __wasi_errno_t shrink = __wasi_fd_fdstat_set_rights(dirfd, fs.fs_rights_base & ~__WASI_RIGHTS_FD_READDIR,
                                                      fs.fs_rights_inheriting);
  __wasi_errno_t grow = __wasi_fd_fdstat_set_rights(dirfd, fs.fs_rights_base, fs.fs_rights_inheriting);
  printf("fdstat_set_rights can shrink: %s, cannot grow: %s\n", name(shrink), name(grow));
  return 0;
}
