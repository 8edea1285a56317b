//===- SandboxPath.h - resolve guest paths without leaving a directory -----===//
//
// Every guest path is relative to a directory descriptor the guest holds, and
// resolving it must never leave the tree below that directory: not through
// `..`, not through a symlink (absolute, or relative with enough `..`), not by
// naming an absolute path. An escape is reported as Errno::NotCapable.
//
// Resolution uses openat2(RESOLVE_BENEATH) when the kernel has it (Linux 5.6+)
// and otherwise walks the path one component at a time with O_NOFOLLOW,
// expanding symlinks itself. Setting SYNERGY_WASI_NO_OPENAT2=1 forces the walk,
// so tests can exercise both.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "wasi/UniqueFd.h"
#include "wasi/WasiAbi.h"

namespace synergy::wasi {

// Rejects paths no resolution may accept: empty, containing NUL, or absolute.
Errno checkGuestPath(std::string_view path);

struct OpenedBeneath {
  UniqueFd fd;
  Errno error = Errno::Success;
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
  Errno error = Errno::Success;

  bool nameIsDotOrDotDot() const { return name == "." || name == ".."; }
};
PathParent resolveParent(int dirFd, std::string_view path);

}  // namespace synergy::wasi
