//===- WriteTrackingRest.h - when a rank's written pages are not worth tracking -===//
//
// A checkpoint rebuilds a rank's section over its last one from the pages
// the rank wrote since (snapshot/WrittenPages.h). The tracking is not free:
// the first write to each protected page takes a minor fault in the
// kernel, which lifts the protection. It pays off only in the pages it lets
// a checkpoint leave alone (their copy, and the writes' compare and
// checksum), so a rank that rewrites most of its memory between two
// checkpoints pays the faults for nothing: bench/mpi/kernels.c nstream at
// np 4 and --checkpoint-every 1 took ~25 000 of them per checkpoint, one per
// page of its 94 MiB, about 3 % of the job's CPU (perf, the write faults
// under the kernel's own code), while its sections were copied whole
// anyway.
//
// Such a rank rests: once a checkpoint finds at least as many pages
// written as half of those its section holds (its memory's non-zero
// pages: untouched memory, such as most of a stack, costs a whole build
// nothing), its tracker is dropped and its next sections are built whole
// (the same copy, from memory that no longer faults), for 1 checkpoint the
// first time; then tracking starts again for one interval, to look whether
// the rank still writes that much. Each look that finds it does doubles the
// rest, up to kMaxRest checkpoints, so a rank that keeps rewriting
// everything is tracked for one interval in kMaxRest + 1; the first look
// that finds less than half ends the resting. Half is on the safe side of
// the break-even (a fault costs several times the copy and checksum of the
// page it saves), so a rank that gains from the tracking keeps it.
//
// One per rank, touched only by that rank's thread at its checkpoints.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>

namespace synergy::checkpoint {

class WriteTrackingRest {
 public:
  static constexpr uint32_t kMaxRest = 8;

  // A checkpoint that took the rank's written pages: `written` of the
  // `total` its section holds. True when the tracker is to be dropped (the rank rests from
  // now on); mayTrack() at this same checkpoint then answers false.
  bool tracked(uint64_t written, uint64_t total) {
    if (total == 0 || written < total - total / 2) {
      length_ = 0;
      left_ = 0;
      return false;
    }
    length_ = length_ == 0 ? 1 : std::min(length_ * 2, kMaxRest);
    left_ = length_;
    return true;
  }

  // A checkpoint where the rank has no tracker: whether to make one now
  // (false while the rest lasts, each such checkpoint counted down).
  bool mayTrack() {
    if (left_ == 0) return true;
    --left_;
    return false;
  }

  // Whether the rank's tracking rests: its section at a checkpoint without
  // a tracker is built whole because of the rest (also at the one that
  // looks again), not because the kernel cannot track.
  bool resting() const { return length_ > 0; }

 private:
  uint32_t length_ = 0;  // the current rest, in checkpoints (0: none)
  uint32_t left_ = 0;    // of it, the checkpoints still to build whole
};

}  // namespace synergy::checkpoint
