//===- DecimalNumber.h - a bounded whole number written in decimal --------===//
//
// The cluster state's records and a job part's file hold counts and ids as
// decimal text, which may come from a hostile peer or store: a number is
// taken only when the text is all digits (no sign, space or anything after
// them) and its value within the caller's limit. One parser, so every such
// field is refused the same way.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>

namespace synergy::util {

// False, leaving `value` unspecified, for anything but a whole decimal
// number at most `limit`.
inline bool parseDecimal(std::string_view text, uint64_t limit, uint64_t& value) {
  auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && code == std::errc() && end == text.data() + text.size() &&
         value <= limit;
}

}  // namespace synergy::util
