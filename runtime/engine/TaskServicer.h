//===- TaskServicer.h - performs the system tasks an engine traps into -----===//
//
// When an engine stops with __task != 0, the runner hands the task id here.
// The servicer reads the task's arguments through the state-access port,
// performs the task on the host (printing, file IO, random numbers, ...),
// and writes any result and writable arguments back before the engine
// resumes, so a later statement in the same tick sees them ($feof right
// after $fread). Tasks whose effect belongs to the end of a tick ($strobe,
// $monitor, $finish, $save, $restart, $yield) are recorded for the runner.
//
// Semantics that differ from vvp, by design:
//  - engines are 2-state: there are no x/z digits and $fscanf/$readmem
//    read x and z digits as 0;
//  - $finish and $stop end the run at the end of the current tick. As in
//    vvp, the calling process stops at the call and any other process stops
//    after its next system task (the engine does that, see
//    LowerCoreToStateMachine.cpp); $stop behaves like `vvp -n` (no
//    interactive prompt) and, as there, skips pending $strobe;
//  - $strobe and $monitor print their arguments' values at the end of the
//    tick, which is exact for arguments that are plain variables.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/BitValue.h"
#include "engine/DisplayFormatter.h"
#include "engine/EngineInstance.h"
#include "engine/FileTable.h"
#include "engine/InputStream.h"
#include "hwlower/EngineManifest.h"

namespace synergy::engine {

// The low 64 bits of a `width`-bit value whose first state word is `word`,
// extended the way BitValue::toUint64 extends it: all a descriptor or an
// index needs, whatever the width. The hypervisor reads trapped tasks'
// arguments the same way when it serves them for a tenant.
uint64_t extendedWord(uint64_t word, uint32_t width, bool isSigned);

enum class RunEnd { None, Finish, Stop };

class TaskServicer {
 public:
  TaskServicer(const hwlower::EngineManifest& manifest, EngineInstance& engine, FileTable& files,
               std::vector<std::string> plusargs);

  // The simulation time tasks see ($time, %t arguments).
  void setTime(uint64_t time) { time_ = time; }
  // Performs task `taskId`. Returns false with `error` for a task the runtime
  // does not implement.
  bool service(uint32_t taskId, std::string& error);
  // End of tick: pending $strobe output, then $monitor if its values changed.
  void endOfTick();
  // Whether the tasks serviced so far this tick left nothing for its end:
  // no $strobe output, no $monitor, and no $finish, $stop, $save, $restart
  // or $yield for the runner. Then the engine may finish the tick alone.
  bool endOfTickIsIdle() const {
    return strobes_.empty() && !monitorActive() && runEnd_ == RunEnd::None && !saveRequest_ &&
           !restartRequest_ && !yieldFired_;
  }
  // Whether servicing a task of this name only writes output ($display,
  // $write, $fdisplay, $fwrite and their radix variants): it reads its
  // arguments, changes no engine state and leaves the end of the tick idle,
  // so its service may come after the engine ran on (the hypervisor's
  // batched open loop).
  static bool onlyWritesOutput(const std::string& taskName);
  // The input tasks ($fgetc, $ungetc, $fgets, $feof, $fread, $fscanf) read
  // their file as an InputStream, so the hypervisor serves a tenant's from
  // read-ahead windows with this same code. readsInput: whether a task of
  // this name is one of them. inputDescriptor: the file task
  // `taskId` reads, or nullopt when it is not an input task. serviceInput
  // performs it on `in` (null: a file that is not open), reading all it
  // reads before it writes anything: false, having written nothing, when
  // `in` ran short.
  static bool readsInput(const std::string& taskName);
  std::optional<uint32_t> inputDescriptor(uint32_t taskId);
  bool serviceInput(uint32_t taskId, InputStream* in);
  // Whether end-of-tick work needs the runner to stop at every tick.
  bool monitorActive() const { return monitor_ != nullptr && monitorOn_; }

  RunEnd runEnd() const { return runEnd_; }
  // $save/$restart requests made during the current tick, and $yield.
  std::optional<std::string> takeSaveRequest();
  std::optional<std::string> takeRestartRequest();
  bool takeYield();

  int32_t randomSeed = 0;
  int32_t urandomSeed = 0;

  // The $monitor in effect, for $save/$restart: its task id (0: none),
  // whether it is on, and the values it last printed.
  struct MonitorState {
    uint32_t taskId = 0;
    bool on = true;
    std::string lastValues;
  };
  MonitorState monitorState() const;
  void restoreMonitor(const MonitorState& state);

 private:
  enum class SystemTask {
    Display, Write, Fdisplay, Fwrite, Strobe, Fstrobe, Monitor, MonitorOn, MonitorOff,
    Fopen, Fclose, Fflush, Fgetc, Ungetc, Fgets, Feof, Ftell, Fseek, Rewind, Fread,
    Fscanf, Sscanf, Readmemh, Readmemb, Finish, Stop, Time, Stime, Realtime, Random,
    Urandom, UrandomRange, TestPlusargs, ValuePlusargs, Save, Restart, Yield, RecursionLimit, Unsupported
  };
  struct TaskAction {
    SystemTask kind;
    DisplayRadix radix;  // the display family's default radix
  };
  static TaskAction classifyTask(const std::string& name);
  static size_t minimumArgs(SystemTask kind);

  BitValue readArg(const hwlower::TaskArg& arg);
  void writeArg(const hwlower::TaskArg& arg, const BitValue& value);
  void writeResult(const hwlower::Task& task, const BitValue& value);
  void writeResult(const hwlower::Task& task, int64_t value);
  uint64_t argElement(const hwlower::TaskArg& arg);
  std::string argText(const hwlower::TaskArg& arg);
  DisplayArg displayArg(const hwlower::TaskArg& arg);
  std::string formatTask(const hwlower::Task& task, size_t firstArg, DisplayRadix radix);
  uint32_t argDescriptor(const hwlower::Task& task, size_t index);

  void serviceFopen(const hwlower::Task& task);
  const hwlower::Task* inputTask(uint32_t taskId, size_t& descriptorArg);
  bool serviceInputTask(const hwlower::Task& task, SystemTask kind, InputStream* in);
  bool serviceFread(const hwlower::Task& task, InputStream* in);
  bool serviceScanf(const hwlower::Task& task, InputStream* in, bool fromFile);
  void serviceReadmem(const hwlower::Task& task, int radixBits);
  void serviceRandom(const hwlower::Task& task, bool isUnsigned);
  void serviceUrandomRange(const hwlower::Task& task);
  void servicePlusargs(const hwlower::Task& task, bool withValue);

  const hwlower::EngineManifest& manifest_;
  EngineInstance& engine_;
  FileTable& files_;
  std::vector<std::string> plusargs_;
  std::vector<TaskAction> actions_;  // per task, indexed by id - 1
  uint64_t time_ = 0;
  RunEnd runEnd_ = RunEnd::None;
  std::vector<const hwlower::Task*> strobes_;
  const hwlower::Task* monitor_ = nullptr;
  bool monitorOn_ = true;
  std::optional<std::string> lastMonitorValues_;
  std::optional<std::string> saveRequest_;
  std::optional<std::string> restartRequest_;
  bool yieldFired_ = false;
};

}  // namespace synergy::engine
