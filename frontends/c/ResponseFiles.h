//===- ResponseFiles.h - expand @file arguments ----------------------------===//
//
// Build systems pass long command lines through response files (`@file`). The
// driver must see every input and option to split compilation from linking,
// so it expands them itself instead of leaving them to clang.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace synergy::frontend_c {

// Replaces each `@file` argument by the words of that file, recursively, with
// GNU quoting (whitespace separates words; quotes and backslash escape). As in
// gcc, `@file` naming a file that cannot be read stays a literal argument.
// Returns false with `error` set when response files nest too deeply.
bool expandResponseFiles(std::vector<std::string>& arguments, std::string& error);

}  // namespace synergy::frontend_c
