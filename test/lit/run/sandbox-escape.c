// The guest sees only its preopen. Each escape below must fail inside the
// guest with an errno, never reach the secret next to the preopen, and never
// disturb the host. The layout is
//   %t.root/secret.txt           outside the preopen
//   %t.root/data/                preopened as /data
//   %t.root/data/inside.txt      reachable
//   %t.root/data/up    -> ../secret.txt         relative link leaving it
//   %t.root/data/abs   -> <absolute secret>     absolute link
//   %t.root/data/dirup -> ..                    link to the parent directory
//   %t.root/data/ok    -> sub/../inside.txt     link that stays inside
// Both resolvers run: openat2(RESOLVE_BENEATH) and the component walk.
// RUN: rm -rf %t.root && mkdir -p %t.root/data/sub
// RUN: echo SECRET > %t.root/secret.txt && echo inside > %t.root/data/inside.txt
// RUN: ln -s ../secret.txt %t.root/data/up
// RUN: ln -s %t.root/secret.txt %t.root/data/abs
// RUN: ln -s .. %t.root/data/dirup
// RUN: ln -s sub/../inside.txt %t.root/data/ok
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t.root/data:/data %t.wasm > %t.openat2.out
// RUN: FileCheck %s --implicit-check-not=SECRET < %t.openat2.out
// RUN: env SYNERGY_WASI_NO_OPENAT2=1 %synergy-run --dir %t.root/data:/data %t.wasm > %t.walk.out
// RUN: FileCheck %s --implicit-check-not=SECRET < %t.walk.out
// RUN: cat %t.root/secret.txt | FileCheck %s --check-prefix=UNTOUCHED
// RUN: ls %t.root | FileCheck %s --check-prefix=NOTHING-CREATED
// CHECK: /etc/passwd: refused (ENOTCAPABLE)
// CHECK-NEXT: ../x: refused (ENOTCAPABLE)
// CHECK-NEXT: /data/../secret.txt: refused (ENOTCAPABLE)
// CHECK-NEXT: /data/sub/../../secret.txt: refused (ENOTCAPABLE)
// CHECK-NEXT: /data/up: refused (ENOTCAPABLE)
// CHECK-NEXT: /data/abs: refused (ENOTCAPABLE)
// CHECK-NEXT: /data/dirup/secret.txt: refused (ENOTCAPABLE)
// CHECK-NEXT: /data/ok: opened: inside
// CHECK-NEXT: /data/sub/../inside.txt: opened: inside
// CHECK-NEXT: raw path_open ../secret.txt: ENOTCAPABLE
// CHECK-NEXT: raw path_open sub/../../secret.txt: ENOTCAPABLE
// CHECK-NEXT: raw path_open /etc/passwd: ENOTCAPABLE
// CHECK-NEXT: raw path_open up: ENOTCAPABLE
// CHECK-NEXT: raw path_open up without following: ELOOP
// CHECK-NEXT: raw create through up: ENOTCAPABLE
// CHECK-NEXT: raw mkdir ../evil: ENOTCAPABLE
// CHECK-NEXT: raw mkdir dirup/evil: ENOTCAPABLE
// CHECK-NEXT: raw unlink ../secret.txt: ENOTCAPABLE
// CHECK-NEXT: raw rename inside.txt to ../stolen: ENOTCAPABLE
// CHECK-NEXT: raw stat ..: ENOTCAPABLE
// CHECK-NEXT: raw stat dirup/..: ENOTCAPABLE
// CHECK-NEXT: raw stat up, following: ENOTCAPABLE
// CHECK-NEXT: raw stat up, not following: symlink
// CHECK-NEXT: raw readlink up: ../secret.txt
// CHECK-NEXT: raw symlink to an absolute path: EPERM
// CHECK-NEXT: guest symlink leaving: created, open: ENOTCAPABLE
// CHECK-NEXT: guest hard link of up, following: ENOTCAPABLE
// CHECK-NEXT: raw path_open on a file as directory: ENOTDIR
// CHECK-NEXT: raw path_open on a closed fd: EBADF
// CHECK-NEXT: done
// UNTOUCHED: SECRET
// NOTHING-CREATED-NOT: evil
// NOTHING-CREATED-NOT: stolen
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasi/api.h>

// The preopen is the first descriptor after stdio.
enum { kData = 3 };

static const char* name(int e) {
  switch (e) {
    case 0: return "ok";
    case ENOTCAPABLE: return "ENOTCAPABLE";
    case ENOENT: return "ENOENT";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ELOOP: return "ELOOP";
    case ENOTDIR: return "ENOTDIR";
    case EBADF: return "EBADF";
    default: return strerror(e);
  }
}

