//===- WorkingDirectory.c - the host's current directory for the guest ----===//
//
// wasi-libc keeps the current directory itself (__wasilibc_cwd, "/" at
// start), and resolves relative paths by joining them to it and matching the
// result against the preopens' names. When a --dir grant holds the host's
// current directory, synergy-run tells the guest its name there, and this
// constructor makes it the guest's current directory with chdir, so getcwd
// returns it and relative paths resolve in it, as in a native run. chdir
// checks through the preopens that it is a directory, and the runtime's path
// resolution still keeps every path inside the grants. synergy-cc links this
// member into every program (-u __synergy_enter_working_directory); `used`
// makes wasm-ld keep it, and so run it, though nothing calls it.
//
// wasi-libc's chdir stores the joined path as given, so after chdir("../x")
// getcwd would answer ".../sub/../x". synergy-cc links with --wrap=chdir:
// the path is joined to the current directory and its "." and ".."
// components resolved by name first (as a shell's cd does), then handed to
// wasi-libc's chdir, which checks the result against the grants as before.
//
//===----------------------------------------------------------------------===//
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

int __real_chdir(const char* path);

__attribute__((import_module("env"), import_name("synergy_working_directory")))
size_t synergy_working_directory(char* buffer, size_t size);

// Before the program's own constructors, which may open relative paths.
__attribute__((constructor(101), used)) void __synergy_enter_working_directory(void) {
  static char directory[PATH_MAX];
  size_t size = synergy_working_directory(directory, sizeof directory);
  if (size > 0 && size <= sizeof directory) chdir(directory);
}

// Resolves "." and ".." components of the absolute path `path` in place;
// ".." at the root stays at the root.
static void resolveDotComponents(char* path) {
  char* out = path;  // the resolved path so far, without a trailing '/'
  const char* in = path;
  while (*in) {
    while (*in == '/') ++in;
    const char* end = in;
    while (*end && *end != '/') ++end;
    size_t length = (size_t)(end - in);
    if (length == 0 || (length == 1 && in[0] == '.')) {
      // Nothing to add.
    } else if (length == 2 && in[0] == '.' && in[1] == '.') {
      while (out > path && *--out != '/') {
      }
    } else {
      *out++ = '/';
      memmove(out, in, length);
      out += length;
    }
    in = end;
  }
  if (out == path) *out++ = '/';
  *out = '\0';
}

int __wrap_chdir(const char* path) {
  static char joined[PATH_MAX];
  if (!path || !*path) return __real_chdir(path);
  if (path[0] == '/') {
    if (strlen(path) >= sizeof joined) return __real_chdir(path);
    strcpy(joined, path);
    resolveDotComponents(joined);
    return __real_chdir(joined);
  }
  // A path too long to join goes to wasi-libc's chdir as it is, which
  // reports the error. (errno is not touched here: the -threads build
  // would address it as thread-local, which wasi-libc's is not.)
  if (!getcwd(joined, sizeof joined)) return __real_chdir(path);
  size_t used = strlen(joined);
  if (used + 1 + strlen(path) >= sizeof joined) return __real_chdir(path);
  joined[used] = '/';
  strcpy(joined + used + 1, path);
  resolveDotComponents(joined);
  return __real_chdir(joined);
}
