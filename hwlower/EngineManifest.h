//===- EngineManifest.h - The .eng file: compiler/runtime contract --------===//
//
// An engine file (`.eng`) is everything the runtime needs to build and drive
// one compiled Verilog design: the emitted synthesizable Verilog (module
// `synergy_engine`), the table of stateful variables reachable through the
// state-access port, and the table of system tasks the design traps into.
// The hardware compiler (hwlower) writes it; the engine runtime
// (runtime/engine) reads it. This header is the whole contract between them.
//
//===----------------------------------------------------------------------===//
//
// FILE FORMAT (text, one record per line, tokens separated by one space;
// strings are double-quoted with C escapes \\ \" \n \t \xHH):
//
//   SYNERGY-ENGINE <formatVersion>
//   top "<top module name>"
//   clock <stateId|-> <halfPeriod>
//   yield <0|1>
//   state <id> <kind> <width> <signed 0|1> <depth> <base> <nonVolatile 0|1> "<hier name>" "<verilog name>"
//   task <id> "<$name>" "<scope for %m>" "<file>" <line> <resultId|-> <resultWidth> <resultSigned> <nargs>
//   arg <kind> <stateId|-> <element|-> <indexStateId|-> <width> <signed> <writable> <real> "<text>"
//   romfile "<file name as the design spells it>" <sha256 of its contents, hex>
//   verilog <byteCount>
//   <exactly byteCount bytes of Verilog text>
//   end
//
// `arg` lines follow their `task` line, in argument order. `-` means "none".
// <base> is a memory's lowest declared index (may be negative; 0 for scalars).
// Each of `top`, `clock`, `yield` and `verilog` occurs exactly once, after
// the header; nothing follows `end`.
//
// LIMITS (an .eng file is untrusted input; the reader refuses, never trusts):
//   state ids < 65536 (the __sa_id port), dense from 0; task ids 1..65535
//   (the __task port), dense; width, resultWidth, arg width <= 65536 bits;
//   depth <= 2^32 (the __sa_index port); all states together <= 2^30 bits
//   in <= 2^24 elements (a scalar is one; the runtime saves element-wise);
//   <nargs> <= 65535; byteCount <= 256 MiB. Every state id a record names
//   (clock, resultId, an arg's stateId and indexStateId) exists; a value
//   argument names a state and an element inside it (or `-`), the other
//   argument kinds name none. Numbers are plain decimal without overflow.
//
// VERSIONS: 1 had no <base>. 2 added it, so a reader of either version never
// misreads the other's `state` lines; the reader accepts only the current one.
// 3 added `romfile`: a reader of 2 would run an engine that needs the check.
//
// ROM FILES: a `romfile` record names a file a $readmemh/$readmemb loaded at
// compile time into a ROM of the emitted Verilog. The design reads it at run
// time, so before the first tick the runtime resolves the name as the task
// would and refuses to run unless the file still has that content.
//
// EMITTED MODULE PORTS (the ABI is over these ports only):
//   input         __clk              native clock; everything happens on posedge
//   input         __cont             resume after a trapped task (one cycle)
//   input         __update           latch pending non-blocking updates (one cycle)
//   output [15:0] __task             id of the pending task, 0 = none
//   output        __done             no pass running, no task pending, no guard
//                                    changed: evaluate has reached quiescence
//   output        __there_are_updates  some non-blocking update is pending
//   input         __open_loop        pulse: start an open-loop run of __open_loop_n ticks
//   input  [31:0] __open_loop_n      ticks to run, read at the __open_loop edge
//   output        __open_loop_active open-loop run in progress
//   output [31:0] __ticks_left       ticks of the current/last open-loop run not
//                                    started yet (ticks run = N - __ticks_left)
//   input  [15:0] __sa_id            state-access: variable id (StateVar::id)
//   input  [31:0] __sa_index         element for memories (0 for scalars)
//   input  [15:0] __sa_word          64-bit word within the element (LSW = 0)
//   input         __sa_we            write __sa_wdata at the next posedge __clk
//   input  [63:0] __sa_wdata
//   output [63:0] __sa_rdata         combinational read of (id, index, word)
// The user's top-level inputs (e.g. `clock`) are NOT ports: they are state
// variables of kind Input, set through the state-access port. This lets the
// engine toggle the clock itself in open loop.
// Verilator escapes a leading "__" in port names: `__clk` is the C++ member
// `___05Fclk` of Vsynergy_engine, and so on for every port above.
//
// WHAT TO SAVE: every state with nonVolatile == 1, Internal ones included.
// Internal states hold the edge-detector history (`__prev_x`), the flag that
// arms the initial blocks (`__init_pending`), and task argument/result
// registers; restoring them is what makes a restart resume at the next tick
// instead of re-running tick 0. Wire states are never saved (nonVolatile 0).
//
// CYCLE PROTOCOL (runtime side; "edge" = drive __clk 0 then 1 with Verilator
// eval() after each change; all control inputs are 0 unless stated):
//   State access: combinational read: set __sa_id/__sa_index/__sa_word, eval(),
//     read __sa_rdata. Write: set those plus __sa_wdata, __sa_we=1, one edge,
//     __sa_we=0. A write cycle does nothing else. Writes to kind Wire are ignored.
//   One virtual tick t (tick 0 = time 0, clock at its initial value):
//     1. if t > 0: write the clock variable with its toggled value.
//     2. evaluate: while (!__done) { edge; if (__task != 0) service(__task) }
//        service(id): read the args (state access), perform the task, write
//        the result (Task::resultId) and any writable args, then one edge with
//        __cont=1. $finish/$stop are resumed too (the engine ends the
//        calling process itself); the runtime stops after step 4.
//     3. if (__there_are_updates) { one edge with __update=1; goto 2 }
//     4. end of tick: $strobe/$monitor output, $yield/$save handling.
//     $time at tick t is t * halfPeriod.
//   Tick 0 runs every `initial` block once (the engine arms them at reset).
//   Open loop (at a tick boundary only, i.e. after step 4, no task pending):
//     set __open_loop_n=N and __open_loop=1 for one edge, then edge until
//     __open_loop_active==0. The engine performs steps 1-3 itself for up to N
//     ticks. It stops early with __task != 0 while tick number
//     (ticks before + N - __ticks_left) is still in progress: the runtime services
//     that task and either finishes the tick with steps 2-4 itself, or, when
//     the tick needs no step 4, starts a new run of M ticks with __cont=1 and
//     __open_loop=1 in the same edge: the engine finishes the trapped tick,
//     then runs up to M more (M - __ticks_left of them started). When it stops
//     without a task, __ticks_left == 0: N ticks were completed (step 4 is not
//     performed by the engine: do not use open loop while $monitor is active).
//
// TASK ARGUMENTS: Verilog arguments in source order. For $display-like tasks
// the format string (if any) is a String argument, exactly as Icarus sees it.
//   Value  : read state `stateId` (element `element` or the element held in
//            register `indexStateId`); `width`/`signed` give the type; `real`
//            means the 64-bit value is an IEEE double. If `writable`, the task
//            writes it back (e.g. $fscanf targets, $random(seed)). An element
//            of `-` on a memory means the whole memory ($readmemh, $fread).
//   String : literal text in `text`.
//   Time   : the runtime substitutes its own `text` ("$time", "$stime",
//            "$realtime") value at the moment of the trap.
//   Empty  : an empty argument (`$display(a,,b)`).
// Tasks with a result ($fopen, $fgetc, $feof, $fscanf, $fread, $ftell,
// $random, $urandom, $time, ...) write it to state `resultId`, which the
// design reads right after the trap.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace synergy::hwlower {

