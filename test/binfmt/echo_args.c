// A guest started directly as ./echo_args.wasm: prints its arguments and
// exits with their count, so that the test sees both went through.
#include <stdio.h>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) printf("arg %d: [%s]\n", i, argv[i]);
  return argc - 1;
}
