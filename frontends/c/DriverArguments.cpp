//===- DriverArguments.cpp - a cc command line, classified ------------------===//
//
// The tables below name only the options whose phase matters or whose value is
// a separate word (so that the value is not mistaken for an input file).
// Everything else is passed to every clang step, which is what clang itself
// does with a single combined invocation.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/DriverArguments.h"

#include <array>
#include <string_view>

namespace synergy::frontend_c {

namespace {

struct OptionRule {
  std::string_view spelling;
  ArgumentPhase phase;
};

// Options written as `-opt value` (two words).
constexpr std::array kSeparateValueOptions = {
    OptionRule{"-l", ArgumentPhase::Link},
    OptionRule{"-L", ArgumentPhase::Link},
    OptionRule{"-Xlinker", ArgumentPhase::Link},
    OptionRule{"-u", ArgumentPhase::Link},
    OptionRule{"-z", ArgumentPhase::Link},
    OptionRule{"-e", ArgumentPhase::Link},
    OptionRule{"-T", ArgumentPhase::Link},
    OptionRule{"-I", ArgumentPhase::Compile},
    OptionRule{"-D", ArgumentPhase::Compile},
    OptionRule{"-U", ArgumentPhase::Compile},
    OptionRule{"-F", ArgumentPhase::Compile},
    OptionRule{"-include", ArgumentPhase::Compile},
    OptionRule{"-include-pch", ArgumentPhase::Compile},
    OptionRule{"-imacros", ArgumentPhase::Compile},
    OptionRule{"-isystem", ArgumentPhase::Compile},
    OptionRule{"-isystem-after", ArgumentPhase::Compile},
    OptionRule{"-idirafter", ArgumentPhase::Compile},
    OptionRule{"-iquote", ArgumentPhase::Compile},
    OptionRule{"-iprefix", ArgumentPhase::Compile},
    OptionRule{"-iwithprefix", ArgumentPhase::Compile},
    OptionRule{"-iwithprefixbefore", ArgumentPhase::Compile},
    OptionRule{"-iframework", ArgumentPhase::Compile},
    OptionRule{"-isysroot", ArgumentPhase::Compile},
    OptionRule{"-cxx-isystem", ArgumentPhase::Compile},
    OptionRule{"-ivfsoverlay", ArgumentPhase::Compile},
    OptionRule{"-MF", ArgumentPhase::Compile},
    OptionRule{"-MT", ArgumentPhase::Compile},
    OptionRule{"-MQ", ArgumentPhase::Compile},
    OptionRule{"-MJ", ArgumentPhase::Compile},
    OptionRule{"-dependency-file", ArgumentPhase::Compile},
    OptionRule{"-dependency-dot", ArgumentPhase::Compile},
    OptionRule{"-serialize-diagnostics", ArgumentPhase::Compile},
    OptionRule{"-Xclang", ArgumentPhase::Compile},
    OptionRule{"-Xpreprocessor", ArgumentPhase::Compile},
    OptionRule{"-Xassembler", ArgumentPhase::Compile},
    OptionRule{"-Xanalyzer", ArgumentPhase::Compile},
    OptionRule{"-mllvm", ArgumentPhase::Compile},
    OptionRule{"--sysroot", ArgumentPhase::Both},
    OptionRule{"-B", ArgumentPhase::Both},
};

// Single-word options whose phase is not "both".
constexpr std::array kPhaseFlags = {
    OptionRule{"-nostdlib", ArgumentPhase::Link},
    OptionRule{"-nostdlib++", ArgumentPhase::Link},
    OptionRule{"-nostartfiles", ArgumentPhase::Link},
    OptionRule{"-nodefaultlibs", ArgumentPhase::Link},
    OptionRule{"-nolibc", ArgumentPhase::Link},
    OptionRule{"-static", ArgumentPhase::Link},
    OptionRule{"-static-libgcc", ArgumentPhase::Link},
    OptionRule{"-static-libstdc++", ArgumentPhase::Link},
    OptionRule{"-shared-libgcc", ArgumentPhase::Link},
    OptionRule{"-rdynamic", ArgumentPhase::Link},
    OptionRule{"-pie", ArgumentPhase::Link},
    OptionRule{"-no-pie", ArgumentPhase::Link},
    // cc's -s strips the symbol table. A granule keeps its name section:
    // the passes find the guest's malloc, free and __wasm_init_tls by name
    // (a stripped threaded program could not be built), and traps name the
    // function they happened in. So -s is accepted and changes nothing.
    OptionRule{"-s", ArgumentPhase::Dropped},
    OptionRule{"-undef", ArgumentPhase::Compile},
    OptionRule{"-MD", ArgumentPhase::Compile},
    OptionRule{"-MMD", ArgumentPhase::Compile},
    OptionRule{"-MP", ArgumentPhase::Compile},
    OptionRule{"-MG", ArgumentPhase::Compile},
    OptionRule{"-MV", ArgumentPhase::Compile},
    OptionRule{"-C", ArgumentPhase::Compile},
    OptionRule{"-CC", ArgumentPhase::Compile},
    OptionRule{"-P", ArgumentPhase::Compile},
    OptionRule{"-H", ArgumentPhase::Compile},
    // OpenMP is a compile-time transformation here: the __kmpc_* calls it
    // emits are control-point imports, and there is no libomp to link.
    OptionRule{"-fopenmp", ArgumentPhase::Compile},
    // The driver itself adds what threads need (see ClangCommands.cpp);
    // clang's -pthread would look for a wasm32-wasi-threads libc.
    OptionRule{"-pthread", ArgumentPhase::Dropped},
    // The link step never runs wasm-opt (see the -O rule below), and clang-19
    // silently skips linking altogether when given --no-wasm-opt.
    OptionRule{"--no-wasm-opt", ArgumentPhase::Dropped},
    OptionRule{"--wasm-opt", ArgumentPhase::Dropped},
    OptionRule{"-O", ArgumentPhase::Compile},
};

// Options whose value is joined to the spelling (`-Ipath`, `-Wl,--foo`).
constexpr std::array kJoinedPrefixes = {
    OptionRule{"-Wl,", ArgumentPhase::Link},
    OptionRule{"-l", ArgumentPhase::Link},
    OptionRule{"-L", ArgumentPhase::Link},
    OptionRule{"-fuse-ld=", ArgumentPhase::Link},
    OptionRule{"--ld-path=", ArgumentPhase::Link},
    OptionRule{"-rtlib=", ArgumentPhase::Link},
    OptionRule{"-unwindlib=", ArgumentPhase::Link},
    OptionRule{"-mexec-model=", ArgumentPhase::Link},
    // Optimisation is a compile-step matter: given -O at link time, clang
    // runs wasm-opt from PATH, which strips the name section that trap
    // messages need. The Synergy passes run on the linked module instead.
    OptionRule{"-O", ArgumentPhase::Compile},
    OptionRule{"-I", ArgumentPhase::Compile},
    OptionRule{"-D", ArgumentPhase::Compile},
    OptionRule{"-U", ArgumentPhase::Compile},
    OptionRule{"-M", ArgumentPhase::Compile},
    OptionRule{"-std=", ArgumentPhase::Compile},
    OptionRule{"-Wp,", ArgumentPhase::Compile},
    OptionRule{"-Wa,", ArgumentPhase::Compile},
    OptionRule{"-fopenmp=", ArgumentPhase::Compile},
    OptionRule{"-include", ArgumentPhase::Compile},
    OptionRule{"-imacros", ArgumentPhase::Compile},
    OptionRule{"-isystem", ArgumentPhase::Compile},
    OptionRule{"-idirafter", ArgumentPhase::Compile},
    OptionRule{"-iquote", ArgumentPhase::Compile},
};

// Options that make clang stop before linking, so the driver hands the whole
// command line to one clang call.
constexpr std::array<std::string_view, 7> kStopBeforeLinkFlags = {
    "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "--precompile"};

constexpr std::array<std::string_view, 19> kSourceExtensions = {
    ".c", ".i", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".ii",
    ".s", ".S", ".sx", ".h", ".hh", ".hpp", ".hxx", ".H", ".inc"};

bool isQuery(std::string_view word) {
  return word.starts_with("-print-") || word.starts_with("--print-") ||
         word == "-dumpmachine" || word == "-dumpversion";
}

// clang accepts every spelling of the wasm32-wasi triple; any other target
// would produce something the runtime cannot load.
bool isWasiTarget(std::string_view triple) {
  return triple == "wasm32-wasi" || triple == "wasm32-unknown-wasi" ||
         triple == "wasm32-wasip1" || triple == "wasm32-unknown-wasip1";
}

InputKind classifyInput(std::string_view path, std::string_view language) {
  if (!language.empty()) return InputKind::Source;
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
    return InputKind::LinkerInput;
  std::string_view extension = path.substr(dot);
  if (extension == ".v" || extension == ".sv") return InputKind::Verilog;
  for (std::string_view source : kSourceExtensions)
    if (extension == source) return InputKind::Source;
  return InputKind::LinkerInput;
}

const OptionRule* findRule(auto& table, std::string_view word, bool prefix) {
  for (const OptionRule& rule : table)
    if (prefix ? (word.starts_with(rule.spelling) && word.size() > rule.spelling.size())
               : word == rule.spelling)
      return &rule;
  return nullptr;
}

// Walks the words left to right; keeps the -x in force, like clang.
class Classifier {
 public:
  Classifier(const std::vector<std::string>& words, DriverArguments& parsed)
      : words_(words), parsed_(parsed) {}

  bool run(std::string& error) {
    bool stopsBeforeLink = false;
    bool query = false;
    for (index_ = 0; index_ < words_.size(); ++index_) {
      const std::string& word = words_[index_];
      if (word.empty() || word[0] != '-' || word == "-") {
        addInput(word);
        continue;
      }
      if (isQuery(word)) query = true;
      for (std::string_view flag : kStopBeforeLinkFlags)
        if (word == flag) stopsBeforeLink = true;
      if (!classifyOption(word, error)) return false;
    }
    if (query)
      parsed_.action = DriverAction::Query;
    else if (stopsBeforeLink)
      parsed_.action = DriverAction::StopBeforeLink;
    else if (parsed_.inputs.empty() && parsed_.verbose)
      parsed_.action = DriverAction::Query;  // `cc -v` prints the version
    return true;
  }

 private:
  void addInput(const std::string& path) {
    parsed_.arguments.push_back({ArgumentPhase::Input, {path}, parsed_.inputs.size()});
    parsed_.inputs.push_back({path, language_, classifyInput(path, language_)});
  }

  void add(ArgumentPhase phase, std::vector<std::string> words) {
    parsed_.arguments.push_back({phase, std::move(words)});
  }

  // Takes the word after the option as its value.
  bool takeValue(std::string& value, std::string& error) {
    if (index_ + 1 >= words_.size()) {
      error = "argument to '" + words_[index_] + "' is missing (expected 1 value)";
      return false;
    }
    value = words_[++index_];
    return true;
  }

  bool acceptTarget(const std::string& triple, std::string& error) {
    if (isWasiTarget(triple)) return true;
    error = "unsupported target '" + triple + "': only wasm32-wasi granules can be built";
    return false;
  }

  bool classifyOption(const std::string& word, std::string& error) {
    std::string value;
    if (word == "-o") {
      if (!takeValue(value, error)) return false;
      parsed_.outputPath = value;
      add(ArgumentPhase::Output, {word, value});
    } else if (word == "-x" || (word.starts_with("-x") && word.size() > 2)) {
      if (word == "-x") {
        if (!takeValue(value, error)) return false;
      } else {
        value = word.substr(2);
      }
      language_ = value == "none" ? "" : value;
      add(ArgumentPhase::Language, {"-x", value});
    } else if (word == "-target" || word.starts_with("--target=")) {
      if (word == "-target") {
        if (!takeValue(value, error)) return false;
      } else {
        value = word.substr(std::string_view("--target=").size());
      }
      if (!acceptTarget(value, error)) return false;
      add(ArgumentPhase::Dropped, {word});
    } else if (word == "-###") {
      parsed_.printCommandsOnly = true;
      add(ArgumentPhase::Dropped, {word});
    } else if (word == "--version") {
      parsed_.showVersion = true;
      add(ArgumentPhase::Dropped, {word});
    } else if (word == "--help") {
      parsed_.showHelp = true;
      add(ArgumentPhase::Dropped, {word});
    } else if (word == "-fopenmp" || word.starts_with("-fopenmp=") || word == "-pthread") {
      parsed_.threads = true;
      add(word == "-pthread" ? ArgumentPhase::Dropped : ArgumentPhase::Compile, {word});
    } else if (const OptionRule* rule = findRule(kSeparateValueOptions, word, false)) {
      if (!takeValue(value, error)) return false;
      add(rule->phase, {word, value});
    } else if (const OptionRule* rule = findRule(kPhaseFlags, word, false)) {
      add(rule->phase, {word});
    } else if (const OptionRule* rule = findRule(kJoinedPrefixes, word, true)) {
      add(rule->phase, {word});
    } else {
      if (word == "-v") parsed_.verbose = true;
      if (word == "-nostdinc") parsed_.noStandardIncludes = true;
      if (word == "-nostdinc++") parsed_.noStandardCxxIncludes = true;
      if (word == "-shared" || word == "-r") {
        parsed_.relocatableOrShared = true;
        add(ArgumentPhase::Link, {word});
        return true;
      }
      if (word.starts_with("-o")) {
        parsed_.outputPath = word.substr(2);
        add(ArgumentPhase::Output, {"-o", parsed_.outputPath});
        return true;
      }
      add(ArgumentPhase::Both, {word});
    }
    return true;
  }

  const std::vector<std::string>& words_;
  DriverArguments& parsed_;
  size_t index_ = 0;
  std::string language_;
};

}  // namespace

bool parseDriverArguments(const std::vector<std::string>& arguments, DriverArguments& parsed,
                          std::string& error) {
  parsed = {};
  return Classifier(arguments, parsed).run(error);
}

}  // namespace synergy::frontend_c
