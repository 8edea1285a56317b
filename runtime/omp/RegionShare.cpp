//===- RegionShare.cpp - the threads of a parallel region one other host runs ===//
#include "omp/RegionShare.h"

#include "util/LittleEndian.h"

namespace synergy::omp {
namespace {

constexpr uint32_t kMaxActiveLevels = 255;

// Reads little-endian words from a buffer whose length was checked first.
struct WordReader {
  const uint8_t* at;
  uint32_t u32() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= uint32_t(at[i]) << (8 * i);
    at += 4;
    return value;
  }
  uint64_t u64() {
    uint64_t low = u32();
    return low | uint64_t(u32()) << 32;
  }
};

}  // namespace

std::vector<uint8_t> encodeRegionShare(const RegionShare& share) {
  std::vector<uint8_t> out;
  out.reserve(kRegionShareHeadBytes + share.threads.size() * kRegionShareThreadBytes +
              share.arguments.size() * 4);
  util::appendLittleEndian(out, uint32_t(share.copySequence), 4);
  util::appendLittleEndian(out, uint32_t(share.copySequence >> 32), 4);
  for (uint32_t word : {share.microtask, share.teamSize, share.level, share.activeLevel,
                        uint32_t(share.icvs.nthreads), uint32_t(share.icvs.maxActiveLevels),
                        uint32_t(share.icvs.dynamic), uint32_t(share.icvs.runScheduleKind),
                        uint32_t(share.icvs.runScheduleChunk), share.icvs.defaultAllocator,
                        uint32_t(share.threads.size()), uint32_t(share.arguments.size())})
    util::appendLittleEndian(out, word, 4);
  for (const SharedThread& thread : share.threads)
    for (uint32_t word : {thread.threadNum, thread.globalThreadId, thread.stackTop, thread.tlsBlock})
      util::appendLittleEndian(out, word, 4);
  for (uint32_t argument : share.arguments) util::appendLittleEndian(out, argument, 4);
  return out;
}

bool decodeRegionShare(const uint8_t* data, size_t size, uint64_t memoryBytes, RegionShare& share,
                       std::string& error) {
  auto fail = [&](const std::string& reason) {
    error = "region share: " + reason;
    return false;
  };
  if (size < kRegionShareHeadBytes)
    return fail(std::to_string(size) + " bytes, shorter than its head");
  WordReader in{data};
  RegionShare parsed;
  parsed.copySequence = in.u64();
  parsed.microtask = in.u32();
  parsed.teamSize = in.u32();
  parsed.level = in.u32();
  parsed.activeLevel = in.u32();
  uint32_t nthreads = in.u32(), maxActiveLevels = in.u32(), dynamic = in.u32();
  uint32_t scheduleKind = in.u32(), scheduleChunk = in.u32();
  parsed.icvs.defaultAllocator = in.u32();
  uint32_t threadCount = in.u32(), argumentCount = in.u32();

  if (parsed.copySequence == 0) return fail("no copy update precedes it");
  if (parsed.teamSize < 2 || parsed.teamSize > INT32_MAX)
    return fail("team of " + std::to_string(parsed.teamSize) + " threads");
  if (parsed.activeLevel < 1 || parsed.activeLevel > parsed.level ||
      parsed.activeLevel > kMaxActiveLevels)
    return fail("active level " + std::to_string(parsed.activeLevel) + " at level " +
                std::to_string(parsed.level));
  if (int32_t(nthreads) < 1 || maxActiveLevels < 1 || maxActiveLevels > kMaxActiveLevels ||
      dynamic > 1 || int32_t(scheduleChunk) < 0)
    return fail("invalid ICVs");
  if (threadCount < 1 || threadCount > kMaxShareThreads || threadCount >= parsed.teamSize)
    return fail(std::to_string(threadCount) + " threads of a team of " +
                std::to_string(parsed.teamSize));
  if (argumentCount > kMaxShareArguments)
    return fail(std::to_string(argumentCount) + " shared arguments");
  uint64_t expected = kRegionShareHeadBytes + uint64_t(threadCount) * kRegionShareThreadBytes +
                      uint64_t(argumentCount) * 4;
  if (size != expected)
    return fail(std::to_string(size) + " bytes where its counts make " + std::to_string(expected));
  parsed.icvs.nthreads = int(nthreads);
  parsed.icvs.maxActiveLevels = int(maxActiveLevels);
  parsed.icvs.dynamic = dynamic != 0;
  parsed.icvs.runScheduleKind = int(scheduleKind);
  parsed.icvs.runScheduleChunk = int(scheduleChunk);

  parsed.threads.resize(threadCount);
  uint32_t previous = 0;
  for (SharedThread& thread : parsed.threads) {
    thread.threadNum = in.u32();
    thread.globalThreadId = in.u32();
    thread.stackTop = in.u32();
    thread.tlsBlock = in.u32();
    if (thread.threadNum <= previous || thread.threadNum >= parsed.teamSize)
      return fail("thread number " + std::to_string(thread.threadNum) + " after " +
                  std::to_string(previous) + " in a team of " + std::to_string(parsed.teamSize));
    previous = thread.threadNum;
    if (thread.globalThreadId == 0 || int32_t(thread.globalThreadId) < 0)
      return fail("global thread id " + std::to_string(thread.globalThreadId));
    if (thread.stackTop % 16 != 0 || thread.stackTop == 0 || thread.stackTop > memoryBytes ||
        thread.tlsBlock >= memoryBytes)
      return fail("thread " + std::to_string(thread.threadNum) + "'s stack or TLS block lies outside the " +
                  std::to_string(memoryBytes) + "-byte memory");
  }
  parsed.arguments.resize(argumentCount);
  for (uint32_t& argument : parsed.arguments) argument = in.u32();
  share = std::move(parsed);
  return true;
}

}  // namespace synergy::omp
