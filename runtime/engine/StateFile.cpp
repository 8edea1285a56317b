//===- StateFile.cpp - the file $save writes and $restart reads ------------===//
#include "engine/StateFile.h"

#include <cctype>
#include <cstdint>
#include <sstream>

#include "engine/DisplayFormatter.h"
#include "util/FileIO.h"
#include "util/PrintableText.h"
#include "util/Sha256.h"

namespace synergy::engine {

static const char* kMagic = "SYNERGY-STATE";

// Bounds on what a state file may make the parser allocate: variables wider
// than any design synergy-cc builds, or more bits in all than a design's
// state could hold, mark a forged or corrupt file.
static constexpr uint32_t kMaxSavedWidth = 1u << 20;
static constexpr uint64_t kMaxSavedBits = 1ull << 31;

// Reads the next space-separated token as a decimal number: digits only (no
// sign, so "-5" is refused rather than wrapped), no overflow past `limit`.
static bool readCount(std::istringstream& fields, uint64_t limit, uint64_t& value) {
  std::string token;
  if (!(fields >> token) || token.empty() || token.size() > 20)
    return false;
  value = 0;
  for (char c : token) {
    if (c < '0' || c > '9')
      return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (digit > limit || value > (limit - digit) / 10)
      return false;
    value = value * 10 + digit;
  }
  return true;
}

static std::string quote(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      quoted.push_back('\\');
    if (c == '\n') {
      quoted += "\\n";
      continue;
    }
    quoted.push_back(c);
  }
  return quoted + "\"";
}

// A name from the file as an error message shows it: quoted, with every byte
// outside printable ASCII as \xHH, so a forged name can neither break the
// one-line error nor put control sequences on the user's terminal.
static std::string printableName(const std::string& text) {
  return "'" + util::printableText(text, "'") + "'";
}

// Reads a quoted string starting at `pos` (after optional spaces).
static bool unquote(const std::string& line, size_t& pos, std::string& out) {
  while (pos < line.size() && line[pos] == ' ')
    ++pos;
  if (pos >= line.size() || line[pos] != '"')
    return false;
  out.clear();
  for (++pos; pos < line.size(); ++pos) {
    char c = line[pos];
    if (c == '"') {
      ++pos;
      return true;
    }
    if (c == '\\' && pos + 1 < line.size()) {
      char next = line[++pos];
      out.push_back(next == 'n' ? '\n' : next);
      continue;
    }
    out.push_back(c);
  }
  return false;
}

std::string designSignature(const std::vector<SavedVariable>& variables) {
  util::Sha256 hash;
  for (const auto& variable : variables)
    hash.update(variable.name + " " + std::to_string(variable.width) + " " + std::to_string(variable.depth) + "\n");
  return hash.hexDigest();
}

std::string serializeSavedState(const SavedState& state) {
  std::ostringstream out;
  out << kMagic << ' ' << kStateFileVersion << '\n';
  out << "design " << state.designSignature << '\n';
  out << "tick " << state.tick << '\n';
  out << "seeds " << state.randomSeed << ' ' << state.urandomSeed << '\n';
  for (const auto& file : state.files)
    out << "file " << file.descriptor << ' ' << file.position << ' ' << quote(file.mode) << ' ' << quote(file.path)
        << '\n';
  if (state.monitorTask)
    out << "monitor " << state.monitorTask << ' ' << (state.monitorOn ? 1 : 0) << ' ' << quote(state.monitorValues)
        << '\n';
  for (const auto& variable : state.variables) {
    out << "var " << quote(variable.name) << ' ' << variable.width << ' ' << variable.depth;
    for (const auto& element : variable.elements)
      out << ' ' << formatMinimalDigits(element, DisplayRadix::Hex);
    out << '\n';
  }
  std::string body = out.str();
  util::Sha256 hash;
  hash.update(body);
  return body + "checksum " + hash.hexDigest() + "\n";
}

static bool parseHex(const std::string& digits, uint32_t width, BitValue& value) {
  if (digits.empty() || digits.size() > (width + 3) / 4 + 1)
    return false;
  value = BitValue::zero(width);
  uint32_t bitIndex = 0;
  for (size_t i = digits.size(); i-- > 0; bitIndex += 4) {
    char c = digits[i];
    int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                                                            : -1;
    if (digit < 0)
      return false;
    for (int b = 0; b < 4; ++b) {
      bool on = (digit >> b) & 1;
      if (on && bitIndex + b >= width)
        return false;
      value.setBit(bitIndex + static_cast<uint32_t>(b), on);
    }
  }
  return true;
}

