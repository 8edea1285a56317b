//===- FoldConstantVariables.cpp - Constant variables become constant nets ===//
//
// The state-access port makes every register host-writable, so synthesis can
// never fold a register the design itself only sets once: `reg [63:0] r =
// K;` (which Icarus hands over as `initial r = K`) costs its flip-flops, its
// write-port decoding, and all the logic it feeds stays unfolded. Such a
// variable is a constant of the design, so this pass turns it into a net
// driven by `assign r = K;`: synthesis propagates K, the runtime can still
// read it by id (for task arguments and $monitor), and since nets are
// neither saved nor restored, $save/$restart stay correct. A guard on such a
// net still sees one change in the first pass (its edge detector starts at
// the register's old power-on value), as it saw the initial assignment.
//
// A variable qualifies when it is a scalar, non-real user register and its
// only write is a whole-variable assignment of a constant at the start of an
// initial block (before anything that can advance time). That value holds
// from power-on in the original too, except for readers racing the initial
// block at time 0, whose result the simulator leaves unspecified.
// Conservatively, a register named as an assignment target in a function
// body or a continuous assignment never qualifies.
//
// A memory (a table of round constants, say) qualifies the same way when
// every one of its writes is a constant to a constant element at the start
// of an initial block. It becomes a ROM (VarKind::Rom): its writes move to an
// `initial` block of the emitted module, which synthesis takes as the
// memory's initial contents and Verilator runs at power-on; like a net, it
// is readable by id and never written or saved. A leading `for` loop with
// a constant bound whose body only writes elements of one memory, with
// indices and values computed from the loop variable alone (`for (i = 1; i
// < 19; i = i + 1) t[i] = K * i;`), counts as constant writes too: the loop
// moves to the ROM's initial block over a fresh loop variable of the same
// type, which synthesis unrolls, and the original loop stays with an empty
// body, so the loop variable still ends with the value the original leaves.
// Other loops of plain assignments cannot advance time, so the scan for
// leading writes continues past them.
//
// A memory qualifies too when its one write is a leading `$readmemh` or
// `$readmemb` of a constant file name with constant or absent bounds, and
// the file, resolved like the runtime resolves it without --dir (from the
// working directory), can be read now and loads without a warning (all its
// words land in the range, and fill it unless it has @ records). Its
// words become the ROM's initial contents (parsed by the runtime's own
// parseReadmem) and the file's name and hash go into the manifest, so the
// runtime refuses to run once the file has changed. A missing file, or one
// with words that are not plain digits of the radix, keeps the task. Such a
// memory named anywhere in a function body does not qualify.
//
// Runs after recognizeClockGenerator (the clock's initial value is already
// its power-on value) and before mergeProcessesIntoCore.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <optional>

#include "hwlower/ReadmemFile.h"
#include "util/FileIO.h"
#include "util/Sha256.h"

namespace synergy::hwlower {

namespace {

class ConstantFolder {
 public:
  explicit ConstantFolder(Design& design)
      : d_(design),
        writes_(design.vars.size(), 0),
        constantWrite_(design.vars.size(), nullptr),
        elementWrites_(design.vars.size()),
        elementWriteCount_(design.vars.size(), 0) {}

  void run() {
    for (Process& p : d_.processes) countWrites(p.body.get());
    for (Process& p : d_.processes)
      if (p.kind == ProcessKind::Initial) findLeadingConstants(p.body.get());
    for (size_t v = 0; v < d_.vars.size(); ++v) {
      Stmt* write = constantWrite_[v];
      if (!write || writes_[v] != 1 || d_.vars[v].depth > 0 || !qualifies(int(v))) continue;
      Var& var = d_.vars[v];
      var.kind = VarKind::Wire;
      d_.netlist.push_back("assign " + var.ident + " = " + write->rhs.text + ";");
      write->kind = StmtKind::Nop;
      write->lhs.clear();
    }
    for (size_t v = 0; v < d_.vars.size(); ++v) {
      std::vector<Stmt*>& elements = elementWrites_[v];
      if (elements.empty() || elementWriteCount_[v] != writes_[v] || !qualifies(int(v))) continue;
      d_.vars[v].kind = VarKind::Rom;
      for (Stmt* write : elements) {
        if (write->kind == StmtKind::While) {
          moveFillLoop(*write);
          continue;
        }
        if (write->kind == StmtKind::Task) {
          moveFileLoad(*write);
          continue;
        }
        d_.romContents.push_back(lvalueText(d_, write->lhs[0]) + " = " + write->rhs.text + ";");
        write->kind = StmtKind::Nop;
        write->lhs.clear();
      }
    }
    for (Process& p : d_.processes) dropNops(p.body.get());
  }

