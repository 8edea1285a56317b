//===- Snapshot.h - a granule's memory and globals, frozen -----------------===//
//
// A snapshot holds a copy of a linear memory in its own sealed memfd plus the
// raw bytes of the instance's globals (the wasm stack pointer among them).
// Restoring maps the snapshot's memfd copy-on-write over the memory, so a
// restore costs page-table work, not a copy of the memory's bytes, and one
// snapshot can be restored into many instances.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "snapshot/LinearMemory.h"

namespace synergy::snapshot {

class Snapshot {
 public:
  // Copies `memory` and `globals` into a new snapshot. Returns nullptr and
  // sets `error` on failure.
  static std::unique_ptr<Snapshot> capture(const LinearMemory& memory,
                                           std::vector<uint8_t> globals, std::string& error);
  ~Snapshot();
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // Makes `memory` a copy-on-write view of this snapshot and returns the
  // saved globals for the caller to write back into its instance.
  bool restoreInto(LinearMemory& memory) const;

  const std::vector<uint8_t>& globals() const { return globals_; }
  uint64_t memoryBytes() const { return memoryBytes_; }

 private:
  Snapshot() = default;
  int fd_ = -1;
  uint64_t memoryBytes_ = 0;
  std::vector<uint8_t> globals_;
};

}  // namespace synergy::snapshot
