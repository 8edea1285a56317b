//===- CheckpointFile.h - the checkpoint file format ------------------------===//
//
// One file holds a consistent checkpoint of every rank of a job, taken at a
// barrier control point: for each rank its linear memory (only the host
// pages that are not all zeros, as runs), the raw bytes of its globals
// (the stack pointer and Asyncify's state among them) and the guest address
// of its unwind buffer, and the files it holds open (see OpenFile). The
// file names the program it belongs to by the SHA-256 of its bytes; the
// job record names its path, its arguments, the launcher's stdout/stderr
// offsets at the checkpoint (-1 when not a regular file), the job's --dir
// grants and --env variables, which `--resume` applies again, and, when
// non-empty, why `--resume` must refuse the checkpoint (state the file does
// not hold, such as a deleted open file or a communicator).
//
// Layout (little-endian):
//   header:  "SYNCKPT\0"  u32 version  u32 rankCount  u64 sequence
//            u8[32] programDigest  u64 payloadBytes  u32 fileChecksum
//            (programDigest: SHA-256 of the program's bytes; fileChecksum:
//            CRC-32C of the header before it and the payload)
//   payload: job { u64 stdoutOffset  u64 stderrOffset  u32 pathBytes  u8[]
//                  u32 argCount  argCount x { u32 bytes  u8[] }
//                  u32 grantCount  grantCount x { u32 hostBytes  u8[]
//                                                 u32 guestBytes  u8[]  u8 readOnly }
//                  u32 envCount  envCount x { u32 bytes  u8[] }
//                  u32 unresumableBytes  u8[]
//                  u32 partCount  partCount x { u64 jobId  u32 part  u64 stdoutBytes } }
//            rankCount x { u32 worldRank  u32 unwindBuffer
//                          u32 globalsBytes  u8[globalsBytes]
//                          u64 memoryBytes  u32 runCount
//                          runCount x { u64 offset  u64 length  u8[length] }
//                          u32 fileCount
//                          fileCount x { u32 guestFd  u32 grant  u32 pathBytes  u8[]
//                                        u8 kind  u8 access  u16 fdflags
//                                        u64 rightsBase  u64 rightsInheriting
//                                        u64 offset  i64 lengthToRestore }
//                          MPI objects (MpiObjectSection.h) }
//
// A checkpoint file is hostile input: decodeCheckpoint checks the magic,
// the version, the checksum of the whole file and then every count,
// length and offset against what is left of the file and against wasm32's
// limits before it allocates, and refuses anything else with one line.
// A grant's host path must be absolute and its guest path non-empty, an
// environment entry must hold '='; whether the host directory still
// exists is for `--resume` to check. An open file must name a grant of the
// job record and a path below it made only of plain components (no "..",
// no "." inside, not absolute, no empty component, no NUL), sit at a
// descriptor number above the preopens', in increasing order, and carry
// only the kinds, access modes and flags defined below.
//
// Version 3 added the grants and the environment, version 4 the open
// files, version 5 the MPI objects, version 6 the output counts of a job
// spread over hosts (partCount is 0 for a job on one host), version 7
// replaced the file's SHA-256 by a CRC-32C (util/Crc32c.h: the checksum
// guards against torn and corrupt files, which a CRC catches as well, and
// the hashing was most of a checkpoint's CPU time), version 8 each
// communicator record's counts of nonblocking collectives and of windows
// spanning hosts (MpiObjectSection.h: a rank resumed or moved with 0 there
// matched the others' next collective's messages wrongly); a file of
// another version is refused.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checkpoint/MpiObjectSection.h"
#include "sandbox/Grant.h"

