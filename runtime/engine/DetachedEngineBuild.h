//===- DetachedEngineBuild.h - compiled engine built in a child process ---===//
//
// `--engine auto` runs a design on the software engine while the compiled
// engine builds. The build runs in a child process of its own rather than on
// a thread, so that a run which ends first exits at once: the child is left
// to finish (when it holds a build slot by then; EngineBuilder.h), and it
// installs the engine in the cache itself (the cache publishes by rename
// after the object is complete, so neither a concurrent build of the same
// design nor a build killed half way ever leaves an entry that find()
// accepts). The child is a session leader with its stdio on
// /dev/null: it holds none of the run's pipes open, so whoever waits for the
// run's output is not kept waiting for the build, and killing its process
// group stops the tools it runs too.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace synergy::engine {

class DetachedEngineBuild {
 public:
  // What the child reports once the build is over.
  struct Result {
    std::optional<std::string> object;  // the cached shared object
    std::string error;                  // why there is none
  };

  // Starts building the engine for `verilog` in a new child process; nullopt
  // and a one-line `error` when the process cannot be created. Call it
  // before the run starts any thread: the child carries on from a copy of
  // this one.
  static std::optional<DetachedEngineBuild> start(const std::string& verilog, std::string& error);

  DetachedEngineBuild(DetachedEngineBuild&& other) noexcept;
  DetachedEngineBuild& operator=(DetachedEngineBuild&&) = delete;
  // Leaves a child still building to finish on its own.
  ~DetachedEngineBuild();

  // Whether the child has reported, without waiting.
  bool ready();
  // The child's report, waiting for it if need be; once only.
  Result take();
  // The build's process (and process group) id.
  pid_t pid() const { return pid_; }

 private:
  DetachedEngineBuild(pid_t pid, int reportFd) : pid_(pid), reportFd_(reportFd) {}
  bool readReport(bool wait);

  pid_t pid_;
  int reportFd_;
  std::string report_;
  bool reported_ = false;
};

}  // namespace synergy::engine
