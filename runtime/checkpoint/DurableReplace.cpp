//===- DurableReplace.cpp - crash-safe replacement of a checkpoint's files --===//
//
// This file implements DurableReplace.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/DurableReplace.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "util/Crc32c.h"

namespace synergy::checkpoint {

namespace {

// The unit compared and rewritten; a page of the page cache.
constexpr size_t kCompareBytes = 4096;
// The most one write call takes: a run of tens of MiB in one call cost the
// kernel's copy into the page cache several times the CPU of 1 MiB calls
// (perf on bench/mpi/kernels.c nstream, np 4, a checkpoint a second).
constexpr uint64_t kMaxRunBytes = uint64_t(1) << 20;

bool preadAll(int fd, char* into, size_t bytes, uint64_t at, size_t& got) {
  got = 0;
  while (got < bytes) {
    ssize_t n = pread(fd, into + got, bytes - got, off_t(at + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;  // the file is shorter than its fstat said
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


// The spare's old bytes, mapped read-only so that they are compared where
// they lie in the page cache: reading them into a buffer first was a copy
// of the whole file per checkpoint, a quarter of the background write's
// CPU (perf on bench/mpi/kernels.c nstream, np 4, a checkpoint a second).
// The spare is this user's file, mode 0600 or narrower, with no other link
// (openSpare), so only this user could cut it short under the mapping,
// which would end the job with SIGBUS. Null when the spare is empty or
// cannot be mapped.
class SpareView {
 public:
  // `populate`: map every page at once (most will be read).
  SpareView(int fd, uint64_t bytes, bool populate) {
    if (bytes == 0 || bytes > SIZE_MAX) return;
    void* at = mmap(nullptr, size_t(bytes), PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0),
                    fd, 0);
    if (at == MAP_FAILED) return;
    bytes_ = static_cast<const char*>(at);
    size_ = size_t(bytes);
  }
  ~SpareView() {
    if (bytes_) munmap(const_cast<char*>(bytes_), size_);
  }
  SpareView(const SpareView&) = delete;
  SpareView& operator=(const SpareView&) = delete;

  const char* bytes() const { return bytes_; }
  std::string_view view() const { return {bytes_, size_}; }

 private:
  const char* bytes_ = nullptr;
  size_t size_ = 0;
};

// Makes the bytes at `at` of `fd`, whose first bytes are `spare`'s (the
// spare's old contents, mapped), equal to `piece`: compares them a chunk at
// a time and writes only the 4 KiB blocks that differ, a run of them with
// one call, and (with `wantChecksum`) takes each chunk's CRC-32C while it
// is in the cache, into `checksum` (the piece's). A chunk the piece's PieceChunks say is on the
// spare already (followed only when `spareIsExpected`) is neither compared
// nor written, and one whose checksum they know is not checksummed again.
// `sourceBuffer` holds a chunk of a piece that comes from a file. False
// with `error` set when the piece's own file cannot be read, with it empty
// when `fd` cannot be written (errno says why then).
bool rewriteRange(int fd, std::string_view spare, uint64_t at, const ReplacePiece& piece,
                  bool spareIsExpected, bool wantChecksum, std::vector<char>& sourceBuffer,
                  uint32_t& checksum, ReplaceCounts& counts, std::string& error) {
  uint64_t size = piece.size();
  PieceChunks* chunks = piece.fd < 0 ? piece.chunks : nullptr;
  const uint64_t chunkCount = (size + kChecksumChunkBytes - 1) / kChecksumChunkBytes;
  // Hints of another length than the piece's are not followed.
  const bool knownValid = chunks && chunks->known.size() == chunkCount &&
                          chunks->checksums.size() == chunkCount;
  const bool onSpareValid = knownValid && spareIsExpected && chunks->onSpare.size() == chunkCount;
  if (chunks && !knownValid) {
    chunks->checksums.assign(size_t(chunkCount), 0);
    chunks->known.clear();
  }
  checksum = 0;  // of nothing
  // The run of differing blocks pending, by offset in the piece: it goes on
  // across chunks of a piece in memory, so that a run is written with one
  // call (a chunk read from a file is in sourceBuffer only until the next).
  uint64_t runStart = 0, runEnd = 0;
  // `base` holds the piece's bytes from its offset `baseAt` on.
  auto flush = [&](const char* base, uint64_t baseAt) {
    if (runEnd > runStart &&
        !pwriteAll(fd, base + (runStart - baseAt), runEnd - runStart, at + runStart))
      return false;
    counts.changedBytes += runEnd - runStart;
    runStart = runEnd = 0;
    return true;
  };
  for (uint64_t done = 0, index = 0; done < size; ++index) {
    size_t chunk = size_t(std::min<uint64_t>(kChecksumChunkBytes, size - done));
    uint64_t where = at + done;
    bool onSpare = onSpareValid && chunks->onSpare[index] && where + chunk <= spare.size();
    bool known = knownValid && chunks->known[index];
    if (onSpare && known) {
      if (!flush(piece.bytes.data(), 0)) return false;
      checksum = util::Crc32c::combine(checksum, chunks->checksums[index], chunk);
      counts.skippedBytes += chunk;
      done += chunk;
      continue;
    }
    const char* wanted = piece.bytes.data() + done;
    if (piece.fd >= 0) {
      if (sourceBuffer.size() < kChecksumChunkBytes) sourceBuffer.resize(kChecksumChunkBytes);
      size_t got = 0;
      bool read = preadAll(piece.fd, sourceBuffer.data(), chunk, piece.fileOffset + done, got);
      if (!read || got != chunk) {
        error = std::string("cannot read what goes into the file: ") +
                (read ? "its source is shorter than announced" : std::strerror(errno));
        return false;
      }
      wanted = sourceBuffer.data();
    }
    if (!onSpare) {
      // The spare's bytes at `where`, `old` of them.
      const char* oldBytes = nullptr;
      size_t old = 0;
      if (where < spare.size()) {
        oldBytes = spare.data() + where;
        old = size_t(std::min<uint64_t>(chunk, spare.size() - where));
      }
      for (size_t block = 0; block < chunk; block += kCompareBytes) {
        size_t blockBytes = std::min(kCompareBytes, chunk - block);
        bool same = block + blockBytes <= old &&
                    std::memcmp(oldBytes + block, wanted + block, blockBytes) == 0;
        if (same) continue;
        uint64_t blockAt = done + block;
        if (runEnd != blockAt || runEnd - runStart >= kMaxRunBytes) {
          if (!flush(piece.fd >= 0 ? wanted : piece.bytes.data(), piece.fd >= 0 ? done : 0))
            return false;
          runStart = blockAt;
        }
        runEnd = blockAt + blockBytes;
      }
    }
    // A chunk from a file leaves the buffer with the next read.
    if (piece.fd >= 0 && !flush(wanted, done)) return false;
    uint32_t chunkChecksum = 0;
    if (!wantChecksum) {
      // Nobody reads it (a file written without a head).
    } else if (known) {
      chunkChecksum = chunks->checksums[index];
    } else {
      util::Crc32c crc;
      crc.update(wanted, chunk);
      chunkChecksum = crc.value();
      if (chunks) chunks->checksums[index] = chunkChecksum;
    }
    checksum = util::Crc32c::combine(checksum, chunkChecksum, chunk);
    done += chunk;
  }
  if (piece.fd < 0 && !flush(piece.bytes.data(), 0)) return false;
  if (chunks && wantChecksum) chunks->known.assign(size_t(chunkCount), 1);
  else if (chunks) chunks->known.clear();
  return true;
}

// Puts the pieces after `headBytes` of `fd`, whose first bytes are `spare`
// (mapped; empty: a new file, written whole), then the head from
// `writeHead`, and cuts the file to its size, which goes to `fileBytes`.
// False as rewriteRange.
bool writeContents(int fd, std::string_view spare, bool spareIsExpected, uint64_t headBytes,
                   const HeadWriter& writeHead, const std::vector<ReplacePiece>& pieces,
                   ReplaceCounts& counts, std::string& error) {
  std::vector<char> sourceBuffer;
  std::vector<uint32_t> checksums;
  checksums.reserve(pieces.size());
  uint64_t at = headBytes;
  for (const ReplacePiece& piece : pieces) {
    uint32_t checksum = 0;
    if (!rewriteRange(fd, spare, at, piece, spareIsExpected, bool(writeHead), sourceBuffer,
                      checksum, counts, error))
      return false;
    checksums.push_back(checksum);
    at += piece.size();
  }
  std::string head;
  if (writeHead && !writeHead(checksums, head, error)) return false;
  if (head.size() != headBytes) {
    error = "the file's head is not the length announced";
    return false;
  }
  uint32_t unused = 0;
  if (!rewriteRange(fd, spare, 0, ReplacePiece{head}, false, false, sourceBuffer, unused, counts,
                    error))
    return false;
  counts.fileBytes = at;
  // The mapping past the new end is never read again.
  return spare.size() <= at || ftruncate(fd, off_t(at)) == 0;
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
// through) that no one else may write (nor cut short under SpareView).
// -1 with errno set when it cannot be.
int openSpare(const std::string& path, uint64_t& spareBytes) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct stat info;
    if (fd >= 0 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_nlink == 1 &&
        info.st_uid == geteuid() && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0) {
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
// when `written`; when not, `error` holds why or errno does), and puts it
// at `path`: exchanged with the file there
// when `exchange`, else renamed over it. On failure `from` is removed:
// half written, it is no checkpoint, and is never read as one.
bool putInPlace(const std::string& directory, const std::string& from, const std::string& path,
                int fd, bool written, bool exchange, const ReplaceCounts& done,
                ReplaceCounts& counts, std::string& error) {
  written = written && fsync(fd) == 0;
  struct stat placedInfo;
  FileIdentity placed;
  if (written && fstat(fd, &placedInfo) == 0)
    placed = {uint64_t(placedInfo.st_dev), uint64_t(placedInfo.st_ino), done.fileBytes};
  int savedErrno = errno;
  written = close(fd) == 0 && written;
  bool inPlace = false, exchanged = false;
  if (written) {
    if (exchange && renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0)
      inPlace = exchanged = true;
    // No file to exchange with yet (the first checkpoint), or a file system
    // that cannot exchange: renamed over.
    else if ((!exchange || errno == ENOENT || errno == EINVAL || errno == ENOSYS) &&
             rename(from.c_str(), path.c_str()) == 0)
      inPlace = true;
    savedErrno = errno;
  }
  if (!inPlace) {
    unlink(from.c_str());
    if (error.empty()) error = "cannot write " + path + ": " + std::strerror(savedErrno);
    else error = "cannot write " + path + ": " + error;
    return false;
  }
  syncDirectory(directory);
  counts.fileBytes += done.fileBytes;
  counts.changedBytes += done.changedBytes;
  counts.skippedBytes += done.skippedBytes;
  counts.placed = placed;
  counts.exchanged = exchanged;
  return true;
}

bool replaceThroughTemp(const std::string& directory, const std::string& path,
                        uint64_t headBytes, const HeadWriter& writeHead,
                        const std::vector<ReplacePiece>& pieces, ReplaceCounts& counts,
                        std::string& error) {
  std::string temp = path + ".tmp.XXXXXX";
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    error = "cannot create a file in " + directory + ": " + std::strerror(errno);
    return false;
  }
  ReplaceCounts done;
  bool written = writeContents(fd, {}, false, headBytes, writeHead, pieces, done, error);
  return putInPlace(directory, temp, path, fd, written, false, done, counts, error);
}

// Through the spare open at `fd`, whose contents are mapped at `old`.
bool replaceThroughSpare(const std::string& directory, const std::string& path,
                         const std::string& spare, int fd, std::string_view old,
                         bool spareIsExpected, uint64_t headBytes, const HeadWriter& writeHead,
                         const std::vector<ReplacePiece>& pieces, ReplaceCounts& counts,
                         std::string& error) {
  ReplaceCounts done;
  bool written = writeContents(fd, old, spareIsExpected, headBytes, writeHead, pieces, done, error);
  return putInPlace(directory, spare, path, fd, written, true, done, counts, error);
}

}  // namespace

std::string spareFilePath(const std::string& directory, const std::string& name) {
  return directory + "/" + name + ".spare";
}

bool replaceFileDurably(const std::string& directory, const std::string& name,
                        const std::vector<std::string_view>& pieces, bool recycle,
                        ReplaceCounts& counts, std::string& error) {
  std::vector<ReplacePiece> inMemory;
  inMemory.reserve(pieces.size());
  for (std::string_view piece : pieces) inMemory.push_back(ReplacePiece{piece});
  return replaceFileDurably(directory, name, 0, nullptr, inMemory, recycle, counts, error);
}

bool replaceFileDurably(const std::string& directory, const std::string& name, uint64_t headBytes,
                        const HeadWriter& writeHead, const std::vector<ReplacePiece>& pieces,
                        bool recycle, ReplaceCounts& counts, std::string& error,
                        const FileIdentity* expectedSpare) {
  std::string path = directory + "/" + name;
  error.clear();
  if (recycle) {
    // A spare that cannot be had or mapped (a directory in its place, say)
    // costs the saving, not the checkpoint.
    std::string spare = spareFilePath(directory, name);
    uint64_t spareBytes = 0;
    if (int fd = openSpare(spare, spareBytes); fd >= 0) {
      // Unmapped once the file is in place (closing `fd` keeps the mapping).
      struct stat info;
      bool spareIsExpected = expectedSpare && fstat(fd, &info) == 0 &&
                             *expectedSpare == FileIdentity{uint64_t(info.st_dev),
                                                            uint64_t(info.st_ino), spareBytes};
      // Mapped page by page as it is read when the pieces say most of it
      // need not be (mapping every page at once is cheaper per page, but
      // not than leaving most of them alone).
      uint64_t total = 0, onSpare = 0;
      for (const ReplacePiece& piece : pieces) {
        total += piece.size();
        if (!spareIsExpected || piece.fd >= 0 || !piece.chunks) continue;
        for (size_t chunk = 0; chunk < piece.chunks->onSpare.size(); ++chunk)
          if (piece.chunks->onSpare[chunk]) onSpare += kChecksumChunkBytes;
      }
      SpareView old(fd, spareBytes, onSpare * 2 < total);
      if (spareBytes == 0 || old.bytes())
        return replaceThroughSpare(directory, path, spare, fd, old.view(), spareIsExpected,
                                   headBytes, writeHead, pieces, counts, error);
      close(fd);
    }
  }
  return replaceThroughTemp(directory, path, headBytes, writeHead, pieces, counts, error);
}

}  // namespace synergy::checkpoint
