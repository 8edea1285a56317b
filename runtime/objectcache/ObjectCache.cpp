//===- ObjectCache.cpp - integrity-checked cache of compiled objects -------===//
//
// This file implements the cache's directory policy and its verified lookup.
// A directory of the user's that others may read but not write, as earlier
// versions created it, is narrowed to 0700 rather than refused: nobody else
// could have put anything into it. Verification reads the whole object once
// per lookup; SHA-256 of a few-MB shared object costs milliseconds, far less
// than the dlopen that follows, and it is what makes the cache path carry no
// trust of its own.
//
// A warm start should not pay that hash on every run, so an object that
// passed it gets a verification record, `<digest>.verified`, naming its
// digest and its identity: device, inode, size, and modification and change
// times in nanoseconds. A later lookup whose object has exactly that identity
// skips the hash. Any change to the object afterwards breaks the match:
// writing or truncating it moves its change time (ctime), which no system
// call sets back (utimensat resets mtime, and itself moves ctime); a
// replacement by rename, copy or a new file on a reused inode number has a
// new inode or a new ctime. The one gap is a change made within the same
// tick of the clock ctime is taken from, just after the hash; a record is
// therefore written only for an object whose ctime is kIdentitySettleNs in
// the past, and whose identity did not move while it was hashed. A record
// is trusted no more than an index entry: whoever can write the cache
// directory can already name any object in an index entry, which is why the
// directory must be the user's own and closed to others. A record that does
// not match byte for byte (another object's, stale, planted, malformed)
// only means the object is hashed as before.
//
// The same identity stands for a module file's contents, which the AOT
// cache's key hashes: a record `<hash>.source`, named by the hash of the
// key's scope (tool versions, runtime build) and the file's identity, holds
// that identity and the key, so a warm start neither reads nor hashes the
// module. It is written under the same two conditions (settled, unmoved
// while read) and names only a key, whose object find() still checks.
//
// Looking up never creates anything: openExisting() finds the cache only if
// it is already there and private, so a run that hits no cache leaves the
// file system as it was until it has something to store.
//
//===----------------------------------------------------------------------===//
#include "objectcache/ObjectCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/FileIO.h"
#include "util/Sha256.h"

