//===- ModuleAssembly.cpp - A module that arrives in chunks ---------------===//
//
// This file implements ModuleAssembly.h. The stated length only reserves
// address space: pages are touched as chunks arrive, so a peer that states
// 1 GiB and stops costs what it sent. A host that cannot set that much
// aside (an address-space limit, a small machine) refuses the module with a
// reason instead of ending on std::bad_alloc on its I/O thread.
//
//===----------------------------------------------------------------------===//
#include "cluster/ModuleAssembly.h"

#include <new>

#include "transport/FrameTypes.h"
#include "util/Sha256.h"

namespace synergy::cluster {

bool ModuleAssembly::begin(uint64_t totalBytes, std::string& reason) {
  if (started_) {
    reason = "ModuleHead while " + std::to_string(totalBytes_ - bytes_.size()) + " of the " +
             std::to_string(totalBytes_) + " bytes of the previous module are missing";
    return false;
  }
  if (totalBytes == 0 || totalBytes > transport::kMaxModuleBytes) {
    reason = "ModuleHead announcing a module of " + std::to_string(totalBytes) +
             " bytes (1 to " + std::to_string(transport::kMaxModuleBytes) + ")";
    return false;
  }
  try {
    bytes_.clear();
    bytes_.reserve(size_t(totalBytes));
  } catch (const std::bad_alloc&) {
    bytes_ = std::string();
    reason = "no memory for a module of " + std::to_string(totalBytes) + " bytes";
    return false;
  }
  started_ = true;
  totalBytes_ = totalBytes;
  return true;
}

bool ModuleAssembly::addChunk(uint64_t offset, const uint8_t* data, size_t bytes,
                              std::string& reason) {
  if (!started_) {
    reason = "ModuleChunk without a ModuleHead";
    return false;
  }
  uint64_t received = bytes_.size();
  if (bytes == 0) {
    reason = "empty ModuleChunk at offset " + std::to_string(offset);
    return false;
  }
  if (offset < received) {
    reason = "ModuleChunk at offset " + std::to_string(offset) + " overlaps the " +
             std::to_string(received) + " bytes already received";
    return false;
  }
  if (offset > received) {
    reason = "ModuleChunk at offset " + std::to_string(offset) + " leaves bytes " +
             std::to_string(received) + " to " + std::to_string(offset - 1) + " missing";
    return false;
  }
  if (bytes > totalBytes_ - received) {
    reason = "ModuleChunk of " + std::to_string(bytes) + " bytes at offset " +
             std::to_string(offset) + " runs past the module's " + std::to_string(totalBytes_) +
             " bytes";
    return false;
  }
  bytes_.append(reinterpret_cast<const char*>(data), bytes);
  return true;
}

bool ModuleAssembly::finish(const std::array<uint8_t, 32>& hash, std::string& module,
                            std::string& reason) {
  bool whole = complete();
  uint64_t total = totalBytes_;
  std::string bytes = std::move(bytes_);
  *this = ModuleAssembly();
  if (!whole) {
    reason = "the module is missing " + std::to_string(total - bytes.size()) + " of its " +
             std::to_string(total) + " bytes";
    return false;
  }
  util::Sha256 hasher;
  hasher.update(bytes);
  if (hasher.digest() != hash) {
    reason = "module bytes do not match the hash in RunJob";
    return false;
  }
  module = std::move(bytes);
  return true;
}

}  // namespace synergy::cluster
