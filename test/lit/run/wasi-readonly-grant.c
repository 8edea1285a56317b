// A read-only grant (--dir HOST:GUEST:ro) refuses every write, create,
// truncate, rename, link, unlink, mkdir and set-times with EROFS, inside the
// guest, and the host tree stays as it was; reading works, and a writable
// grant next to it still works. The read-only preopen's rights say so too.
// RUN: rm -rf %t.ro %t.rw && mkdir -p %t.ro/sub %t.rw
// RUN: echo original > %t.ro/file.txt
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t.ro:/ro:ro --dir %t.rw:/rw %t.wasm | FileCheck %s
// RUN: env SYNERGY_WASI_NO_OPENAT2=1 %synergy-run --dir %t.ro:/ro:ro --dir %t.rw:/rw %t.wasm \
// RUN:   | FileCheck %s
// RUN: cat %t.ro/file.txt | FileCheck %s --check-prefix=UNTOUCHED
// RUN: ls -A %t.ro | FileCheck %s --check-prefix=RO-TREE
// RUN: ls -A %t.rw | FileCheck %s --check-prefix=RW-TREE
//
// The syntax: HOST::ro keeps the host name; HOST:ro is ambiguous and refused.
// RUN: cd %t.ro/.. && %synergy-run --dir %t.ro::ro %t.wasm probe | FileCheck %s --check-prefix=SAME-NAME
// RUN: not %synergy-run --dir %t.ro:ro %t.wasm 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// RUN: not %synergy-run --dir %t.ro:/ro:rx %t.wasm 2>&1 | FileCheck %s --check-prefix=ACCESS
//
// CHECK: read /ro/file.txt: original
// CHECK-NEXT: fopen w: EROFS
// CHECK-NEXT: fopen a: EROFS
// CHECK-NEXT: fopen r+: EROFS
// CHECK-NEXT: create new.txt: EROFS
// CHECK-NEXT: truncate: EROFS
// CHECK-NEXT: mkdir: EROFS
// CHECK-NEXT: rmdir: EROFS
// CHECK-NEXT: unlink: EROFS
// CHECK-NEXT: rename inside: EROFS
// CHECK-NEXT: rename out: EROFS
// CHECK-NEXT: rename in: EROFS
// CHECK-NEXT: link out: EROFS
// CHECK-NEXT: symlink: EROFS
// CHECK-NEXT: utimensat: EROFS
// CHECK-NEXT: futimens: EROFS
// CHECK-NEXT: ftruncate: EROFS
// CHECK-NEXT: preopen create right: absent
// CHECK-NEXT: writable grant: ok
// CHECK-NEXT: done
// UNTOUCHED: original
// RO-TREE: file.txt
// RO-TREE-NEXT: sub
// RO-TREE-NOT: {{.}}
// RW-TREE: mine.txt
// RW-TREE-NOT: {{.}}
// SAME-NAME: probe: EROFS
// AMBIGUOUS: synergy-run: error: --dir: '{{.*}}:ro' is ambiguous: write {{.*}}::ro for the same name, or {{.*}}:GUEST:ro
// ACCESS: synergy-run: error: --dir: the access of '{{.*}}' must be 'ro' or 'rw', got 'rx'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasi/api.h>

// The read-only preopen is the first descriptor after stdio.
enum { kReadOnly = 3 };

static const char* name(int e) {
  switch (e) {
    case 0: return "ok";
    case EROFS: return "EROFS";
    case ENOTCAPABLE: return "ENOTCAPABLE";
    default: return strerror(e);
  }
}

static const char* openError(const char* path, const char* mode) {
  errno = 0;
  FILE* f = fopen(path, mode);
  if (f) {
    fclose(f);
    return "OPENED";
  }
  return name(errno);
}

static const char* result(int status) { return status == 0 ? "DONE" : name(errno); }

int main(int argc, char** argv) {
  if (argc > 1) {
    // Under HOST::ro the grant is at its host path; find it through the
    // preopen's own name.
    char dir[512] = {0};
    __wasi_prestat_t prestat;
    if (__wasi_fd_prestat_get(kReadOnly, &prestat) == 0 &&
        prestat.u.dir.pr_name_len < sizeof dir - 16)
      (void)!__wasi_fd_prestat_dir_name(kReadOnly, (uint8_t*)dir, prestat.u.dir.pr_name_len);
    strcat(dir, "/probe.txt");
    printf("%s: %s\n", argv[1], openError(dir, "w"));
    return 0;
  }
  char line[64] = {0};
  FILE* in = fopen("/ro/file.txt", "r");
  if (in && fgets(line, sizeof line, in)) printf("read /ro/file.txt: %s", line);
  if (in) fclose(in);

  printf("fopen w: %s\n", openError("/ro/file.txt", "w"));
  printf("fopen a: %s\n", openError("/ro/file.txt", "a"));
  printf("fopen r+: %s\n", openError("/ro/file.txt", "r+"));
  printf("create new.txt: %s\n", openError("/ro/new.txt", "w"));
  printf("truncate: %s\n", result(truncate("/ro/file.txt", 0)));
  printf("mkdir: %s\n", result(mkdir("/ro/dir", 0777)));
  printf("rmdir: %s\n", result(rmdir("/ro/sub")));
  printf("unlink: %s\n", result(unlink("/ro/file.txt")));
  printf("rename inside: %s\n", result(rename("/ro/file.txt", "/ro/moved.txt")));
  printf("rename out: %s\n", result(rename("/ro/file.txt", "/rw/stolen.txt")));
  FILE* mine = fopen("/rw/mine.txt", "w");
  if (mine) fclose(mine);
  printf("rename in: %s\n", result(rename("/rw/mine.txt", "/ro/planted.txt")));
  printf("link out: %s\n", result(link("/ro/file.txt", "/rw/hard.txt")));
  printf("symlink: %s\n", result(symlink("file.txt", "/ro/link")));
  printf("utimensat: %s\n", result(utimensat(AT_FDCWD, "/ro/file.txt", NULL, 0)));
  int fd = open("/ro/file.txt", O_RDONLY);
  printf("futimens: %s\n", result(futimens(fd, NULL)));
  printf("ftruncate: %s\n", result(ftruncate(fd, 0)));
  close(fd);

  __wasi_fdstat_t stat;
  __wasi_errno_t e = __wasi_fd_fdstat_get(kReadOnly, &stat);
  printf("preopen create right: %s\n",
         e ? name(e) : (stat.fs_rights_base & __WASI_RIGHTS_PATH_CREATE_FILE) ? "PRESENT" : "absent");
  FILE* out = fopen("/rw/mine.txt", "w");
  printf("writable grant: %s\n", out && fputs("x", out) >= 0 && fclose(out) == 0 ? "ok" : "FAILED");
  printf("done\n");
  return 0;
}
