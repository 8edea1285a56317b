//===- HwIr.h - The hardware IR the Verilog frontend builds ---------------===//
//
// The HW IR is one flattened design: every signal of every scope is a Var,
// continuous logic is already Verilog text (one `assign` per netlist device),
// and procedural code is a statement tree whose expressions are Verilog text
// that is width-exact and self-determined (the frontend wraps every compound
// expression so it means the same wherever it is pasted). Passes therefore
// restructure control flow and never need to look inside an expression; the
// few facts they need (which variable an expression reads, whether it is a
// plain variable reference) are carried next to the text.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hwlower/EngineManifest.h"

namespace synergy::hwlower {

struct SourceLoc {
  std::string file;
  unsigned line = 0;
};

// CombReg: a reg driven only by a combinational always block that stays one
// (keepCombinationalBlocks); Rom: a memory with constant power-on contents
// that nothing writes (foldConstantVariables). Like nets, both are readable
// and never written by the host or saved.
enum class VarKind { Reg, Wire, Input, Internal, CombReg, Rom };

struct Var {
  std::string name;   // hierarchical, "tb.u1.count"
  std::string ident;  // identifier in the emitted Verilog
  unsigned width = 1;
  bool isSigned = false;
  bool isReal = false;
  uint64_t depth = 0;  // 0 = scalar
  int64_t arrayBase = 0;  // a memory's lowest declared index; element 0 is that index
  VarKind kind = VarKind::Reg;
  bool nonVolatileAttr = false;
  uint64_t initValue = 0;   // power-on value (the engine's reset state)
  bool inFunction = false;  // a function local: declared inside its function
  bool isLocal = false;     // an Icarus temporary (`_ivl_N`), never in the state table
  bool passLocal = false;   // dead at the start of every pass: no state-access arms
  // A variable of a recursive routine's activation (its ports and locals, and
  // the frontend's temporaries inside its body): lowerRecursiveCalls saves
  // and restores it around each recursive call.
  bool frameVar = false;
  // Written whole by a declaration initializer or a leading assignment of
  // an initial block: under vvp it goes from x to that value at time 0.
  bool initializedAtTimeZero = false;
  bool hasDeclarationInitializer = false;  // `integer c = 0;`: one of the above
  std::optional<uint64_t> declaredValue;   // its value, when a plain literal
  SourceLoc loc;
};

// A width-exact, self-determined Verilog expression.
struct Expr {
  std::string text;
  unsigned width = 0;
  bool isSigned = false;
  bool isReal = false;
  int wholeVar = -1;  // >= 0 when the expression is exactly that scalar variable
  int invertedVar = -1;  // >= 0 when the expression is `~v` or `!v` of a 1-bit v
  bool isConstant = false;
};

// One target of an assignment: a variable, optionally a memory element and a
// part of the word.
struct LValue {
  int var = -1;
  bool hasIndex = false;
  Expr index;  // memory element (canonical, 0-based)
  bool hasPart = false;
  Expr partOffset;  // canonical bit offset from the LSB
  unsigned width = 0;
};

enum class TaskArgIrKind { Value, String, Time, Empty };

struct TaskArgIr {
  TaskArgIrKind kind = TaskArgIrKind::Value;
  Expr value;        // Value
  bool writable = false;
  LValue target;     // writable Value: where the task writes
  bool wholeArray = false;  // Value names a whole memory ($readmemh, $fread)
  int arrayVar = -1;
  std::string text;  // String literal or Time function name
};

struct TaskCall {
  std::string name;   // "$display"
  std::string scope;  // for %m
  std::vector<TaskArgIr> args;
  int resultVar = -1;  // Internal var that receives the task's result
  uint32_t taskId = 0;  // filled by lowerTaskArguments
};

enum class EdgeKind { Pos, Neg, Any };

struct EventTerm {
  EdgeKind edge = EdgeKind::Any;
  int var = -1;  // the guard variable
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct CaseItem {
  std::vector<Expr> labels;  // empty = default
  StmtPtr body;
};

enum class StmtKind {
  Block,      // begin/end (or fork/join when isFork)
  Assign,     // blocking; lhs may be a concatenation of several LValues
  NbAssign,   // non-blocking
  If,
  Case,
  While,
  Task,       // system task trap (or a hoisted system function call)
  Delay,      // #n sub: only legal in a clock generator
  EventWait,  // @(...) sub inside a process body: a resume point of its process
  Raw,        // synthesizable Verilog text made by a pass (e.g. NBA shadow writes)
  Disable,    // `disable <label>` of an enclosing named block
  // Recursion whose depth depends on run-time values (lowerRecursiveCalls):
  RecursiveBody,    // the copy of a recursive routine's body its outermost call runs
  RecursiveCall,    // a call, inside that copy, of the routine: runs the copy again
  RecursiveEntry,   // made by lowerRecursiveCalls: where the copy starts
  RecursiveJump,    // made by lowerRecursiveCalls: a call's jump to that start
  RecursiveReturn,  // made by lowerRecursiveCalls: the copy's end
  Nop,
};

enum class CaseKind { Case, CaseX, CaseZ };

struct Stmt {
  StmtKind kind = StmtKind::Nop;
  SourceLoc loc;
  bool isFork = false;
  std::vector<StmtPtr> body;  // Block
  std::vector<LValue> lhs;    // Assign/NbAssign, LSB part first
  Expr rhs;
  Expr cond;                  // If/While cond, Case subject
  StmtPtr thenStmt, elseStmt; // If
  CaseKind caseKind = CaseKind::Case;
  std::vector<CaseItem> items;
  StmtPtr loopBody;           // While, Delay, EventWait sub-statement
  // A While with forInit/forStep is a `for` loop with a constant bound; it
  // stays a Verilog `for` (which synthesis unrolls) unless it traps.
  StmtPtr forInit, forStep;
  TaskCall call;
  uint64_t delay = 0;
  std::string rawText;
  bool isForever = false;           // While read from `forever`
  std::string label;                // Block: its scope when named; Disable: the target
  std::vector<EventTerm> events;    // EventWait
  unsigned waitId = 0;              // EventWait: its resume point (1..)
  // RecursiveBody/Call/Entry/Jump/Return: the routine (Design::recursiveRoutines).
  // A RecursiveBody's statements are in `body`; a RecursiveCall's loopBody
  // sets the callee's variables (after the caller's are saved), its thenStmt
  // reads the callee's results (before they are restored). A RecursiveJump's
  // returnSite is the constant its frame holds (Verilog text), on which the
  // routine's return dispatches to come back after the jump.
  unsigned routine = 0;
  std::string returnSite;
};

// How many recursive calls of one routine may be in progress below its
// outermost call: the depth of its stack of frames (lowerRecursiveCalls).
inline constexpr unsigned kMaxRecursionDepth = 64;

// A recursive function or task whose calls the frontend could not evaluate
// at compile time, one per call made from outside it (each such call runs
// its own copy of the body). The copy's variables are those marked `frameVar`.
struct RecursiveRoutine {
  std::string name;  // as the source spells it, for the depth error
  // Filled by lowerRecursiveCalls, for the state machine's return: the
  // condition that no frame is left, and the return site of the top frame.
  std::string stackIsEmpty, topReturnSite;
};

enum class ProcessKind { Initial, Always };

struct Process {
  ProcessKind kind = ProcessKind::Always;
  std::vector<EventTerm> guard;  // Always: the leading @(...); empty for Initial
  // Icarus starts this always block before the initializers run (its
  // `_ivl_schedule_push`: a guard of value changes only), so it sees their
  // x->value changes at time 0.
  bool waitsBeforeInitializers = false;
  StmtPtr body;                  // body without the leading event control
  SourceLoc loc;
};

// Produced by mergeProcessesIntoCore (Fig. 3): one conjunct per process.
struct CoreConjunct {
  bool isInitial = false;
  bool waitsBeforeInitializers = false;  // as its Process's
  std::vector<EventTerm> guard;
  std::string trigger;  // mangled guard, e.g. "__pos_clock || __neg_reset"
  StmtPtr body;         // after replaceGuardsWithNativeClock: `if (__fire_k) body`
  // A process that waits inside its body: `resumeVar` holds the resume
  // point it is suspended at (0: its guard), waits[p-1] and waitTriggers[p-1]
  // are the events of resume point p.
  int resumeVar = -1;
  std::vector<std::vector<EventTerm>> waits;
  std::vector<std::string> waitTriggers;
};

// Produced by lowerNonBlockingAssigns.
struct NbaCommit {
  std::string pendingIdent;
  std::string commitText;  // statements that latch the shadow into the variable
  // A whole memory element from one shared shadow: `memory[index] = value`.
  int memoryVar = -1;
  std::string indexIdent, valueIdent;
};

// Produced by lowerCoreToStateMachine (Fig. 5).
struct MachineState {
  unsigned id = 0;
  std::vector<StmtPtr> stmts;  // synthesizable statements, in order
  enum class Exit { Goto, Branch, Case, Trap, End } exit = Exit::End;
  unsigned next = 0;           // Goto, Trap
  std::string branchCond;      // Branch
  unsigned thenState = 0, elseState = 0;
  CaseKind caseKind = CaseKind::Case;  // Case
  std::string caseSubject;
  std::vector<std::pair<std::vector<std::string>, unsigned>> caseTargets;  // empty labels = default
  uint32_t taskId = 0;         // Trap
  // Trap, in a design that calls $finish/$stop: once the run is finishing,
  // the process resumes here instead (the end of its conjunct).
  bool hasFinishExit = false;
  unsigned finishExit = 0;
};

// Produced by shareMemoryWritePorts: a memory whose state-access write and
// one other write share a port. `site` is that write when it is a blocking
// assignment in a state, null when it is the memory's NBA commit.
struct MemoryWritePort {
  int memory = -1;
  std::string prefix;  // `__memwK`: its _en, _index and _value registers
  const Stmt* site = nullptr;
};

// Whether `st` or a statement nested in it (block members, branches, case
// arms, loop and event-control bodies) satisfies `pred`.
bool anyStatement(const Stmt& st, const std::function<bool(const Stmt&)>& pred);

// Calls `fn` with the text of every expression of `st` and the statements
// nested in it (task arguments excepted).
void forEachExprText(const Stmt& st, const std::function<void(const std::string&)>& fn);

// The identifiers of Verilog text, skipping the digits and base of sized
// numbers (`8'hff`), system names (`$signed`) and string literals.
std::vector<std::string> identifiersIn(const std::string& text);

// Whether `id` names one of the frontend's pure width helpers
// (`__trunc_32_16`, `__sext_8_32`), which passes treat as constant operations.
bool isResizeHelper(const std::string& id);

// A hex digit's value, or 16 for anything else.
unsigned hexDigitValue(char c);

// The value of a literal as the frontend writes constants (`32'sb0...0101`,
// `8'hff`, `7`): plain digits of base 2, 8, 10 or 16 that fit in 64 bits.
std::optional<uint64_t> literalValue(const std::string& text);

// `text` with every identifier `from` (as identifiersIn finds them) spelled `to`.
std::string renameIdentifier(const std::string& text, const std::string& from, const std::string& to);

// A part-select `[offset +: width]` of a `wordWidth`-bit word at a run-time
// offset writes only its bits inside the word (IEEE 1364-2005 5.2.1), where
// Verilator would wrap the offset around. These spell such a write as a
// masked one of the whole word; both texts are (wordWidth + width) bits
// wide, so a bit shifted out of the word is lost before the caller
// truncates to wordWidth. A signed negative offset shifts right.
//   runTimePartMask:  ones where the part lies in the word
//   runTimePartMerge: `word` with those bits taken from `value` (width bits)
std::string runTimePartMask(unsigned wordWidth, unsigned width, const Expr& offset);
std::string runTimePartMerge(const std::string& word, unsigned wordWidth, unsigned width,
                             const std::string& value, const Expr& offset);

inline bool containsEventWait(const Stmt& st) {
  return anyStatement(st, [](const Stmt& s) { return s.kind == StmtKind::EventWait; });
}

struct Design {
  std::string top;
  std::vector<Var> vars;
  std::vector<std::string> netlist;    // `assign ...;` lines over var idents
  std::vector<std::string> functions;  // `function ... endfunction` texts
  std::vector<StmtPtr> combinationalBlocks;  // emitted as `always @*` bodies
  std::vector<std::string> romContents;       // `rom[k] = K;` lines of an `initial` block
  std::vector<RomFile> romFiles;              // files loaded into ROMs at compile time
  // Statements run once at power-on, after the ROM contents, and the
  // registers whose declared value they read or overwrite (hoistPowerOnPrefixes).
  std::vector<StmtPtr> powerOnStatements;
  std::set<int> powerOnVars;
  std::vector<Process> processes;
  std::vector<RecursiveRoutine> recursiveRoutines;
  int clockVar = -1;
  uint64_t halfPeriod = 1;
  bool usesYield = false;