 private:
  static void dropNops(Stmt* st) {
    if (!st || st->kind != StmtKind::Block) return;
    std::vector<StmtPtr> kept;
    for (StmtPtr& c : st->body)
      if (c->kind != StmtKind::Nop) kept.push_back(std::move(c));
    st->body = std::move(kept);
  }

  void countWrites(const Stmt* st) {
    if (!st) return;
    for (const LValue& lv : st->lhs)
      if (lv.var >= 0) ++writes_[lv.var];
    if (st->kind == StmtKind::Task) {
      if (st->call.resultVar >= 0) writes_[st->call.resultVar] += 2;
      for (const TaskArgIr& a : st->call.args) {
        if (a.writable && a.target.var >= 0) writes_[a.target.var] += 2;
        if (a.arrayVar >= 0) writes_[a.arrayVar] += 2;
      }
    }
    for (const StmtPtr& c : st->body) countWrites(c.get());
    for (const CaseItem& item : st->items) countWrites(item.body.get());
    countWrites(st->thenStmt.get());
    countWrites(st->elseStmt.get());
    countWrites(st->loopBody.get());
    countWrites(st->forInit.get());
    countWrites(st->forStep.get());
  }

  // Records `v = <constant>` statements and memory fill loops that run
  // before time can advance.
  void findLeadingConstants(Stmt* st) {
    if (!st) return;
    if (st->kind == StmtKind::Block) {
      for (StmtPtr& c : st->body) {
        if (c->kind == StmtKind::Nop) continue;
        if (isAssignmentLoop(*c)) {
          recordFillLoop(c.get());
          continue;
        }
        if (c->kind == StmtKind::Task && recordFileLoad(c.get())) continue;
        if (c->kind != StmtKind::Assign) return;
        findLeadingConstants(c.get());
      }
      return;
    }
    if (st->kind != StmtKind::Assign || st->lhs.size() != 1 || !st->rhs.isConstant) return;
    const LValue& lv = st->lhs[0];
    if (lv.var < 0 || lv.hasPart) return;
    if (!lv.hasIndex) {
      constantWrite_[lv.var] = st;
    } else if (lv.index.isConstant) {
      elementWrites_[lv.var].push_back(st);
      ++elementWriteCount_[lv.var];
    }
  }

  // A constant-bound `for` whose body is only blocking assignments.
  static bool isAssignmentLoop(const Stmt& st) {
    if (st.kind != StmtKind::While || !st.forInit || !st.forStep || !st.loopBody) return false;
    return !anyStatement(*st.loopBody, [](const Stmt& s) {
      return s.kind != StmtKind::Block && s.kind != StmtKind::Assign && s.kind != StmtKind::Nop;
    });
  }

  static bool isWholeScalarWrite(const Stmt& st) {
    return st.kind == StmtKind::Assign && st.lhs.size() == 1 && st.lhs[0].var >= 0 && !st.lhs[0].hasIndex &&
           !st.lhs[0].hasPart;
  }

  // Records `loop` as writes of the memory it fills when every index and
  // value it computes depends on its loop variable alone.
  void recordFillLoop(Stmt* loop) {
    const Stmt& init = *loop->forInit;
    const Stmt& step = *loop->forStep;
    if (!isWholeScalarWrite(init) || !init.rhs.isConstant || !isWholeScalarWrite(step)) return;
    int counter = init.lhs[0].var;
    if (step.lhs[0].var != counter || d_.vars[counter].depth > 0 || d_.vars[counter].isReal) return;
    const std::string& ident = d_.vars[counter].ident;
    auto readsOnlyCounter = [&](const std::string& text) {
      for (const std::string& id : identifiersIn(text))
        if (id != ident && !isResizeHelper(id)) return false;
      return true;
    };
    if (!readsOnlyCounter(step.rhs.text) || !readsOnlyCounter(loop->cond.text)) return;
    int memory = -1;
    unsigned writes = 0;
    bool fills = true;
    anyStatement(*loop->loopBody, [&](const Stmt& s) {
      if (s.kind != StmtKind::Assign) return false;
      const LValue* lv = s.lhs.size() == 1 ? &s.lhs[0] : nullptr;
      if (!lv || lv->var < 0 || lv->var == counter || !lv->hasIndex || lv->hasPart ||
          (memory >= 0 && lv->var != memory) || !readsOnlyCounter(lv->index.text) ||
          !readsOnlyCounter(s.rhs.text)) {
        fills = false;
        return true;
      }
      memory = lv->var;
      ++writes;
      return false;
    });
    if (!fills || memory < 0 || d_.vars[memory].depth == 0) return;
    elementWrites_[memory].push_back(loop);
    elementWriteCount_[memory] += writes;
  }