std::optional<SavedState> parseSavedState(const std::string& text, std::string& error) {
  size_t checksumAt = text.rfind("checksum ");
  if (text.rfind(kMagic, 0) != 0) {
    error = "not a Synergy state file";
    return std::nullopt;
  }
  if (checksumAt == std::string::npos || (checksumAt > 0 && text[checksumAt - 1] != '\n') || text.back() != '\n') {
    error = "state file is truncated (no checksum line)";
    return std::nullopt;
  }
  std::string body = text.substr(0, checksumAt);
  std::string recorded = text.substr(checksumAt + 9);
  recorded.pop_back();
  util::Sha256 hash;
  hash.update(body);
  if (recorded != hash.hexDigest()) {
    error = "state file checksum mismatch (corrupt or truncated)";
    return std::nullopt;
  }

  SavedState state;
  uint64_t totalBits = 0;
  std::istringstream lines(body);
  std::string line;
  int lineNumber = 0;
  auto fail = [&](const std::string& why) {
    error = "state file line " + std::to_string(lineNumber) + ": " + why;
    return std::nullopt;
  };
  while (std::getline(lines, line)) {
    ++lineNumber;
    std::istringstream fields(line);
    std::string keyword;
    fields >> keyword;
    if (lineNumber == 1) {
      int version = 0;
      if (keyword != kMagic || !(fields >> version))
        return fail("bad header");
      if (version != kStateFileVersion)
        return fail("unsupported version " + std::to_string(version) + " (this runtime reads " +
                    std::to_string(kStateFileVersion) + ")");
    } else if (keyword == "design") {
      if (!(fields >> state.designSignature))
        return fail("bad design line");
    } else if (keyword == "tick") {
      // The last tick is never UINT64_MAX: the tick after it must exist.
      if (!readCount(fields, UINT64_MAX - 1, state.tick))
        return fail("bad tick line");
    } else if (keyword == "seeds") {
      if (!(fields >> state.randomSeed >> state.urandomSeed))
        return fail("bad seeds line");
    } else if (keyword == "file") {
      OpenFileRecord record;
      uint64_t descriptor = 0;
      uint64_t position = 0;
      if (!readCount(fields, UINT32_MAX, descriptor) || !readCount(fields, INT64_MAX, position))
        return fail("bad file line");
      record.descriptor = static_cast<uint32_t>(descriptor);
      record.position = static_cast<int64_t>(position);
      size_t pos = static_cast<size_t>(fields.tellg());
      if (!unquote(line, pos, record.mode) || !unquote(line, pos, record.path))
        return fail("bad file line");
      state.files.push_back(record);
    } else if (keyword == "monitor") {
      uint64_t task = 0;
      uint64_t on = 0;
      if (!readCount(fields, UINT32_MAX, task) || task == 0 || !readCount(fields, 1, on))
        return fail("bad monitor line");
      state.monitorTask = static_cast<uint32_t>(task);
      state.monitorOn = on != 0;
      size_t pos = static_cast<size_t>(fields.tellg());
      if (!unquote(line, pos, state.monitorValues))
        return fail("bad monitor line");
    } else if (keyword == "var") {
      SavedVariable variable;
      size_t pos = 3;
      if (!unquote(line, pos, variable.name))
        return fail("bad variable name");
      std::istringstream rest(line.substr(pos));
      uint64_t width = 0;
      if (!readCount(rest, kMaxSavedWidth, width) || width == 0 ||
          !readCount(rest, kMaxSavedBits, variable.depth))
        return fail("bad variable shape for " + printableName(variable.name));
      variable.width = static_cast<uint32_t>(width);
      uint64_t count = variable.depth == 0 ? 1 : variable.depth;
      if (count > kMaxSavedBits / width || totalBits + count * width > kMaxSavedBits)
        return fail("variable " + printableName(variable.name) + " is larger than any saved state");
      totalBits += count * width;
      std::string digits;
      while (variable.elements.size() < count && rest >> digits) {
        BitValue element;
        if (!parseHex(digits, variable.width, element))
          return fail("bad value for " + printableName(variable.name));
        variable.elements.push_back(std::move(element));
      }
      if (variable.elements.size() != count || rest >> digits)
        return fail("wrong element count for " + printableName(variable.name));
      state.variables.push_back(std::move(variable));
    } else {
      return fail("unknown record " + printableName(keyword));
    }
  }
  if (state.designSignature != designSignature(state.variables)) {
    error = "state file design signature does not match its variables";
    return std::nullopt;
  }
  return state;
}

bool writeSavedState(const std::string& path, const SavedState& state, std::string& error) {
  if (!util::writeFileAtomically(path, serializeSavedState(state))) {
    error = "cannot write state file '" + path + "'";
    return false;
  }
  return true;
}

std::optional<SavedState> readSavedState(const std::string& path, std::string& error) {
  // The largest state parseSavedState accepts is kMaxSavedBits of hex digits
  // plus its records; anything longer is refused before it is read.
  constexpr size_t kMaxStateFileBytes = size_t(1) << 30;
  std::string readError;
  auto text = util::readRegularFile(path, kMaxStateFileBytes, readError);
  if (!text) {
    error = "cannot read state file: " + readError;
    return std::nullopt;
  }
  if (text->empty()) {
    error = "state file '" + path + "' is empty";
    return std::nullopt;
  }
  auto state = parseSavedState(*text, error);
  if (!state)
    error = path + ": " + error;
  return state;
}

}  // namespace synergy::engine
