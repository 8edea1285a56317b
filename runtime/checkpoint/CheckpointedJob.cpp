//===- CheckpointedJob.cpp - an MPI job that checkpoints at barriers --------===//
//
// This file implements the launcher glue of CheckpointedJob.h: it checks
// the checkpoint directory, names the program by its digest, and puts the
// coordinator on the job's barriers.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointedJob.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "checkpoint/DurableReplace.h"
#include "checkpoint/MpiObjectRecord.h"
#include "checkpoint/OpenFileRecord.h"
#include "util/FileIO.h"
#include "util/Sha256.h"

namespace synergy::checkpoint {

namespace {

constexpr size_t kMaxProgramBytes = size_t(1) << 30;
// Every rank's memory, up to 4 GiB each: the file is read whole.
constexpr size_t kMaxCheckpointFileBytes = size_t(1) << 36;

int launchError(const std::string& message) {
  std::fprintf(stderr, "synergy-run: error: %s\n", message.c_str());
  return 2;
}

}  // namespace

sandbox::Grant recordedGrant(sandbox::Grant grant) {
  char resolved[PATH_MAX];
  if (realpath(grant.hostPath.c_str(), resolved)) grant.hostPath = resolved;
  return grant;
}

void printCheckpointStatistics(CheckpointCoordinator& coordinator) {
  if (const char* stats = std::getenv("SYNERGY_CHECKPOINT_STATS"); stats && std::strcmp(stats, "0")) {
    CheckpointStatistics totals = coordinator.statistics();
    std::fprintf(stderr,
                 "synergy-run: checkpoints: %llu taken, %llu skipped, %llu bytes written, "
                 "%.6f s\n",
                 (unsigned long long)totals.checkpoints, (unsigned long long)totals.postponed,
                 (unsigned long long)totals.bytesWritten, totals.seconds);
    std::fprintf(stderr,
                 "synergy-run: checkpoint time: %.6f s unwinding, %.6f s copying sections "
                 "(summed over ranks), %.6f s writing in the background\n",
                 totals.unwindSeconds, totals.copySeconds, totals.writeSeconds);
    std::fprintf(stderr,
                 "synergy-run: checkpoint cpu: %.6f s copying sections, %.6f s writing in the "
                 "background, %llu bytes changed on disk\n",
                 totals.copyCpuSeconds, totals.writeCpuSeconds,
                 (unsigned long long)totals.changedBytes);
    std::fprintf(stderr,
                 "synergy-run: checkpoint meetings: the ranks met at %llu of %llu barrier "
                 "control points\n",
                 (unsigned long long)totals.meetings, (unsigned long long)totals.controlPoints);
    std::fprintf(stderr,
                 "synergy-run: checkpoint sections: %llu of %llu rebuilt from the pages written "
                 "since the last, %llu bytes of memory copied for them, %llu built whole "
                 "while their write tracking rested\n",
                 (unsigned long long)totals.patchedSections, (unsigned long long)totals.sections,
                 (unsigned long long)totals.patchedBytes,
                 (unsigned long long)totals.restedSections);
    std::fprintf(stderr,
                 "synergy-run: checkpoint writes: %llu bytes neither compared nor checksummed "
                 "(unchanged since the recycled file)\n",
                 (unsigned long long)totals.skippedBytes);
  }
}

namespace {

bool isDirectory(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// Checks that every recorded grant's host directory is still one.
bool checkGrants(const std::vector<sandbox::Grant>& grants, std::string& error) {
  for (const sandbox::Grant& grant : grants) {
    struct stat info;
    if (stat(grant.hostPath.c_str(), &info) != 0) {
      error = "the --dir grant " + grant.hostPath + " (seen as " + grant.guestPath +
              ") no longer exists: " + std::strerror(errno);
      return false;
    }
    if (!S_ISDIR(info.st_mode)) {
      error = "the --dir grant " + grant.hostPath + " (seen as " + grant.guestPath +
              ") is no longer a directory";
      return false;
    }
  }
  return true;
}

// Checks that every rank's open files can be reopened and its MPI objects
// restored, before any output is cut back or any file is touched.
bool checkRanks(const CheckpointImage& image, std::string& error) {
  if (!checkSharedCommunicators(image.ranks, error)) return false;
  for (const RankImage& rank : image.ranks)
    if (!checkOpenFiles(image.job.grants, rank.files, error) ||
        !checkMpiObjects(rank.mpi, error)) {
      error = "rank " + std::to_string(rank.worldRank) + ": " + error;
      return false;
    }
  return true;
}

// Checks that `fd` can be cut back to `offset` (nothing when it was not a
// regular file then, or is not one now).
bool checkOutput(int fd, int64_t offset, const char* name, std::string& error) {
  struct stat info;
  if (offset < 0 || fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return true;
  if (info.st_size < offset) {
    error = std::string(name) + " holds " + std::to_string(info.st_size) +
            " bytes, fewer than the " + std::to_string(offset) +
            " it held at the checkpoint: append to the same file (>>) when resuming";
    return false;
  }
  return true;
}

void cutOutput(int fd, int64_t offset) {
  struct stat info;
  if (offset < 0 || fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return;
  if (ftruncate(fd, off_t(offset)) == 0) lseek(fd, off_t(offset), SEEK_SET);
}

}  // namespace

bool liveMoveRequested() {
  const char* hook = std::getenv("SYNERGY_TEST_LIVE_MOVE");
  return hook && !std::strchr(hook, ':');
}

namespace {

// SYNERGY_TEST_LIVE_MOVE=RANK[@N] (N from 1, 1 when left out); false with
// `error` when malformed or RANK is not below `ranks`.
bool parseLiveMove(const char* text, int ranks, int& rank, uint64_t& at, std::string& error) {
  char* end = nullptr;
  errno = 0;
  unsigned long value = std::strtoul(text, &end, 10);
  at = 1;
  bool ok = end != text && errno == 0 && value < unsigned(ranks);
  if (ok && *end == '@') {
    const char* number = end + 1;
    unsigned long long point = std::strtoull(number, &end, 10);
    ok = end != number && errno == 0 && point >= 1;
    at = point;
  }
  if (!ok || *end != '\0') {
    error = std::string("SYNERGY_TEST_LIVE_MOVE=") + text + ": not RANK[@N] with RANK below " +
            std::to_string(ranks) + " and N from 1";
    return false;
  }
  rank = int(value);
  return true;
}

}  // namespace

int runCheckpointedJob(mpi::JobOptions job, const CheckpointPolicy& policy) {
  if (!policy.directory.empty()) {
    struct stat info;
    if (stat(policy.directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
      return launchError("--checkpoint-dir: no such directory: " + policy.directory);
  }
  std::string error;
  std::optional<std::string> program = util::readRegularFile(job.program, kMaxProgramBytes, error);
  if (!program) return launchError(error);
  util::Sha256 hash;
  hash.update(*program);
  CheckpointCoordinator coordinator(job.ranks, policy, hash.digest());
  JobRecord record;
  // Absolute, so that --resume finds it from any directory.
  char resolved[PATH_MAX];
  record.program = realpath(job.program.c_str(), resolved) ? resolved : job.program;
  record.args = job.config.args;
  for (const granule::Preopen& preopen : job.config.preopens)
    record.grants.push_back(recordedGrant(preopen));
  record.env = job.config.env;
  coordinator.setJob(record);
  if (const char* move = liveMoveRequested() ? std::getenv("SYNERGY_TEST_LIVE_MOVE") : nullptr) {
    int rank = 0;
    uint64_t at = 0;
    if (!parseLiveMove(move, job.ranks, rank, at, error)) return launchError(error);
    const char* costs = std::getenv("SYNERGY_LIVE_MOVE_STATS");
    // Test hook: SYNERGY_TEST_LIVE_MOVE_CORRUPT=1 makes the arrival fail
    // (the departing bytes do not match their checksum).
    const char* corrupt = std::getenv("SYNERGY_TEST_LIVE_MOVE_CORRUPT");
    coordinator.setLiveMove(rank, at, costs && std::strcmp(costs, "0"),
                            corrupt && std::strcmp(corrupt, "0"));
  }
  job.barrierControlPoint = &coordinator;
  job.reportAtEnd = [&coordinator] { printCheckpointStatistics(coordinator); };
  int status = mpi::runJob(job);
  job.reportAtEnd();
  return status;
}

namespace {

// resumableCheckpoint's checks of a decoded checkpoint, once its file's
// bytes are no longer needed; `origin` names where in the errors.
std::optional<CheckpointImage> checkResumable(std::optional<CheckpointImage> image,
                                              const std::string& origin,
                                              const std::string& programPath,
                                              std::string& error) {
  if (!image) {
    error = origin + ": " + error;
    return std::nullopt;
  }
  auto refuse = [&](const std::string& why) {
    error = "cannot resume from " + origin + ": " + why;
    return std::nullopt;
  };
  if (!image->job.unresumable.empty()) return refuse(image->job.unresumable);
  const std::string& programFile = programPath.empty() ? image->job.program : programPath;
  std::optional<std::string> program = util::readRegularFile(programFile, kMaxProgramBytes, error);
  if (!program) return refuse(error);
  util::Sha256 hash;
  hash.update(*program);
  if (hash.digest() != image->programDigest)
    return refuse(image->job.program +
                  " is not the program that was checkpointed (its SHA-256 differs)");
  if (!checkGrants(image->job.grants, error) || !checkRanks(*image, error)) return refuse(error);
  return image;
}

}  // namespace

std::optional<CheckpointImage> readResumableCheckpoint(const std::string& directory,
                                                      const std::string& programPath,
                                                      std::string& error, std::string* fileBytes) {
  if (!isDirectory(directory)) {
    error = "--resume: no such directory: " + directory;
    return std::nullopt;
  }
  std::string path = directory + "/" + kCheckpointFileName;
  std::optional<std::string> bytes = util::readRegularFile(path, kMaxCheckpointFileBytes, error);
  if (!bytes) {
    error = "--resume: no checkpoint to resume from: " + error;
    return std::nullopt;
  }
  std::optional<CheckpointImage> image = decodeCheckpoint(*bytes, error);
  // Kept for the caller, or freed before the program is read and hashed.
  if (fileBytes) *fileBytes = std::move(*bytes);
  bytes.reset();
  return checkResumable(std::move(image), path, programPath, error);
}

std::optional<CheckpointImage> readRecordedCheckpoint(const std::string& directory,
                                                     const std::string& programPath,
                                                     uint64_t sequence, std::string& error,
                                                     std::string* fileBytes) {
  std::optional<CheckpointImage> image =
      readResumableCheckpoint(directory, programPath, error, fileBytes);
  if (sequence == 0 || (image && image->sequence == sequence)) return image;
  std::string path = directory + "/" + kCheckpointFileName;
  std::string found = image ? "it is checkpoint " + std::to_string(image->sequence) : error;
  image.reset();
  std::string spare = spareFilePath(directory, kCheckpointFileName);
  std::string spareError;
  std::optional<std::string> bytes =
      util::readRegularFile(spare, kMaxCheckpointFileBytes, spareError);
  if (bytes) {
    std::optional<CheckpointImage> previous = decodeCheckpoint(*bytes, spareError);
    if (previous && previous->sequence == sequence) {
      if (fileBytes) *fileBytes = std::move(*bytes);
      bytes.reset();
      return checkResumable(std::move(previous), spare, programPath, error);
    }
    spareError = previous ? "checkpoint " + std::to_string(previous->sequence) : spareError;
  }
  if (fileBytes) fileBytes->clear();
  error = "cannot resume from " + path + ": the cluster state records checkpoint " +
          std::to_string(sequence) + ", which this host does not hold (" + found +
          "; the file before it: " + spareError + ")";
  return std::nullopt;
}

std::optional<CheckpointImage> resumableCheckpoint(std::string bytes, const std::string& origin,
                                                  const std::string& programPath,
                                                  std::string& error) {
  std::optional<CheckpointImage> image = decodeCheckpoint(bytes, error);
  std::string().swap(bytes);
  return checkResumable(std::move(image), origin, programPath, error);
}

int resumeCheckpointedJob(const std::string& directory, std::optional<CheckpointPolicy> policy,
                          mpi::JobOptions job) {
  std::string error;
  std::optional<CheckpointImage> image = readResumableCheckpoint(directory, {}, error);
  if (!image) return launchError(error);
  std::string path = directory + "/" + kCheckpointFileName;
  if (!image->job.partOutputs.empty())
    return launchError("cannot resume from " + path +
                       ": it is a checkpoint of a job spread over hosts (resume it with --cluster)");
  if (!checkOutput(STDOUT_FILENO, image->job.stdoutOffset, "stdout", error) ||
      !checkOutput(STDERR_FILENO, image->job.stderrOffset, "stderr", error))
    return launchError("cannot resume from " + path + ": " + error);
  if (policy) {
    if (policy->directory.empty()) policy->directory = directory;
    if (!isDirectory(policy->directory))
      return launchError("--checkpoint-dir: no such directory: " + policy->directory);
  } else {
    policy.emplace();
    policy->intervalSeconds = 1e300;  // never due: no checkpoints
  }
  job.program = image->job.program;
  job.config.args = image->job.args;
  // Exactly the recorded grants and environment: --resume takes none of
  // its own.
  job.config.preopens = image->job.grants;
  job.config.env = image->job.env;
  job.ranks = int(image->ranks.size());
  CheckpointCoordinator coordinator(job.ranks, *policy, image->programDigest);
  JobRecord record = image->job;
  coordinator.setJob(record);
  coordinator.resumeFrom(&*image);
  job.barrierControlPoint = &coordinator;
  // Output printed after the checkpoint by the run that died is printed
  // again by this one: cut it off.
  cutOutput(STDOUT_FILENO, image->job.stdoutOffset);
  cutOutput(STDERR_FILENO, image->job.stderrOffset);
  job.reportAtEnd = [&coordinator] { printCheckpointStatistics(coordinator); };
  int status = mpi::runJob(job);
  job.reportAtEnd();
  return status;
}

}  // namespace synergy::checkpoint
