//===- RouteSwitch.h - the rank -> part table switched inside a job --------===//
//
// Issue 22's live move changes which part of a spread job runs a rank while
// the job runs. Part 0 switches every part's rank -> part table
// (RankRoutes.h) inside the checkpoint agreement (CheckpointAgreement.h),
// while every part is held at the same barrier control point, with a
// RouteSwitch frame to each other part, which answers RouteSwitchAnswer;
// when any part refuses, part 0 switches every part back to the old table
// with a second RouteSwitch (kind kRollback) under the same move id
// (MpiPeerLink::switchRoutes).
//
// RouteSwitch: u64 move id (nonzero), u64 the control point (the part's
// round of the agreement, nonzero) every part must be held at, u8 kind
// (kSwitch or kRollback), u32 world size, u32 part count, then the part of
// each rank, u32 each, in rank order.
// RouteSwitchAnswer: u64 move id, u8 kind it answers, u8 1 when the part
// took the table (0: refused), u32 bytes + why not (at most
// kMaxRefusalBytes).
//
// Both decoders take hostile bytes: a short or long payload, a zero id or
// round, an unknown kind, a size other than the job's, a part index out of
// range or a reason longer than allowed are refused with a one-line reason,
// and nothing is returned.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace synergy::cluster {

struct RouteSwitchFrame {
  static constexpr uint8_t kSwitch = 1;
  static constexpr uint8_t kRollback = 2;
  uint64_t moveId = 0;
  uint64_t round = 0;
  uint8_t kind = kSwitch;
  uint32_t partCount = 0;
  std::vector<uint32_t> partOfRank;  // the new table, by rank
};

struct RouteSwitchAnswer {
  uint64_t moveId = 0;
  uint8_t kind = RouteSwitchFrame::kSwitch;
  bool accepted = false;
  std::string why;  // a refusal's reason
};

std::vector<uint8_t> encodeRouteSwitch(const RouteSwitchFrame& frame);
// For a job of `worldSize` ranks over `partCount` parts.
std::optional<RouteSwitchFrame> decodeRouteSwitch(const std::vector<uint8_t>& payload,
                                                  uint32_t worldSize, uint32_t partCount,
                                                  std::string& error);
std::vector<uint8_t> encodeRouteSwitchAnswer(const RouteSwitchAnswer& answer);
std::optional<RouteSwitchAnswer> decodeRouteSwitchAnswer(const std::vector<uint8_t>& payload,
                                                         std::string& error);

// SYNERGY_TEST_ROUTE_SWITCH, a hidden test hook of the route switch
// (MpiPeerLink::switchRoutes, CheckpointAgreement.cpp), read by every part: "N" has part 0 switch
// every part's table at control point N to one that keeps every rank
// where it is (taken); "N:refuse=P" has part P refuse it (rolled back on
// every part); "N:stray" also has part 0 send each other part, first,
// RouteSwitch frames for a control point it is not held at, cut short and
// naming a part that does not exist, and part 1 send RouteSwitch to the
// others and an answer to no switch to part 0: each is dropped with a
// note naming its reason. "N:move=R@P" has part 0 switch to a table that
// puts rank R on part P, which the parts that would lose or gain it refuse
// (no rank is shipped yet): every part, part 0 first, goes back.
struct RouteSwitchHook {
  uint64_t at = 0;  // 0: no switch
  uint32_t refusePart = 0;
  bool stray = false;
  bool move = false;
  uint32_t moveRank = 0, movePart = 0;
};
// False when `text` is none of those forms, or P is 0 or not below `parts`
// (for move=, any part below `parts`), or R not below `worldSize`.
bool parseRouteSwitchHook(std::string_view text, uint32_t parts, uint32_t worldSize,
                          RouteSwitchHook& hook);

// SYNERGY_TEST_LIVE_MOVE=R@N:P as the parts of a job over hosts read it
// (CheckpointAgreement.h's live round): rank R departs its part at control
// point N for part P. False when `text` is not of that form (decimal
// numbers of at most 4 digits, 9 for N), N is 0, R has no part in
// `partOfRanks` or P is not below `parts` or is R's own part.
struct LiveMoveHook {
  uint32_t rank = 0;
  uint64_t at = 0;
  uint32_t source = 0, target = 0;
};
bool parseLiveMoveHook(std::string_view text, const std::vector<uint32_t>& partOfRanks,
                       uint32_t parts, LiveMoveHook& hook);

}  // namespace synergy::cluster