namespace synergy::objectcache {
namespace {

constexpr std::string_view kIndexMagic = "synergy-object-index-1";
constexpr std::string_view kVerifiedMagic = "synergy-object-verified-1";
constexpr std::string_view kSourceMagic = "synergy-source-key-1";
// Above any record: the magic, five numbers and a key of kMaxKeyBytes.
constexpr size_t kMaxSourceRecordBytes = 512;
// Linux takes ctime from a coarse clock (a tick of a few ms); two seconds
// also covers file systems that keep times at a coarser granularity.
constexpr int64_t kIdentitySettleNs = 2'000'000'000;
constexpr size_t kMaxKeyBytes = 200;
constexpr size_t kDigestHexBytes = 64;

std::string octalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

bool isValidKey(const std::string& key) {
  if (key.empty() || key.size() > kMaxKeyBytes || key[0] == '.') return false;
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

bool isDigestHex(std::string_view text) {
  if (text.size() != kDigestHexBytes) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string extensionOf(const std::string& key) {
  size_t dot = key.rfind('.');
  return dot == std::string::npos ? std::string() : key.substr(dot);
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// mkdir -p, each directory it creates private to the user.
bool makePrivateDirectories(const std::string& path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    if (mkdir(path.substr(0, pos).c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

// nullopt when `path` is a directory owned by the user and closed to others.
// One that others may only read is narrowed to 0700 when `mayNarrow`, and
// refused otherwise.
std::optional<std::string> checkPrivateDirectory(const std::string& path, bool mayNarrow) {
  FileDescriptor dir(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  struct stat st;
  if (dir.get() < 0 || fstat(dir.get(), &st) != 0)
    return "cannot use cache directory " + path + ": " + std::strerror(errno);
  if (st.st_uid != geteuid())
    return "cache directory " + path + " is owned by uid " + std::to_string(st.st_uid) +
           ", not by the user running synergy (uid " + std::to_string(geteuid()) +
           "); remove it or set SYNERGY_CACHE_DIR";
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return "cache directory " + path + " is writable by other users (mode " +
           octalMode(st.st_mode) + "); remove it or run chmod 700 on it";
  if ((st.st_mode & 077) && (!mayNarrow || fchmod(dir.get(), 0700) != 0))
    return "cannot make cache directory " + path + " private: " + std::strerror(errno);
  return std::nullopt;
}

// The hex SHA-256 of the regular file open at `fd`, or "" on a read error.
std::string digestOfFile(int fd) {
  util::Sha256 hash;
  static constexpr size_t kChunkBytes = 1 << 16;
  char chunk[kChunkBytes];
  for (;;) {
    ssize_t n = read(fd, chunk, kChunkBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {};
    if (n == 0) break;
    hash.update(chunk, size_t(n));
  }
  return hash.hexDigest();
}

// The contents of the regular file at `path` (not a symbolic link) when it
// holds exactly `expectedBytes` bytes, or nullopt.
std::optional<std::string> readFileOfSize(const std::string& path, size_t expectedBytes) {
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      size_t(st.st_size) != expectedBytes)
    return std::nullopt;
  std::string text(expectedBytes, '\0');
  if (read(fd.get(), text.data(), expectedBytes) != ssize_t(expectedBytes)) return std::nullopt;
  return text;
}

// The digest a well-formed index entry records for `key`, or nullopt.
std::optional<std::string> readIndexEntry(const std::string& path, const std::string& key) {
  auto contents =
      readFileOfSize(path, kIndexMagic.size() + 1 + key.size() + 1 + kDigestHexBytes + 1);
  if (!contents) return std::nullopt;
  const std::string& text = *contents;
  std::string expectedHead = std::string(kIndexMagic) + " " + key + " ";
  if (text.compare(0, expectedHead.size(), expectedHead) != 0 || text.back() != '\n')
    return std::nullopt;
  std::string digest = text.substr(expectedHead.size(), kDigestHexBytes);
  if (!isDigestHex(digest)) return std::nullopt;
  return digest;
}

int64_t nanoseconds(const struct timespec& time) {
  return int64_t(time.tv_sec) * 1'000'000'000 + time.tv_nsec;
}

// " <device> <inode> <size> <mtime ns> <ctime ns>" of a file whose fstat is
// `st`.
std::string fileIdentity(const struct stat& st) {
  char identity[160];
  std::snprintf(identity, sizeof identity,
                " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64, uint64_t(st.st_dev),
                uint64_t(st.st_ino), int64_t(st.st_size), nanoseconds(st.st_mtim),
                nanoseconds(st.st_ctim));
  return identity;
}

// The verification record of an object with `digest` whose fstat is `st`.
std::string verificationRecord(const std::string& digest, const struct stat& st) {
  return std::string(kVerifiedMagic) + " " + digest + fileIdentity(st) + "\n";
}

// The head of the source record of a file whose fstat is `st`; the key and
// a newline follow it.
std::string sourceRecordHead(const struct stat& st) {
  return std::string(kSourceMagic) + fileIdentity(st) + " ";
}

// Whether the file's last change lies far enough in the past for its
// identity to stand for its contents (see the file comment).
bool identityHasSettled(const struct stat& st) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return nanoseconds(now) - nanoseconds(st.st_ctim) >= kIdentitySettleNs;
}

}  // namespace

std::optional<std::string> cacheRoot(std::string& error) {
  if (const char* dir = std::getenv("SYNERGY_CACHE_DIR"); dir && *dir) return std::string(dir);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/synergy";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/synergy";
  error = "no cache directory for compiled code: set SYNERGY_CACHE_DIR (or HOME)";
  return std::nullopt;
}

std::optional<ObjectCache> ObjectCache::open(const std::string& name, std::string& error) {
  auto root = cacheRoot(error);
  if (!root) return std::nullopt;
  // The root is checked before anything is created inside it.
  std::string directory = *root + "/" + name;
  for (const std::string& path : {*root, directory}) {
    if (!makePrivateDirectories(path)) {
      error = "cannot create cache directory " + path + ": " + std::strerror(errno);
      return std::nullopt;
    }
    if (auto problem = checkPrivateDirectory(path, /*mayNarrow=*/true)) {
      error = *problem;
      return std::nullopt;
    }
  }
  return ObjectCache(directory);
}

std::optional<ObjectCache> ObjectCache::openExisting(const std::string& name) {
  std::string error;
  auto root = cacheRoot(error);
  if (!root) return std::nullopt;
  std::string directory = *root + "/" + name;
  for (const std::string& path : {*root, directory})
    if (checkPrivateDirectory(path, /*mayNarrow=*/false)) return std::nullopt;
  return ObjectCache(directory);
}

std::optional<std::string> ObjectCache::find(const std::string& key) const {
  if (!isValidKey(key)) return std::nullopt;
  auto digest = readIndexEntry(directory_ + "/" + key + ".index", key);
  if (!digest) return std::nullopt;
  std::string objectPath = directory_ + "/" + *digest + extensionOf(key);
  FileDescriptor fd(::open(objectPath.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_uid != geteuid())
    return std::nullopt;
  const std::string recordPath = directory_ + "/" + *digest + ".verified";
  const std::string record = verificationRecord(*digest, st);
  if (readFileOfSize(recordPath, record.size()) == record) return objectPath;
  if (digestOfFile(fd.get()) != *digest) return std::nullopt;
  struct stat hashed;
  if (fstat(fd.get(), &hashed) == 0 && verificationRecord(*digest, hashed) == record &&
      identityHasSettled(hashed))
    util::writeFileAtomically(recordPath, record);  // on failure the next lookup hashes again
  return objectPath;
}

std::string ObjectCache::sourceRecordPath(const struct stat& st, const std::string& scope) const {
  util::Sha256 name;
  name.update(kSourceMagic);
  name.update("\n", 1);
  name.update(scope);
  name.update("\n", 1);
  name.update(fileIdentity(st));
  return directory_ + "/" + name.hexDigest() + ".source";
}

std::optional<std::string> ObjectCache::keyOfUnchangedFile(int fd, const std::string& scope) const {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  FileDescriptor record(::open(sourceRecordPath(st, scope).c_str(),
                               O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat recordStat;
  if (record.get() < 0 || fstat(record.get(), &recordStat) != 0 ||
      !S_ISREG(recordStat.st_mode) || size_t(recordStat.st_size) > kMaxSourceRecordBytes)
    return std::nullopt;
  std::string text(size_t(recordStat.st_size), '\0');
  if (read(record.get(), text.data(), text.size()) != ssize_t(text.size())) return std::nullopt;
  const std::string head = sourceRecordHead(st);
  if (text.size() <= head.size() + 1 || text.compare(0, head.size(), head) != 0 ||
      text.back() != '\n')
    return std::nullopt;
  std::string key = text.substr(head.size(), text.size() - head.size() - 1);
  if (!isValidKey(key)) return std::nullopt;
  return key;
}

void ObjectCache::recordKeyOfFile(int fd, const struct stat& readFrom, const std::string& scope,
                                  const std::string& key) const {
  struct stat now;
  if (!isValidKey(key) || fstat(fd, &now) != 0 || fileIdentity(now) != fileIdentity(readFrom) ||
      !identityHasSettled(now))
    return;
  // On failure the next run reads and hashes the file again.
  util::writeFileAtomically(sourceRecordPath(now, scope), sourceRecordHead(now) + key + "\n");
}

std::optional<std::string> ObjectCache::publish(const std::string& key,
                                                const std::string& builtFile,
                                                std::string& error) const {
  if (!isValidKey(key)) {
    error = "invalid cache key '" + key + "'";
    return std::nullopt;
  }
  FileDescriptor fd(::open(builtFile.c_str(), O_RDONLY | O_CLOEXEC));
  std::string digest = fd.get() < 0 ? std::string() : digestOfFile(fd.get());
  if (digest.empty()) {
    error = "cannot read built object " + builtFile;
    return std::nullopt;
  }
  std::string objectPath = directory_ + "/" + digest + extensionOf(key);
  if (rename(builtFile.c_str(), objectPath.c_str()) != 0) {
    error = "cannot move " + builtFile + " into the cache: " + std::strerror(errno);
    return std::nullopt;
  }
  std::string entry = std::string(kIndexMagic) + " " + key + " " + digest + "\n";
  if (!util::writeFileAtomically(directory_ + "/" + key + ".index", entry)) {
    error = "cannot write the cache index in " + directory_;
    return std::nullopt;
  }
  return objectPath;
}

std::optional<std::string> ObjectCache::makeBuildDirectory(std::string& error) const {
  std::string pattern = directory_ + "/build-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    error = "cannot create a build directory in " + directory_ + ": " + std::strerror(errno);
    return std::nullopt;
  }
  return pattern;
}

}  // namespace synergy::objectcache
