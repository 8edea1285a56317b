//===- SoftwareProgram.h - the software engine's compiled form -------------===//
//
// The form SoftwareCompiler gives the `synergy_engine` module of an .eng file
// and SoftwareEngine executes. Every identifier is resolved to a variable
// slot, every expression carries the width and signedness Verilog's sizing
// rules give it in its context (so evaluation never looks anything up), and
// the continuous logic is levelized: the combinational nodes are in an order
// where each reads only what earlier ones wrote. A value of up to 64 bits is
// one machine word; a wider one is an array of words, least significant
// first, and every node that reads or makes one is marked `wide`, so the
// common narrow case never looks at word counts. A real is the 64 bits of
// its IEEE double, as everywhere else in the runtime: only the operators
// that compute with it (and the conversions at its edges) know the type.
//
// Shared by those two files only; the rest of the runtime sees SoftwareEngine.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace synergy::engine::software {

inline constexpr uint32_t kMaxWordWidth = 64;
// Wider values are refused by name: this bounds every temporary a wide
// operator allocates.
inline constexpr uint32_t kMaxWideWidth = 1u << 16;

inline uint32_t wordsFor(uint32_t width) { return (width + 63) / 64; }

// `count` copies of the `width`-bit `part` side by side, as {count{part}}
// computes it; bits past 64 are dropped.
inline uint64_t replicated(uint64_t part, uint32_t width, uint64_t count) {
  uint64_t value = 0;
  for (uint64_t k = 0; k < count; ++k) value = (width >= 64 ? 0 : value << width) | part;
  return value;
}

struct Variable {
  std::string name;
  uint32_t width = 1;
  bool isSigned = false;
  bool isReal = false;     // a `real` of a function: 64 bits of a double
  uint64_t depth = 0;      // 0 = scalar, else number of elements
  int64_t lowIndex = 0;    // a memory's lowest declared index
  uint64_t slot = 0;       // first word in the machine's storage
  uint32_t words = 1;      // words per element: wordsFor(width)
};

enum class ExprOp : uint8_t {
  Constant, Variable, Element, Select, Concat, Replicate, Call, Cast,
  Negate, Identity, BitNot,
  LogicalNot, ReduceAnd, ReduceOr, ReduceXor, ReduceNand, ReduceNor, ReduceXnor,
  Add, Sub, Mul, Div, Mod, Pow, And, Or, Xor, Xnor,
  ShiftLeft, ShiftRight, ArithShiftRight,
  Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual,
  LogicalAnd, LogicalOr, Conditional,
  // Operators on reals (operands are reals unless the name says otherwise).
  RealAdd, RealSub, RealMul, RealDiv, RealPow,
  RealLess, RealLessEqual, RealGreater, RealGreaterEqual, RealEqual, RealNotEqual,
  IntegerToReal,  // by value, signed or not as the operand is
  RealToInteger,  // rounded to the nearest, ties away from zero (an assignment)
  RealTruncate,   // $rtoi: toward zero, a signed 32-bit integer
  RealMath,       // $sqrt, $pow, ...: target names the function (RealFunction)
};

enum class RealFunction : uint8_t {
  Sqrt, Ln, Log10, Exp, Pow, Floor, Ceil, Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Hypot,
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh,
};

