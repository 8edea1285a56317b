// A read-only grant nested in a writable one (`--dir a --dir a/ref::ro`)
// stays read-only whatever the order of the options: the guest reaches
// a/ref through the writable grant by `./`, by `..`, by a symlink and by a
// directory descriptor opened there, and every write, create, truncate,
// rename, link, unlink, mkdir and set-times lands on EROFS. The host tree
// under a/ref is unchanged, and the rest of a stays writable.
// Both resolvers run: openat2(RESOLVE_BENEATH) and the component walk.
// RUN: rm -rf %t && mkdir -p %t/a/ref/sub %t/a/out
// RUN: echo original > %t/a/ref/file.txt
// RUN: ln -s ref %t/a/link
// RUN: ln -s ref/file.txt %t/a/file-link
// RUN: touch -d 2001-01-01 %t/a/ref/file.txt
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t/a:/a --dir %t/a/ref:/a/ref:ro %t.wasm | FileCheck %s
// RUN: %synergy-run --dir %t/a/ref:/a/ref:ro --dir %t/a:/a %t.wasm | FileCheck %s
// RUN: env SYNERGY_WASI_NO_OPENAT2=1 %synergy-run --dir %t/a/ref:/a/ref:ro --dir %t/a:/a %t.wasm \
// RUN:   | FileCheck %s
// RUN: cat %t/a/ref/file.txt | FileCheck %s --check-prefix=UNTOUCHED
// RUN: ls -A %t/a/ref | FileCheck %s --check-prefix=REF-TREE --implicit-check-not=new
// RUN: ls --full-time %t/a/ref/file.txt | FileCheck %s --check-prefix=TIMES
//
// CHECK: open /a/./ref/file.txt w: EROFS
// CHECK-NEXT: open /a/out/../ref/file.txt a: EROFS
// CHECK-NEXT: open /a/link/file.txt r+: EROFS
// CHECK-NEXT: open /a/file-link w: EROFS
// CHECK-NEXT: create /a/link/new.txt: EROFS
// CHECK-NEXT: truncate /a/./ref/file.txt: EROFS
// CHECK-NEXT: mkdir /a/link/newdir: EROFS
// CHECK-NEXT: rmdir /a/./ref/sub: EROFS
// CHECK-NEXT: unlink /a/link/file.txt: EROFS
// CHECK-NEXT: rename out of ref: EROFS
// CHECK-NEXT: rename into ref: EROFS
// CHECK-NEXT: link out of ref: EROFS
// CHECK-NEXT: symlink in ref: EROFS
// CHECK-NEXT: utimensat /a/./ref/file.txt: EROFS
// CHECK-NEXT: openat(ref dir, new.txt): EROFS
// CHECK-NEXT: futimens on a file of ref: EROFS
// CHECK-NEXT: read /a/link/file.txt: original
// CHECK-NEXT: writable /a/out/new.txt: ok
// CHECK-NEXT: done
// UNTOUCHED: original
// REF-TREE: file.txt
// REF-TREE-NEXT: sub
// TIMES: 2001-01-01
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* result(int status) {
  if (status >= 0) return "ok";
  return errno == EROFS ? "EROFS" : strerror(errno);
}

static void tryOpen(const char* path, int flags, const char* mode) {
  int fd = open(path, flags, 0644);
  printf("open %s %s: %s\n", path, mode, result(fd));
  if (fd >= 0) close(fd);
}

int main(void) {
  tryOpen("/a/./ref/file.txt", O_WRONLY | O_TRUNC, "w");
  tryOpen("/a/out/../ref/file.txt", O_WRONLY | O_APPEND, "a");
  tryOpen("/a/link/file.txt", O_RDWR, "r+");
  tryOpen("/a/file-link", O_WRONLY, "w");
  printf("create /a/link/new.txt: %s\n", result(open("/a/link/new.txt", O_WRONLY | O_CREAT, 0644)));
  printf("truncate /a/./ref/file.txt: %s\n", result(truncate("/a/./ref/file.txt", 0)));
  printf("mkdir /a/link/newdir: %s\n", result(mkdir("/a/link/newdir", 0755)));
  printf("rmdir /a/./ref/sub: %s\n", result(rmdir("/a/./ref/sub")));
  printf("unlink /a/link/file.txt: %s\n", result(unlink("/a/link/file.txt")));
  printf("rename out of ref: %s\n", result(rename("/a/link/file.txt", "/a/out/moved.txt")));
  printf("rename into ref: %s\n", result(rename("/a/file-link", "/a/./ref/moved-link")));
  printf("link out of ref: %s\n", result(link("/a/./ref/file.txt", "/a/out/hard.txt")));
  printf("symlink in ref: %s\n", result(symlink("file.txt", "/a/link/new-link")));
  printf("utimensat /a/./ref/file.txt: %s\n", result(utimensat(AT_FDCWD, "/a/./ref/file.txt", NULL, 0)));
  int refDir = open("/a/./ref", O_RDONLY | O_DIRECTORY);
  printf("openat(ref dir, new.txt): %s\n", result(openat(refDir, "new.txt", O_WRONLY | O_CREAT, 0644)));
  int file = openat(refDir, "file.txt", O_RDONLY);
  printf("futimens on a file of ref: %s\n", result(futimens(file, NULL)));
  char buffer[32] = {0};
  int reader = open("/a/link/file.txt", O_RDONLY);
  ssize_t n = read(reader, buffer, sizeof buffer - 1);
  if (n > 0 && buffer[n - 1] == '\n') buffer[n - 1] = 0;
  printf("read /a/link/file.txt: %s\n", buffer);
  int writable = open("/a/out/new.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  printf("writable /a/out/new.txt: %s\n", result(writable >= 0 && write(writable, "x", 1) == 1 ? 0 : -1));
  printf("done\n");
  return 0;
}
