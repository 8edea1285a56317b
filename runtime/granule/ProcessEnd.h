//===- ProcessEnd.h - what a process writes before a guest thread ends it -===//
//
// A guest's exit() or trap on one of its threads ends the whole process, as
// it would natively, wherever the other threads are: from a pooled OpenMP
// worker or a pthread (omp/ThreadGroup.h's endProcessFromThread), or on the
// main host of a thread job when a thread host reports that one of its
// threads did so. Host threads cannot be unwound, so the process ends with
// _Exit there; what the run would have written at its ordinary end (the
// output it still forwards, its statistics line) is written first by the
// hook that the code owning that output registers here, so the job ends
// as it does when main() calls exit().
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>

namespace synergy::granule {

// Registers `hook` (empty: none), run at most once by endProcess. The
// registrant clears it before what the hook uses goes away.
void setProcessEndHook(std::function<void()> hook);

// Runs the hook, flushes stdio and ends the process with `status`.
[[noreturn]] void endProcess(int status);

}  // namespace synergy::granule