inline constexpr int kEngineFormatVersion = 3;
inline constexpr uint32_t kNoState = 0xffffffffu;
inline constexpr uint64_t kNoElement = ~uint64_t(0);
inline constexpr const char* kEngineModuleName = "synergy_engine";
// The trap of a recursive call made when its routine's stack is full
// (lowerRecursiveCalls); its one string argument says which routine and the
// limit, and the runtime stops the run with it as an error.
inline constexpr const char* kRecursionLimitTask = "$synergy$recursion_limit";
inline constexpr uint32_t kMaxEngineStates = 1u << 16;
inline constexpr uint32_t kMaxEngineTasks = (1u << 16) - 1;
inline constexpr uint32_t kMaxStateWidth = 1u << 16;
inline constexpr uint64_t kMaxMemoryDepth = uint64_t(1) << 32;
inline constexpr uint64_t kMaxEngineStateBits = uint64_t(1) << 30;
inline constexpr uint64_t kMaxEngineStateElements = uint64_t(1) << 24;
inline constexpr uint64_t kMaxTaskArgs = (1u << 16) - 1;
inline constexpr uint64_t kMaxVerilogBytes = uint64_t(256) << 20;
// $time at tick t is t * halfPeriod: 2^32 - 1 keeps it exact for 2^32 ticks,
// beyond any run, where an unbounded half period wraps within a few ticks.
inline constexpr uint64_t kMaxHalfPeriod = UINT32_MAX;
// The emitted module's first lines, exactly: the port list above. EmitVerilog
// writes it and the runtime's check of an engine's Verilog demands it.
inline constexpr const char* kEngineModuleHeader =
    "module synergy_engine (\n"
    "  input wire __clk,\n  input wire __cont,\n  input wire __update,\n"
    "  output wire [15:0] __task,\n  output wire __done,\n"
    "  output wire __there_are_updates,\n"
    "  input wire __open_loop,\n  input wire [31:0] __open_loop_n,\n"
    "  output wire __open_loop_active,\n  output wire [31:0] __ticks_left,\n"
    "  input wire [15:0] __sa_id,\n  input wire [31:0] __sa_index,\n"
    "  input wire [15:0] __sa_word,\n  input wire __sa_we,\n"
    "  input wire [63:0] __sa_wdata,\n  output reg [63:0] __sa_rdata\n);\n";

