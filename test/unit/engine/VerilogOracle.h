//===- VerilogOracle.h - run a Verilog snippet under iverilog + vvp --------===//
//
// The engine unit tests are differential: they print the same values through
// the runtime and through real Icarus, and compare. This helper compiles one
// Verilog source with iverilog and returns vvp's stdout.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace synergy::engine::test {

// Returns vvp's stdout; `ok` says whether iverilog and vvp both succeeded.
inline std::string runUnderVvp(const std::string& verilog, bool& ok, const std::string& workName = "oracle") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("synergy-engine-test-" + std::to_string(::getpid()) + "-" + workName);
  fs::create_directories(dir);
  std::ofstream(dir / "tb.v") << verilog;
  std::string command = std::string(SYNERGY_TEST_IVERILOG) + " -o " + (dir / "tb.vvp").string() + " " +
                        (dir / "tb.v").string() + " && cd " + dir.string() + " && " + SYNERGY_TEST_VVP + " -n " +
                        (dir / "tb.vvp").string() + " > " + (dir / "out.txt").string();
  ok = std::system(command.c_str()) == 0;
  std::ifstream in(dir / "out.txt");
  std::stringstream out;
  out << in.rdbuf();
  fs::remove_all(dir);
  return out.str();
}

}  // namespace synergy::engine::test
