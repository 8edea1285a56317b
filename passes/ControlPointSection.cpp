//===- ControlPointSection.cpp - the synergy.control_points wire format ---===//
//
// Encoder and decoder for the format documented in ControlPointSection.h.
//
//===----------------------------------------------------------------------===//
#include "passes/ControlPointSection.h"

#include <charconv>

namespace synergy::passes {

namespace {

std::string escapeField(std::string_view field) {
  if (field.empty()) return "%";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string escaped;
  for (unsigned char c : field) {
    if (c > ' ' && c <= '~' && c != '%') {
      escaped += static_cast<char>(c);
    } else {
      escaped += '%';
      escaped += kHex[c >> 4];
      escaped += kHex[c & 15];
    }
  }
  return escaped;
}

std::optional<std::string> unescapeField(std::string_view field) {
  if (field == "%") return std::string();
  std::string text;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '%') {
      text += field[i];
      continue;
    }
    unsigned value = 0;
    if (i + 2 >= field.size()) return std::nullopt;
    auto [end, ec] = std::from_chars(field.data() + i + 1, field.data() + i + 3, value, 16);
    if (ec != std::errc() || end != field.data() + i + 3) return std::nullopt;
    text += static_cast<char>(value);
    i += 2;
  }
  return text;
}

std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (start <= line.size()) {
    size_t space = line.find(' ', start);
    if (space == std::string_view::npos) space = line.size();
    fields.push_back(line.substr(start, space - start));
    start = space + 1;
  }
  return fields;
}

}  // namespace

std::string encodeControlPointSection(const ControlPointSection& section) {
  std::string text = std::string(kControlPointSectionName) + " " +
                     std::to_string(kControlPointSectionVersion) + "\n";
  for (const ImportName& import : section.imports)
    text += "import " + escapeField(import.module) + " " + escapeField(import.base) + "\n";
  for (const ControlPointCallCount& call : section.calls)
    text += "call " + escapeField(call.function) + " " + escapeField(call.callee.module) + " " +
            escapeField(call.callee.base) + " " + std::to_string(call.count) + "\n";
  return text;
}

std::optional<ControlPointSection> decodeControlPointSection(std::string_view payload,
                                                             std::string& error) {
  ControlPointSection section;
  unsigned lineNumber = 0;
  while (!payload.empty()) {
    ++lineNumber;
    size_t newline = payload.find('\n');
    if (newline == std::string_view::npos) {
      error = "line " + std::to_string(lineNumber) + ": missing final newline";
      return std::nullopt;
    }
    std::string_view line = payload.substr(0, newline);
    payload.remove_prefix(newline + 1);
    std::vector<std::string_view> fields = splitFields(line);
    auto bad = [&](const char* why) {
      error = "line " + std::to_string(lineNumber) + ": " + why;
      return std::nullopt;
    };
    std::vector<std::string> text;
    for (size_t i = 1; i < fields.size(); ++i) {
      std::optional<std::string> field = unescapeField(fields[i]);
      if (!field || fields[i].empty()) return bad("malformed field");
      text.push_back(*field);
    }
    if (lineNumber == 1) {
      if (fields.size() != 2 || fields[0] != kControlPointSectionName ||
          fields[1] != std::to_string(kControlPointSectionVersion))
        return bad("expected header 'synergy.control_points 1'");
    } else if (fields[0] == "import" && text.size() == 2) {
      section.imports.push_back({text[0], text[1]});
    } else if (fields[0] == "call" && text.size() == 4) {
      unsigned count = 0;
      auto [end, ec] = std::from_chars(text[3].data(), text[3].data() + text[3].size(), count);
      if (ec != std::errc() || end != text[3].data() + text[3].size() || count == 0)
        return bad("call count must be a positive integer");
      section.calls.push_back({text[0], {text[1], text[2]}, count});
    } else {
      return bad("expected an 'import' or 'call' record");
    }
  }
  if (lineNumber == 0) {
    error = "empty section";
    return std::nullopt;
  }
  return section;
}

}  // namespace synergy::passes
