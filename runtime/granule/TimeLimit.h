//===- TimeLimit.h - a wall-clock budget for every granule of a process ---===//
//
// `synergy-run --time-limit` gives a job a wall-clock budget. When it has
// passed, each granule thread caught in guest code traps with "time limit
// exceeded" through the ordinary trap path, so it is reported as
// `trap: time limit exceeded in <function>` and the job ends with status 134
// like any trap. Guest loops carry no checks: a watchdog thread signals the
// threads instead (GuestExecution.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>

namespace synergy::granule {

// Sets the budget of every granule of this process. Call before any granule
// is instantiated; without a call there is no limit.
void setTimeLimit(std::chrono::nanoseconds budget);

// Starts the clock, on the first call only and only if a limit is set.
// Granule::instantiate calls it, so compilation does not count.
void startTimeLimitClock();

}  // namespace synergy::granule
