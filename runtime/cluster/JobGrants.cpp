//===- JobGrants.cpp - A job's --dir grants on the host that runs it ------===//
//
// This file implements JobGrants.h. The canonical path of an open directory
// is the kernel's, read from /proc/self/fd; a directory removed since it was
// opened reads back with a " (deleted)" suffix and so matches no allowed one.
//
//===----------------------------------------------------------------------===//
#include "cluster/JobGrants.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace synergy::cluster {

namespace {

std::string canonicalPathOf(int fd) {
  char buffer[PATH_MAX];
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t length = readlink(link.c_str(), buffer, sizeof buffer);
  if (length <= 0 || size_t(length) >= sizeof buffer) return {};
  return std::string(buffer, size_t(length));
}

// Whether canonical `path` is `directory` or lies below it.
bool isInside(const std::string& path, const std::string& directory) {
  if (directory == "/") return !path.empty() && path.front() == '/';
  return path.compare(0, directory.size(), directory) == 0 &&
         (path.size() == directory.size() || path[directory.size()] == '/');
}

// Whether canonical `path` lies inside one of the allowed directories.
bool isAllowed(const std::string& path, const std::vector<std::string>& allowed) {
  for (const std::string& root : allowed)
    if (isInside(path, root)) return true;
  return false;
}

// The absolute path, links resolved, of the directory `path` names, opened
// with `openFlags` (a grant needs no read permission, a checkpoint root
// does); nullopt with an error that names `option` otherwise.
std::optional<std::string> canonicalDirectory(const char* option, const std::string& path,
                                              int openFlags, std::string& error) {
  sandbox::UniqueFd fd(open(path.c_str(), openFlags | O_DIRECTORY | O_CLOEXEC));
  std::string canonical = fd.valid() ? canonicalPathOf(fd.get()) : "";
  if (canonical.empty() || canonical.front() != '/') {
    error = std::string(option) + " " + path + ": " +
            (fd.valid() ? "cannot resolve the path" : std::strerror(errno));
    return std::nullopt;
  }
  return canonical;
}

}  // namespace

std::optional<std::string> canonicalAllowedDirectory(const std::string& path, std::string& error) {
  return canonicalDirectory("--allow-dir", path, O_PATH, error);
}

std::string OpenedGrants::specFor(size_t i, int fd) const {
  return "/proc/self/fd/" + std::to_string(fd) + ":" + guestPaths[i] + (readOnly[i] ? ":ro" : ":rw");
}

bool openJobGrants(const RunJobRequest& request, const std::vector<std::string>& allowed,
                   OpenedGrants& grants, std::string& reason) {
  grants = OpenedGrants();
  if (request.grants.empty()) return true;
  // A working directory that does not exist here holds no grant: the guest
  // then starts in "/", as it would on the client, and relative grants have
  // nothing to resolve against.
  grants.workingDirectory.reset(
      open(request.workingDirectory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  std::string workingDirectory =
      grants.workingDirectory.valid() ? canonicalPathOf(grants.workingDirectory.get()) : "";
  for (const JobGrant& grant : request.grants) {
    bool relative = grant.hostPath.front() != '/';
    if (relative && !grants.workingDirectory.valid()) {
      reason = "--dir " + grant.hostPath + ": the working directory " +
               request.workingDirectory + " does not exist on this host";
      return false;
    }
    int base = relative ? grants.workingDirectory.get() : AT_FDCWD;
    sandbox::UniqueFd directory(
        openat(base, grant.hostPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!directory.valid()) {
      reason = "--dir " + grant.hostPath + ": " + std::strerror(errno);
      return false;
    }
    std::string canonical = canonicalPathOf(directory.get());
    if (!isAllowed(canonical, allowed)) {
      reason = "--dir " + grant.hostPath +
               (canonical == grant.hostPath || canonical.empty() ? "" : " (" + canonical + ")") +
               (allowed.empty() ? ": this host allows no --dir grants"
                                : ": not inside a directory this host allows") +
               " (synergyd --allow-dir)";
      return false;
    }
    // The rule of the local WasiState: a grant named only by a relative
    // host path that holds the working directory is seen under its
    // canonical host path, so that getcwd can name the working directory.
    std::string guest = grant.guestPath;
    if (grant.guestPath == grant.hostPath && relative && !workingDirectory.empty() &&
        isInside(workingDirectory, canonical))
      guest = canonical;
    if (guest.find(':') != std::string::npos) {
      reason = "--dir " + grant.hostPath + ": the path " + guest + " holds a ':'";
      return false;
    }
    grants.directories.push_back(std::move(directory));
    grants.guestPaths.push_back(guest);
    grants.readOnly.push_back(grant.readOnly);
  }
  return true;
}

std::optional<std::string> canonicalCheckpointRoot(const std::string& path, std::string& error) {
  return canonicalDirectory("--checkpoint-root", path, O_RDONLY, error);
}

namespace {

// The client's checkpoint directory `name`, an absolute path, as the same
// path below this host's `root`, created as needed one component at a
// time, never following a symbolic link; its canonical path, or empty
// with `reason`.
std::string hostLocalCheckpointDirectory(const std::string& root, const std::string& name,
                                         std::string& reason) {
  reason = "--checkpoint-dir " + name + ": ";
  if (name.empty() || name.front() != '/') {
    reason += "not an absolute path";
    return {};
  }
  sandbox::UniqueFd directory(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory.valid()) {
    reason += "the checkpoint root " + root + ": " + std::strerror(errno);
    return {};
  }
  size_t start = 1;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    std::string component = name.substr(start, end - start);
    start = end + 1;
    if (component.empty()) continue;
    if (component == "." || component == "..") {
      reason += "holds a '" + component + "' component";
      return {};
    }
    if (mkdirat(directory.get(), component.c_str(), 0700) != 0 && errno != EEXIST) {
      reason += "cannot create it below " + root + ": " + std::strerror(errno);
      return {};
    }
    sandbox::UniqueFd next(openat(directory.get(), component.c_str(),
                                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      reason += "cannot open it below " + root + ": " + std::strerror(errno);
      return {};
    }
    directory = std::move(next);
  }
  std::string canonical = canonicalPathOf(directory.get());
  if (!isInside(canonical, root)) {
    reason += "not below the checkpoint root " + root;
    return {};
  }
  reason.clear();
  return canonical;
}

}  // namespace

bool allowCheckpointDirectory(RunJobRequest& request, const std::vector<std::string>& allowed,
                              const std::string& checkpointRoot, std::string& reason) {
  if (request.checkpointDirectory.empty()) return true;
  if (!checkpointRoot.empty()) {
    std::string local = hostLocalCheckpointDirectory(checkpointRoot, request.checkpointDirectory, reason);
    if (local.empty()) return false;
    request.checkpointDirectory = local;
    return true;
  }
  sandbox::UniqueFd directory(
      open(request.checkpointDirectory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory.valid()) {
    reason = "--checkpoint-dir " + request.checkpointDirectory + ": " + std::strerror(errno);
    return false;
  }
  std::string canonical = canonicalPathOf(directory.get());
  if (!isAllowed(canonical, allowed)) {
    reason = "--checkpoint-dir " + request.checkpointDirectory +
             (allowed.empty() ? ": this host allows no directories"
                              : ": not inside a directory this host allows") +
             " (synergyd --allow-dir)";
    return false;
  }
  request.checkpointDirectory = canonical;
  return true;
}

}  // namespace synergy::cluster
