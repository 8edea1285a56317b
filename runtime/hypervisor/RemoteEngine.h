//===- RemoteEngine.h - A tenant's engine that runs inside synergy-hv ------===//
//
// `synergy-run --hypervisor HOST:PORT` runs its design on a hypervisor's
// fabric instead of a local Verilator model. The runtime still drives the
// engine through an EngineInstance, but the instance is a proxy: its entry
// points turn each engine ABI call into one request frame and wait for the
// reply. Everything else stays local: the TaskServicer services every
// trapped task with the tenant's own files, stdout and --dir grants, so a
// run's output, $save/$restart and exit status are those of a solo run.
//
// The ABI's entry points cannot report failure, so a lost hypervisor, a
// malformed reply or a refused request ends the run at once with
// "synergy-run: error: ..." and status 2, as bad input does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

#include "engine/EngineRunner.h"

namespace synergy::hypervisor {

// The factory EngineRunner uses in place of a local build: it connects to
// the hypervisor at `address` with the token in `tokenFile`, submits the
// manifest, and returns the proxy once the hypervisor's engine is running.
engine::RemoteEngineFactory remoteEngineFactory(std::string address, std::string tokenFile);

}  // namespace synergy::hypervisor
