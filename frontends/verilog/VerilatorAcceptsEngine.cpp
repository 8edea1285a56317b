//===- VerilatorAcceptsEngine.cpp - Verilator must accept the engine -----===//
//
// This file implements checkVerilatorAcceptsEngine. It writes the emitted
// module to a private temporary directory and runs `verilator --cc` with the flags of
// the runtime's engine build (runtime/engine/EngineBuilder.cpp), so what
// passes here also verilates there; the C++ it generates is thrown away.
// Verilator's `%Error: <file>:<line>:<col>: <message>` lines are mapped back
// through Design::verilogLineLocs to the statement that produced the line.
// An error on a line no statement printed (a continuous assign, a
// declaration) is reported against the top module and that line.
//
//===----------------------------------------------------------------------===//
#include "frontends/verilog/VerilatorAcceptsEngine.h"

#include <stdlib.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hwlower/EngineManifest.h"
#include "synergy/ToolPaths.h"
#include "util/Subprocess.h"

namespace synergy::verilog {

namespace fs = std::filesystem;

namespace {

// A temporary directory only this process writes, removed on scope exit.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "synergy-check-XXXXXX").string();
    if (ec) pattern = "/tmp/synergy-check-XXXXXX";
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct VerilatorError {
  unsigned line = 0;  // in the emitted module; 0 when Verilator named none
  std::string message;
};

// The errors of Verilator's output. The emitted file's path is ours and
// means nothing to the user, so only its line number and the message stay.
std::vector<VerilatorError> verilatorErrors(const std::string& output, const std::string& file) {
  std::vector<VerilatorError> errors;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    std::string text = output.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? output.size() : end + 1;
    if (text.rfind("%Error", 0) != 0) continue;
    VerilatorError error;
    size_t at = text.find(file + ":");
    if (at == std::string::npos) {
      error.message = text.substr(text.find(':') + 1);
    } else {
      size_t number = at + file.size() + 1;
      size_t digits = number;
      while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
      error.line = unsigned(std::stoul("0" + text.substr(number, digits - number)));
      size_t col = text.find(": ", digits);
      error.message = (text.substr(0, at).find("Internal Error") != std::string::npos ? "internal error: " : "") +
                      (col == std::string::npos ? std::string() : text.substr(col + 2));
    }
    while (!error.message.empty() && error.message.front() == ' ') error.message.erase(0, 1);
    if (error.message.rfind("Exiting due to", 0) == 0) continue;
    // Verilator quotes the offending text, which can be a literal of
    // thousands of digits: one line of a diagnostic is enough.
    constexpr size_t kLongestMessage = 160;
    if (error.message.size() > kLongestMessage) error.message = error.message.substr(0, kLongestMessage) + "...";
    errors.push_back(std::move(error));
  }
  return errors;
}

}  // namespace

bool checkVerilatorAcceptsEngine(const hwlower::Design& design, hwlower::Diagnostics& diags) {
  ScratchDirectory scratch;
  if (scratch.path().empty()) {
    diags.error("cannot create a temporary directory to check the emitted engine", {});
    return false;
  }
  const std::string file = scratch.path() + "/synergy_engine.v";
  {
    std::ofstream out(file, std::ios::binary);
    out << design.verilog;
    if (!out.flush()) {
      diags.error("cannot write '" + file + "'", {});
      return false;
    }
  }
  util::ProcessResult verilate = util::runProcess(
      {toolpaths::kVerilator, "--cc", "-O3", "--no-timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module",
       hwlower::kEngineModuleName, "--Mdir", scratch.path() + "/model", file});
  if (verilate.exitCode == 0) return true;
  if (verilate.startError) {
    diags.error("cannot run verilator to check the emitted engine", {});
    return false;
  }
  std::vector<VerilatorError> errors = verilatorErrors(verilate.output, file);
  if (errors.empty()) errors.push_back({0, verilate.output.substr(0, verilate.output.find('\n'))});
  for (const VerilatorError& error : errors) {
    auto loc = design.verilogLineLocs.find(error.line);
    if (loc != design.verilogLineLocs.end()) {
      diags.error("Verilator cannot build the engine from this statement: " + error.message, loc->second);
    } else {
      diags.error("Verilator cannot build the engine of top module '" + design.top + "' (line " +
                      std::to_string(error.line) + " of the emitted module): " + error.message,
                  {});
    }
  }
  return false;
}

}  // namespace synergy::verilog
