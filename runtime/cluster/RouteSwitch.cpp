//===- RouteSwitch.cpp - the RouteSwitch frames' codec --------------------===//

#include "cluster/RouteSwitch.h"

#include "transport/FrameTypes.h"
#include "util/LittleEndian.h"

namespace synergy::cluster {

using transport::kRouteSwitchAnswerHeadBytes;
using transport::kRouteSwitchHeadBytes;
static_assert(kRouteSwitchHeadBytes == 8 + 8 + 1 + 4 + 4 && kRouteSwitchAnswerHeadBytes == 8 + 1 + 1 + 4);

std::vector<uint8_t> encodeRouteSwitch(const RouteSwitchFrame& frame) {
  std::vector<uint8_t> out;
  out.reserve(kRouteSwitchHeadBytes + 4 * frame.partOfRank.size());
  util::appendLittleEndian(out, frame.moveId, 8);
  util::appendLittleEndian(out, frame.round, 8);
  out.push_back(frame.kind);
  util::appendLittleEndian(out, frame.partOfRank.size(), 4);
  util::appendLittleEndian(out, frame.partCount, 4);
  for (uint32_t part : frame.partOfRank) util::appendLittleEndian(out, part, 4);
  return out;
}

std::optional<RouteSwitchFrame> decodeRouteSwitch(const std::vector<uint8_t>& payload,
                                                  uint32_t worldSize, uint32_t partCount,
                                                  std::string& error) {
  if (payload.size() < kRouteSwitchHeadBytes) {
    error = "RouteSwitch of " + std::to_string(payload.size()) + " bytes, shorter than its head";
    return std::nullopt;
  }
  const uint8_t* in = payload.data();
  RouteSwitchFrame frame;
  frame.moveId = util::readLittleEndian(in, 8);
  frame.round = util::readLittleEndian(in + 8, 8);
  frame.kind = in[16];
  uint64_t ranks = util::readLittleEndian(in + 17, 4);
  frame.partCount = uint32_t(util::readLittleEndian(in + 21, 4));
  if (frame.moveId == 0 || frame.round == 0) {
    error = "RouteSwitch with move id or control point 0";
    return std::nullopt;
  }
  if (frame.kind != RouteSwitchFrame::kSwitch && frame.kind != RouteSwitchFrame::kRollback) {
    error = "RouteSwitch of unknown kind " + std::to_string(frame.kind);
    return std::nullopt;
  }
  if (ranks != worldSize || frame.partCount != partCount) {
    error = "RouteSwitch for " + std::to_string(ranks) + " ranks over " +
            std::to_string(frame.partCount) + " parts, in a job of " + std::to_string(worldSize) +
            " over " + std::to_string(partCount);
    return std::nullopt;
  }
  if (payload.size() != kRouteSwitchHeadBytes + 4 * ranks) {
    error = "RouteSwitch of " + std::to_string(payload.size()) + " bytes for " +
            std::to_string(ranks) + " ranks";
    return std::nullopt;
  }
  frame.partOfRank.resize(size_t(ranks));
  for (size_t rank = 0; rank < ranks; ++rank) {
    uint64_t part = util::readLittleEndian(in + kRouteSwitchHeadBytes + 4 * rank, 4);
    if (part >= partCount) {
      error = "RouteSwitch puts rank " + std::to_string(rank) + " on part " +
              std::to_string(part) + ", of " + std::to_string(partCount);
      return std::nullopt;
    }
    frame.partOfRank[rank] = uint32_t(part);
  }
  return frame;
}

std::vector<uint8_t> encodeRouteSwitchAnswer(const RouteSwitchAnswer& answer) {
  std::vector<uint8_t> out;
  util::appendLittleEndian(out, answer.moveId, 8);
  out.push_back(answer.kind);
  out.push_back(answer.accepted ? 1 : 0);
  std::string why = answer.why.substr(0, transport::kMaxRefusalBytes);
  util::appendLittleEndian(out, why.size(), 4);
  out.insert(out.end(), why.begin(), why.end());
  return out;
}

std::optional<RouteSwitchAnswer> decodeRouteSwitchAnswer(const std::vector<uint8_t>& payload,
                                                         std::string& error) {
  if (payload.size() < kRouteSwitchAnswerHeadBytes) {
    error = "RouteSwitchAnswer of " + std::to_string(payload.size()) +
            " bytes, shorter than its head";
    return std::nullopt;
  }
  const uint8_t* in = payload.data();
  RouteSwitchAnswer answer;
  answer.moveId = util::readLittleEndian(in, 8);
  answer.kind = in[8];
  uint8_t accepted = in[9];
  uint64_t bytes = util::readLittleEndian(in + 10, 4);
  if (answer.moveId == 0 ||
      (answer.kind != RouteSwitchFrame::kSwitch && answer.kind != RouteSwitchFrame::kRollback) ||
      accepted > 1) {
    error = "RouteSwitchAnswer with move id 0, an unknown kind or a flag other than 0 or 1";
    return std::nullopt;
  }
  if (bytes > transport::kMaxRefusalBytes ||
      payload.size() != kRouteSwitchAnswerHeadBytes + bytes) {
    error = "RouteSwitchAnswer whose reason of " + std::to_string(bytes) +
            " bytes does not fit its " + std::to_string(payload.size()) + " bytes";
    return std::nullopt;
  }
  answer.accepted = accepted == 1;
  answer.why.assign(payload.begin() + long(kRouteSwitchAnswerHeadBytes), payload.end());
  return answer;
}

namespace {

// A decimal of 1 to 4 digits.
bool smallNumber(std::string_view text, uint32_t& value) {
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  value = uint32_t(std::stoul(std::string(text)));
  return true;
}

}  // namespace

bool parseRouteSwitchHook(std::string_view text, uint32_t parts, uint32_t worldSize,
                          RouteSwitchHook& hook) {
  RouteSwitchHook parsed;
  size_t colon = text.find(':');
  std::string_view at = text.substr(0, colon);
  if (at.empty() || at.size() > 9 || at.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  parsed.at = std::stoull(std::string(at));
  if (parsed.at == 0) return false;
  if (colon != std::string_view::npos) {
    std::string_view option = text.substr(colon + 1);
    constexpr std::string_view kRefuse = "refuse=", kMove = "move=";
    if (option == "stray") {
      parsed.stray = true;
    } else if (option.substr(0, kRefuse.size()) == kRefuse) {
      if (!smallNumber(option.substr(kRefuse.size()), parsed.refusePart)) return false;
      if (parsed.refusePart == 0 || parsed.refusePart >= parts) return false;
    } else if (option.substr(0, kMove.size()) == kMove) {
      std::string_view move = option.substr(kMove.size());
      size_t at = move.find('@');
      if (at == std::string_view::npos || !smallNumber(move.substr(0, at), parsed.moveRank) ||
          !smallNumber(move.substr(at + 1), parsed.movePart) || parsed.moveRank >= worldSize ||
          parsed.movePart >= parts)
        return false;
      parsed.move = true;
    } else {
      return false;
    }
  }
  hook = parsed;
  return true;
}

bool parseLiveMoveHook(std::string_view text, const std::vector<uint32_t>& partOfRanks,
                       uint32_t parts, LiveMoveHook& hook) {
  size_t atSign = text.find('@'), colon = text.find(':');
  if (atSign == std::string_view::npos || colon == std::string_view::npos || colon < atSign)
    return false;
  LiveMoveHook parsed;
  std::string_view at = text.substr(atSign + 1, colon - atSign - 1);
  if (!smallNumber(text.substr(0, atSign), parsed.rank) ||
      !smallNumber(text.substr(colon + 1), parsed.target) || at.empty() || at.size() > 9 ||
      at.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  parsed.at = std::stoull(std::string(at));
  if (parsed.at == 0 || parsed.rank >= partOfRanks.size() || parsed.target >= parts) return false;
  parsed.source = partOfRanks[parsed.rank];
  if (parsed.source == parsed.target || parsed.source >= parts) return false;
  hook = parsed;
  return true;
}

}  // namespace synergy::cluster
