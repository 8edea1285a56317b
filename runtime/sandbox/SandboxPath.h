//===- SandboxPath.h - resolve guest paths without leaving a directory -----===//
//
// Every guest path (a WASI path_* argument, an engine's $fopen name) is
// relative to a directory descriptor the guest holds, and
// resolving it must never leave the tree below that directory: not through
// `..`, not through a symlink (absolute, or relative with enough `..`), not by
// naming an absolute path. Errors are host errno values, and an escape is
// reported as kEscapes (EXDEV, as openat2 itself reports one): no open(2) of a
// single name returns EXDEV otherwise, so callers can tell an escape apart.
//
// Resolution uses openat2(RESOLVE_BENEATH) when the kernel has it (Linux 5.6+)
// and otherwise walks the path one component at a time with O_NOFOLLOW,
// expanding symlinks itself. Setting SYNERGY_WASI_NO_OPENAT2=1 forces the walk,
// so tests can exercise both.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "sandbox/UniqueFd.h"

namespace synergy::sandbox {

inline constexpr int kEscapes = EXDEV;

// Rejects paths no resolution may accept: empty, containing NUL, or absolute.
int checkGuestPath(std::string_view path);

struct OpenedBeneath {
  UniqueFd fd;
  int error = 0;
};

// open(2) of `path` below `dirFd` with host `flags` (O_CLOEXEC is added).
// When `followFinalSymlink` is false the last component is opened with
// O_NOFOLLOW, so a symlink there yields ELOOP (or, with O_PATH, the link).
OpenedBeneath openBeneath(int dirFd, std::string_view path, int flags, mode_t mode,
                          bool followFinalSymlink);

// The directory that holds a path's last component, resolved below `dirFd`,
// for the *at(2) calls that act on a name without following it.
struct PathParent {
  UniqueFd ownedDir;   // the opened parent, unless it is `dirFd` itself
  int dirFd = -1;      // where `name` lives
  std::string name;    // one component, no '/'; "." or ".." only when the
                       // whole path stays below `dirFd`
  bool trailingSlash = false;
  int error = 0;

  bool nameIsDotOrDotDot() const { return name == "." || name == ".."; }
};
PathParent resolveParent(int dirFd, std::string_view path);

}  // namespace synergy::sandbox
