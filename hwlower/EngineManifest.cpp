//===- EngineManifest.cpp - Read and write .eng files ---------------------===//
//
// This file implements the line-oriented .eng format described in
// EngineManifest.h. The reader is strict: any malformed line or a format
// version other than kEngineFormatVersion is an error, so the runtime never
// builds an engine from a file it only half understands.
//
//===----------------------------------------------------------------------===//
#include "hwlower/EngineManifest.h"

#include <cstdio>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace synergy::hwlower {

static void writeQuoted(std::ostream& out, const std::string& text) {
  out << '"';
  for (unsigned char c : text) {
    switch (c) {
      case '\\': out << "\\\\"; break;
      case '"': out << "\\\""; break;
      case '\n': out << "\\n"; break;
      case '\t': out << "\\t"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          static const char* hex = "0123456789abcdef";
          out << "\\x" << hex[c >> 4] << hex[c & 15];
        } else {
          out << c;
        }
    }
  }
  out << '"';
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

// Tokenizes one record line; every accessor records the first failure.
class LineReader {
 public:
  explicit LineReader(const std::string& line) : line_(line) {}

  bool ok() const { return ok_; }
  bool atEnd() {
    skipSpace();
    return pos_ >= line_.size();
  }

  std::string word() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ') ++pos_;
    if (start == pos_) ok_ = false;
    return line_.substr(start, pos_ - start);
  }

  uint64_t number() {
    std::string w = word();
    if (w.empty() || w.find_first_not_of("0123456789") != std::string::npos) {
      ok_ = false;
      return 0;
    }
    return std::stoull(w);
  }

  int64_t signedNumber() {
    skipSpace();
    bool negative = pos_ < line_.size() && line_[pos_] == '-';
    if (negative) ++pos_;
    uint64_t magnitude = number();
    if (magnitude > uint64_t(INT64_MAX)) ok_ = false;
    return negative ? -int64_t(magnitude) : int64_t(magnitude);
  }

  uint32_t id() {
    std::string w = word();
    if (w == "-") return kNoState;
    if (w.empty() || w.find_first_not_of("0123456789") != std::string::npos) {
      ok_ = false;
      return 0;
    }
    return uint32_t(std::stoul(w));
  }

  uint64_t element() {
    skipSpace();
    if (pos_ < line_.size() && line_[pos_] == '-') {
      word();
      return kNoElement;
    }
    return number();
  }

  bool flag() {
    uint64_t v = number();
    if (v > 1) ok_ = false;
    return v == 1;
  }

  std::string quoted() {
    skipSpace();
    std::string out;
    if (pos_ >= line_.size() || line_[pos_] != '"') {
      ok_ = false;
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
        case 'x':
          if (pos_ + 2 > line_.size()) {
            ok_ = false;
            return out;
          }
          out += char(std::stoi(line_.substr(pos_, 2), nullptr, 16));
          pos_ += 2;
          break;
        default: ok_ = false; return out;
      }
    }
    if (pos_ >= line_.size()) {
      ok_ = false;
      return out;
    }
    ++pos_;
    return out;
  }

 private:
  void skipSpace() {
    while (pos_ < line_.size() && line_[pos_] == ' ') ++pos_;
  }

  const std::string& line_;
  size_t pos_ = 0;
  bool ok_ = true;
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

std::optional<EngineManifest> readEngineManifest(std::istream& in, std::string& error) {
  EngineManifest m;
  std::string line;
  unsigned lineNo = 0;
  auto fail = [&](const std::string& msg) {
    error = "line " + std::to_string(lineNo) + ": " + msg;
    return std::nullopt;
  };

  if (!std::getline(in, line)) return fail("empty engine file");
  ++lineNo;
  {
    LineReader r(line);
    if (r.word() != "SYNERGY-ENGINE") return fail("not a Synergy engine file");
    m.formatVersion = int(r.number());
    if (!r.ok()) return fail("malformed header");
    if (m.formatVersion != kEngineFormatVersion)
      return fail("engine format version " + std::to_string(m.formatVersion) + ", expected " +
                  std::to_string(kEngineFormatVersion) + "; recompile it with synergy-cc");
  }

  size_t argsPending = 0;
  bool sawVerilog = false;
  while (std::getline(in, line)) {
    ++lineNo;
    LineReader r(line);
    std::string key = r.word();
    if (argsPending > 0 && key != "arg") return fail("missing task argument");
    if (key == "top") {
      m.top = r.quoted();
    } else if (key == "clock") {
      m.clockId = r.id();
      m.halfPeriod = r.number();
    } else if (key == "yield") {
      m.usesYield = r.flag();
    } else if (key == "state") {
      StateVar s;
      s.id = r.id();
      auto kind = parseStateKind(r.word());
      if (!kind) return fail("unknown state kind");
      s.kind = *kind;
      s.width = uint32_t(r.number());
      s.isSigned = r.flag();
      s.depth = r.number();
      s.base = r.signedNumber();
      s.nonVolatile = r.flag();
      s.name = r.quoted();
      s.verilogName = r.quoted();
      if (r.ok() && s.id != m.states.size()) return fail("state ids must be dense and ordered");
      m.states.push_back(std::move(s));
    } else if (key == "task") {
      Task t;
      t.id = r.id();
      t.name = r.quoted();
      t.scope = r.quoted();
      t.file = r.quoted();
      t.line = uint32_t(r.number());
      t.resultId = r.id();
      t.resultWidth = uint32_t(r.number());
      t.resultSigned = r.flag();
      argsPending = r.number();
      if (r.ok() && t.id != m.tasks.size() + 1) return fail("task ids must be dense from 1");
      m.tasks.push_back(std::move(t));
    } else if (key == "arg") {
      if (argsPending == 0) return fail("unexpected task argument");
      TaskArg a;
      auto kind = parseArgKind(r.word());
      if (!kind) return fail("unknown argument kind");
      a.kind = *kind;
      a.stateId = r.id();
      a.element = r.element();
      a.indexStateId = r.id();
      a.width = uint32_t(r.number());
      a.isSigned = r.flag();
      a.writable = r.flag();
      a.isReal = r.flag();
      a.text = r.quoted();
      m.tasks.back().args.push_back(std::move(a));
      --argsPending;
    } else if (key == "romfile") {
      RomFile f;
      f.name = r.quoted();
      f.sha256 = r.word();
      m.romFiles.push_back(std::move(f));
    } else if (key == "verilog") {
      uint64_t size = r.number();
      if (!r.ok()) return fail("malformed verilog record");
      m.verilog.resize(size);
      if (!in.read(m.verilog.data(), std::streamsize(size))) return fail("truncated verilog text");
      std::string rest;
      std::getline(in, rest);
      if (!rest.empty()) return fail("verilog text longer than declared");
      sawVerilog = true;
      continue;
    } else if (key == "end") {
      if (!sawVerilog) return fail("missing verilog text");
      for (const StateVar& s : m.states)
        if (s.id == m.clockId && s.kind != StateKind::Input) return fail("clock is not an input");
      if (m.clockId != kNoState && m.clockId >= m.states.size()) return fail("bad clock id");
      return m;
    } else {
      return fail("unknown record '" + key + "'");
    }
    if (!r.ok() || !r.atEnd()) return fail("malformed '" + key + "' record");
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
  if (!m) error = path + ": " + inner;
  return m;
}

}  // namespace synergy::hwlower