namespace synergy::checkpoint {

inline constexpr uint32_t kCheckpointVersion = 8;
// Path, arguments, grants, environment and reason together.
inline constexpr uint32_t kMaxJobTextBytes = 1u << 20;
inline constexpr uint32_t kMaxCheckpointRanks = 4096;
inline constexpr uint32_t kMaxGlobalsBytes = 1u << 20;
// WASI's descriptor table never grows past this, nor a path past PATH_MAX.
inline constexpr uint32_t kMaxGuestFd = 4096;
inline constexpr uint32_t kMaxOpenFilePathBytes = 4096;

using Digest = std::array<uint8_t, 32>;

// The file name of the latest checkpoint inside a checkpoint directory.
inline constexpr const char* kCheckpointFileName = "checkpoint.syck";

struct MemoryRun {
  uint64_t offset = 0;
  std::string bytes;
  // Instead of `bytes`, in an image decoded over bytes its caller keeps
  // while it uses the image (decodeRankSection's `viewRuns`): a view of
  // the run in them, so that a moved rank's memory is copied once, into
  // its instance, not first into the image.
  std::string_view view;
  std::string_view contents() const { return view.data() ? view : std::string_view(bytes); }
};

// A file a rank held open at the checkpoint, as `--resume` reopens it:
// through the sandbox, below the preopen of grant `grant` (an index into
// the job record's grants), at the same guest descriptor number, never
// creating or truncating it on open, then seeked to `offset`.
struct OpenFile {
  enum class Kind : uint8_t { RegularFile = 0, Directory = 1 };
  // Bit 0: readable, bit 1: writable; a directory is only readable.
  static constexpr uint8_t kReadable = 1, kWritable = 2;
  // WASI's fdflags (append, dsync, nonblock, rsync, sync): bits 0-4.
  static constexpr uint16_t kKnownFdflags = 0x1f;

