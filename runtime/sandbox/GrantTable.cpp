//===- GrantTable.cpp - open guest file names under the --dir grants -------===//
//
// Matching is textual and per component: guest name "/data" holds "/data"
// and "/data/x" but not "/database". What remains after the prefix is handed
// to openBeneath as it is, so any `..` or symlink in it is the resolver's to
// refuse.
//
//===----------------------------------------------------------------------===//
#include "sandbox/GrantTable.h"

#include <fcntl.h>

#include <cstring>

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
    table.grants_.push_back({grant, guestPrefixOf(grant.guestPath), std::move(directory)});
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

OpenedBeneath GrantTable::openGuestFile(std::string_view name, int flags, mode_t mode) const {
  const OpenGrant* holder = nullptr;
  std::string_view remainder;
  for (const OpenGrant& candidate : grants_) {
    std::optional<std::string_view> below = remainderBelow(candidate.guestPrefix, name);
    if (!below) continue;
    // "." holds relative names only as the last resort.
    size_t length = candidate.guestPrefix == "." ? 0 : candidate.guestPrefix.size();
    size_t holderLength = !holder || holder->guestPrefix == "." ? 0 : holder->guestPrefix.size();
    if (holder && length <= holderLength) continue;
    holder = &candidate;
    remainder = *below;
  }
  if (!holder) return {UniqueFd(), kEscapes};
  if (holder->grant.readOnly && writes(flags)) return {UniqueFd(), EROFS};
  return openBeneath(holder->directory.get(), remainder, flags, mode,
                     /*followFinalSymlink=*/true);
}

std::string GrantTable::describeError(int error) {
  if (error == kEscapes) return "outside the --dir grants";
  if (error == EROFS) return "the --dir grant is read-only";
  return std::strerror(error);
}

}  // namespace synergy::sandbox
