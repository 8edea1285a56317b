//===- GrantRoots.cpp - which grant a host directory lies in ---------------===//
//
// This file implements GrantRoots (GrantRoots.h). The walk up opens `..`
// from the host side with O_PATH, so it needs no permission on the
// directories it passes and cannot be steered by the guest: `..` of a
// directory is what the kernel says it is. It ends at the first grant
// directory, or at the file system's root, whose `..` is itself.
//
//===----------------------------------------------------------------------===//
#include "sandbox/GrantRoots.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "sandbox/SandboxPath.h"
#include "sandbox/UniqueFd.h"

namespace synergy::sandbox {

namespace {

// Deeper than any path Linux can name (PATH_MAX / 2 components).
constexpr int kMaxWalkDepth = 2048;

UniqueFd openParentDirectoryOf(int fd) {
  return UniqueFd(::openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
}

}  // namespace

void GrantRoots::add(int directoryFd, bool readOnly) {
  anyReadOnly_ = anyReadOnly_ || readOnly;
  struct stat info;
  // A grant directory fstat cannot describe is never matched, so walks
  // below it end at a grant further up or count as read-only.
  if (::fstat(directoryFd, &info) != 0)
    return;
  for (Root& root : roots_) {
    if (root.device == info.st_dev && root.inode == info.st_ino) {
      root.readOnly = root.readOnly || readOnly;
      return;
    }
  }
  roots_.push_back({info.st_dev, info.st_ino, readOnly});
}

bool GrantRoots::directoryIsReadOnly(int dirFd) const {
  if (!anyReadOnly_)
    return false;
  struct stat info;
  if (::fstat(dirFd, &info) != 0)
    return true;
  UniqueFd current;
  int fd = dirFd;
  for (int depth = 0; depth < kMaxWalkDepth; ++depth) {
    for (const Root& root : roots_)
      if (root.device == info.st_dev && root.inode == info.st_ino)
        return root.readOnly;
    UniqueFd parent = openParentDirectoryOf(fd);
    struct stat parentInfo;
    if (!parent.valid() || ::fstat(parent.get(), &parentInfo) != 0)
      return true;
    if (parentInfo.st_dev == info.st_dev && parentInfo.st_ino == info.st_ino)
      return false;  // the root of the file system, below no grant
    info = parentInfo;
    current = std::move(parent);
    fd = current.get();
  }
  return true;
}

bool GrantRoots::writeReachesReadOnly(int dirFd, std::string_view path, bool followFinalSymlink) const {
  if (!anyReadOnly_)
    return false;
  PathParent parent = resolveParent(dirFd, path);
  // The write resolves the same way and fails with the same error.
  if (parent.error != 0)
    return false;
  if (directoryIsReadOnly(parent.dirFd))
    return true;
  if (parent.nameIsDotOrDotDot()) {
    UniqueFd named(::openat(parent.dirFd, parent.name.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    return !named.valid() || directoryIsReadOnly(named.get());
  }
  struct stat link;
  if (!followFinalSymlink || ::fstatat(parent.dirFd, parent.name.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISLNK(link.st_mode))
    return false;
  OpenedBeneath target = openBeneath(dirFd, path, O_PATH, 0, /*followFinalSymlink=*/true);
  if (target.error != 0)
    return target.error == ENOENT;
  struct stat targetInfo;
  if (::fstat(target.fd.get(), &targetInfo) != 0)
    return true;
  if (S_ISDIR(targetInfo.st_mode))
    return directoryIsReadOnly(target.fd.get());
  // The kernel's name for the target, whose directory is the one to check.
  char hostPath[4096];
  std::string procPath = "/proc/self/fd/" + std::to_string(target.fd.get());
  ssize_t length = ::readlink(procPath.c_str(), hostPath, sizeof hostPath);
  if (length <= 0 || size_t(length) >= sizeof hostPath || hostPath[0] != '/')
    return true;
  std::string targetPath(hostPath, size_t(length));
  UniqueFd directory(::open(targetPath.substr(0, std::max<size_t>(targetPath.rfind('/'), 1)).c_str(),
                            O_PATH | O_DIRECTORY | O_CLOEXEC));
  return !directory.valid() || directoryIsReadOnly(directory.get());
}

}  // namespace synergy::sandbox