  uint32_t guestFd = 0;
  uint32_t grant = 0;
  std::string path;  // relative to the grant's host directory; "." for itself
  Kind kind = Kind::RegularFile;
  uint8_t access = kReadable;
  uint16_t fdflags = 0;
  uint64_t rightsBase = 0;
  uint64_t rightsInheriting = 0;
  uint64_t offset = 0;  // a regular file's offset; 0 for a directory
  // A regular file open for writing is cut back to its length at the
  // checkpoint on resume; -1 for anything else.
  int64_t lengthToRestore = -1;
};

// A rank's own progress on one of its communicators, by context: what a
// live move carries besides the section (RankMove.h); a checkpoint holds
// none, since every rank of a resumed job starts its communicators afresh.
struct CommProgressRecord {
  uint32_t context = 0;
  uint64_t collectives = 0;  // entered
  uint64_t finished = 0;
  uint64_t sequence = 0;  // communicators made from it
};

// A request of the rank's that a live move carries (RankMove.h), by its
// handle: a completed one not yet freed (its status), or a receive posted
// and not yet matched, which the rank's arrival posts again (its buffer's
// guest address, count, datatype and communicator handles, source, tag),
// a persistent request not started (the same, and its kind and send mode);
// and the buffer MPI_Buffer_attach gave (handle 0: its address in
// `buffer`, its size in `count`).
struct CarriedRequestRecord {
  static constexpr uint8_t kCompleted = 1;
  static constexpr uint8_t kPostedReceive = 2;
  static constexpr uint8_t kPersistent = 3;
  static constexpr uint8_t kAttachedBuffer = 4;
  // `flags`: a posted receive started from a persistent request (which it
  // turns back into, its template being the same fields); a persistent
  // send's mode.
  static constexpr uint8_t kStartedPersistent = 1;
  static constexpr uint8_t kSynchronous = 2;
  static constexpr uint8_t kBuffered = 4;
  uint32_t handle = 0;
  uint8_t state = 0;
  // A completed or persistent one's: 0 send, 1 receive, 2 null
  // (mpi::Request::Kind).
  uint8_t kind = 0;
  bool cancelled = false;
  uint8_t flags = 0;
  int32_t source = 0;  // status source, or the receive's source, or the send's destination
  int32_t tag = 0;     // status tag, or the request's tag
  int32_t error = 0;
  int64_t bytes = 0;
  uint64_t buffer = 0;  // guest address
  int64_t count = 0;
  int32_t type = 0;
  int32_t comm = 0;
};

// An MPI window of the rank's that a live move carries (RankMove.h), by
// its handle: where the rank's part of it lies in its memory and each
// member's size and displacement unit, the handles of its communicator and
// of its own collective context (whose context every host knows it by),
// and the rank's epoch: only a fence's can be open (kFenceEpoch).
struct CarriedWindowRecord {
  static constexpr uint8_t kFenceEpoch = 1;
  uint32_t handle = 0;
  int32_t comm = 0;
  int32_t fenceComm = 0;
  uint8_t flavor = 0;
  uint8_t flags = 0;
  uint32_t me = 0;  // the rank's rank in the window
  uint64_t spanningId = 0;
  uint64_t base = 0;  // guest address
  uint32_t allocatedGuest = 0;
  uint32_t attributesGuest = 0;
  int32_t errhandler = 0;
  std::string name;
  std::vector<int64_t> sizes;      // by window rank
  std::vector<int64_t> dispUnits;  // by window rank
};

struct RankImage {
  uint32_t worldRank = 0;
  uint32_t unwindBuffer = 0;
  std::vector<uint8_t> globals;
  uint64_t memoryBytes = 0;
  std::vector<MemoryRun> runs;  // increasing, disjoint, inside memoryBytes
  std::vector<OpenFile> files;  // increasing guestFd
  MpiObjects mpi;
  std::vector<CommProgressRecord> progress;  // a live move's only
  std::vector<CarriedRequestRecord> requests;  // a live move's only
  std::vector<CarriedWindowRecord> windows;    // a live move's only
};

// For a job spread over hosts (scheduler/RemoteJob.h): how many bytes of
// the guests' stdout part `part` of cluster job `jobId` had written when
// the checkpoint was taken, so that the client can tell, in what it
// printed, the output from before the checkpoint from the output after it.
struct PartOutput {
  uint64_t jobId = 0;
  uint32_t part = 0;
  uint64_t stdoutBytes = 0;
};

// What `--resume` needs besides the ranks' images.
struct JobRecord {
  int64_t stdoutOffset = -1;  // -1: stdout was not a regular file
  int64_t stderrOffset = -1;
  std::string program;
  std::vector<std::string> args;
  std::vector<sandbox::Grant> grants;  // --dir, host paths absolute
  std::vector<std::string> env;        // --env, each KEY=VALUE
  std::string unresumable;  // non-empty: why this checkpoint cannot be resumed
  std::vector<PartOutput> partOutputs;  // empty for a job on one host
};

struct CheckpointImage {
  uint64_t sequence = 0;
  Digest programDigest{};
  JobRecord job;
  std::vector<RankImage> ranks;  // ranks[i].worldRank == i
};

// One rank's payload section, from its live memory (only non-zero host
// pages are stored), its open files and its MPI objects.
// `memoryIsAnonymous`: the memory is private anonymous memory of this
// process, whose never-populated pages need not be read
// (snapshot/NonZeroPages.h). `buffer`: a string whose contents are
// dropped and whose capacity the section is built in, so that a rank's
// section of one checkpoint can reuse the last one's pages (a fresh
// allocation of that size costs a page fault per 4 KiB, several times
// the copy itself).
std::string encodeRankSection(uint32_t worldRank, uint32_t unwindBuffer,
                              const std::vector<uint8_t>& globals, const uint8_t* memory,
                              uint64_t memoryBytes, const std::vector<OpenFile>& files = {},
                              const MpiObjects& mpi = {}, bool memoryIsAnonymous = false,
                              std::string buffer = {});
// Rebuilds `section`, this rank's section of its last checkpoint (what
// encodeRankSection returned then), into this checkpoint's, copying only
// the memory pages of `writtenPages` (4 KiB page indices, ascending, of
// every page written since that section was built: snapshot/WrittenPages.h).
// The result is byte for byte what encodeRankSection would build now.
// False, with `section` left to be rebuilt whole, when it cannot be
// patched: it is not such a section (it is parsed and every length
// checked), the rank, its memory's size or its globals' size changed, a
// page index lies outside the memory, or a written page's zero-ness changed
// (the runs would be cut differently). `copiedBytes`: the memory bytes
// copied. `changed`, when given: the ranges of the section (offset,
// length; increasing, disjoint) that may differ from what it held before:
// the head with the globals, each page copied and the records after the
// runs; every other byte is the one it held.
bool patchRankSection(std::string& section, uint32_t worldRank, uint32_t unwindBuffer,
                      const std::vector<uint8_t>& globals, const uint8_t* memory,
                      uint64_t memoryBytes, const std::vector<uint64_t>& writtenPages,
                      const std::vector<OpenFile>& files, const MpiObjects& mpi,
                      uint64_t& copiedBytes,
                      std::vector<std::pair<uint64_t, uint64_t>>* changed = nullptr);
// The same section as pieces, in order: the section's own records
// (`literal`) and, between them, each memory run's bytes by where they lie
// in `memory` (`length` bytes at `memoryOffset`, `literal` empty); joined,
// they are encodeRankSection's bytes. For a writer that puts the runs'
// bytes in place itself (a departing rank's, checkpoint/RankMove.h).
struct SectionPiece {
  std::string literal;
  uint64_t memoryOffset = 0;
  uint64_t length = 0;  // a memory run's; 0 for the section's own records
};
std::vector<SectionPiece> layoutRankSection(uint32_t worldRank, uint32_t unwindBuffer,
                                            const std::vector<uint8_t>& globals,
                                            const uint8_t* memory, uint64_t memoryBytes,
                                            const std::vector<OpenFile>& files,
                                            const MpiObjects& mpi, bool memoryIsAnonymous);
// Whether `path` may name an open file below a grant: "." or plain
// components separated by single slashes (see the format's rules above).
bool isPlainRelativePath(std::string_view path);
// The whole file around the ranks' sections, one per rank, in rank order.
std::string encodeCheckpoint(uint64_t sequence, const Digest& programDigest,
                             const std::vector<std::string>& rankSections,
                             const JobRecord& job = JobRecord());
// The same file's bytes before the ranks' sections (header and job
// record), the checksum covering the sections too: the head followed by the
// sections is encodeCheckpoint's file, which a writer can so put on disk
// without copying every rank's memory into one string first.
std::string encodeCheckpointHead(uint64_t sequence, const Digest& programDigest,
                                 const std::vector<std::string_view>& rankSections,
                                 const JobRecord& job = JobRecord());
// The same from the sections' lengths and their CRC-32C back to back, for
// a writer that takes it while it writes them (DurableReplace.h). Its
// length does not depend on the checksum.
std::string encodeCheckpointHead(uint64_t sequence, const Digest& programDigest,
                                 const std::vector<uint64_t>& sectionBytes,
                                 uint32_t sectionsChecksum, const JobRecord& job);
// Parses and checks one rank's section (encodeRankSection's bytes, all of
// them) as decodeCheckpoint checks it in a file of `rankCount` ranks and
// `grantCount` grants; nullopt with a one-line `error`. With `viewRuns`
// the memory runs are views into `section` (MemoryRun::view), which must
// outlive the image.
std::optional<RankImage> decodeRankSection(std::string_view section, uint32_t worldRank,
                                           uint32_t rankCount, uint32_t grantCount,
                                           std::string& error, bool viewRuns = false);
// Parses and checks a checkpoint file; nullopt with a one-line `error`.
// With `viewRuns` the memory runs are views into `bytes` (MemoryRun::view),
// which must outlive the image: for a caller that only checks the file (a
// host storing a copy of it) and need not copy every rank's memory.
std::optional<CheckpointImage> decodeCheckpoint(std::string_view bytes, std::string& error,
                                                bool viewRuns = false);

}  // namespace synergy::checkpoint
