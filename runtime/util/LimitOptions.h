//===- LimitOptions.h - parsing the values of resource-limit options ------===//
//
// `--max-memory` and `--time-limit` are accepted by both synergy-run command
// lines (granules and engines), so their values are parsed in one place and
// refused the same way. Each parser returns nullopt and a one-line `error`
// naming the option for anything it does not accept whole.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace synergy::util {

// A byte count: decimal digits, optionally followed by a binary suffix, K, M
// or G (equally KiB, MiB or GiB), that multiplies by 1024, 1024^2 or 1024^3.
// Zero and counts past 2^62 are refused.
std::optional<uint64_t> parseByteCount(const std::string& text, const std::string& option,
                                       std::string& error);

// A duration in seconds: decimal digits with an optional fraction ("2",
// "0.25"), more than zero and at most kMaxLimitSeconds. No sign, exponent or
// hexadecimal form.
std::optional<std::chrono::nanoseconds> parseSeconds(const std::string& text,
                                                     const std::string& option,
                                                     std::string& error);

inline constexpr uint64_t kMaxLimitSeconds = 365ull * 24 * 3600;

}  // namespace synergy::util
