//===- Hypervisor.h - The engine host behind synergy-hv --------------------===//
//
// A Hypervisor accepts token-authenticated connections (transport/), one per
// tenant runtime or synergy-hv-ctl, and hosts the engines the tenants submit.
// Each engine ABI request names an engine id; the hypervisor serves it only
// when the engine belongs to the requesting connection and every state id,
// element and word lies within that engine's own manifest. Anything else is
// refused with a one-line HvRefused reason and the connection stays usable;
// a malformed frame (a record of the wrong length, a reply type, more than a
// few requests sent without reading the replies) drops the connection. In
// both cases the other tenants carry on untouched.
//
// Threads: the transport's I/O thread checks lengths and queues requests; one
// fabric thread serves them, each connection's in order and the connections
// round-robin, and owns every engine (a Verilator model is driven from one
// thread); one build thread runs Verilator on submitted designs and combined
// programs, so a compile never stalls the requests of running tenants. A submitted design passes the same checks as a local run
// (the manifest reader's bounds, EmittedVerilogCheck) before anything is
// built, and is built through the shared engine cache, so a design built
// before starts without a compile.
//
// A submitted engine first runs on its own compiled object. Whenever the
// set of running engines changes, the build thread compiles them together
// into one combined program (CombinedProgram.h); meanwhile every engine is
// served from where it is. When the program is ready each engine moves into
// its slot at its next tick boundary: the fabric thread holds its next
// request, copies its state through get/set state, and serves the request
// from the new slot (Fig. 7 of the paper), so no tenant loses a tick.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace synergy::hypervisor {

struct HypervisorConfig {
  std::string token;
  // Moving an engine to another hypervisor is the operator's act: every
  // tenant holds `token`, so HvMigrate must also carry this one. Empty: no
  // migration is accepted.
  std::string adminToken;
  // Receives one line per tenant event and per dropped connection.
  std::function<void(const std::string& line)> log;
  // Engines one connection may hold (built or building), and in all.
  unsigned maxEnginesPerTenant = 4;
  unsigned maxEngines = 64;
  // The state one tenant's engines may hold together, counted as
  // engine::designStateBytes counts it: the fabric's model, the state
  // copies of a move and a migration's transfer are all proportional to it.
  uint64_t maxTenantStateBytes = uint64_t(64) << 20;
  // A test hook: also recombine (same engines, a new program instance and a
  // move for each) after every this many engine requests; 0 never does.
  // The combined program is then formed even for a single engine.
  uint64_t recombineEveryRequests = 0;
};

class Hypervisor {
 public:
  explicit Hypervisor(HypervisorConfig config);
  // Stops accepting, lets a running build finish, finalizes every engine.
  ~Hypervisor();
  Hypervisor(const Hypervisor&) = delete;
  Hypervisor& operator=(const Hypervisor&) = delete;

  // Accepts tenants on exactly `address`:`port` (0 picks a free port).
  bool listen(const std::string& address, uint16_t port, std::string& error);
  uint16_t listeningPort() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace synergy::hypervisor
