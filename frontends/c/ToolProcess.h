//===- ToolProcess.h - run clang and print command lines -------------------===//
//
// The driver runs clang as a child process that inherits stdin, stdout and
// stderr, so -E output, diagnostics and their colours pass through untouched.
// Arguments go straight to the program, never through a shell.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontends/c/ClangCommands.h"

#include <functional>
#include <iosfwd>
#include <string>

namespace synergy::frontend_c {

// Runs `command` and waits. Returns its exit code; when it cannot start or is
// killed, returns non-zero with `error` set to a one-line reason.
int runToolCommand(const ToolCommand& command, std::string& error);

// Like runToolCommand, but the tool's stderr is collected and printed once it
// has finished, after `rewriteMessages` (given all of it) has had its say.
int runToolCommand(const ToolCommand& command,
                   const std::function<std::string(const std::string&)>& rewriteMessages,
                   std::string& error);

// Prints `command` as clang's -### and -v do: each word quoted, one line.
void printToolCommand(std::ostream& out, const ToolCommand& command);

}  // namespace synergy::frontend_c
