//===- GrantTable.cpp - open guest file names under the --dir grants -------===//
//
// Matching is textual and per component: guest name "/data" holds "/data"
// and "/data/x" but not "/database". What remains after the prefix is handed
// to openBeneath as it is, so any `..` or symlink in it is the resolver's to
// refuse. A relative name that no "." grant holds is taken as the host's
// current directory joined with it, so that `--dir $PWD` holds "data.txt"
// as `--dir .` does (the README promises the two behave alike, and a
// granule's wasi-libc resolves relative names against its cwd the same way).
//
//===----------------------------------------------------------------------===//
#include "sandbox/GrantTable.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace synergy::sandbox {

static std::string guestPrefixOf(const std::string& guestPath) {
  std::string prefix = guestPath;
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  return prefix;
}

std::optional<GrantTable> GrantTable::open(const std::vector<Grant>& grants, std::string& error) {
  GrantTable table;
  for (const Grant& grant : grants) {
    UniqueFd directory(::open(grant.hostPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!directory.valid()) {
      error = "cannot open --dir " + grant.hostPath + ": " + std::strerror(errno);
      return std::nullopt;
    }
    table.roots_.add(directory.get(), grant.readOnly);
    table.grants_.push_back({grant, guestPrefixOf(grant.guestPath), std::move(directory)});
  }
  if (char* cwd = ::getcwd(nullptr, 0)) {
    table.currentDirectory_ = cwd;
    std::free(cwd);
  }
  return table;
}

// The part of `name` below `prefix`, or nullopt when `prefix` does not hold
// `name`. The grant's own directory is ".".
static std::optional<std::string_view> remainderBelow(std::string_view prefix,
                                                      std::string_view name) {
  if (prefix == ".") {
    if (name.empty() || name.front() == '/') return std::nullopt;
    return name;
  }
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = name.substr(prefix.size());
  if (prefix != "/" && !rest.empty() && rest.front() != '/') return std::nullopt;
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  return rest.empty() ? std::string_view(".") : rest;
}

static bool writes(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND));
}

const GrantTable::OpenGrant* GrantTable::holderOf(std::string_view name, std::string& remainder) const {
  const OpenGrant* holder = nullptr;
  for (const OpenGrant& candidate : grants_) {
    std::optional<std::string_view> below = remainderBelow(candidate.guestPrefix, name);
    if (!below) continue;
    // "." holds relative names only as the last resort.
    size_t length = candidate.guestPrefix == "." ? 0 : candidate.guestPrefix.size();
    size_t holderLength = !holder || holder->guestPrefix == "." ? 0 : holder->guestPrefix.size();
    if (holder && length <= holderLength) continue;
    holder = &candidate;
    remainder = std::string(*below);
  }
  if (holder || name.empty() || name.front() == '/' || currentDirectory_.empty()) return holder;
  std::string absolute = currentDirectory_ + "/" + std::string(name);
  return holderOf(absolute, remainder);
}

OpenedBeneath GrantTable::openGuestFile(std::string_view name, int flags, mode_t mode) const {
  std::string remainder;
  const OpenGrant* holder = holderOf(name, remainder);
  if (!holder) return {UniqueFd(), kEscapes};
  if (writes(flags) && (holder->grant.readOnly ||
                        roots_.writeReachesReadOnly(holder->directory.get(), remainder, true)))
    return {UniqueFd(), EROFS};
  return openBeneath(holder->directory.get(), remainder, flags, mode,
                     /*followFinalSymlink=*/true);
}

static bool writeAll(int fd, std::string_view contents) {
  while (!contents.empty()) {
    ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    contents.remove_prefix(size_t(n));
  }
  return true;
}

int GrantTable::replaceGuestFile(std::string_view name, std::string_view contents) const {
  std::string remainder;
  const OpenGrant* holder = holderOf(name, remainder);
  if (!holder) return kEscapes;
  PathParent parent = resolveParent(holder->directory.get(), remainder);
  if (parent.error != 0) return parent.error;
  if (parent.nameIsDotOrDotDot() || parent.trailingSlash) return EISDIR;
  if (holder->grant.readOnly || roots_.directoryIsReadOnly(parent.dirFd)) return EROFS;
  // A name of our own beside the target; O_EXCL, so a file or link planted
  // under it is never written through.
  std::string temporary;
  UniqueFd file;
  for (int attempt = 0; attempt < 16 && !file.valid(); ++attempt) {
    temporary = "." + parent.name.substr(0, 200) + ".synergy-" + std::to_string(::getpid()) + "-" +
                std::to_string(std::rand());
    file.reset(::openat(parent.dirFd, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0666));
    if (!file.valid() && errno != EEXIST) return errno;
  }
  if (!file.valid()) return EEXIST;
  if (!writeAll(file.get(), contents) || ::fsync(file.get()) != 0 ||
      ::renameat(parent.dirFd, temporary.c_str(), parent.dirFd, parent.name.c_str()) != 0) {
    int error = errno;
    ::unlinkat(parent.dirFd, temporary.c_str(), 0);
    return error;
  }
  return 0;
}

std::string GrantTable::describeError(int error) {
  if (error == kEscapes) return "outside the --dir grants";
  if (error == EROFS) return "the --dir grant is read-only";
  return std::strerror(error);
}

}  // namespace synergy::sandbox
