//===- OutputJournal.h - where a spread job's stdout went, for --resume ----===//
//
// The client of a cluster job that checkpoints prints each host part's
// stdout a whole line at a time, in the order the lines arrive, so lines a
// part printed after a checkpoint can sit in the client's stdout before
// lines another part printed before it, and lines printed before it can
// still be on their way when a host dies. Cutting stdout back to one
// offset, as a job on one host does (CheckpointedJob.h), cannot separate
// them. So the client notes in the checkpoint directory, for every piece
// of a part's stdout it writes to a regular file, which bytes of which
// part it was and where in the file it went (D/output.journal), and the
// checkpoint records how many bytes of stdout each part had printed
// (checkpoint::PartOutput). `--cluster --resume D` then cuts stdout back
// to where the first byte printed after the checkpoint went, writes again
// the bytes from before the checkpoint that came after that, and marks
// where the resumed job's output begins, so that a second resume from the
// same checkpoint cuts there too.
//
// The journal is this client's own file; it is read back with every record
// checked and a torn last record ignored. Records are little-endian:
//   u64 jobId  u32 part (0xffffffff: the mark of a resume)  u64 partOffset
//   u64 fileOffset  u64 bytes
//
// stderr is not cut: it also carries the runtime's own notes, which no
// checkpoint counts.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/CheckpointFile.h"

namespace synergy::scheduler {

class OutputJournal {
 public:
  OutputJournal() = default;
  ~OutputJournal();
  OutputJournal(const OutputJournal&) = delete;
  OutputJournal& operator=(const OutputJournal&) = delete;

  // Starts recording into `directory` when stdout is a regular file (else
  // there is nothing to cut, and nothing is recorded); false with `error`
  // when the journal cannot be opened.
  bool open(const std::string& directory, uint64_t jobId, std::string& error);
  // Part `part` wrote bytes [partOffset, partOffset + bytes) of its stdout,
  // which have just been written to this process's stdout.
  void wrote(uint32_t part, uint64_t partOffset, uint64_t bytes);

 private:
  int fd_ = -1;
  uint64_t jobId_ = 0;
};

// Before `--cluster --resume D`: cuts this process's stdout, when it is a
// regular file, back to what the checkpoint's parts had printed (see the
// header comment). False with a one-line `error` when stdout cannot be
// read back or cut. Prints a note when output from before the checkpoint
// never reached the client that ran it.
bool cutStdoutToCheckpoint(const std::string& directory,
                           const std::vector<checkpoint::PartOutput>& outputs,
                           std::string& error);

}  // namespace synergy::scheduler