  // Copies the fill loop `loop` into the ROM's initial block over a fresh
  // loop variable and empties the original's body.
  void moveFillLoop(Stmt& loop) {
    const Var& counter = d_.vars[loop.forInit->lhs[0].var];
    std::string fresh = "__rom_loop" + std::to_string(romLoops_++);
    d_.extraDecls.push_back("reg " + std::string(counter.isSigned ? "signed " : "") + "[" +
                            std::to_string(counter.width - 1) + ":0] " + fresh + ";");
    auto renamed = [&](const std::string& text) { return renameIdentifier(text, counter.ident, fresh); };
    d_.romContents.push_back("for (" + fresh + " = " + loop.forInit->rhs.text + "; " + renamed(loop.cond.text) +
                             "; " + fresh + " = " + renamed(loop.forStep->rhs.text) + ") begin");
    anyStatement(*loop.loopBody, [&](const Stmt& s) {
      if (s.kind == StmtKind::Assign)
        d_.romContents.push_back("  " + renamed(lvalueText(d_, s.lhs[0])) + " = " + renamed(s.rhs.text) + ";");
      return false;
    });
    d_.romContents.push_back("end");
    loop.loopBody = std::make_unique<Stmt>();
    loop.loopBody->kind = StmtKind::Block;
  }

  // Whether `st` is a $readmemh/$readmemb with constant arguments, which
  // only writes its memory (and may warn): the scan for leading writes
  // continues past it. Records it when its load can be done now.
  bool recordFileLoad(Stmt* st) {
    const TaskCall& call = st->call;
    unsigned radixBits = call.name == "$readmemh" ? 4 : call.name == "$readmemb" ? 1 : 0;
    if (!radixBits || call.resultVar >= 0 || call.args.size() < 2 || call.args.size() > 4) return false;
    const TaskArgIr& file = call.args[0];
    const TaskArgIr& target = call.args[1];
    if (file.kind != TaskArgIrKind::String || file.text.empty() || file.text.find('\0') != std::string::npos)
      return false;
    if (target.kind != TaskArgIrKind::Value || !target.wholeArray || target.arrayVar < 0) return false;
    int memory = target.arrayVar;
    const Var& var = d_.vars[memory];
    if (var.depth == 0 || var.isReal) return false;
    const int64_t lowest = var.arrayBase;
    const int64_t highest = lowest + int64_t(var.depth) - 1;
    std::optional<int64_t> first = call.args.size() > 2 ? constantValue(call.args[2]) : lowest;
    std::optional<int64_t> last = call.args.size() > 3 ? constantValue(call.args[3]) : highest;
    if (!first || !last) return false;
    if (*first < lowest || *first > *last || *last > highest) return true;
    std::optional<std::string> contents = util::readFile(file.text);
    if (!contents) return true;
    bool plainAddresses = true;
    ReadmemLoad load = parseReadmem(*contents, *first, *last, lowest, highest, [&](const std::string& digits) {
      std::optional<uint64_t> address = digitsValue(digits, 4, 63);
      if (!address) plainAddresses = false;
      return address ? int64_t(*address) : lowest - 1;
    });
    if (!plainAddresses || load.stoppedEarly || readmemLeavesRangeShort(load, *last)) return true;
    FileLoad fold;
    for (const ReadmemWord& word : load.words) {
      if (!digitsValue(word.digits, radixBits, var.width)) return true;
      std::string digits = word.digits.substr(std::min(word.digits.find_first_not_of('0'), word.digits.size() - 1));
      fold.writes.push_back(var.ident + "[" + std::to_string(word.address - lowest) + "] = " +
                            std::to_string(var.width) + (radixBits == 4 ? "'h" : "'b") + digits + ";");
    }
    util::Sha256 hash;
    hash.update(*contents);
    fold.file = {file.text, hash.hexDigest()};
    fileLoads_[st] = std::move(fold);
    elementWrites_[memory].push_back(st);
    elementWriteCount_[memory] += 2;  // countWrites weighs a task's memory argument 2
    loadedFromFile_.insert(memory);
    return true;
  }

