//===- ModuleAssembly.h - A module that arrives in chunks -----------------===//
//
// A job's module travels to a host that lacks it as one ModuleHead, which
// states its length, and the ModuleChunk frames that carry its bytes in
// order (transport/FrameTypes.h), so that a module may be larger than one
// frame. Everything in them is untrusted: the length is checked against the
// largest module a run accepts before any memory is set aside, each chunk
// must start exactly where the previous one ended (no overlap, no gap) and
// stay inside the stated length, and the bytes are handed out only once all
// have arrived and their SHA-256 is the one the job named. A host then
// stores them, and the job's synergy-run validates the module like any
// other before anything compiles it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace synergy::cluster {

class ModuleAssembly {
 public:
  // Starts a module of `totalBytes` (1 to transport::kMaxModuleBytes);
  // false with `reason` otherwise, or when one is already being assembled.
  bool begin(uint64_t totalBytes, std::string& reason);
  // Appends the chunk at `offset`; false with `reason` when no module was
  // begun, or when the chunk is empty, does not start where the bytes so
  // far end, or runs past the stated length.
  bool addChunk(uint64_t offset, const uint8_t* data, size_t bytes, std::string& reason);
  bool started() const { return started_; }
  bool complete() const { return started_ && bytes_.size() == totalBytes_; }
  // Once complete: the module's bytes when their SHA-256 is `hash`; false
  // with `reason` when it is not, or when bytes are still missing. Either
  // way the assembly is empty afterwards.
  bool finish(const std::array<uint8_t, 32>& hash, std::string& module, std::string& reason);

 private:
  bool started_ = false;
  uint64_t totalBytes_ = 0;
  std::string bytes_;
};

}  // namespace synergy::cluster