// Straight-line code for a stack machine over words, which the narrow
// integer expressions are also compiled to (SoftwareExprCode.h): it
// computes what evaluating the tree would, without a call per node. Binary
// operators pop their right operand and replace the left; `mask` is
// maskOf(the node's width) and `width` the width an operator needs.
enum class CodeOp : uint8_t {
  Const,            // push mask
  Load,             // push the word at slot `target`
  Widen,            // top = sign-extended from `width` bits, & mask
  Index,            // top = an index, sign-extended from `width` bits when mask is 1
  Element,          // top = element top of memory variable `target`, 0 outside it
  Select,           // top = the part-select `tree` of variable `target` at index top
  Negate, BitNot, LogicalNot,
  ReduceAnd, ReduceNand,  // all ones (mask: the operand's) or not
  ReduceOr, ReduceXor, ReduceXnor,
  Add, Sub, Mul, And, Or, Xor, Xnor,
  ShiftLeft, ShiftRight, ArithShiftRight,
  Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual,
  SlotEquals, SlotDiffers,  // push whether the word at slot `target` is (is not) mask
  SignedLess, SignedLessEqual, SignedGreater, SignedGreaterEqual,  // operands of `width` bits
  ShiftIn,          // top = (top << width) | popped, a concatenation's next part
  Replicate,        // top = its low `width` bits, `mask` times (replicated())
  AndThen,          // top 0: jump to `target`; else pop
  OrElse,           // top not 0: top = 1, jump to `target`; else pop
  ToBool,
  JumpIfZero,       // pop; jump to `target` if it was 0
  Jump,
  Tree,             // push the value of `tree`, evaluated as a tree
  Return,           // the value is the top
  // Statements (SoftwareExprCode.h); the stack is as they found it between
  // them (empty, or an expression's operands around an inlined call's
  // body). A store stamps `variable` as written when the stored word changes.
  Store,            // pop; the word at slot `target` = popped & mask
  StoreArgument,    // pop; function input `variable` (slot `target`) = popped & mask, as a call binds it
  StoreBits,        // pop; bits mask of slot `target` = popped << width (a constant position)
  StoreSelect,      // pop an index, then a value; bits [index + (int64)mask, +width) of `variable`
  StoreElement,     // pop an index, then a value; element index of memory `variable`, if inside it
  CaseEquals,       // top == mask: pop, jump to `target`
  CaseMatches,      // top matches label `tree` (width 1: ignoring its z/? bits, 2: its x/z/?): pop, jump
  Pop,
  Dispatch,         // Program::dispatches[target], after its body `width` (0: none yet) ran
  Exec,             // run Program::treeStatements[target] as a tree
  Halt,             // the end of a statement's code
};

struct Expr;

struct Instr {
  CodeOp op = CodeOp::Return;
  uint32_t width = 0;
  uint32_t target = 0;
  uint32_t variable = 0;
  uint64_t mask = 0;
  const Expr* tree = nullptr;
};

struct Expr {
  ExprOp op = ExprOp::Constant;
  uint32_t width = 1;       // the width it is computed at, in its context
  bool isSigned = false;    // and the signedness
  uint32_t selfWidth = 1;   // self-determined width and signedness
  bool selfSigned = false;
  uint32_t target = 0;      // variable (Variable, Element, Select) or function (Call)
  uint64_t value = 0;       // Constant: the value at `width`; Select: bit count; Replicate: count
  uint64_t wildcard = 0;    // Constant: x/z/? bits, wildcards of casex/casez labels
  uint64_t highImpedance = 0;  // Constant: the z/? bits among them (casez)
  int64_t offset = 0;       // Select: added to the index (-(width-1) for -:) minus the lsb index
  bool hasElement = false;  // Select: operands[1] picks a memory element
  bool isReal = false;      // its value is a real's bits
  bool wide = false;        // it or an operand is wider than 64 bits, or it reads such a variable
  std::vector<uint64_t> wideValue;  // Constant wider than 64 bits: wordsFor(width) words
  // A wide casex/casez label's x/z/? and z/? bits, wordsFor(selfWidth) words (empty: none).
  std::vector<uint64_t> wideWildcard, wideHighImpedance;
  std::vector<Expr> operands;
  uint32_t code = 0;        // 1 + where its code starts in Program::code; 0: evaluated as a tree
};

// One assignment target: a whole variable, a memory element, or bits of one.
struct LValue {
  uint32_t variable = 0;
  uint32_t width = 1;           // bits written
  bool hasElement = false;      // element = index.front()
  bool hasBits = false;         // lsb position = index.back() + offset
  int64_t offset = 0;
  std::vector<Expr> index;
};