static void tryOpen(const char* path) {
  errno = 0;
  FILE* f = fopen(path, "r");
  if (!f) {
    printf("%s: refused (%s)\n", path, name(errno));
    return;
  }
  char line[64] = {0};
  fgets(line, sizeof line, f);
  fclose(f);
  printf("%s: opened: %s", path, line);
}

static __wasi_errno_t rawOpen(const char* path, __wasi_lookupflags_t lookup,
                              __wasi_oflags_t oflags) {
  __wasi_fd_t fd;
  __wasi_errno_t e = __wasi_path_open(kData, lookup, path, oflags,
                                      __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE,
                                      0, 0, &fd);
  if (e == 0) {
    char line[64] = {0};
    read(fd, line, sizeof line - 1);
    printf("[opened %s: %s]\n", path, line);
    close(fd);
  }
  return e;
}

int main(void) {
  tryOpen("/etc/passwd");
  tryOpen("../x");
  tryOpen("/data/../secret.txt");
  tryOpen("/data/sub/../../secret.txt");
  tryOpen("/data/up");
  tryOpen("/data/abs");
  tryOpen("/data/dirup/secret.txt");
  tryOpen("/data/ok");
  tryOpen("/data/sub/../inside.txt");

  // The host's own checks, without wasi-libc's path handling in front.
  const __wasi_lookupflags_t follow = __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW;
  printf("raw path_open ../secret.txt: %s\n", name(rawOpen("../secret.txt", follow, 0)));
  printf("raw path_open sub/../../secret.txt: %s\n",
         name(rawOpen("sub/../../secret.txt", follow, 0)));
  printf("raw path_open /etc/passwd: %s\n", name(rawOpen("/etc/passwd", follow, 0)));
  printf("raw path_open up: %s\n", name(rawOpen("up", follow, 0)));
  printf("raw path_open up without following: %s\n", name(rawOpen("up", 0, 0)));
  printf("raw create through up: %s\n",
         name(rawOpen("up", follow, __WASI_OFLAGS_CREAT | __WASI_OFLAGS_TRUNC)));
  printf("raw mkdir ../evil: %s\n", name(__wasi_path_create_directory(kData, "../evil")));
  printf("raw mkdir dirup/evil: %s\n", name(__wasi_path_create_directory(kData, "dirup/evil")));
  printf("raw unlink ../secret.txt: %s\n", name(__wasi_path_unlink_file(kData, "../secret.txt")));
  printf("raw rename inside.txt to ../stolen: %s\n",
         name(__wasi_path_rename(kData, "inside.txt", kData, "../stolen")));

  __wasi_filestat_t st;
  printf("raw stat ..: %s\n", name(__wasi_path_filestat_get(kData, follow, "..", &st)));
  printf("raw stat dirup/..: %s\n", name(__wasi_path_filestat_get(kData, follow, "dirup/..", &st)));
  printf("raw stat up, following: %s\n", name(__wasi_path_filestat_get(kData, follow, "up", &st)));
  __wasi_errno_t e = __wasi_path_filestat_get(kData, 0, "up", &st);
  printf("raw stat up, not following: %s\n",
         e ? name(e) : st.filetype == __WASI_FILETYPE_SYMBOLIC_LINK ? "symlink" : "other");

  char target[64] = {0};
  __wasi_size_t used = 0;
  e = __wasi_path_readlink(kData, "up", (uint8_t*)target, sizeof target - 1, &used);
  printf("raw readlink up: %s\n", e ? name(e) : target);
  printf("raw symlink to an absolute path: %s\n",
         name(__wasi_path_symlink("/etc/passwd", kData, "mine")));

  unlink("/data/sub/leaving");
  e = __wasi_path_symlink("../../../../../../../../secret.txt", kData, "sub/leaving");
  FILE* f = fopen("/data/sub/leaving", "r");
  printf("guest symlink leaving: %s, open: %s\n", e ? name(e) : "created",
         f ? "OPENED" : name(errno));
  if (f) fclose(f);
  printf("guest hard link of up, following: %s\n",
         name(__wasi_path_link(kData, follow, "up", kData, "hard")));

  __wasi_fd_t file;
  (void)__wasi_path_open(kData, follow, "inside.txt", 0, __WASI_RIGHTS_FD_READ, 0, 0, &file);
  __wasi_fd_t ignored;
  printf("raw path_open on a file as directory: %s\n",
         name(__wasi_path_open(file, follow, "x", 0, __WASI_RIGHTS_FD_READ, 0, 0, &ignored)));
  close(file);
  printf("raw path_open on a closed fd: %s\n",
         name(__wasi_path_open(file, follow, "x", 0, __WASI_RIGHTS_FD_READ, 0, 0, &ignored)));
  printf("done\n");
  return 0;
}
