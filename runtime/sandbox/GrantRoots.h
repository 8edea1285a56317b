//===- GrantRoots.h - which grant a host directory lies in -----------------===//
//
// Grants may nest: `--dir a --dir a/ref::ro` makes a/ref read-only, yet
// a/ref is also reachable below the writable grant a, by name ("ref/x"), by
// `..`, by a symlink or through a directory descriptor opened there. Which
// descriptor a guest went through therefore cannot decide whether a write
// is allowed; the place it lands must. GrantRoots records every grant's
// directory by device and inode, and answers for a host directory by walking
// up from it through `..` to the nearest grant directory: the innermost
// grant decides, whatever the order of the --dir options. A directory
// granted twice, once read-only, is read-only.
//
// Writers call it with the directory a change happens in (the parent that
// resolveParent found), or let writeReachesReadOnly resolve a path the way
// openBeneath will, following a final symlink to the directory of its target.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/types.h>

#include <string_view>
#include <vector>

namespace synergy::sandbox {

class GrantRoots {
 public:
  // Records the grant whose directory `directoryFd` is open on.
  void add(int directoryFd, bool readOnly);

  // Whether the nearest grant directory at or above directory `dirFd` is a
  // read-only one. Any error while walking up counts as read-only when some
  // grant is, so a failure never opens a hole.
  bool directoryIsReadOnly(int dirFd) const;

  // Whether opening `path` below `dirFd` to write (or creating it) would
  // change a file in a read-only grant: its parent directory, or, when the
  // final component is a symlink that is followed, the directory its
  // target lies in. A dangling final symlink counts as read-only when some
  // grant is, since its target cannot be placed.
  bool writeReachesReadOnly(int dirFd, std::string_view path, bool followFinalSymlink) const;

  bool anyReadOnly() const { return anyReadOnly_; }

 private:
  struct Root {
    dev_t device;
    ino_t inode;
    bool readOnly;
  };
  std::vector<Root> roots_;
  bool anyReadOnly_ = false;
};

}  // namespace synergy::sandbox
