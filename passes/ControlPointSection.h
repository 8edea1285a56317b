//===- ControlPointSection.h - the synergy.control_points wire format -----===//
//
// The census pass stores the module's control points in a custom section so
// the runtime (and people, with `llvm-objcopy --dump-section`) can read them
// without re-analysing code. The payload is UTF-8 text, one record a line,
// each line ending in '\n', fields separated by one space:
//
//   synergy.control_points 1                  header and format version
//   import <module> <name>                    one per control-point import,
//                                             in import order
//   call <function> <module> <name> <count>   direct call sites of that import
//                                             in that function (count > 0),
//                                             sorted by function then import
//
// Fields are escaped: a byte outside printable ASCII ('!'..'~'), and '%'
// itself, is written as '%' plus two uppercase hex digits, so no field is
// empty-looking or contains a space. An empty field is written as "%".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace synergy::passes {

inline constexpr std::string_view kControlPointSectionName = "synergy.control_points";
inline constexpr unsigned kControlPointSectionVersion = 1;

// An imported function as the binary names it.
struct ImportName {
  std::string module;
  std::string base;
  auto operator<=>(const ImportName&) const = default;
};

struct ControlPointCallCount {
  std::string function;
  ImportName callee;
  unsigned count = 0;
  auto operator<=>(const ControlPointCallCount&) const = default;
};

struct ControlPointSection {
  std::vector<ImportName> imports;
  std::vector<ControlPointCallCount> calls;
  bool operator==(const ControlPointSection&) const = default;
};

std::string encodeControlPointSection(const ControlPointSection& section);

// Returns nullopt and sets `error` (naming the offending line) on bad input.
std::optional<ControlPointSection> decodeControlPointSection(std::string_view payload,
                                                             std::string& error);

}  // namespace synergy::passes
