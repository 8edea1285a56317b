//===- RankMove.cpp - one rank's state, taken from and put into a granule --===//
//
// This file implements RankMove.h: the encoding of a departing rank and the
// one restore path of a rank, shared by --resume and a live move.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/RankMove.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "checkpoint/OpenFileRecord.h"
#include "granule/Granule.h"
#include "mpi/RankState.h"
#include "mpi/World.h"
#include "snapshot/Snapshot.h"
#include "util/Crc32c.h"
#include "wasm-rt.h"

namespace synergy::checkpoint {

namespace {

// Zeroes [begin, end) of a fresh instance's memory, which is zero but where
// instantiation wrote its data segments: a page that reads as zero is left
// alone, so that the pages the guest never had (most of a large memory)
// are not faulted in, as a memset of the whole memory did.
void clearGap(uint8_t* base, uint64_t begin, uint64_t end) {
  constexpr uint64_t kPage = 4096;
  while (begin < end) {
    uint64_t stop = std::min(end, (begin / kPage + 1) * kPage);
    const uint8_t* at = base + begin;
    size_t length = size_t(stop - begin);
    if (at[0] != 0 || std::memcmp(at, at + 1, length - 1) != 0) std::memset(base + begin, 0, length);
    begin = stop;
  }
}

}  // namespace

std::string encodeDepartingRank(uint32_t worldRank, granule::Granule& granule,
                                size_t grantCount, std::string& notRecorded) {
  std::vector<OpenFile> files;
  notRecorded = captureOpenFiles(granule, grantCount, files);
  const snapshot::LinearMemory* memory = granule.linearMemory();
  std::string bytes = encodeRankSection(
      worldRank, granule.unwindBufferAddress(), granule.globalBytes(), granule.memoryBase(),
      granule.memorySize(), files, captureMpiObjects(granule.extension<mpi::RankState>()),
      memory && memory->isAnonymous());
  util::Crc32c checksum;
  checksum.update(bytes);
  uint32_t value = checksum.value();
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(char((value >> shift) & 0xff));
  return bytes;
}

std::optional<RankImage> decodeDepartingRank(std::string_view bytes, uint32_t worldRank,
                                             uint32_t rankCount, uint32_t grantCount,
                                             std::string& error,
                                             std::optional<uint32_t> landedCrc) {
  if (bytes.size() < 4) {
    error = "the departing rank's state is truncated";
    return std::nullopt;
  }
  std::string_view section = bytes.substr(0, bytes.size() - 4);
  uint32_t expected = 0;
  for (int i = 0; i < 4; ++i)
    expected |= uint32_t(uint8_t(bytes[section.size() + size_t(i)])) << (8 * i);
  uint32_t computed = 0;
  if (landedCrc) {
    computed = *landedCrc;
  } else {
    util::Crc32c checksum;
    checksum.update(section);
    computed = checksum.value();
  }
  if (computed != expected) {
    error = "the departing rank's state does not match its checksum (corrupt)";
    return std::nullopt;
  }
  return decodeRankSection(section, worldRank, rankCount, grantCount, error, /*viewRuns=*/true);
}

bool restoreRank(const RankImage& image, granule::Granule& granule,
                 ResumedCommunicators& communicators, std::string& error) {
  std::string where = "cannot restore rank " + std::to_string(image.worldRank) + ": ";
  granule::Module& module = granule.module();
  size_t globalsBytes = 0;
  for (const auto& slot : module.globals()) globalsBytes += slot.size;
  if (globalsBytes != image.globals.size()) {
    error = where + "the checkpoint's globals do not match this module";
    return false;
  }
  // The unwind buffer is host-grown pages right past the memory the guest
  // had then: grow to there, let prepareUnwind take the same pages, then
  // grow to the checkpoint's size.
  wasm_rt_memory_t* memory = module.memory(granule.instance());
  const uint64_t page = 65536;
  uint64_t bufferPage = image.unwindBuffer / page;
  if (image.unwindBuffer % page || bufferPage < memory->pages || image.memoryBytes / page < bufferPage) {
    error = where + "the checkpoint's unwind buffer does not fit this module's memory";
    return false;
  }
  auto growTo = [&](uint64_t pages) {
    return pages <= memory->pages ||
           wasm_rt_grow_memory(memory, uint32_t(pages - memory->pages)) != UINT32_MAX;
  };
  std::string why;
  if (!growTo(bufferPage) || !granule.prepareUnwind(why) || !growTo(image.memoryBytes / page)) {
    error = where + (why.empty() ? "its memory of " + std::to_string(image.memoryBytes) +
                                       " bytes cannot be allocated (see --max-memory)"
                                 : why);
    return false;
  }
  if (granule.unwindBufferAddress() != image.unwindBuffer ||
      uint64_t(memory->pages) * page != image.memoryBytes) {
    error = where + "the checkpoint's unwind buffer does not fit its memory size";
    return false;
  }
  uint8_t* base = granule.memoryBase();
  uint64_t end = 0;
  for (const MemoryRun& run : image.runs) {  // increasing, inside memoryBytes: the decoder checked
    std::string_view bytes = run.contents();
    clearGap(base, end, run.offset);
    std::memcpy(base + run.offset, bytes.data(), bytes.size());
    end = run.offset + bytes.size();
  }
  clearGap(base, end, image.memoryBytes);
  auto* instance = static_cast<uint8_t*>(granule.instance());
  size_t at = 0;
  for (const auto& slot : module.globals()) {
    std::memcpy(instance + slot.offset, image.globals.data() + at, slot.size);
    at += slot.size;
  }
  if (!restoreOpenFiles(granule, image.files, error) ||
      !restoreMpiObjects(image.mpi, granule.extension<mpi::RankState>(), communicators, error)) {
    error = where + error;
    return false;
  }
  // MPI_Init ran before the suspension; the rank rewinds into its barrier.
  granule.extension<mpi::RankState>().initialized = true;
  auto startRewind = reinterpret_cast<void (*)(void*, uint32_t)>(
      module.exportedFunction("asyncify_start_rewind"));
  startRewind(granule.instance(), image.unwindBuffer);
  return true;
}

void addLiveCommunicators(const mpi::RankState& rank, ResumedCommunicators& communicators) {
  for (const auto& [handle, live] : rank.commHandles())
    if (live && live->comm) communicators.emplace(live->comm->context, live->comm);
}

}  // namespace synergy::checkpoint
