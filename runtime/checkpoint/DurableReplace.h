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
// written last, once every piece is. A piece may also be a range of another
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

// `bytes`, or (with `fd` >= 0) `length` bytes of the file open at `fd`,
// from `fileOffset` on; a file shorter than that fails the replacement.
struct ReplacePiece {
  std::string_view bytes;
  int fd = -1;
  uint64_t fileOffset = 0;
  uint64_t length = 0;

  uint64_t size() const { return fd >= 0 ? length : bytes.size(); }
};

// Called once every piece is written, with each one's CRC-32C: puts the
// file's first bytes (as many as promised) in `head`, or returns false
// with a one-line `error`, which abandons the new file.
using HeadWriter = std::function<bool(const std::vector<uint32_t>& pieceChecksums,
                                      std::string& head, std::string& error)>;

struct ReplaceCounts {
  uint64_t fileBytes = 0;     // the new file's size
  uint64_t changedBytes = 0;  // of those, written (the rest was on disk already)
};

// Writes `pieces`, back to back, as `directory`/`name`, crash-safely (see
// above); with `recycle`, over `name`.spare, writing only what changed.
// False with a one-line `error`; the old file is then untouched.
bool replaceFileDurably(const std::string& directory, const std::string& name,
                        const std::vector<std::string_view>& pieces, bool recycle,
                        ReplaceCounts& counts, std::string& error);
// The same for `headBytes` bytes from `writeHead` followed by `pieces`.
bool replaceFileDurably(const std::string& directory, const std::string& name, uint64_t headBytes,
                        const HeadWriter& writeHead, const std::vector<ReplacePiece>& pieces,
                        bool recycle, ReplaceCounts& counts, std::string& error);

// The spare file recycled replacements of `name` keep in `directory`
// (removed when a job's checkpoints are over).
std::string spareFilePath(const std::string& directory, const std::string& name);

}  // namespace synergy::checkpoint
