//===- EngineManifest.cpp - Read and write .eng files ---------------------===//
//
// This file implements the line-oriented .eng format described in
// EngineManifest.h. The reader is strict: any malformed line or a format
// version other than kEngineFormatVersion is an error, so the runtime never
// builds an engine from a file it only half understands.
//
//===----------------------------------------------------------------------===//
#include "hwlower/EngineManifest.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <istream>
#include <ostream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "util/PrintableText.h"

namespace synergy::hwlower {

// The reader takes \xHH for any byte, so every byte a line could not hold,
// and the quote and backslash, are written that way.
static void writeQuoted(std::ostream& out, const std::string& text) {
  out << '"' << util::printableText(text, "\"\\") << '"';
}

static void writeId(std::ostream& out, uint32_t id) {
  if (id == kNoState)
    out << '-';
  else
    out << id;
}

static const char* stateKindName(StateKind kind) {
  switch (kind) {
    case StateKind::Reg: return "reg";
    case StateKind::Input: return "input";
    case StateKind::Wire: return "wire";
    case StateKind::Internal: return "internal";
  }
  return "reg";
}

static const char* argKindName(TaskArgKind kind) {
  switch (kind) {
    case TaskArgKind::Value: return "value";
    case TaskArgKind::String: return "string";
    case TaskArgKind::Time: return "time";
    case TaskArgKind::Empty: return "empty";
  }
  return "value";
}

void writeEngineManifest(const EngineManifest& m, std::ostream& out) {
  out << "SYNERGY-ENGINE " << m.formatVersion << '\n';
  out << "top ";
  writeQuoted(out, m.top);
  out << "\nclock ";
  writeId(out, m.clockId);
  out << ' ' << m.halfPeriod << '\n';
  out << "yield " << (m.usesYield ? 1 : 0) << '\n';
  for (const StateVar& s : m.states) {
    out << "state " << s.id << ' ' << stateKindName(s.kind) << ' ' << s.width << ' '
        << (s.isSigned ? 1 : 0) << ' ' << s.depth << ' ' << s.base << ' '
        << (s.nonVolatile ? 1 : 0) << ' ';
    writeQuoted(out, s.name);
    out << ' ';
    writeQuoted(out, s.verilogName);
    out << '\n';
  }
  for (const Task& t : m.tasks) {
    out << "task " << t.id << ' ';
    writeQuoted(out, t.name);
    out << ' ';
    writeQuoted(out, t.scope);
    out << ' ';
    writeQuoted(out, t.file);
    out << ' ' << t.line << ' ';
    writeId(out, t.resultId);
    out << ' ' << t.resultWidth << ' ' << (t.resultSigned ? 1 : 0) << ' ' << t.args.size() << '\n';
    for (const TaskArg& a : t.args) {
      out << "arg " << argKindName(a.kind) << ' ';
      writeId(out, a.stateId);
      out << ' ';
      if (a.element == kNoElement)
        out << '-';
      else
        out << a.element;
      out << ' ';
      writeId(out, a.indexStateId);
      out << ' ' << a.width << ' ' << (a.isSigned ? 1 : 0) << ' ' << (a.writable ? 1 : 0) << ' '
          << (a.isReal ? 1 : 0) << ' ';
      writeQuoted(out, a.text);
      out << '\n';
    }
  }
  for (const RomFile& f : m.romFiles) {
    out << "romfile ";
    writeQuoted(out, f.name);
    out << ' ' << f.sha256 << '\n';
  }
  out << "verilog " << m.verilog.size() << '\n' << m.verilog << "\nend\n";
}

namespace {

// Tokenizes one record line; every accessor records the first failure and
// what it was, and none of them throws, whatever the line holds.
class LineReader {
 public:
  explicit LineReader(const std::string& line) : line_(line) {}

  bool ok() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }
  bool atEnd() {
    skipSpace();
    return pos_ >= line_.size();
  }

  std::string word() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ') ++pos_;
    if (start == pos_) setProblem("missing field");
    return line_.substr(start, pos_ - start);
  }

  // A decimal number no larger than `max`.
  uint64_t number(uint64_t max = UINT64_MAX) {
    std::string w = word();
    return parseDecimal(w, max);
  }