enum class StateKind {
  Reg,       // a user variable (reg, integer, memory)
  Input,     // a top-level input of the user design (the clock)
  Wire,      // a user net: readable, writes are ignored
  Internal,  // compiler-made register: task argument or task result
};

struct StateVar {
  uint32_t id = 0;
  StateKind kind = StateKind::Reg;
  uint32_t width = 1;
  bool isSigned = false;
  uint64_t depth = 0;  // 0 = scalar, otherwise number of memory elements
  // Lowest declared index of a memory: element e (the __sa_index value) is
  // Verilog index base + e, so `reg [7:0] m [16:31]` has base 16. File
  // addresses ($readmemh @records, start/finish arguments) are Verilog indices.
  int64_t base = 0;
  bool nonVolatile = true;  // saved by $save; false only under $yield
  std::string name;         // hierarchical, e.g. "tb.u1.count"
  std::string verilogName;  // identifier in the emitted Verilog
};

enum class TaskArgKind { Value, String, Time, Empty };

struct TaskArg {
  TaskArgKind kind = TaskArgKind::Value;
  uint32_t stateId = kNoState;
  uint64_t element = kNoElement;
  uint32_t indexStateId = kNoState;
  uint32_t width = 0;
  bool isSigned = false;
  bool writable = false;
  bool isReal = false;
  std::string text;
};

struct Task {
  uint32_t id = 0;   // value of __task while trapped; ids start at 1
  std::string name;  // "$display", "$fopen", "$finish", "$save", "$yield", ...
  std::string scope; // hierarchical scope of the call, for %m
  std::string file;
  uint32_t line = 0;
  uint32_t resultId = kNoState;
  uint32_t resultWidth = 0;
  bool resultSigned = false;
  std::vector<TaskArg> args;
};

struct RomFile {
  std::string name;    // as the design spells it, resolved like $readmemh's
  std::string sha256;  // hex digest of the contents compiled into the engine
};

struct EngineManifest {
  int formatVersion = kEngineFormatVersion;
  std::string top;
  uint32_t clockId = kNoState;  // the Input state toggled once per tick
  uint64_t halfPeriod = 1;      // time units per tick
  bool usesYield = false;
  std::vector<StateVar> states;  // states[i].id == i
  std::vector<Task> tasks;       // tasks[i].id == i + 1
  std::vector<RomFile> romFiles;
  std::string verilog;           // module synergy_engine

  const Task* findTask(uint32_t id) const {
    return id >= 1 && id <= tasks.size() ? &tasks[id - 1] : nullptr;
  }
};

void writeEngineManifest(const EngineManifest& manifest, std::ostream& out);
// Returns nullopt and sets `error` ("LINE: message") on malformed or
// version-mismatched input. Never throws, and allocates no more than the
// input's own size plus the bounded tables above, whatever `in` holds.
std::optional<EngineManifest> readEngineManifest(std::istream& in, std::string& error);

// Writes through a temporary file and a rename, so no partial file is left.
bool writeEngineFile(const EngineManifest& manifest, const std::string& path, std::string& error);
// `error` is "PATH:LINE: message", or a message naming the path.
std::optional<EngineManifest> readEngineFile(const std::string& path, std::string& error);

}  // namespace synergy::hwlower