  // Filled by the passes, in pipeline order.
  std::vector<CoreConjunct> core;
  bool negedgeIsIdle = false;          // no event fires at the clock's falling edge
  std::vector<std::string> passStart;  // statements that open a pass of the core
  // `__prev_clock = clock;` when the clock is a guard variable: at an idle
  // falling edge (negedgeIsIdle) the only statement of passStart that
  // changes anything the next pass reads.
  std::string clockHistoryUpdate;
  std::string guardChanged;            // true when some guard variable changed
  std::vector<NbaCommit> nbaCommits;
  std::vector<std::string> extraDecls;  // declarations made by passes
  std::vector<Task> tasks;              // manifest task table
  std::vector<MachineState> states;
  std::vector<MemoryWritePort> memoryWritePorts;
  std::vector<int> stateIdToVar;        // state-access id -> var index
  int finishingVar = -1;                // set by a $finish/$stop trap
  std::string verilog;
  std::map<unsigned, SourceLoc> verilogLineLocs;  // line of `verilog` -> its source statement

  int addVar(Var v) {
    vars.push_back(std::move(v));
    return int(vars.size() - 1);
  }
};

// $strobe and $monitor: the runtime reads their arguments after later tasks
// of the tick ran, not at the trap.
bool readsArgumentsAtEndOfTick(const std::string& task);

// The index of every variable outside functions, by its identifier in the
// emitted Verilog: how passes that read expression text find variables.
std::map<std::string, int> variablesByIdent(const Design& design);

// `seeds` and every variable a continuous assign or a combinational block
// computes, directly or through others, from one of them: what changes
// when a seed does, without any process running.
std::set<int> derivedFrom(const Design& design, std::set<int> seeds);

// Reports `file:line: error: unsupported: <what> at file:line` once and
// marks the compilation failed; passes return early after it.
// Verilog text for an assignment target.
std::string lvalueText(const Design& design, const LValue& lv);

class Diagnostics {
 public:
  void unsupported(const std::string& what, const SourceLoc& loc);
  void error(const std::string& msg, const SourceLoc& loc);
  bool failed() const { return failed_; }

 private:
  bool failed_ = false;
};

}  // namespace synergy::hwlower
