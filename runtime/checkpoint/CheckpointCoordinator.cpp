//===- CheckpointCoordinator.cpp - consistent checkpoints of an MPI job ----===//
//
// This file implements the agreement at a barrier control point and the
// writing of one checkpoint file per suspension (see the header).
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointCoordinator.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "granule/Granule.h"
#include "snapshot/Snapshot.h"

namespace synergy::checkpoint {

namespace {

bool writeAll(int fd, const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += size_t(n);
  }
  return true;
}

// Temp file, fsync, rename over the old file, fsync of the directory: after
// a crash at any point the directory holds either the old checkpoint or the
// new one, whole.
bool replaceFileDurably(const std::string& directory, const std::string& name,
                        const std::string& bytes, std::string& error) {
  std::string path = directory + "/" + name;
  std::string temp = path + ".tmp.XXXXXX";
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    error = "cannot create a file in " + directory + ": " + std::strerror(errno);
    return false;
  }
  bool ok = writeAll(fd, bytes) && fsync(fd) == 0;
  int savedErrno = errno;
  ok = close(fd) == 0 && ok;
  if (ok && rename(temp.c_str(), path.c_str()) != 0) {
    savedErrno = errno;
    ok = false;
  }
  if (!ok) {
    unlink(temp.c_str());
    error = "cannot write " + path + ": " + std::strerror(savedErrno);
    return false;
  }
  int dirFd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    fsync(dirFd);
    close(dirFd);
  }
  return true;
}

}  // namespace

CheckpointCoordinator::CheckpointCoordinator(int ranks, CheckpointPolicy policy,
                                             const Digest& programDigest)
    : ranks_(ranks),
      policy_(std::move(policy)),
      programDigest_(programDigest),
      sections_(size_t(ranks)),
      lastCheckpoint_(std::chrono::steady_clock::now()) {}

template <typename Last>
void CheckpointCoordinator::meet(std::unique_lock<std::mutex>& lock, Last&& last) {
  uint64_t generation = generation_;
  if (++arrived_ == ranks_) {
    last();
    arrived_ = 0;
    ++generation_;
    released_.notify_all();
    return;
  }
  released_.wait(lock, [&] { return generation_ != generation; });
}

bool CheckpointCoordinator::due() const {
  std::chrono::duration<double> since = std::chrono::steady_clock::now() - lastCheckpoint_;
  return since.count() >= policy_.intervalSeconds;
}

bool CheckpointCoordinator::agreeToSuspend(int worldRank, bool canSuspend,
                                           const std::string& why) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!canSuspend && everyoneCan_) {
    everyoneCan_ = false;
    firstRefusal_ = "rank " + std::to_string(worldRank) + ": " + why;
  }
  meet(lock, [&] {
    bool isDue = due();
    decision_ = isDue && everyoneCan_;
    if (isDue && !everyoneCan_) {
      ++statistics_.postponed;
      std::fprintf(stderr, "synergy-run: note: checkpoint skipped at this barrier (%s)\n",
                   firstRefusal_.c_str());
    }
    everyoneCan_ = true;
    roundStart_ = std::chrono::steady_clock::now();
  });
  return decision_;
}

bool CheckpointCoordinator::suspended(int worldRank, granule::Granule& granule,
                                      const snapshot::Snapshot* snapshot, std::string& error) {
  std::string section;
  if (snapshot && !policy_.directory.empty())
    section = encodeRankSection(uint32_t(worldRank), granule.unwindBufferAddress(),
                                snapshot->globals(), granule.memoryBase(), granule.memorySize());
  std::unique_lock<std::mutex> lock(mutex_);
  if (!snapshot && failure_.empty())
    failure_ = "rank " + std::to_string(worldRank) + ": " + error;
  sections_[size_t(worldRank)] = std::move(section);
  meet(lock, [&] {
    // A file that cannot be written costs this checkpoint, not the run:
    // every rank still has its snapshot to be rewound from.
    std::string writeError;
    if (failure_.empty() && !policy_.directory.empty() && !writeCheckpoint(writeError)) {
      ++statistics_.postponed;
      std::fprintf(stderr, "synergy-run: note: checkpoint not written (%s)\n", writeError.c_str());
    } else if (failure_.empty()) {
      ++statistics_.checkpoints;
    }
    for (std::string& done : sections_) std::string().swap(done);
    auto now = std::chrono::steady_clock::now();
    statistics_.seconds += std::chrono::duration<double>(now - roundStart_).count();
    lastCheckpoint_ = now;
  });
  // A rank without a snapshot cannot be rewound, and the job cannot go on
  // without it: every rank stops, and the first failure names the cause.
  if (!failure_.empty()) {
    error = failure_;
    return false;
  }
  return true;
}

bool CheckpointCoordinator::writeCheckpoint(std::string& error) {
  std::string file = encodeCheckpoint(statistics_.checkpoints + 1, programDigest_, sections_);
  if (!replaceFileDurably(policy_.directory, kCheckpointFileName, file, error)) return false;
  statistics_.bytesWritten += file.size();
  return true;
}

CheckpointStatistics CheckpointCoordinator::statistics() {
  std::lock_guard<std::mutex> guard(mutex_);
  return statistics_;
}

}  // namespace synergy::checkpoint
