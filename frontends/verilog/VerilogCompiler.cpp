//===- VerilogCompiler.cpp - Drive iverilog with the synergy target -------===//
//
// This file implements compileVerilog: it checks the inputs, builds the
// iverilog command line and runs it with inherited stdout/stderr so Icarus's
// own `file:line:` diagnostics reach the user unchanged.
//
//===----------------------------------------------------------------------===//
#include "frontends/verilog/VerilogCompiler.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "util/Subprocess.h"

namespace synergy::verilog {

namespace fs = std::filesystem;

std::string defaultIvlDir() {
  if (const char* env = std::getenv("SYNERGY_IVL_DIR")) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return (exe.parent_path().parent_path() / "lib" / "synergy" / "ivl").string();
}

bool isVerilogSource(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  return ext == ".v" || ext == ".sv" || ext == ".vh" || ext == ".svh";
}

bool parseVerilogCommandLine(const std::vector<std::string>& args, VerilogCompileOptions& options,
                             std::string& error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // Attached (-Idir) or separate (-I dir) values, like cc.
    auto value = [&](const std::string& flag, std::string& out) {
      if (arg.size() > flag.size() && arg.compare(0, flag.size(), flag) == 0) {
        out = arg.substr(flag.size());
        return true;
      }
      if (i + 1 >= args.size()) {
        error = "option '" + flag + "' needs a value";
        return false;
      }
      out = args[++i];
      return true;
    };
    std::string v;
    if (arg.rfind("-I", 0) == 0) {
      if (!value("-I", v)) return false;
      options.includeDirs.push_back(v);
    } else if (arg.rfind("-D", 0) == 0) {
      if (!value("-D", v)) return false;
      options.defines.push_back(v);
    } else if (arg == "-top" || arg == "--top") {
      if (!value(arg, options.top)) return false;
    } else if (arg == "-o") {
      if (!value("-o", options.output)) return false;
    } else if (arg == "--emit-verilog") {
      if (!value("--emit-verilog", options.emitVerilog)) return false;
    } else if (!arg.empty() && arg[0] == '-') {
      error = "unknown option '" + arg + "'";
      return false;
    } else {
      options.inputs.push_back(arg);
    }
  }
  return true;
}

int compileVerilog(const VerilogCompileOptions& options) {
  if (options.inputs.empty()) {
    std::cerr << "error: no Verilog input files\n";
    return 1;
  }
  for (const std::string& in : options.inputs) {
    if (!fs::exists(in)) {
      std::cerr << in << ": error: no such file\n";
      return 1;
    }
  }
  std::string ivlDir = options.ivlDir.empty() ? defaultIvlDir() : options.ivlDir;
  if (!fs::exists(fs::path(ivlDir) / "synergy.conf")) {
    std::cerr << "error: Icarus target directory '" << ivlDir
              << "' has no synergy.conf (set SYNERGY_IVL_DIR)\n";
    return 1;
  }
  // Like cc's a.out: without -o the engine goes to a.eng.
  std::string output = options.output.empty() ? "a.eng" : options.output;
  std::vector<std::string> argv = {"iverilog", "-B" + ivlDir, "-tsynergy", "-o", output};
  // SystemVerilog sources need Icarus's 2012 dialect; plain .v stays 2005.
  for (const std::string& in : options.inputs) {
    if (fs::path(in).extension() == ".sv") {
      argv.push_back("-g2012");
      break;
    }
  }
  for (const std::string& dir : options.includeDirs) argv.push_back("-I" + dir);
  for (const std::string& def : options.defines) argv.push_back("-D" + def);
  if (!options.top.empty()) argv.push_back("-s" + options.top);
  if (!options.emitVerilog.empty()) argv.push_back("-pemit-verilog=" + options.emitVerilog);
  for (const std::string& in : options.inputs) argv.push_back(in);
  util::ProcessResult result = util::runProcess(argv, /*captureOutput=*/false);
  if (result.exitCode != 0) {
    if (result.exitCode < 0) std::cerr << "error: cannot run iverilog\n";
    return 1;
  }
  return 0;
}

}  // namespace synergy::verilog