  int64_t signedNumber() {
    std::string w = word();
    bool negative = !w.empty() && w[0] == '-';
    uint64_t magnitude = parseDecimal(negative ? w.substr(1) : w, negative ? uint64_t(INT64_MAX) + 1 : INT64_MAX);
    return negative ? int64_t(~magnitude + 1) : int64_t(magnitude);
  }

  // A state id (at most `max`) or `-` for none.
  uint32_t id(uint32_t max) {
    std::string w = word();
    if (w == "-") return kNoState;
    return uint32_t(parseDecimal(w, max));
  }

  uint64_t element() {
    std::string w = word();
    if (w == "-") return kNoElement;
    return parseDecimal(w, kNoElement - 1);
  }

  bool flag() { return number(1) == 1; }

  std::string quoted() {
    skipSpace();
    std::string out;
    if (pos_ >= line_.size() || line_[pos_] != '"') {
      setProblem("missing string");
      return out;
    }
    ++pos_;
    while (pos_ < line_.size() && line_[pos_] != '"') {
      char c = line_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= line_.size()) break;
      char e = line_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case '\\': out += '\\'; break;
        case '"': out += '"'; break;
        case 'x': {
          int high = pos_ + 2 <= line_.size() ? hexDigit(line_[pos_]) : -1;
          int low = high >= 0 ? hexDigit(line_[pos_ + 1]) : -1;
          if (low < 0) {
            setProblem("bad \\x escape in string");
            return out;
          }
          out += char(high * 16 + low);
          pos_ += 2;
          break;
        }
        default:
          setProblem("bad escape in string");
          return out;
      }
    }
    if (pos_ >= line_.size()) {
      setProblem("unterminated string");
      return out;
    }
    ++pos_;
    return out;
  }

 private:
  void skipSpace() {
    while (pos_ < line_.size() && line_[pos_] == ' ') ++pos_;
  }

  void setProblem(const std::string& problem) {
    if (problem_.empty()) problem_ = problem;
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  uint64_t parseDecimal(const std::string& w, uint64_t max) {
    if (w.empty() || w.find_first_not_of("0123456789") != std::string::npos) {
      setProblem("'" + w.substr(0, 24) + "' is not a number");
      return 0;
    }
    uint64_t value = 0;
    for (char c : w) {
      uint64_t digit = uint64_t(c - '0');
      if (value > (max - digit) / 10) {
        setProblem("number " + w.substr(0, 24) + (w.size() > 24 ? "..." : "") + " exceeds " +
                   std::to_string(max));
        return 0;
      }
      value = value * 10 + digit;
    }
    return value;
  }

  const std::string& line_;
  size_t pos_ = 0;
  std::string problem_;
};

}  // namespace

static std::optional<StateKind> parseStateKind(const std::string& w) {
  if (w == "reg") return StateKind::Reg;
  if (w == "input") return StateKind::Input;
  if (w == "wire") return StateKind::Wire;
  if (w == "internal") return StateKind::Internal;
  return std::nullopt;
}

static std::optional<TaskArgKind> parseArgKind(const std::string& w) {
  if (w == "value") return TaskArgKind::Value;
  if (w == "string") return TaskArgKind::String;
  if (w == "time") return TaskArgKind::Time;
  if (w == "empty") return TaskArgKind::Empty;
  return std::nullopt;
}

// A Value argument reads an existing state (an element of it when given);
// the other kinds read none. Every index the runtime will use is checked
// here, once, so TaskServicer can index the state table directly.
static std::optional<std::string> argProblem(const TaskArg& a, const std::vector<StateVar>& states) {
  auto missing = [&](uint32_t id) {
    return "argument names state " + std::to_string(id) + ", which does not exist";
  };
  if (a.kind != TaskArgKind::Value) {
    if (a.stateId != kNoState || a.indexStateId != kNoState || a.element != kNoElement)
      return std::string("only a value argument names a state");
    return std::nullopt;
  }
  if (a.stateId == kNoState) return std::string("value argument names no state");
  if (a.stateId >= states.size()) return missing(a.stateId);
  if (a.indexStateId != kNoState && a.indexStateId >= states.size()) return missing(a.indexStateId);
  if (a.element != kNoElement && a.element >= std::max<uint64_t>(states[a.stateId].depth, 1))
    return "argument element " + std::to_string(a.element) + " is outside state " + std::to_string(a.stateId);
  if (a.width == 0) return std::string("value argument has width 0");
  return std::nullopt;
}

