//===- IvlReader.h - Build the HW IR from an Icarus elaborated design ------===//
//
// Internal to the Icarus target (synergy.tgt). IvlReader walks the design
// that Icarus's elaborator hands to a loadable target and builds one
// flattened hwlower::Design:
//   - IvlReader.cpp: scopes, signals, processes, statements, expressions;
//   - IvlNetlist.cpp: continuous logic (LPM devices, gates, constants) as
//     one `assign` per device over named nexus signals.
//   - IvlConstantCall.cpp: a recursive function's call with literal
//     arguments, evaluated at compile time.
//   - IvlRecursiveCall.cpp: any other call of a recursive function, as
//     statements that lowerRecursiveCalls gives a stack.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <ivl_target.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hwlower/HwIr.h"

namespace synergy::verilog {

class IvlReader {
 public:
  IvlReader(ivl_design_t design, hwlower::Design& out, hwlower::Diagnostics& diags)
      : des_(design), out_(out), diags_(diags) {}

  // Returns false after reporting an error.
  bool read();

 private:
  // Scopes and signals (IvlReader.cpp).
  void collectScope(ivl_scope_t scope, bool insideFunction);
  void declareSignal(ivl_signal_t sig, bool insideFunction);
  std::string mangle(const std::string& hierName) const;
  void readProcesses();
  void markInitializedAtTimeZero(const hwlower::Stmt& body, bool atModuleLine);
  void readFunction(ivl_scope_t scope);

  // Statements and expressions (IvlReader.cpp).
  hwlower::StmtPtr readStmt(ivl_statement_t st);
  std::vector<hwlower::EventTerm> readEventTerms(ivl_statement_t wait);
  int eventVar(ivl_nexus_t nex);
  hwlower::StmtPtr zeroAutomaticVariables(ivl_scope_t scope, const hwlower::SourceLoc& loc);
  hwlower::StmtPtr readCountedFor(ivl_statement_t init, ivl_statement_t loop);
  hwlower::StmtPtr wrapHoisted(hwlower::StmtPtr st);
  hwlower::Expr readExpr(ivl_expr_t e);
  std::string exprText(ivl_expr_t e);
  std::string memoryWordText(const hwlower::Var& memory, ivl_expr_t index);
  std::string functionCallText(ivl_expr_t e);
  std::optional<std::string> evaluateConstantCall(ivl_expr_t call);  // IvlConstantCall.cpp
  // IvlRecursiveCall.cpp.
  bool containsRecursiveCall(ivl_expr_t e);
  std::string recursiveCallText(ivl_expr_t call);
  std::string conditionalAroundRecursiveCall(ivl_expr_t ternary);
  void makeFrameVariables(ivl_scope_t scope);
  bool isRecursiveTask(ivl_scope_t task);
  hwlower::StmtPtr readRecursiveTaskBody(ivl_scope_t task, const hwlower::SourceLoc& loc);
  std::optional<unsigned> activeRecursiveTaskCall(ivl_statement_t block);
  hwlower::StmtPtr readRecursiveTaskCall(ivl_statement_t block, unsigned routine);
  int recursionTemporary(const std::string& stem, unsigned width, bool isSigned, bool isReal);
  hwlower::StmtPtr assignWhole(int var, const std::string& text, const hwlower::SourceLoc& loc);
  std::string realText(ivl_expr_t e);
  std::string realSignalBits(ivl_expr_t e);
  std::string integerToReal(const std::string& text, unsigned width, bool isSigned);
  std::string realToInteger(const std::string& text, unsigned width);
  unsigned assignedWidth(ivl_statement_t st);
  hwlower::Expr readAssignedValue(ivl_statement_t st);
  std::string resized(const std::string& text, unsigned from, unsigned to, bool isSigned);
  hwlower::Expr hoistSystemFunction(ivl_expr_t e);
  void readLValue(ivl_lval_t lv, std::vector<hwlower::LValue>& parts);
  hwlower::LValue discardTarget(unsigned width);
  hwlower::StmtPtr guardRunTimePartSelect(hwlower::StmtPtr assign);
  hwlower::StmtPtr maskRunTimePartsOfConcatenation(hwlower::StmtPtr assign);
  hwlower::Stmt readTaskCall(ivl_statement_t st, const std::string& name,
                             std::vector<ivl_expr_t> args);
  std::string functionText(ivl_scope_t scope);
  std::string stmtText(ivl_statement_t st, unsigned indent);
  hwlower::SourceLoc locOf(ivl_statement_t st) const;
  int varOf(ivl_signal_t sig);

  // Continuous logic (IvlNetlist.cpp).
  void readNetlist();
  void readScopeNetlist(ivl_scope_t scope);
  std::string nexusName(ivl_nexus_t nex, unsigned widthHint);
  int nexusVar(ivl_nexus_t nex, unsigned widthHint);
  void emitLpm(ivl_lpm_t lpm);
  void emitLogic(ivl_net_logic_t log);
  void aliasNets();
  void aliasNetArrayWords(int var, ivl_signal_t sig);

  ivl_design_t des_;
  hwlower::Design& out_;
  hwlower::Diagnostics& diags_;
  ivl_scope_t topScope_ = nullptr;
  std::map<ivl_signal_t, int> sigVar_;
  std::map<ivl_nexus_t, int> nexusVar_;
  std::map<unsigned, int> discardVars_;  // write-only registers by width
  std::set<ivl_scope_t> functionsRead_;
  std::set<std::string> resizeHelpers_;
  std::vector<hwlower::StmtPtr> hoisted_;  // system function calls awaiting their statement
  ivl_scope_t currentScope_ = nullptr;
  unsigned currentProcess_ = 0;  // counts the processes read so far
  std::vector<ivl_scope_t> functionsBeingRead_, tasksBeingRead_;  // nested, innermost last
  std::set<ivl_scope_t> recursiveFunctions_;  // never emitted (functionCallText)
  std::set<ivl_scope_t> mutuallyRecursive_;   // recursive through another function
  // The recursive routines whose RecursiveBody is being read, innermost last.
  struct InlinedRoutine {
    ivl_scope_t scope;
    unsigned id;  // in Design::recursiveRoutines
  };
  std::vector<InlinedRoutine> routinesInlined_;
  std::map<ivl_scope_t, unsigned> waitingAutomaticTaskCaller_;  // the first process calling it
  unsigned uniqueCounter_ = 0;
  bool inFunctionBody_ = false;
  bool keepXZ_ = false;  // reading a casex/casez label
};

}  // namespace synergy::verilog
