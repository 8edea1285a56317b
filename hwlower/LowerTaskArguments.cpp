//===- LowerTaskArguments.cpp - The task table and argument registers -----===//
//
// A trapped task is serviced by the runtime, which sees the design only
// through the state-access port. So every task argument must be something
// the runtime can read by id at the moment of the trap:
//   - a whole scalar variable is read directly (no copy; the trap happens
//     exactly where the call was, so its current value is the right one);
//   - any other expression is loaded into a shared argument register
//     `__targ_<slot>` right before the trap (one register per argument
//     position across all tasks, as wide as the widest use), except for
//     $strobe/$monitor, which are read later and get `__tdefer_<task>_<i>`;
//   - an output argument ($fscanf targets, $readmemh memories) names the
//     variable, and a variable element index goes through `__tidx_<slot>`.
// Each task site gets an id (the value of __task while it is trapped) and
// an entry in Design::tasks. Until assignStateIds runs, the state ids in
// that table hold variable indices.
//
// Runs after lowerNonBlockingAssigns, before the state machine (the loads
// are ordinary statements of the state that ends in the trap).
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

namespace synergy::hwlower {

namespace {

class TaskLowering {
 public:
  explicit TaskLowering(Design& design) : design_(design) {}

  void run() {
    for (CoreConjunct& c : design_.core) rewrite(c.body);
  }

 private:
  int slotRegister(std::vector<int>& slots, const char* prefix, size_t slot, unsigned width) {
    while (slots.size() <= slot) {
      Var v;
      v.ident = v.name = prefix + std::to_string(slots.size());
      v.kind = VarKind::Internal;
      v.width = 1;
      slots.push_back(design_.addVar(std::move(v)));
    }
    Var& reg = design_.vars[slots[slot]];
    reg.width = std::max(reg.width, width);
    return slots[slot];
  }

  int privateRegister(uint32_t taskId, size_t slot, unsigned width) {
    Var v;
    v.ident = v.name = "__tdefer_" + std::to_string(taskId) + "_" + std::to_string(slot);
    v.kind = VarKind::Internal;
    v.width = std::max(1u, width);
    return design_.addVar(std::move(v));
  }

  StmtPtr lower(StmtPtr st) {
    TaskCall& call = st->call;
    Task task;
    task.id = uint32_t(design_.tasks.size() + 1);
    task.name = call.name;
    task.scope = call.scope;
    task.file = st->loc.file;
    task.line = st->loc.line;
    if (call.resultVar >= 0) {
      const Var& r = design_.vars[call.resultVar];
      task.resultId = uint32_t(call.resultVar);
      task.resultWidth = r.width;
      task.resultSigned = r.isSigned;
    }
    auto block = std::make_unique<Stmt>();
    block->kind = StmtKind::Block;
    block->loc = st->loc;
    size_t valueSlot = 0, indexSlot = 0;
    for (const TaskArgIr& a : call.args) {
      TaskArg arg;
      switch (a.kind) {
        case TaskArgIrKind::String: arg.kind = TaskArgKind::String; arg.text = a.text; break;
        case TaskArgIrKind::Time: arg.kind = TaskArgKind::Time; arg.text = a.text; break;
        case TaskArgIrKind::Empty: arg.kind = TaskArgKind::Empty; break;
        case TaskArgIrKind::Value:
          arg.kind = TaskArgKind::Value;
          arg.writable = a.writable;
          arg.isReal = a.value.isReal;
          if (a.wholeArray) {
            arg.stateId = uint32_t(a.arrayVar);
            arg.width = design_.vars[a.arrayVar].width;
            arg.isSigned = design_.vars[a.arrayVar].isSigned;
          } else if (a.writable) {
            const Var& t = design_.vars[a.target.var];
            arg.stateId = uint32_t(a.target.var);
            arg.width = t.width;
            arg.isSigned = t.isSigned;
            if (a.target.hasIndex) {
              int idx = slotRegister(indexRegs_, "__tidx_", indexSlot++, 32);
              arg.indexStateId = uint32_t(idx);
              addLoad(*block, design_.vars[idx].ident, a.target.index.text);
            }
          } else if (a.value.wholeVar >= 0) {
            arg.stateId = uint32_t(a.value.wholeVar);
            arg.width = a.value.width;
            arg.isSigned = a.value.isSigned;
          } else if (readsArgumentsAtEndOfTick(call.name)) {
            int reg = privateRegister(task.id, valueSlot++, a.value.width);
            arg.stateId = uint32_t(reg);
            arg.width = a.value.width;
            arg.isSigned = a.value.isSigned;
            addLoad(*block, design_.vars[reg].ident, a.value.text);
          } else {
            int reg = slotRegister(valueRegs_, "__targ_", valueSlot++, a.value.width);
            arg.stateId = uint32_t(reg);
            arg.width = a.value.width;
            arg.isSigned = a.value.isSigned;
            addLoad(*block, design_.vars[reg].ident, a.value.text);
          }
          break;
      }
      task.args.push_back(std::move(arg));
    }
    call.taskId = task.id;
    design_.tasks.push_back(std::move(task));
    block->body.push_back(std::move(st));
    return block;
  }

  void addLoad(Stmt& block, const std::string& reg, const std::string& value) {
    auto load = std::make_unique<Stmt>();
    load->kind = StmtKind::Raw;
    load->loc = block.loc;
    load->rawText = reg + " = " + value + ";";
    block.body.push_back(std::move(load));
  }

  void rewrite(StmtPtr& st) {
    if (!st) return;
    switch (st->kind) {
      case StmtKind::Task:
        st = lower(std::move(st));
        break;
      case StmtKind::Block:
        for (StmtPtr& c : st->body) rewrite(c);
        break;
      case StmtKind::If:
        rewrite(st->thenStmt);
        rewrite(st->elseStmt);
        break;
      case StmtKind::Case:
        for (CaseItem& item : st->items) rewrite(item.body);
        break;
      case StmtKind::While:
        rewrite(st->loopBody);
        break;
      default:
        break;
    }
  }

  Design& design_;
  std::vector<int> valueRegs_, indexRegs_;
};

}  // namespace

void lowerTaskArguments(Design& design) { TaskLowering(design).run(); }

}  // namespace synergy::hwlower
