// Differential check of the two path resolvers. The guest opens thousands of
// generated paths built from `..`, `.`, empty components and symlinks that
// stay inside, leave, loop or chain; the run with openat2(RESOLVE_BENEATH)
// and the run with the component walk must print identical results, and no
// open may ever read the secret kept next to the preopen.
// RUN: rm -rf %t.root && mkdir -p %t.root/data/sub/deeper %t.root/outside
// RUN: echo SECRET > %t.root/outside/secret && echo SECRET > %t.root/secret
// RUN: echo inside > %t.root/data/file && echo nested > %t.root/data/sub/deeper/file
// RUN: ln -s ../outside %t.root/data/up
// RUN: ln -s .. %t.root/data/parent
// RUN: ln -s sub/deeper/../../file %t.root/data/ok
// RUN: ln -s loop %t.root/data/loop
// RUN: ln -s ok %t.root/data/chain
// RUN: ln -s %t.root/outside %t.root/data/abs
// RUN: ln -s ../../.. %t.root/data/sub/deeper/climb
// RUN: ln -s ../../file %t.root/data/sub/deeper/back
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t.root/data:/data %t.wasm > %t.openat2.out
// RUN: env SYNERGY_WASI_NO_OPENAT2=1 %synergy-run --dir %t.root/data:/data %t.wasm > %t.walk.out
// RUN: diff %t.openat2.out %t.walk.out
// RUN: FileCheck %s --implicit-check-not=SECRET < %t.openat2.out
// CHECK: {{^file\|follow\|plain -> ok inside$}}
// CHECK: {{^up/secret\|follow\|plain -> ENOTCAPABLE$}}
// CHECK: {{^loop\|follow\|plain -> ELOOP$}}
// CHECK: summary: {{[1-9][0-9]*}} opened, {{[1-9][0-9]*}} refused as escapes
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

enum { kData = 3, kPaths = 6000 };

static const char* const kParts[] = {".", "..", "", "sub", "deeper", "file", "up", "parent",
                                     "ok", "loop", "chain", "abs", "climb", "back", "secret"};

static unsigned state = 12345;
static unsigned nextRandom(void) {
  state = state * 1103515245u + 12345u;
  return state >> 16;
}

static const char* errnoName(__wasi_errno_t e) {
  switch (e) {
    case __WASI_ERRNO_NOTCAPABLE: return "ENOTCAPABLE";
    case __WASI_ERRNO_NOENT: return "ENOENT";
    case __WASI_ERRNO_NOTDIR: return "ENOTDIR";
    case __WASI_ERRNO_LOOP: return "ELOOP";
    case __WASI_ERRNO_ISDIR: return "EISDIR";
    default: return "other";
  }
}

static int opened = 0, escapes = 0;

static void tryPath(const char* path, int follow, int directory) {
  __wasi_fd_t fd;
  __wasi_errno_t e = __wasi_path_open(
      kData, follow ? __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW : 0, path,
      directory ? __WASI_OFLAGS_DIRECTORY : 0, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_READDIR,
      0, 0, &fd);
  printf("%s|%s|%s -> ", path, follow ? "follow" : "nofollow", directory ? "dir" : "plain");
  if (e) {
    printf("%s\n", errnoName(e));
    escapes += e == __WASI_ERRNO_NOTCAPABLE;
    return;
  }
  ++opened;
  char content[32] = {0};
  ssize_t n = read(fd, content, sizeof content - 1);
  close(fd);
  if (n < 0) printf("ok (directory)\n");
  else printf("ok %.*s\n", (int)strcspn(content, "\n"), content);
}

int main(void) {
  tryPath("file", 1, 0);
  tryPath("up/secret", 1, 0);
  tryPath("loop", 1, 0);
  for (int i = 0; i < kPaths; ++i) {
    char path[256] = {0};
    int parts = 1 + nextRandom() % 6;
    for (int p = 0; p < parts; ++p) {
      if (p) strcat(path, "/");
      strcat(path, kParts[nextRandom() % (sizeof kParts / sizeof kParts[0])]);
    }
    if (path[0] == '\0') continue;
    tryPath(path, nextRandom() % 2, nextRandom() % 3 == 0);
  }
  printf("summary: %d opened, %d refused as escapes\n", opened, escapes);
  return 0;
}
