// argv comes from synergy-run's command line and the environment only from
// --env: the host's own variables (PATH, HOME) stay invisible to the guest.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run --env GREETING=hello --env EMPTY= --env "SPACED=a b  c" %t.wasm one "two words" "" last | FileCheck %s
// RUN: %synergy-run %t.wasm | FileCheck %s --check-prefix=BARE
// CHECK: argc=5
// CHECK-NEXT: argv[0] ends in .wasm: yes
// CHECK-NEXT: argv[1]=<one>
// CHECK-NEXT: argv[2]=<two words>
// CHECK-NEXT: argv[3]=<>
// CHECK-NEXT: argv[4]=<last>
// CHECK-NEXT: argv[5] is NULL: yes
// CHECK-NEXT: GREETING=<hello>
// CHECK-NEXT: EMPTY=<>
// CHECK-NEXT: SPACED=<a b  c>
// CHECK-NEXT: PATH unset: yes
// CHECK-NEXT: environ count 3
// BARE: argc=1
// BARE: GREETING unset
// BARE: environ count 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char** environ;

static void show(const char* name) {
  const char* value = getenv(name);
  if (value) printf("%s=<%s>\n", name, value);
  else printf("%s unset\n", name);
}

int main(int argc, char** argv) {
  printf("argc=%d\n", argc);
  size_t n = strlen(argv[0]);
  printf("argv[0] ends in .wasm: %s\n", n > 5 && !strcmp(argv[0] + n - 5, ".wasm") ? "yes" : "no");
  for (int i = 1; i < argc; ++i) printf("argv[%d]=<%s>\n", i, argv[i]);
  printf("argv[%d] is NULL: %s\n", argc, argv[argc] == NULL ? "yes" : "no");
  show("GREETING");
  if (argc > 1) {
    show("EMPTY");
    show("SPACED");
    printf("PATH unset: %s\n", getenv("PATH") ? "no" : "yes");
  }
  int count = 0;
  for (char** e = environ; e && *e; ++e) ++count;
  printf("environ count %d\n", count);
  return 0;
}
