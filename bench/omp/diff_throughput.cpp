//===- diff_throughput.cpp - byte-wise diff speed against memcmp -----------===//
//
// What a --dsm synchronisation costs per byte: snapshot::diffPages over every
// page of a 64 MiB region, for three patterns of change (none, one byte per
// 4 KiB page, one byte in every 64), against memcmp reading two identical
// 64 MiB buffers in full (the speed of merely finding out that nothing
// differs). Prints one JSON object; bench/omp/run.py reads it.
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "snapshot/MemoryDiff.h"

namespace {

constexpr uint64_t kBytes = 64ull << 20;
constexpr uint64_t kPage = 4096;
constexpr int kRepeats = 5;

template <typename Body>
double bestSeconds(Body&& body) {
  double best = 1e30;
  for (int r = 0; r < kRepeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    body();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds < best) best = seconds;
  }
  return best;
}

}  // namespace

int main() {
  std::vector<uint8_t> baseline(kBytes), current(kBytes);
  for (uint64_t i = 0; i < kBytes; ++i) baseline[i] = uint8_t(i * 2654435761u >> 24);
  std::vector<uint64_t> pages(kBytes / kPage);
  for (uint64_t p = 0; p < pages.size(); ++p) pages[p] = p;

  struct Pattern {
    const char* name;
    uint64_t stride;  // one changed byte every `stride` bytes; 0: none
  };
  const Pattern patterns[] = {{"unchanged", 0}, {"one_byte_per_page", kPage},
                              {"one_byte_per_64", 64}};
  std::memcpy(current.data(), baseline.data(), kBytes);
  volatile int sink = 0;
  double memcmpSeconds =
      bestSeconds([&] { sink = std::memcmp(current.data(), baseline.data(), kBytes); });
  std::printf("{\"memcmp_gbps\": %.3f", kBytes / memcmpSeconds / 1e9);
  for (const Pattern& pattern : patterns) {
    std::memcpy(current.data(), baseline.data(), kBytes);
    if (pattern.stride)
      for (uint64_t i = 0; i < kBytes; i += pattern.stride) current[i] ^= 0x5a;
    size_t ranges = 0;
    double diffSeconds = bestSeconds([&] {
      auto diff = synergy::snapshot::diffPages(current.data(), baseline.data(), pages, kPage);
      ranges = diff.ranges().size();
    });
    std::printf(", \"%s\": {\"diff_gbps\": %.3f, \"ranges\": %zu}", pattern.name,
                kBytes / diffSeconds / 1e9, ranges);
  }
  (void)sink;
  std::printf("}\n");
  return 0;
}
