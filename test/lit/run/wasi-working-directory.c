// The guest's current directory is the host's when a --dir grant holds it,
// whether granted as `--dir .` or as `--dir $PWD`: getcwd returns the host
// path, relative paths (open, mkdir, stat, opendir) resolve in it, chdir into
// a granted subdirectory and back works, and absolute paths into the grant
// work too. The output must equal the native program's, run in the same
// directory. Without a grant holding it, the guest starts in "/".
// RUN: rm -rf %t && mkdir -p %t/root/sub
// RUN: %host-clang -O1 %s -o %t/native
// RUN: %synergy-cc -O1 %s -o %t/prog.wasm
// RUN: sh -c 'cd %t/root && %t/native' > %t/expected
// RUN: rm -rf %t/root/made %t/root/rel.txt
// RUN: sh -c 'cd %t/root && %synergy-run --dir . %t/prog.wasm' > %t/dot
// RUN: diff %t/expected %t/dot
// RUN: rm -rf %t/root/made %t/root/rel.txt
// RUN: sh -c 'cd %t/root && %synergy-run --dir "$PWD" %t/prog.wasm' > %t/pwd
// RUN: diff %t/expected %t/pwd
// RUN: rm -rf %t/root/made %t/root/rel.txt
// RUN: sh -c 'cd %t/root/sub && %synergy-run --dir .. %t/prog.wasm up' > %t/up
// RUN: sh -c 'cd %t/root/sub && %t/native up' > %t/up-expected
// RUN: diff %t/up-expected %t/up
// A -pthread build links the threads variant of the startup code. (Only
// getcwd: a threaded program touching errno, as opendir does through
// fcntl, does not link yet, see the report on issue 18.)
// RUN: %synergy-cc -O1 -pthread -DCWD_ONLY %s -o %t/threads.wasm
// RUN: sh -c 'cd %t/root && %synergy-run --dir . %t/threads.wasm' | FileCheck %s --check-prefix=THREADS
// THREADS: cwd {{/.*}}/wasi-working-directory.c.tmp/root{{$}}
// RUN: sh -c 'cd %t/root && %synergy-run --dir .:/work %t/prog.wasm cwd' | FileCheck %s --check-prefix=RENAMED
// RUN: sh -c 'cd %t/root && %synergy-run --dir sub %t/prog.wasm cwd' | FileCheck %s --check-prefix=NOT-GRANTED
// RENAMED: cwd /work
// NOT-GRANTED: cwd /
//
// A relative path cannot leave the grants: from the granted directory,
// "../x" and chdir("..") fail (the parent is not granted) and no file is
// written outside it; the current directory stays where it was.
// RUN: sh -c 'cd %t/root && %synergy-run --dir . %t/prog.wasm escape' | FileCheck %s --check-prefix=ESCAPE
// RUN: test ! -e %t/escaped.txt
// RUN: test ! -d %t/escaped-dir
// ESCAPE: open ../escaped.txt: failed
// ESCAPE-NEXT: mkdir ../escaped-dir: failed
// ESCAPE-NEXT: chdir ..: failed
// ESCAPE-NEXT: chdir sub/../..: failed
// ESCAPE-NEXT: cwd [[CWD:.*/root]]
// ESCAPE-NEXT: open ../../../../../../etc/passwd: failed
// ESCAPE-NEXT: cwd [[CWD]]
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char directory[PATH_MAX];

static void printCwd(void) {
  printf("cwd %s\n", getcwd(directory, sizeof directory) ? directory : "(none)");
}

#ifndef CWD_ONLY
static void tryPath(const char* what, int ok) { printf("%s: %s\n", what, ok ? "ok" : "failed"); }
#endif

#ifndef CWD_ONLY
static int countEntries(const char* path) {
  DIR* dir = opendir(path);
  if (!dir) return -1;
  int entries = 0;
  for (struct dirent* entry; (entry = readdir(dir));)
    entries += strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..");
  closedir(dir);
  return entries;
}
#endif

#ifdef CWD_ONLY
int main(void) {
  printCwd();
  return 0;
}
#else
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "cwd")) {
    printCwd();
    return 0;
  }
  if (!strcmp(mode, "escape")) {
    FILE* file = fopen("../escaped.txt", "w");
    tryPath("open ../escaped.txt", file != NULL);
    tryPath("mkdir ../escaped-dir", mkdir("../escaped-dir", 0755) == 0);
    tryPath("chdir ..", chdir("..") == 0);
    tryPath("chdir sub/../..", chdir("sub/../..") == 0);
    printCwd();
    tryPath("open ../../../../../../etc/passwd", fopen("../../../../../../etc/passwd", "r") != NULL);
    printCwd();
    return 0;
  }
  if (!strcmp(mode, "up")) {
    // Started in root/sub with root granted.
    printCwd();
    FILE* file = fopen("../up.txt", "w");
    tryPath("open ../up.txt", file != NULL);
    if (file) fclose(file);
    tryPath("chdir ..", chdir("..") == 0);
    printCwd();
    struct stat info;
    tryPath("stat up.txt", stat("up.txt", &info) == 0);
    tryPath("unlink up.txt", unlink("up.txt") == 0);
    return 0;
  }
  printCwd();
  char start[PATH_MAX];
  strcpy(start, directory);
  FILE* file = fopen("rel.txt", "w");
  tryPath("open rel.txt", file != NULL);
  if (file) {
    fputs("written relative\n", file);
    fclose(file);
  }
  char absolute[PATH_MAX + 16];
  snprintf(absolute, sizeof absolute, "%s/rel.txt", start);
  char line[64] = "";
  file = fopen(absolute, "r");
  tryPath("open <cwd>/rel.txt", file != NULL && fgets(line, sizeof line, file) != NULL);
  if (file) fclose(file);
  printf("read %s", line);
  tryPath("mkdir made", mkdir("made", 0755) == 0);
  printf("entries . %d\n", countEntries("."));
  tryPath("chdir sub", chdir("sub") == 0);
  printCwd();
  tryPath("open ../rel.txt", (file = fopen("../rel.txt", "r")) != NULL);
  if (file) fclose(file);
  printf("entries .. %d\n", countEntries(".."));
  tryPath("chdir ../made", chdir("../made") == 0);
  printCwd();
  tryPath("chdir <start>", chdir(start) == 0);
  printCwd();
  tryPath("rmdir made", rmdir("made") == 0);
  tryPath("unlink rel.txt", unlink("rel.txt") == 0);
  return 0;
}
#endif
