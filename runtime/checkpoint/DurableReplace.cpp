//===- DurableReplace.cpp - crash-safe replacement of a checkpoint's files --===//
//
// This file implements DurableReplace.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/DurableReplace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/FileIO.h"

namespace synergy::checkpoint {

namespace {

// The unit compared and rewritten; a page of the page cache.
constexpr size_t kCompareBytes = 4096;
// How much of the spare is read at once to be compared.
constexpr size_t kReadChunkBytes = size_t(1) << 20;

bool preadAll(int fd, char* into, size_t bytes, uint64_t at, size_t& got) {
  got = 0;
  while (got < bytes) {
    ssize_t n = pread(fd, into + got, bytes - got, off_t(at + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;  // the spare is shorter than its fstat said
    got += size_t(n);
  }
  return true;
}

bool pwriteAll(int fd, const char* bytes, size_t size, uint64_t at) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, bytes + done, size - done, off_t(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Makes the bytes at `at` of `fd`, whose first `spareBytes` hold the
// spare's old contents, equal to `bytes`: reads them a chunk at a time and
// writes only the 4 KiB blocks that differ, a run of them with one call.
bool rewriteRange(int fd, uint64_t spareBytes, uint64_t at, std::string_view bytes,
                  std::vector<char>& scratch, uint64_t& changedBytes) {
  for (size_t done = 0; done < bytes.size();) {
    size_t chunk = std::min(kReadChunkBytes, bytes.size() - done);
    uint64_t where = at + done;
    size_t old = 0;
    if (where < spareBytes &&
        !preadAll(fd, scratch.data(), size_t(std::min<uint64_t>(chunk, spareBytes - where)), where,
                  old))
      return false;
    const char* wanted = bytes.data() + done;
    size_t runStart = 0, runEnd = 0;  // the run of differing blocks pending
    for (size_t block = 0; block < chunk; block += kCompareBytes) {
      size_t blockBytes = std::min(kCompareBytes, chunk - block);
      bool same = block + blockBytes <= old &&
                  std::memcmp(scratch.data() + block, wanted + block, blockBytes) == 0;
      if (same) continue;
      if (runEnd != block) {
        if (runEnd > runStart && !pwriteAll(fd, wanted + runStart, runEnd - runStart, where + runStart))
          return false;
        changedBytes += runEnd - runStart;
        runStart = block;
      }
      runEnd = block + blockBytes;
    }
    if (runEnd > runStart && !pwriteAll(fd, wanted + runStart, runEnd - runStart, where + runStart))
      return false;
    changedBytes += runEnd - runStart;
    done += chunk;
  }
  return true;
}

void syncDirectory(const std::string& directory) {
  int dirFd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    fsync(dirFd);
    close(dirFd);
  }
}

// The spare, open for reading and writing, with its size: created when
// missing; removed and created again when it is anything but a regular file
// of this user with one link (a link to another file must not be written
// through). -1 with errno set when it cannot be.
int openSpare(const std::string& path, uint64_t& spareBytes) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct stat info;
    if (fd >= 0 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_nlink == 1 &&
        info.st_uid == geteuid()) {
      spareBytes = uint64_t(info.st_size);
      return fd;
    }
    int savedErrno = errno;
    if (fd >= 0) close(fd);
    if (unlink(path.c_str()) != 0 && errno != ENOENT) return -1;
    errno = savedErrno;
  }
  return -1;
}

// Fsyncs and closes `fd`, the new file at `from` (its writes succeeded
// when `written`), and puts it at `path`: exchanged with the file there
// when `exchange`, else renamed over it. On failure `from` is removed:
// half written, it is no checkpoint, and is never read as one.
bool putInPlace(const std::string& directory, const std::string& from, const std::string& path,
                int fd, bool written, bool exchange, const ReplaceCounts& done,
                ReplaceCounts& counts, std::string& error) {
  written = written && fsync(fd) == 0;
  int savedErrno = errno;
  written = close(fd) == 0 && written;
  bool placed = false;
  if (written) {
    if (exchange && renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0)
      placed = true;
    // No file to exchange with yet (the first checkpoint), or a file system
    // that cannot exchange: renamed over.
    else if ((!exchange || errno == ENOENT || errno == EINVAL || errno == ENOSYS) &&
             rename(from.c_str(), path.c_str()) == 0)
      placed = true;
    savedErrno = errno;
  }
  if (!placed) {
    unlink(from.c_str());
    error = "cannot write " + path + ": " + std::strerror(savedErrno);
    return false;
  }
  syncDirectory(directory);
  counts.fileBytes += done.fileBytes;
  counts.changedBytes += done.changedBytes;
  return true;
}

bool replaceThroughTemp(const std::string& directory, const std::string& path,
                        const std::vector<std::string_view>& pieces, ReplaceCounts& counts,
                        std::string& error) {
  std::string temp = path + ".tmp.XXXXXX";
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    error = "cannot create a file in " + directory + ": " + std::strerror(errno);
    return false;
  }
  bool written = true;
  uint64_t bytes = 0;
  for (std::string_view piece : pieces) {
    written = written && util::writeAll(fd, piece);
    bytes += piece.size();
  }
  return putInPlace(directory, temp, path, fd, written, false, {bytes, bytes}, counts, error);
}

// Through the spare open at `fd`, `spareBytes` long.
bool replaceThroughSpare(const std::string& directory, const std::string& path,
                         const std::string& spare, int fd, uint64_t spareBytes,
                         const std::vector<std::string_view>& pieces, ReplaceCounts& counts,
                         std::string& error) {
  std::vector<char> scratch(kReadChunkBytes);
  uint64_t at = 0, changed = 0;
  bool written = true;
  for (std::string_view piece : pieces) {
    written = written && rewriteRange(fd, spareBytes, at, piece, scratch, changed);
    at += piece.size();
  }
  written = written && (spareBytes <= at || ftruncate(fd, off_t(at)) == 0);
  return putInPlace(directory, spare, path, fd, written, true, {at, changed}, counts, error);
}

}  // namespace

std::string spareFilePath(const std::string& directory, const std::string& name) {
  return directory + "/" + name + ".spare";
}

bool replaceFileDurably(const std::string& directory, const std::string& name,
                        const std::vector<std::string_view>& pieces, bool recycle,
                        ReplaceCounts& counts, std::string& error) {
  std::string path = directory + "/" + name;
  if (recycle) {
    // A spare that cannot be had (a directory in its place, say) costs the
    // saving, not the checkpoint.
    std::string spare = spareFilePath(directory, name);
    uint64_t spareBytes = 0;
    if (int fd = openSpare(spare, spareBytes); fd >= 0)
      return replaceThroughSpare(directory, path, spare, fd, spareBytes, pieces, counts, error);
  }
  return replaceThroughTemp(directory, path, pieces, counts, error);
}

}  // namespace synergy::checkpoint
