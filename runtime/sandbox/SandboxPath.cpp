//===- SandboxPath.cpp - resolve guest paths without leaving a directory ---===//
//
// Two resolvers with one contract (see SandboxPath.h):
//  - openat2 with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: the kernel refuses
//    any step that would leave the directory (EXDEV) and retries nothing
//    racy on our behalf (EAGAIN, which we retry a few times).
//  - a component walk for older kernels or seccomp filters that hide openat2.
//    It keeps its own stack of directory fds, so `..` pops our stack instead of
//    asking the file system, and each step is a single-name openat with
//    O_NOFOLLOW, so no step can traverse a symlink the walk did not read and
//    vet itself. Absolute link targets and `..` above the root are escapes.
//
//===----------------------------------------------------------------------===//
#include "sandbox/SandboxPath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

namespace synergy::sandbox {

// Linux's own limit on symlinks followed in one resolution.
static constexpr int kMaxSymlinkExpansions = 40;
static constexpr int kOpenat2Retries = 16;

int checkGuestPath(std::string_view path) {
  if (path.empty()) return ENOENT;
  if (path.find('\0') != std::string_view::npos) return EINVAL;
  if (path.front() == '/') return kEscapes;
  return 0;
}

static bool forcedWalkByEnvironment() {
  const char* value = std::getenv("SYNERGY_WASI_NO_OPENAT2");
  return value && *value && std::strcmp(value, "0") != 0;
}

// Whether openat2 works here; probed once, because containers may filter it
// even on kernels that have it.
static bool openat2Usable() {
  static const bool usable = [] {
#ifdef SYS_openat2
    if (forcedWalkByEnvironment()) return false;
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH;
    long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
    if (fd < 0) return false;
    ::close(static_cast<int>(fd));
    return true;
#else
    return false;
#endif
  }();
  return usable;
}

#ifdef SYS_openat2
static OpenedBeneath openWithOpenat2(int dirFd, const std::string& path, int flags, mode_t mode,
                                     bool followFinalSymlink) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC | (followFinalSymlink ? 0 : O_NOFOLLOW));
  // openat2 rejects a mode without a file to create. O_TMPFILE includes the
  // O_DIRECTORY bit, so it is tested as a whole.
  bool creates = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
  how.mode = creates ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0; attempt < kOpenat2Retries; ++attempt) {
    long fd = syscall(SYS_openat2, dirFd, path.c_str(), &how, sizeof how);
    if (fd >= 0) return {UniqueFd(static_cast<int>(fd)), 0};
    if (errno == EINTR || errno == EAGAIN) continue;
    // EXDEV is the kernel saying "this would leave the directory", which is
    // also what this file reports for an escape.
    return {UniqueFd(), errno};
  }
  return {UniqueFd(), EAGAIN};
}
#endif

// Splits on '/', keeping empty components; a trailing '/' leaves a final ""
// that the walk treats as "." so the preceding name must be a directory.
static void pushComponentsFront(std::string_view path, std::deque<std::string>& pending) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    parts.emplace_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  pending.insert(pending.begin(), parts.begin(), parts.end());
}

// Reads the link `name` in `dirFd` (or the O_PATH link fd itself when `name`
// is empty). Returns false with `error` set when it is not usable.
static bool readLinkTarget(int dirFd, const char* name, std::string& target, int& error) {
  char buffer[PATH_MAX];
  ssize_t length = ::readlinkat(dirFd, name, buffer, sizeof buffer);
  if (length < 0) {
    error = errno;
    return false;
  }
  if (static_cast<size_t>(length) == sizeof buffer) {
    error = ENAMETOOLONG;
    return false;
  }
  target.assign(buffer, static_cast<size_t>(length));
  return true;
}

