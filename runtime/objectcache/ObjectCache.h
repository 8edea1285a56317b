//===- ObjectCache.h - integrity-checked cache of compiled objects ---------===//
//
// Compiled granules and engines are native code that synergy-run loads into
// itself, so whatever sits at a cache path runs as host code. ObjectCache is
// the one place that decides what may be loaded from the cache:
//
//   - the cache lives in a directory owned by the user and closed to everyone
//     else (created 0700; a foreign or group/other-writable one is refused),
//     and there is no shared fallback location: without SYNERGY_CACHE_DIR,
//     XDG_CACHE_HOME or HOME there is no cache and the run fails clearly;
//   - each object is stored under its own SHA-256 (`<digest>.so`), and an
//     index entry `<key>.index` names the key and the digest; find() hashes
//     the object and compares before returning it, so a truncated, swapped or
//     planted file is rebuilt, never loaded; once an object has passed, a
//     verification record of its identity (`<digest>.verified`, see
//     ObjectCache.cpp) lets later lookups of the unchanged file skip the hash;
//   - a key hashed from a file's contents (a module's) can be recorded for
//     the file's identity (`<hash>.source`, see ObjectCache.cpp), so that a
//     later run finds the key of the unchanged file without reading it;
//   - objects and index entries are published by rename(2), so concurrent
//     runs building the same key never see a partial file, and whichever
//     rename lands last leaves a consistent entry.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>

namespace synergy::objectcache {

// The cache root: $SYNERGY_CACHE_DIR, else $XDG_CACHE_HOME/synergy, else
// $HOME/.cache/synergy; nullopt with a one-line `error` when none is set.
std::optional<std::string> cacheRoot(std::string& error);

class ObjectCache {
 public:
  // The area `name` of the cache (e.g. "aot"), creating it and the root 0700
  // when missing. Returns nullopt with a one-line `error` naming the
  // directory when it cannot be created or is not private to the user.
  static std::optional<ObjectCache> open(const std::string& name, std::string& error);
  // The area `name` when it and the root already exist and are private to
  // the user, creating and changing nothing; nullopt otherwise (open() then
  // creates it or says what is wrong). For lookups.
  static std::optional<ObjectCache> openExisting(const std::string& name);

  const std::string& directory() const { return directory_; }

  // The path of the object recorded for `key` (letters, digits, `_ . -`; its
  // extension, e.g. ".so", is the object's), or nullopt when there is none or
  // it fails verification.
  std::optional<std::string> find(const std::string& key) const;

  // Moves `builtFile` (which must be inside directory()) into the cache as
  // the object for `key` and returns its cached path, or nullopt and `error`.
  std::optional<std::string> publish(const std::string& key, const std::string& builtFile,
                                     std::string& error) const;

  // The key recorded by recordKeyOfFile for the file open at `fd` under
  // `scope` (what the key hashes besides the file: tool versions, the
  // runtime's build), when the file's identity is still the one recorded;
  // nullopt otherwise.
  std::optional<std::string> keyOfUnchangedFile(int fd, const std::string& scope) const;
  // Records `key` for the file open at `fd`, whose fstat from before its
  // contents were read for the key is `readFrom`. Records nothing when the
  // file changed since, or changed too recently for its identity to stand
  // for its contents.
  void recordKeyOfFile(int fd, const struct stat& readFrom, const std::string& scope,
                       const std::string& key) const;

  // A new private directory inside the area to build in (so that publish's
  // rename stays on one file system); the caller removes it.
  std::optional<std::string> makeBuildDirectory(std::string& error) const;

 private:
  explicit ObjectCache(std::string directory) : directory_(std::move(directory)) {}
  std::string sourceRecordPath(const struct stat& st, const std::string& scope) const;
  std::string directory_;
};

}  // namespace synergy::objectcache
