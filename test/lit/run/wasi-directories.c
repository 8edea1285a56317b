// Directory operations through a --dir preopen: mkdir, readdir, stat,
// rename, unlink and rmdir. The host lists the directory afterwards, so the
// guest's view is checked against the real file system.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && echo old > %t.dir/existing.txt
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t.dir:/data %t.wasm > %t.out
// RUN: FileCheck %s < %t.out
// RUN: ls %t.dir | FileCheck %s --check-prefix=HOST
// RUN: ls %t.dir/kept | FileCheck %s --check-prefix=KEPT
// CHECK: mkdir sub: 0
// CHECK-NEXT: mkdir sub again: EEXIST
// CHECK-NEXT: sub is a directory: 1
// CHECK-NEXT: entries: . .. existing.txt sub
// CHECK-NEXT: rename: 0
// CHECK-NEXT: old name gone: ENOENT
// CHECK-NEXT: renamed content: old
// CHECK-NEXT: rmdir non-empty: ENOTEMPTY
// CHECK-NEXT: unlink: 0
// CHECK-NEXT: rmdir: 0
// CHECK-NEXT: unlink a directory: EISDIR
// CHECK-NEXT: rmdir a file: ENOTDIR
// CHECK-NEXT: rename dir: 0
// CHECK-NEXT: entries: . .. kept
// HOST: kept
// HOST-NOT: existing.txt
// HOST-NOT: sub
// KEPT: inner.txt
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* result(int rc) {
  if (rc == 0) return "0";
  switch (errno) {
    case EEXIST: return "EEXIST";
    case ENOENT: return "ENOENT";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EISDIR: return "EISDIR";
    case ENOTDIR: return "ENOTDIR";
    case EPERM: return "EPERM";
    default: return strerror(errno);
  }
}

static int byName(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void listSorted(const char* path) {
  DIR* dir = opendir(path);
  char* names[64];
  int count = 0;
  struct dirent* entry;
  while ((entry = readdir(dir)) && count < 64) names[count++] = strdup(entry->d_name);
  closedir(dir);
  qsort(names, count, sizeof names[0], byName);
  printf("entries:");
  for (int i = 0; i < count; ++i) printf(" %s", names[i]);
  printf("\n");
}

int main(void) {
  printf("mkdir sub: %s\n", result(mkdir("/data/sub", 0755)));
  printf("mkdir sub again: %s\n", result(mkdir("/data/sub", 0755)));
  struct stat st;
  stat("/data/sub", &st);
  printf("sub is a directory: %d\n", S_ISDIR(st.st_mode));
  listSorted("/data");

  printf("rename: %s\n", result(rename("/data/existing.txt", "/data/sub/moved.txt")));
  printf("old name gone: %s\n", result(stat("/data/existing.txt", &st)));
  FILE* f = fopen("/data/sub/moved.txt", "r");
  char line[32] = {0};
  fgets(line, sizeof line, f);
  fclose(f);
  printf("renamed content: %s", line);

  printf("rmdir non-empty: %s\n", result(rmdir("/data/sub")));
  printf("unlink: %s\n", result(unlink("/data/sub/moved.txt")));
  printf("rmdir: %s\n", result(rmdir("/data/sub")));

  mkdir("/data/dir", 0755);
  fclose(fopen("/data/dir/inner.txt", "w"));
  fclose(fopen("/data/file", "w"));
  printf("unlink a directory: %s\n", result(unlink("/data/dir")));
  printf("rmdir a file: %s\n", result(rmdir("/data/file")));
  unlink("/data/file");
  printf("rename dir: %s\n", result(rename("/data/dir", "/data/kept")));
  listSorted("/data");
  return 0;
}
