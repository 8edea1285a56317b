//===- RankRoutes.cpp - which part of a spread job runs each rank --------===//
//
// This file implements RankRoutes.h.
//
//===----------------------------------------------------------------------===//
#include "cluster/RankRoutes.h"

namespace synergy::cluster {

RankRoutes RankRoutes::consecutive(const std::vector<uint32_t>& partRanks) {
  std::vector<uint32_t> partOfRank;
  for (uint32_t part = 0; part < partRanks.size(); ++part)
    partOfRank.insert(partOfRank.end(), partRanks[part], part);
  return RankRoutes(std::move(partOfRank), uint32_t(partRanks.size()));
}

RankRoutes::RankRoutes(std::vector<uint32_t> partOfRank, uint32_t partCount)
    : partOfRank_(std::move(partOfRank)), ranksOfPart_(partCount) {
  for (uint32_t rank = 0; rank < partOfRank_.size(); ++rank)
    ranksOfPart_[partOfRank_[rank]].push_back(rank);
}

namespace {

// `ranks`, in increasing order, as runs of consecutive ranks separated by
// commas; a run of one rank is written "r-r" when `singleAsRun`, else "r".
std::string formatRuns(const std::vector<uint32_t>& ranks, bool singleAsRun) {
  std::string text;
  for (size_t begin = 0; begin < ranks.size();) {
    size_t end = begin + 1;
    while (end < ranks.size() && ranks[end] == ranks[end - 1] + 1) ++end;
    if (begin) text += ",";
    text += std::to_string(ranks[begin]);
    if (end - begin > 1 || singleAsRun) text += "-" + std::to_string(ranks[end - 1]);
    begin = end;
  }
  return text;
}

}  // namespace

std::string RankRoutes::describe(uint32_t part) const {
  const std::vector<uint32_t>& ranks = ranksOfPart_[part];
  return (ranks.size() == 1 ? "rank " : "ranks ") + formatRuns(ranks, false);
}

std::string RankRoutes::runs(uint32_t part) const {
  return formatRuns(ranksOfPart_[part], true);
}

}  // namespace synergy::cluster