  void moveFileLoad(Stmt& load) {
    FileLoad& fold = fileLoads_.at(&load);
    for (std::string& write : fold.writes) d_.romContents.push_back(std::move(write));
    bool known = false;
    for (const RomFile& f : d_.romFiles) known |= f.name == fold.file.name && f.sha256 == fold.file.sha256;
    if (!known) d_.romFiles.push_back(std::move(fold.file));
    load.kind = StmtKind::Nop;
    load.call = TaskCall();
  }

  // The value of `digits` in base 2^radixBits when they are all plain
  // digits of that base and the value fits in `width` bits.
  static std::optional<uint64_t> digitsValue(const std::string& digits, unsigned radixBits, unsigned width) {
    if (digits.empty()) return std::nullopt;
    unsigned bits = 0;
    uint64_t value = 0;
    for (char c : digits) {
      unsigned digit = hexDigitValue(c);
      if (digit >= (1u << radixBits)) return std::nullopt;
      if (bits > 0)
        bits += radixBits;
      else
        for (unsigned d = digit; d; d >>= 1) ++bits;
      if (bits > width) return std::nullopt;
      value = (value << radixBits) | digit;  // only read back when bits <= 63
    }
    return value;
  }

  // A constant task argument as a number; a negative one reads as a large
  // value, which no memory range takes.
  static std::optional<int64_t> constantValue(const TaskArgIr& arg) {
    if (arg.kind != TaskArgIrKind::Value || !arg.value.isConstant) return std::nullopt;
    std::optional<uint64_t> value = literalValue(arg.value.text);
    if (!value || *value > (uint64_t(1) << 40)) return std::nullopt;
    return int64_t(*value);
  }

  bool qualifies(int v) const {
    const Var& var = d_.vars[v];
    if (var.kind != VarKind::Reg || var.isReal || var.inFunction || var.isLocal) return false;
    if (v == d_.clockVar) return false;
    for (const std::string& f : d_.functions) {
      if (assignsTo(f, var.ident)) return false;
      if (loadedFromFile_.count(v))
        for (const std::string& id : identifiersIn(f))
          if (id == var.ident) return false;
    }
    for (const std::string& a : d_.netlist)
      if (assignsTo(a.substr(0, a.find('=')), var.ident)) return false;
    return true;
  }

  // Whether `text` has `ident` as a whole token followed by an index or an
  // assignment (`=` that is not `==`); reads like `ident[3]` also count,
  // which only makes the answer more conservative.
  static bool assignsTo(const std::string& text, const std::string& ident) {
    auto isIdentChar = [](char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$'; };
    for (size_t pos = text.find(ident); pos != std::string::npos; pos = text.find(ident, pos + 1)) {
      size_t end = pos + ident.size();
      if (pos > 0 && isIdentChar(text[pos - 1])) continue;
      if (end < text.size() && isIdentChar(text[end])) continue;
      while (end < text.size() && std::isspace((unsigned char)text[end])) ++end;
      if (end == text.size()) return true;  // `assign ident ` before the split `=`
      if (text[end] == '[') return true;
      if (text[end] == '=' && (end + 1 == text.size() || text[end + 1] != '=')) return true;
      if (text[end] == '<' && end + 1 < text.size() && text[end + 1] == '=') return true;
    }
    return false;
  }

  Design& d_;
  std::vector<unsigned> writes_;
  std::vector<Stmt*> constantWrite_;
  // Of memories, in program order: constant element writes and fill loops.
  std::vector<std::vector<Stmt*>> elementWrites_;
  std::vector<unsigned> elementWriteCount_;  // the element writes those make
  unsigned romLoops_ = 0;
  struct FileLoad {
    std::vector<std::string> writes;  // the ROM's initial contents from the file
    RomFile file;
  };
  std::map<const Stmt*, FileLoad> fileLoads_;
  std::set<int> loadedFromFile_;
};

}  // namespace

void foldConstantVariables(Design& design) { ConstantFolder(design).run(); }

}  // namespace synergy::hwlower
