//===- CallReachability.cpp - which functions can reach given calls --------===//
//
// The least fixpoint of "calls a target, or calls a function that reaches
// one, directly or through a call_indirect whose signature some reaching
// address-taken function has".
//
//===----------------------------------------------------------------------===//
#include "passes/CallReachability.h"

#include <map>

#include "passes/ExpressionChildren.h"

namespace synergy::passes {

namespace {

struct FunctionCalls {
  std::set<std::string> directCallees;
  std::set<Signature> indirectSignatures;
};

struct CallGraphBuilder {
  std::set<std::string>& addressTaken;
  FunctionCalls calls;

  bool visit(BinaryenExpressionRef expr, std::string& error) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenCallId()) {
      calls.directCallees.insert(BinaryenCallGetTarget(expr));
    } else if (id == BinaryenCallIndirectId()) {
      calls.indirectSignatures.insert(
          {BinaryenCallIndirectGetParams(expr), BinaryenCallIndirectGetResults(expr)});
    } else if (id == BinaryenRefFuncId()) {
      addressTaken.insert(BinaryenRefFuncGetFunc(expr));
    }
    return visitChildren(expr, [&](BinaryenExpressionRef child) { return visit(child, error); },
                         error);
  }
};

}  // namespace

bool findCallReachability(BinaryenModuleRef module, const std::set<std::string>& targets,
                          CallReachability& result, std::string& error) {
  std::set<std::string> addressTaken;
  for (BinaryenIndex s = 0, n = BinaryenGetNumElementSegments(module); s < n; ++s) {
    BinaryenElementSegmentRef segment = BinaryenGetElementSegmentByIndex(module, s);
    for (BinaryenIndex i = 0, m = BinaryenElementSegmentGetLength(segment); i < m; ++i)
      addressTaken.insert(BinaryenElementSegmentGetData(segment, i));
  }

  std::map<std::string, FunctionCalls> callsByFunction;
  std::map<std::string, Signature> signatureOf;
  for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(module); i < n; ++i) {
    BinaryenFunctionRef function = BinaryenGetFunctionByIndex(module, i);
    std::string name = BinaryenFunctionGetName(function);
    signatureOf[name] = {BinaryenFunctionGetParams(function), BinaryenFunctionGetResults(function)};
    BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
    if (!body) continue;
    CallGraphBuilder builder{addressTaken, {}};
    if (!builder.visit(body, error)) {
      error = "in function " + name + ": " + error;
      return false;
    }
    callsByFunction[name] = std::move(builder.calls);
  }

  // A target whose address is taken (a function pointer to an import) is
  // reached by the indirect calls of its signature.
  for (const std::string& target : targets)
    if (addressTaken.count(target) && signatureOf.count(target))
      result.reachingSignatures.insert(signatureOf[target]);
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, calls] : callsByFunction) {
      if (result.reaching.count(name)) continue;
      bool reaches = false;
      for (const std::string& callee : calls.directCallees)
        reaches = reaches || targets.count(callee) || result.reaching.count(callee);
      for (const Signature& signature : calls.indirectSignatures)
        reaches = reaches || result.reachingSignatures.count(signature);
      if (!reaches) continue;
      result.reaching.insert(name);
      if (addressTaken.count(name)) result.reachingSignatures.insert(signatureOf[name]);
      changed = true;
    }
  }

  for (const auto& [name, calls] : callsByFunction)
    for (const Signature& signature : calls.indirectSignatures)
      if (result.reachingSignatures.count(signature)) result.indirectCallReaches = true;
  return true;
}

}  // namespace synergy::passes