static bool isSha256Hex(const std::string& w) {
  return w.size() == 64 && w.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Reads exactly `size` bytes in bounded chunks, so a byte count larger than
// the file costs no more memory than the file itself.
static bool readExactly(std::istream& in, uint64_t size, std::string& out) {
  constexpr uint64_t kChunk = 1 << 20;
  out.clear();
  while (out.size() < size) {
    size_t chunk = size_t(std::min<uint64_t>(kChunk, size - out.size()));
    size_t old = out.size();
    out.resize(old + chunk);
    if (!in.read(out.data() + old, std::streamsize(chunk))) return false;
  }
  return true;
}

std::optional<EngineManifest> readEngineManifest(std::istream& in, std::string& error) {
  EngineManifest m;
  std::string line;
  unsigned lineNo = 0;
  auto fail = [&](const std::string& msg) {
    error = std::to_string(lineNo) + ": " + msg;
    return std::nullopt;
  };

  if (!std::getline(in, line)) return fail("empty engine file");
  ++lineNo;
  {
    LineReader r(line);
    if (r.word() != "SYNERGY-ENGINE") return fail("not a Synergy engine file");
    uint64_t version = r.number(UINT32_MAX);
    if (!r.ok() || !r.atEnd()) return fail("malformed header");
    if (version != uint64_t(kEngineFormatVersion))
      return fail("engine format version " + std::to_string(version) + ", expected " +
                  std::to_string(kEngineFormatVersion) + "; recompile it with synergy-cc");
    m.formatVersion = kEngineFormatVersion;
  }

  size_t argsPending = 0;
  uint64_t stateBits = 0;
  uint64_t stateElements = 0;
  std::set<std::string> seen;  // records that occur once
  std::set<std::string> romNames;
  while (std::getline(in, line)) {
    ++lineNo;
    LineReader r(line);
    std::string key = r.word();
    if (argsPending > 0 && key != "arg") return fail("missing task argument");
    if (key == "top" || key == "clock" || key == "yield" || key == "verilog") {
      if (!seen.insert(key).second) return fail("duplicate '" + key + "' record");
    }
    if (key == "top") {
      m.top = r.quoted();
    } else if (key == "clock") {
      m.clockId = r.id(kMaxEngineStates - 1);
      m.halfPeriod = r.number(kMaxHalfPeriod);
      if (r.ok() && m.halfPeriod == 0) return fail("malformed 'clock' record: the half period is 0");
    } else if (key == "yield") {
      m.usesYield = r.flag();
    } else if (key == "state") {
      StateVar s;
      s.id = r.id(kMaxEngineStates - 1);
      auto kind = parseStateKind(r.word());
      if (!kind) return fail("unknown state kind");
      s.kind = *kind;
      s.width = uint32_t(r.number(kMaxStateWidth));
      s.isSigned = r.flag();
      s.depth = r.number(kMaxMemoryDepth);
      s.base = r.signedNumber();
      s.nonVolatile = r.flag();
      s.name = r.quoted();
      s.verilogName = r.quoted();
      if (!r.ok()) return fail("malformed 'state' record: " + r.problem());
      if (s.id != m.states.size()) return fail("state ids must be dense and ordered");
      if (s.width == 0) return fail("state " + std::to_string(s.id) + " has width 0");
      stateElements += std::max<uint64_t>(s.depth, 1);
      stateBits += uint64_t(s.width) * std::max<uint64_t>(s.depth, 1);
      if (stateElements > kMaxEngineStateElements || stateBits > kMaxEngineStateBits)
        return fail("the states hold more than " + std::to_string(kMaxEngineStateElements) + " elements or " +
                    std::to_string(kMaxEngineStateBits) + " bits");
      m.states.push_back(std::move(s));
    } else if (key == "task") {
      Task t;
      t.id = uint32_t(r.number(kMaxEngineTasks));
      t.name = r.quoted();
      t.scope = r.quoted();
      t.file = r.quoted();
      t.line = uint32_t(r.number(UINT32_MAX));
      t.resultId = r.id(kMaxEngineStates - 1);
      t.resultWidth = uint32_t(r.number(kMaxStateWidth));
      t.resultSigned = r.flag();
      argsPending = r.number(kMaxTaskArgs);
      if (!r.ok()) return fail("malformed 'task' record: " + r.problem());
      if (t.id != m.tasks.size() + 1) return fail("task ids must be dense from 1");
      if (t.resultId != kNoState && t.resultId >= m.states.size())
        return fail("task " + std::to_string(t.id) + " writes its result to state " + std::to_string(t.resultId) +
                    ", which does not exist");
      m.tasks.push_back(std::move(t));
    } else if (key == "arg") {
      if (argsPending == 0) return fail("unexpected task argument");
      TaskArg a;
      auto kind = parseArgKind(r.word());
      if (!kind) return fail("unknown argument kind");
      a.kind = *kind;
      a.stateId = r.id(kMaxEngineStates - 1);
      a.element = r.element();
      a.indexStateId = r.id(kMaxEngineStates - 1);
      a.width = uint32_t(r.number(kMaxStateWidth));
      a.isSigned = r.flag();
      a.writable = r.flag();
      a.isReal = r.flag();
      a.text = r.quoted();
      if (!r.ok()) return fail("malformed 'arg' record: " + r.problem());
      if (auto problem = argProblem(a, m.states)) return fail(*problem);
      m.tasks.back().args.push_back(std::move(a));
      --argsPending;
    } else if (key == "romfile") {
      RomFile f;
      f.name = r.quoted();
      f.sha256 = r.word();
      if (!r.ok()) return fail("malformed 'romfile' record: " + r.problem());
      if (!isSha256Hex(f.sha256)) return fail("romfile hash is not a SHA-256 hex digest");
      if (!romNames.insert(f.name).second) return fail("duplicate romfile record");
      m.romFiles.push_back(std::move(f));
    } else if (key == "verilog") {
      uint64_t size = r.number(kMaxVerilogBytes);
      if (!r.ok() || !r.atEnd()) return fail("malformed 'verilog' record: " + r.problem());
      if (!readExactly(in, size, m.verilog)) return fail("truncated verilog text");
      ++lineNo;  // the text starts on the next line and ends on line lineNo
      for (char c : m.verilog)
        if (c == '\n') ++lineNo;
      std::string rest;
      std::getline(in, rest);
      if (!rest.empty()) return fail("verilog text longer than declared");
      continue;
    } else if (key == "end") {
      if (!r.atEnd()) return fail("malformed 'end' record");
      for (const char* required : {"top", "clock", "yield", "verilog"})
        if (!seen.count(required)) return fail(std::string("missing '") + required + "' record");
      if (m.clockId != kNoState) {
        if (m.clockId >= m.states.size()) return fail("clock names state " + std::to_string(m.clockId) + ", which does not exist");
        if (m.states[m.clockId].kind != StateKind::Input) return fail("clock is not an input");
      }
      if (in.peek() != std::char_traits<char>::eof()) return fail("text after 'end'");
      return m;
    } else {
      return fail("unknown record '" + key.substr(0, 24) + "'");
    }
    if (!r.ok() || !r.atEnd())
      return fail("malformed '" + key + "' record" + (r.ok() ? ": trailing fields" : ": " + r.problem()));
  }
  return fail("truncated engine file (no 'end')");
}

bool writeEngineFile(const EngineManifest& manifest, const std::string& path, std::string& error) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = "cannot open '" + tmp + "' for writing";
      return false;
    }
    writeEngineManifest(manifest, out);
    out.flush();
    if (!out) {
      error = "cannot write '" + tmp + "'";
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tmp + "' to '" + path + "'";
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

std::optional<EngineManifest> readEngineFile(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  std::string inner;
  auto m = readEngineManifest(in, inner);
  if (!m) error = path + ":" + inner;
  return m;
}

}  // namespace synergy::hwlower
