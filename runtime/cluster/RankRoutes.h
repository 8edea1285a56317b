//===- RankRoutes.h - which part of a spread job runs each rank ----------===//
//
// A job spread over hosts runs as parts (JobPart.h), and every cross-host
// frame of MpiPeerLink names world ranks: it goes to the part that runs its
// receiver, and a frame received is accepted only from a sender of the part
// it came from and for a receiver of this part. This table is the one place
// that says which part runs which rank. It is a rank -> part table, not the
// run of consecutive ranks a part starts with, so that a part may hold any
// set of ranks: the step a live move of one rank inside a running job needs,
// after which its old part no longer holds it and its new one does.
//
// A part's ranks are kept in increasing order, which is the order in which
// the part's World lists them (the wait lines of a MpiHostState).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synergy::cluster {

class RankRoutes {
 public:
  // The layout a job starts with: part p runs the `partRanks[p]` ranks
  // that follow those of the parts before it.
  static RankRoutes consecutive(const std::vector<uint32_t>& partRanks);
  // Rank r runs on part `partOfRank[r]`, each below `partCount`.
  RankRoutes(std::vector<uint32_t> partOfRank, uint32_t partCount);

  uint32_t worldSize() const { return uint32_t(partOfRank_.size()); }
  uint32_t partCount() const { return uint32_t(ranksOfPart_.size()); }
  // The part of each rank, in rank order.
  const std::vector<uint32_t>& partOfRanks() const { return partOfRank_; }
  // The part that runs `rank`, which must be below worldSize().
  uint32_t partOf(uint32_t rank) const { return partOfRank_[rank]; }
  // Whether `rank`, any number read from a frame, is a rank `part` runs.
  bool holds(uint32_t part, uint64_t rank) const {
    return rank < partOfRank_.size() && partOfRank_[size_t(rank)] == part;
  }
  // The ranks `part` runs, in increasing order.
  const std::vector<uint32_t>& ranksOf(uint32_t part) const { return ranksOfPart_[part]; }
  // The ranks of `part` for a message, each run of consecutive ranks as a
  // range: "rank 3", "ranks 0-1", "ranks 0,2-5,7".
  std::string describe(uint32_t part) const;
  // The same runs as "first-last" each, a run of one rank too: "0-1",
  // "3-3", "0-0,2-5"; the parts' status lines print this, so that those of
  // a job whose ranks never moved read as they always have.
  std::string runs(uint32_t part) const;

 private:
  std::vector<uint32_t> partOfRank_;
  std::vector<std::vector<uint32_t>> ranksOfPart_;
};

}  // namespace synergy::cluster
