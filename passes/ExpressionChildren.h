//===- ExpressionChildren.h - child access over the Binaryen C API ---------===//
//
// The C API has a getter and setter per child of each expression class but no
// generic walker. These two functions are that walker's single step, so passes
// can recurse over any function body and replace children in place.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <binaryen-c.h>

#include <functional>
#include <string>

namespace synergy::passes {

// Calls `rewrite` on each direct child of `expr`, in evaluation order, and
// stores its result as the new child. `rewrite` returns nullptr to stop the
// walk (with `error` set). Returns false when a rewrite failed or when `expr`
// is an instruction whose children the 108 C API cannot reach (GC proposal).
bool rewriteChildren(BinaryenExpressionRef expr,
                     const std::function<BinaryenExpressionRef(BinaryenExpressionRef)>& rewrite,
                     std::string& error);

// Read-only variant: `visit` returns false to stop the walk.
bool visitChildren(BinaryenExpressionRef expr,
                   const std::function<bool(BinaryenExpressionRef)>& visit, std::string& error);

}  // namespace synergy::passes
