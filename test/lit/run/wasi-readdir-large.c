// A directory larger than wasi-libc's first readdir buffer: fd_readdir has to
// resume from the cookie it handed out, so every entry must appear exactly
// once. The host counts the files too.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --dir %t.dir:/big %t.wasm | FileCheck %s
// RUN: ls %t.dir | wc -l | FileCheck %s --check-prefix=HOST
// CHECK: created 400
// CHECK-NEXT: listed 400 files, 0 duplicates, 0 missing
// CHECK-NEXT: second pass after rewinddir: 400
// HOST: 400
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kFiles = 400 };

static int countFiles(DIR* dir, int seen[kFiles], int* duplicates) {
  int files = 0;
  struct dirent* entry;
  while ((entry = readdir(dir))) {
    int index;
    if (sscanf(entry->d_name, "file-with-a-longish-name-%d.txt", &index) != 1) continue;
    if (seen[index]++) ++*duplicates;
    ++files;
  }
  return files;
}

int main(void) {
  char path[128];
  int created = 0;
  for (int i = 0; i < kFiles; ++i) {
    snprintf(path, sizeof path, "/big/file-with-a-longish-name-%d.txt", i);
    FILE* f = fopen(path, "w");
    if (f) {
      fclose(f);
      ++created;
    }
  }
  printf("created %d\n", created);

  int seen[kFiles] = {0};
  int duplicates = 0;
  DIR* dir = opendir("/big");
  int files = countFiles(dir, seen, &duplicates);
  int missing = 0;
  for (int i = 0; i < kFiles; ++i) missing += seen[i] == 0;
  printf("listed %d files, %d duplicates, %d missing\n", files, duplicates, missing);

  rewinddir(dir);
  int again[kFiles] = {0};
  int ignored = 0;
  printf("second pass after rewinddir: %d\n", countFiles(dir, again, &ignored));
  closedir(dir);
  return 0;
}