static OpenedBeneath openByWalking(int rootFd, std::string_view path, int flags, mode_t mode,
                                   bool followFinalSymlink) {
  std::deque<std::string> pending;
  pushComponentsFront(path, pending);
  std::vector<UniqueFd> below;  // directories entered below rootFd, innermost last
  auto current = [&] { return below.empty() ? rootFd : below.back().get(); };
  int expansionsLeft = kMaxSymlinkExpansions;

  // Splices a link's target in front of what is still to resolve.
  auto expandLink = [&](const std::string& target) -> int {
    if (target.empty()) return ENOENT;
    if (target.front() == '/') return kEscapes;
    if (--expansionsLeft < 0) return ELOOP;
    pushComponentsFront(target, pending);
    return 0;
  };

  while (!pending.empty()) {
    std::string component = std::move(pending.front());
    pending.pop_front();
    bool isFinal = pending.empty();

    if (component == "..") {
      if (below.empty()) return {UniqueFd(), kEscapes};
      below.pop_back();
      if (!isFinal) continue;
      component = ".";
    }
    if (component.empty() || component == ".") {
      if (!isFinal) continue;
      component = ".";
    }

    if (!isFinal) {
      // "name/" cannot be created as a file; Linux says EISDIR once the
      // directories before it have resolved.
      if ((flags & O_CREAT) && pending.size() == 1 && pending.front().empty())
        return {UniqueFd(), EISDIR};
      UniqueFd step(::openat(current(), component.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      if (!step.valid()) return {UniqueFd(), errno};
      struct stat info;
      if (::fstat(step.get(), &info) != 0) return {UniqueFd(), errno};
      if (S_ISLNK(info.st_mode)) {
        std::string target;
        int error;
        if (!readLinkTarget(step.get(), "", target, error)) return {UniqueFd(), error};
        if (int e = expandLink(target); e != 0) return {UniqueFd(), e};
        continue;
      }
      if (!S_ISDIR(info.st_mode)) return {UniqueFd(), ENOTDIR};
      below.push_back(std::move(step));
      continue;
    }

    UniqueFd opened(::openat(current(), component.c_str(), flags | O_CLOEXEC | O_NOFOLLOW,
                             mode));
    if (!opened.valid()) {
      int openError = errno;
      bool exclusiveCreate = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
      // O_NOFOLLOW refused a symlink (ELOOP, or ENOTDIR with O_DIRECTORY):
      // follow it ourselves when asked to.
      std::string target;
      int linkError;
      if (!followFinalSymlink || exclusiveCreate || component == "." ||
          !readLinkTarget(current(), component.c_str(), target, linkError))
        return {UniqueFd(), openError};
      if (int e = expandLink(target); e != 0) return {UniqueFd(), e};
      continue;
    }
    if ((flags & O_PATH) && followFinalSymlink) {
      // O_PATH|O_NOFOLLOW opens a link itself rather than failing.
      struct stat info;
      if (::fstat(opened.get(), &info) != 0) return {UniqueFd(), errno};
      if (S_ISLNK(info.st_mode)) {
        std::string target;
        int error;
        if (!readLinkTarget(opened.get(), "", target, error)) return {UniqueFd(), error};
        if (int e = expandLink(target); e != 0) return {UniqueFd(), e};
        continue;
      }
    }
    return {std::move(opened), 0};
  }
  return {UniqueFd(), ENOENT};
}

OpenedBeneath openBeneath(int dirFd, std::string_view path, int flags, mode_t mode,
                          bool followFinalSymlink) {
  if (int e = checkGuestPath(path); e != 0) return {UniqueFd(), e};
#ifdef SYS_openat2
  if (openat2Usable())
    return openWithOpenat2(dirFd, std::string(path), flags, mode, followFinalSymlink);
#endif
  return openByWalking(dirFd, path, flags, mode, followFinalSymlink);
}

PathParent resolveParent(int dirFd, std::string_view path) {
  PathParent parent;
  if (int e = checkGuestPath(path); e != 0) {
    parent.error = e;
    return parent;
  }
  // checkGuestPath guarantees path[0] != '/', so trimming stops before 0.
  size_t end = path.size();
  while (path[end - 1] == '/') --end;
  parent.trailingSlash = end != path.size();
  std::string_view trimmed = path.substr(0, end);

  size_t slash = trimmed.rfind('/');
  if (slash == std::string_view::npos) {
    parent.dirFd = dirFd;
    parent.name = std::string(trimmed);
  } else {
    OpenedBeneath dir = openBeneath(dirFd, trimmed.substr(0, slash), O_PATH | O_DIRECTORY, 0,
                                    /*followFinalSymlink=*/true);
    if (dir.error != 0) {
      parent.error = dir.error;
      return parent;
    }
    parent.ownedDir = std::move(dir.fd);
    parent.dirFd = parent.ownedDir.get();
    parent.name = std::string(trimmed.substr(slash + 1));
  }

  // "." and ".." name a directory above or at the parent; make sure that
  // directory is still inside before a caller reports anything about it.
  if (parent.nameIsDotOrDotDot()) {
    OpenedBeneath whole = openBeneath(dirFd, trimmed, O_PATH | O_DIRECTORY, 0, true);
    if (whole.error != 0) parent.error = whole.error;
  }
  return parent;
}

}  // namespace synergy::sandbox
