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

std::string RankRoutes::describe(uint32_t part) const {
  const std::vector<uint32_t>& ranks = ranksOfPart_[part];
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t begin = 0; begin < ranks.size();) {
    size_t end = begin + 1;
    while (end < ranks.size() && ranks[end] == ranks[end - 1] + 1) ++end;
    if (begin) text += ",";
    text += std::to_string(ranks[begin]);
    if (end - begin > 1) text += "-" + std::to_string(ranks[end - 1]);
    begin = end;
  }
  return text;
}

}  // namespace synergy::cluster
