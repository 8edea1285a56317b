//===- PassRunner.cpp - run passes on a wasm file, crash-proof -------------===//
//
// Two layers keep bad input from crashing the caller:
//  1. checkWasmBinary validates the framing in-process and gives a precise
//     message with a byte offset;
//  2. everything Binaryen does (parse, validate, run passes, write) happens in
//     a forked child. The child reports a one-line error through a pipe; a
//     child that dies on a signal, or exits without a report, is reported as
//     a Binaryen failure (while parsing, or while running passes: the child
//     says when parsing is done). Binaryen's own diagnostics go to a memfd,
//     and their first line becomes the detail of our message.
// The parent never touches Binaryen, so the child never inherits a half-used
// Binaryen thread pool.
//
//===----------------------------------------------------------------------===//
#include "passes/PassRunner.h"

#include <binaryen-c.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

namespace synergy::passes {

namespace {

bool debugPasses() {
  const char* value = std::getenv("SYNERGY_DEBUG_PASSES");
  return value && *value && std::strcmp(value, "0") != 0;
}

// The first line Binaryen wrote, without its "[parse exception: ...]Fatal"
// wrapping and trailing ", on" (it prints the offending expression next).
std::string firstLineOf(int log, off_t from = 0) {
  char buffer[512];
  ssize_t n = log >= 0 ? pread(log, buffer, sizeof buffer, from) : -1;
  std::string text = n > 0 ? std::string(buffer, size_t(n)) : std::string();
  text = text.substr(0, text.find('\n'));
  static constexpr std::string_view kParseException = "[parse exception: ";
  if (text.starts_with(kParseException)) {
    text = text.substr(kParseException.size());
    text = text.substr(0, text.find(']'));
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  if (text.ends_with(", on")) text.resize(text.size() - 4);
  return text;
}

bool writeFileAtomically(const std::string& path, const char* data, size_t size,
                         std::string& error) {
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(data, std::streamsize(size));
    if (!out) {
      error = "cannot write " + temporary + ": " + std::strerror(errno);
      std::remove(temporary.c_str());
      return false;
    }
  }
  // The file replaced keeps its mode: the linker made the module executable,
  // as cc makes a.out, so that binfmt_misc can run it (synergy-run
  // --register-binfmt).
  struct stat replaced;
  if (stat(path.c_str(), &replaced) == 0) chmod(temporary.c_str(), replaced.st_mode & 07777);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

// Sent on the report pipe once the module parsed and validated, so the parent
// can tell a parse failure from a failure while passes ran.
constexpr char kParsedMarker = 'P';

// The child's whole job, with stderr already sent to `log`; debug lines go to
// `console` (the real stderr). Returns the error message, empty on success.
std::string transformInChild(std::vector<char>& bytes, const WasmBinaryFacts& facts, int log,
                             std::FILE* console, int report, const std::string& outputWasm,
                             const std::vector<const PassInfo*>& passes) {
  WasmModule module{nullptr, facts, 0};
  module.binaryen = BinaryenModuleRead(bytes.data(), bytes.size());
  // The features the target_features section declares (none without one).
  module.declaredFeatures = BinaryenModuleGetFeatures(module.binaryen);
  BinaryenModuleSetFeatures(module.binaryen, BinaryenFeatureAll());
  if (!BinaryenModuleValidate(module.binaryen)) {
    std::fflush(stderr);
    std::string detail = firstLineOf(log);
    return "invalid wasm module" + (detail.empty() ? "" : " (" + detail + ")");
  }
  if (write(report, &kParsedMarker, 1) != 1) return "cannot report to the parent process";
  // Passes (and the optimizer inside Asyncify) may use what the module
  // declares plus what clang and wasm2c both support; never more, so they
  // cannot introduce instructions wasm2c refuses. Threads is allowed so the
  // module validates before lower-atomics has run.
  BinaryenModuleSetFeatures(
      module.binaryen, module.declaredFeatures | BinaryenFeatureMutableGlobals() |
                           BinaryenFeatureSignExt() | BinaryenFeatureBulkMemory() |
                           BinaryenFeatureNontrappingFPToInt() | BinaryenFeatureMultivalue() |
                           BinaryenFeatureReferenceTypes() | BinaryenFeatureAtomics());

  bool debug = debugPasses();
  for (const PassInfo* info : passes) {
    std::string flag(info->flag);
    if (debug) std::fprintf(console, "synergy-passes: running %s\n", flag.c_str());
    std::string error;
    if (!info->create()->run(module, error)) return "pass " + flag + ": " + error;
    if (debug) {
      std::fflush(stderr);
      off_t logEnd = lseek(log, 0, SEEK_END);
      if (!BinaryenModuleValidate(module.binaryen)) {
        std::fflush(stderr);
        return "module is invalid after pass " + flag + " (" + firstLineOf(log, logEnd) + ")";
      }
      std::fprintf(console, "synergy-passes: module valid after %s\n", flag.c_str());
    }
  }

  // Keep the name section: traps report function names from it. The
  // target_features section, when there is one, says what the input said.
  BinaryenModuleSetFeatures(module.binaryen, module.declaredFeatures);
  BinaryenSetDebugInfo(true);
  BinaryenModuleAllocateAndWriteResult written = BinaryenModuleAllocateAndWrite(module.binaryen, nullptr);
  std::string error;
  bool ok = writeFileAtomically(outputWasm, static_cast<const char*>(written.binary),
                                written.binaryBytes, error);
  std::free(written.binary);
  std::free(written.sourceMap);
  BinaryenModuleDispose(module.binaryen);
  return ok ? std::string() : error;
}

}  // namespace

bool runPassesOnFile(const std::string& inputWasm, const std::string& outputWasm,
                     const std::vector<const PassInfo*>& passes, std::string& error) {
  auto fail = [&](const std::string& where, const std::string& message) {
    error = where + ": error: " + message;
    return false;
  };
  std::ifstream in(inputWasm, std::ios::binary);
  if (!in) return fail(inputWasm, std::string("cannot open input: ") + std::strerror(errno));
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return fail(inputWasm, "cannot read input");

  WasmBinaryFacts facts;
  std::string framingError;
  if (!checkWasmBinary({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, facts,
                       framingError)) {
    size_t colon = framingError.find(": ");
    return fail(inputWasm + ":" + framingError.substr(0, colon),
                "malformed wasm: " + framingError.substr(colon + 2));
  }

  int report[2];
  if (pipe(report) != 0) return fail(inputWasm, std::string("pipe: ") + std::strerror(errno));
  int binaryenLog = memfd_create("synergy-binaryen-log", MFD_CLOEXEC);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    close(report[0]);
    close(report[1]);
    if (binaryenLog >= 0) close(binaryenLog);
    return fail(inputWasm, std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    close(report[0]);
    // Binaryen writes diagnostics to stderr and sometimes exits right after;
    // keep them in the log, where the parent finds them.
    std::fflush(stderr);
    int consoleFd = dup(STDERR_FILENO);
    std::FILE* console = consoleFd >= 0 ? fdopen(consoleFd, "w") : stderr;
    if (binaryenLog >= 0) dup2(binaryenLog, STDERR_FILENO);
    std::string message =
        transformInChild(bytes, facts, binaryenLog, console, report[1], outputWasm, passes);
    if (!message.empty() && write(report[1], message.data(), message.size()) < 0) _exit(2);
    std::fflush(console);
    std::fflush(stderr);
    _exit(message.empty() ? 0 : 1);
  }
  close(report[1]);
  std::string message;
  char buffer[1024];
  for (;;) {
    ssize_t n = read(report[0], buffer, sizeof buffer);
    if (n > 0) {
      message.append(buffer, size_t(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(report[0]);
  bool parsed = !message.empty() && message.front() == kParsedMarker;
  if (parsed) message.erase(0, 1);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string detail = firstLineOf(binaryenLog);
  if (binaryenLog >= 0) close(binaryenLog);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  if (!message.empty()) return fail(inputWasm, message);
  if (!detail.empty()) detail = " (" + detail + ")";
  std::string what = WIFSIGNALED(status) ? std::string("crashed, ") + strsignal(WTERMSIG(status))
                                         : std::string("failed");
  if (parsed) return fail(inputWasm, "binaryen " + what + " while running passes" + detail);
  if (WIFSIGNALED(status))
    return fail(inputWasm, "malformed wasm: binaryen " + what + " parsing it" + detail);
  return fail(inputWasm, "malformed wasm: binaryen cannot parse it" + detail);
}

}  // namespace synergy::passes
