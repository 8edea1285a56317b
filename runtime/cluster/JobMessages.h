//===- JobMessages.h - The payload of a RunJob frame -----------------------===//
//
// What a client tells a host when it places a job there: the job's id in the
// cluster state, the content hash of its module (the host asks for the bytes
// only when it lacks them), the rank count, and the guest's arguments and
// environment. Decoding checks every count and length against the bytes
// that remain, so a hostile payload yields a reason, never an overread or a
// large allocation.
//
//  u64 job id | u32 ranks | u8 flags (bit 0: tag output) | 32-byte SHA-256
//  u32 argument count, then per argument u32 length + bytes
//  u32 environment count, then per entry u32 length + bytes ("KEY=VALUE")
//  u32 part count P (0: every rank runs on this host), u32 this host's part,
//  then P times u32 ranks of that part
//  with flags bit 3 (the parts are not runs of consecutive ranks in part
//  order), then: per world rank, in rank order, u32 its part (below P, and
//  each part named as often as it has ranks)
//  with flags bit 1 (the job has --dir grants), then:
//  u32 grant count, then per grant u32 length + host path, u32 length +
//  guest path, u8 read-only (0 or 1); u32 length + the client's working
//  directory, against which relative host paths resolve
//  with flags bit 2 (the job checkpoints), then: u64 interval in
//  microseconds, u32 length + the absolute checkpoint directory (the same
//  path on every host), u32 length + the program as the client names it,
//  u8 1 to resume from the checkpoint there (0 or 1); when 1, u64 the
//  number of the checkpoint to resume from (0: the one the directory holds)
//
// A job spread over several hosts is cut into parts, one per host; each
// host gets the whole list. The parts are runs of consecutive ranks in
// part order, unless a move (Migration.h) left a host ranks that are not
// consecutive: then the rank -> part table says which part runs each rank.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace synergy::cluster {

// Limits a host accepts; synergy-run -np allows 4096 ranks as well.
constexpr uint32_t kMaxJobRanks = 4096;
constexpr uint32_t kMaxJobStrings = 4096;
constexpr uint32_t kMaxJobGrants = 256;
constexpr uint32_t kMaxJobPathBytes = 4096;
// synergy-run --checkpoint-every takes at most 1000000 s.
constexpr uint64_t kMaxCheckpointIntervalMicroseconds = 1000000ull * 1000000ull;
// The interval of a job that checkpoints only to be moved (--checkpoint-dir
// without --checkpoint-every): the most it may ask, so no checkpoint falls
// due. Such a job's part 0 may leave it in a live move (Migration.h).
constexpr double kMoveOnlyCheckpointIntervalSeconds = 1e6;

// One --dir grant as the client spelled it (sandbox/Grant.h): the guest
// path equals the host path when the client gave none.
struct JobGrant {
  std::string hostPath;
  std::string guestPath;
  bool readOnly = false;
};

struct RunJobRequest {
  uint64_t jobId = 0;
  uint32_t ranks = 1;
  bool tagOutput = false;
  std::array<uint8_t, 32> moduleHash{};
  // The guest's argv; argv[0] names the program.
  std::vector<std::string> arguments;
  std::vector<std::string> environment;
  // Ranks per part when the job spans hosts (then `ranks` is the size of
  // part `partIndex`, this host's); empty when it runs on this host alone.
  std::vector<uint32_t> partRanks;
  uint32_t partIndex = 0;
  // The part of each world rank, for parts that are not runs of
  // consecutive ranks in part order (as after a move, Migration.h); empty:
  // part p runs the partRanks[p] ranks after those of the parts before it.
  std::vector<uint32_t> rankParts;
  // The job's --dir grants; the host runs it only when each lies inside a
  // directory its operator allows (JobGrants.h). Empty: no file access.
  std::vector<JobGrant> grants;
  // Absolute; the job runs there on every host, as the local synergy-run
  // would (it decides the guest's working directory). Sent with grants.
  std::string workingDirectory;
  // --checkpoint-every with --cluster (empty directory: no checkpoints);
  // `resume`: the parts restore their ranks from the checkpoint there.
  std::string checkpointDirectory;
  std::string checkpointProgram;
  uint64_t checkpointIntervalMicroseconds = 0;
  bool resume = false;
  // With `resume`: the checkpoint the client cut stdout back to, as the
  // cluster state records it (CheckpointHolders.h); a part that reads
  // another one resumes from none (0: whichever the directory holds).
  uint64_t resumeSequence = 0;
};

std::vector<uint8_t> encodeRunJob(const RunJobRequest& request);
// False with `reason` when the payload is malformed or over a limit.
bool decodeRunJob(const std::vector<uint8_t>& payload, RunJobRequest& request,
                  std::string& reason);

// Lowercase hex of a module hash, as used for file names and messages.
std::string hashHex(const std::array<uint8_t, 32>& hash);

}  // namespace synergy::cluster
