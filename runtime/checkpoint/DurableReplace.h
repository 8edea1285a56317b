//===- DurableReplace.h - crash-safe replacement of a checkpoint's files ----===//
//
// How a checkpoint file and a part file reach the disk. The directory holds
// the latest file whole at every instant: the new one is written beside it
// and fsynced, takes the old one's name with one rename, and the directory
// is fsynced; a crash at any point leaves the old file or the new one.
//
// What a checkpoint costs a job is mostly that write: the kernel copies
// every byte into page-cache pages it allocates for a fresh file, and frees
// the replaced file's (perf on bench/mpi/kernels.c nstream, np 4, a
// checkpoint every 0.3 s: 28 % of the job's CPU in that copy, against 1.5 %
// for the ranks' own copies of their memory and 1.3 % for the CRC). Most
// pages of a checkpoint are the same as two checkpoints before (arrays that
// are read but not written, code and data that never change), so a
// recycled replacement writes the new file over the one it replaced last
// time, kept as `<name>.spare`: each 4 KiB of the new file is compared with
// what the spare holds there (mapped from the page cache, several times
// cheaper than a write) and only what differs is written; then the file is
// truncated to its size, fsynced, and exchanged with the current one by
// renameat2(RENAME_EXCHANGE), atomically, so the replaced checkpoint becomes
// the next spare. Nothing in the spare is trusted: every byte of the new
// file either compared equal to what was meant or was written, and a spare
// that is not a regular file with one link, owned by this user and
// writable by no one else, is removed and started afresh. On a file system without RENAME_EXCHANGE the spare
// is renamed over the file and the next write starts a new one.
//
// The file's checksum comes out of the same pass: each piece's CRC-32C is
// taken a chunk at a time right after the chunk is compared, while it is
// in the cache, and the head of the file (which holds the checksum) is
// written last, once every piece is. A writer that knows which chunks of a
// piece changed since the spare was written (PieceChunks) has the others
// neither compared nor checksummed: an incremental write. A piece may also be a range of another
// file (a part file, CheckpointCoordinator.h), read a chunk at a time into
// a buffer that stays in the cache instead of whole into memory first.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace synergy::checkpoint {

// The unit in which a piece is checksummed (from the piece's first byte;
// the last chunk may be shorter), so that a writer that knows which parts
// of a piece changed since its last file checksums only those
// (PieceChunks).
inline constexpr uint64_t kChecksumChunkBytes = uint64_t(64) << 10;

// What a writer knows of an in-memory piece's chunks beforehand: an
// incremental write. A rank's section rebuilt in place from the pages it
// wrote (patchRankSection) is mostly the bytes it held at the last
// checkpoints; what it did not write since then needs no new checksum, and
// what it did not write since the checkpoint before the last is on the
// spare already, at the same place when the file's layout is the same.
struct PieceChunks {
  // Each chunk's CRC-32C: read where `known` says so, written for all.
  std::vector<uint32_t> checksums;
  // 1 where checksums[i] is chunk i's CRC-32C already (empty: none is).
  std::vector<uint8_t> known;
  // 1 where the spare holds chunk i at this piece's place already: neither
  // compared nor written. Only followed when the spare is the one the
  // caller names (ReplaceOptions::expectedSpare); a chunk so skipped is
  // still covered by the file's checksum, which was taken from the bytes
  // meant, so a spare that was changed behind the writer's back gives a
  // file that `--resume` refuses, never a wrong checkpoint.
  std::vector<uint8_t> onSpare;
};

// `bytes`, or (with `fd` >= 0) `length` bytes of the file open at `fd`,
// from `fileOffset` on; a file shorter than that fails the replacement.
struct ReplacePiece {
  std::string_view bytes;
  int fd = -1;
  uint64_t fileOffset = 0;
  uint64_t length = 0;
  // In-memory pieces only; may be null.
  PieceChunks* chunks = nullptr;

  uint64_t size() const { return fd >= 0 ? length : bytes.size(); }
};

// Which file a spare is: its device, inode and size.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t bytes = 0;
  bool operator==(const FileIdentity&) const = default;
};

// Called once every piece is written, with each one's CRC-32C: puts the
// file's first bytes (as many as promised) in `head`, or returns false
// with a one-line `error`, which abandons the new file.
using HeadWriter = std::function<bool(const std::vector<uint32_t>& pieceChecksums,
                                      std::string& head, std::string& error)>;

struct ReplaceCounts {
  uint64_t fileBytes = 0;     // the new file's size
  uint64_t changedBytes = 0;  // of those, written (the rest was on disk already)
  // Of fileBytes, neither compared nor checksummed (PieceChunks).
  uint64_t skippedBytes = 0;
  // The new file, and whether the file it replaced is the spare now (an
  // exchange; not when it was renamed over).
  FileIdentity placed;
  bool exchanged = false;
};

// Writes `pieces`, back to back, as `directory`/`name`, crash-safely (see
// above); with `recycle`, over `name`.spare, writing only what changed.
// False with a one-line `error`; the old file is then untouched.
bool replaceFileDurably(const std::string& directory, const std::string& name,
                        const std::vector<std::string_view>& pieces, bool recycle,
                        ReplaceCounts& counts, std::string& error);
// The same for `headBytes` bytes from `writeHead` followed by `pieces`.
// `expectedSpare`: the spare whose bytes the pieces' onSpare chunks
// describe (the file placed two replacements ago, when the one between
// was an exchange); null or another spare: every chunk is compared.
bool replaceFileDurably(const std::string& directory, const std::string& name, uint64_t headBytes,
                        const HeadWriter& writeHead, const std::vector<ReplacePiece>& pieces,
                        bool recycle, ReplaceCounts& counts, std::string& error,
                        const FileIdentity* expectedSpare = nullptr);

// The spare file recycled replacements of `name` keep in `directory`
// (removed when a job's checkpoints are over).
std::string spareFilePath(const std::string& directory, const std::string& name);

}  // namespace synergy::checkpoint