// Dispatch stands for a run of `if (G == 0 && S == K) body` statements
// (SoftwareStateDispatch.h): G and S are `dispatchGuard` and
// `dispatchState`, and `dispatchTable[v]` is 1 + the index in `children` of
// the body whose K is v, or 0.
enum class StmtOp : uint8_t { Empty, Block, Assign, If, Case, For, While, Dispatch };
inline constexpr size_t kStmtOpCount = 8;
enum class CaseMatch : uint8_t { Exact, WildcardZ, WildcardXZ };

struct CaseItem {
  std::vector<Expr> labels;  // empty: default
  uint32_t body = 0;         // index into Stmt::children
};

struct Stmt {
  StmtOp op = StmtOp::Empty;
  CaseMatch match = CaseMatch::Exact;
  std::vector<LValue> targets;  // Assign: one, or a concatenation MSB first
  Expr expr;                    // Assign: value; If/While/For: condition; Case: subject
  bool wide = false;            // Assign: a target or the value, Case: the subject or a label, is wide
  std::vector<Stmt> children;   // Block: body; If: then, else; For: init, step, body; While: body
  std::vector<CaseItem> items;
  // Assign to one whole scalar variable, narrow: the variable, its slot and
  // mask, resolved by SoftwareExprCode so that the store looks nothing up.
  bool storesWhole = false;
  uint32_t wholeVariable = 0, wholeSlot = 0;
  uint64_t wholeMask = 0;
  uint32_t dispatchGuard = 0, dispatchState = 0;
  std::vector<uint32_t> dispatchTable;
  uint32_t code = 0;            // 1 + where its code starts in Program::code; 0: run as a tree
};

// A Dispatch statement in code: its slots, and where each body's code and
// the code after the whole dispatch start.
struct DispatchCode {
  uint32_t guardSlot = 0, stateSlot = 0;
  std::vector<uint32_t> table;   // Stmt::dispatchTable
  std::vector<uint32_t> bodies;  // body k (1-based in `table`) starts at bodies[k - 1]
  uint32_t end = 0;
};

struct Function {
  std::string name;
  uint32_t result = 0;           // variable holding the return value
  std::vector<uint32_t> inputs;  // variables, in argument order
  Stmt body;
};

// What a combinational node depends on: the variables it or a function it
// calls reads, and whether it reads one it writes (then it always runs).
struct CombinationalInputs {
  std::vector<uint32_t> reads;
  bool readsOwnWrites = false;
};

struct Program {
  std::vector<Variable> variables;
  uint64_t slotCount = 0;
  std::vector<Function> functions;
  // Declaration initialisers and `initial` blocks, in text order.
  std::vector<Stmt> powerOn;
  // Continuous assigns and `always @*` blocks, levelized.
  std::vector<Stmt> combinational;
  std::vector<CombinationalInputs> combinationalInputs;  // one per node of `combinational`
  // A cycle through the continuous logic: settle by iterating to a fixpoint.
  bool combinationalCycle = false;
  // The blocks that compute __sa_rdata: run only when the host reads state.
  std::vector<Stmt> stateRead;
  // Every `always @(posedge __clk)` block, in text order.
  std::vector<Stmt> clocked;
  std::vector<Instr> code;
  std::vector<DispatchCode> dispatches;
  // The statements code runs as trees (Exec), and how many of each StmtOp
  // (SYNERGY_SOFTWARE_CODE_STATS=1 prints them).
  std::vector<const Stmt*> treeStatements;
  uint32_t treeStatementCounts[kStmtOpCount] = {};
  // Port variables.
  uint32_t clk = 0, cont = 0, update = 0, task = 0, done = 0, thereAreUpdates = 0, openLoop = 0, openLoopN = 0,
           openLoopActive = 0, ticksLeft = 0, saId = 0, saIndex = 0, saWord = 0, saWe = 0, saWdata = 0, saRdata = 0;
};

}  // namespace synergy::engine::software
