//===- CheckpointFileTest.cpp - the checkpoint file format -----------------===//
//
// Round trip of the checkpoint format, and refusal of every kind of bad
// file: foreign, truncated, corrupt, of another version, and files whose
// checksum is right but whose counts, lengths or offsets lie.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointFile.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "util/Sha256.h"

namespace synergy::checkpoint {
namespace {

constexpr uint64_t kMemoryBytes = 2 * 65536;
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 32 + 8 + 32;

std::vector<uint8_t> sampleMemory(uint8_t seed) {
  std::vector<uint8_t> memory(kMemoryBytes, 0);
  for (size_t i = 4096; i < 3 * 4096; ++i) memory[i] = uint8_t(i * seed + 1);
  memory[kMemoryBytes - 1] = seed;
  return memory;
}

Digest programDigest() {
  Digest digest{};
  digest[0] = 0xab;
  digest[31] = 0xcd;
  return digest;
}

JobRecord sampleJob() {
  JobRecord job;
  job.stdoutOffset = 42;
  job.program = "prog.wasm";
  job.args = {"a", "bc"};
  job.grants = {{"/d", "/g", true}};
  job.env = {"K=V"};
  return job;
}
// The job record of sampleJob(): offsets, path, argument count, two
// arguments, grant count, one grant, environment count, one variable,
// empty reason.
constexpr size_t kGrantCountAt = 8 + 8 + (4 + 9) + 4 + (4 + 1) + (4 + 2);
constexpr size_t kEnvCountAt = kGrantCountAt + 4 + (4 + 2) + (4 + 2) + 1;
constexpr size_t kJobBytes = kEnvCountAt + 4 + (4 + 3) + 4;

std::string sampleFile() {
  std::vector<std::string> sections;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    std::vector<uint8_t> memory = sampleMemory(uint8_t(rank + 3));
    sections.push_back(encodeRankSection(rank, 65536, {1, 2, 3, uint8_t(rank)}, memory.data(),
                                         kMemoryBytes));
  }
  return encodeCheckpoint(5, programDigest(), sections, sampleJob());
}

// Rewrites the file's checksum, so that a deliberately wrong field is
// reached by the later checks instead of stopping at the checksum.
std::string withFreshChecksum(std::string file) {
  util::Sha256 hash;
  hash.update(std::string_view(file).substr(0, kHeaderBytes - 32));
  hash.update(std::string_view(file).substr(kHeaderBytes));
  Digest digest = hash.digest();
  std::memcpy(file.data() + kHeaderBytes - 32, digest.data(), digest.size());
  return file;
}

std::string refusal(const std::string& file) {
  std::string error;
  EXPECT_FALSE(decodeCheckpoint(file, error).has_value());
  EXPECT_EQ(error.find('\n'), std::string::npos);
  return error;
}

TEST(CheckpointFile, RoundTripKeepsOnlyNonZeroPages) {
  std::string error;
  auto image = decodeCheckpoint(sampleFile(), error);
  ASSERT_TRUE(image) << error;
  EXPECT_EQ(image->sequence, 5u);
  EXPECT_EQ(image->programDigest, programDigest());
  EXPECT_EQ(image->job.stdoutOffset, 42);
  EXPECT_EQ(image->job.stderrOffset, -1);
  EXPECT_EQ(image->job.program, "prog.wasm");
  EXPECT_EQ(image->job.args, (std::vector<std::string>{"a", "bc"}));
  ASSERT_EQ(image->job.grants.size(), 1u);
  EXPECT_EQ(image->job.grants[0].hostPath, "/d");
  EXPECT_EQ(image->job.grants[0].guestPath, "/g");
  EXPECT_TRUE(image->job.grants[0].readOnly);
  EXPECT_EQ(image->job.env, (std::vector<std::string>{"K=V"}));
  EXPECT_EQ(image->job.unresumable, "");
  ASSERT_EQ(image->ranks.size(), 2u);
  for (uint32_t rank = 0; rank < 2; ++rank) {
    const RankImage& r = image->ranks[rank];
    EXPECT_EQ(r.worldRank, rank);
    EXPECT_EQ(r.unwindBuffer, 65536u);
    EXPECT_EQ(r.globals, (std::vector<uint8_t>{1, 2, 3, uint8_t(rank)}));
    EXPECT_EQ(r.memoryBytes, kMemoryBytes);
    // Two runs: pages 1-2, and the last page; the zero pages are left out.
    ASSERT_EQ(r.runs.size(), 2u);
    EXPECT_EQ(r.runs[0].offset, 4096u);
    EXPECT_EQ(r.runs[0].bytes.size(), 2 * 4096u);
    EXPECT_EQ(r.runs[1].offset, kMemoryBytes - 4096);
    std::vector<uint8_t> rebuilt(kMemoryBytes, 0);
    for (const MemoryRun& run : r.runs)
      std::memcpy(rebuilt.data() + run.offset, run.bytes.data(), run.bytes.size());
    EXPECT_EQ(rebuilt, sampleMemory(uint8_t(rank + 3)));
  }
}

TEST(CheckpointFile, RefusesAForeignFile) {
  EXPECT_EQ(refusal("SYNERGY STATE v1\n"), "not a Synergy checkpoint file");
  std::string file = sampleFile();
  file[0] = 'X';
  EXPECT_EQ(refusal(file), "not a Synergy checkpoint file");
}

TEST(CheckpointFile, RefusesAnotherVersion) {
  std::string file = sampleFile();
  file[8] = 9;
  EXPECT_EQ(refusal(file),
            "checkpoint format version 9 is not version 3, the one this synergy-run reads "
            "(checkpoint again with this build)");
  // Version 2, before grants and the environment were recorded.
  file[8] = 2;
  EXPECT_NE(refusal(file).find("checkpoint format version 2 is not version 3"),
            std::string::npos);
}

TEST(CheckpointFile, RefusesATruncatedFile) {
  std::string file = sampleFile();
  EXPECT_NE(refusal(file.substr(0, file.size() - 1)).find("truncated"), std::string::npos);
  EXPECT_EQ(refusal(file.substr(0, 20)), "not a Synergy checkpoint file");
}

TEST(CheckpointFile, RefusesACorruptPayload) {
  std::string file = sampleFile();
  file[file.size() / 2] ^= 0x40;
  EXPECT_EQ(refusal(file), "the checkpoint's checksum does not match its contents (corrupt file)");
}

TEST(CheckpointFile, RefusesLyingSectionsBehindAGoodChecksum) {
  const size_t rank0 = kHeaderBytes + kJobBytes;
  const size_t memoryBytesAt = rank0 + 12 + 4;  // after rank, buffer, globals count, globals
  const size_t runCountAt = memoryBytesAt + 8;
  const size_t firstRunAt = runCountAt + 4;
  auto patched = [&](size_t at, const void* value, size_t bytes) {
    std::string file = sampleFile();
    std::memcpy(file.data() + at, value, bytes);
    return withFreshChecksum(file);
  };
  uint32_t wrongRank = 1;
  EXPECT_EQ(refusal(patched(rank0, &wrongRank, 4)), "rank 0: the section names rank 1");
  uint32_t hugeGlobals = 1u << 30;
  EXPECT_NE(refusal(patched(rank0 + 8, &hugeGlobals, 4)).find("do not fit"), std::string::npos);
  uint64_t oddMemory = 65536 + 1;
  EXPECT_NE(refusal(patched(memoryBytesAt, &oddMemory, 8)).find("whole number of wasm pages"),
            std::string::npos);
  uint32_t manyRuns = 0x7fffffff;
  EXPECT_EQ(refusal(patched(runCountAt, &manyRuns, 4)),
            "rank 0: more memory runs than the file can hold");
  uint64_t outside = kMemoryBytes;
  EXPECT_NE(refusal(patched(firstRunAt, &outside, 8)).find("lies outside memory"),
            std::string::npos);
  uint32_t badBuffer = uint32_t(kMemoryBytes);
  EXPECT_EQ(refusal(patched(rank0 + 4, &badBuffer, 4)),
            "rank 0: the unwind buffer lies outside memory");
}

TEST(CheckpointFile, RefusesALyingJobRecordBehindAGoodChecksum) {
  auto patched = [&](size_t at, const void* value, size_t bytes) {
    std::string file = sampleFile();
    std::memcpy(file.data() + kHeaderBytes + at, value, bytes);
    return withFreshChecksum(file);
  };
  int64_t negative = -7;
  EXPECT_EQ(refusal(patched(0, &negative, 8)), "the job record has a negative output offset");
  uint32_t hugePath = 0xfffffff0u;
  EXPECT_EQ(refusal(patched(16, &hugePath, 4)), "the job record is truncated or too long");
  uint32_t manyArgs = 0x7fffffff;
  EXPECT_EQ(refusal(patched(16 + 4 + 9, &manyArgs, 4)),
            "the job record has more arguments than the file can hold");
  uint32_t longArg = 1000;
  EXPECT_EQ(refusal(patched(16 + 4 + 9 + 4, &longArg, 4)),
            "the job record is truncated or too long");
}

TEST(CheckpointFile, RefusesLyingGrantsAndEnvironmentBehindAGoodChecksum) {
  auto patched = [&](size_t at, const void* value, size_t bytes) {
    std::string file = sampleFile();
    std::memcpy(file.data() + kHeaderBytes + at, value, bytes);
    return withFreshChecksum(file);
  };
  uint32_t many = 0x7fffffff;
  EXPECT_EQ(refusal(patched(kGrantCountAt, &many, 4)),
            "the job record has more --dir grants than the file can hold");
  EXPECT_EQ(refusal(patched(kEnvCountAt, &many, 4)),
            "the job record has more --env variables than the file can hold");
  uint32_t longHost = 1000;
  EXPECT_EQ(refusal(patched(kGrantCountAt + 4, &longHost, 4)),
            "the job record is truncated or too long");
  const char relative = 'd';  // host path "dd": not absolute
  EXPECT_EQ(refusal(patched(kGrantCountAt + 8, &relative, 1)),
            "the job record has a malformed --dir grant");
  uint32_t emptyGuest = 0;
  EXPECT_EQ(refusal(patched(kGrantCountAt + 4 + 6, &emptyGuest, 4)),
            "the job record has a malformed --dir grant");
  const char nul = '\0';
  EXPECT_EQ(refusal(patched(kGrantCountAt + 4 + 6 + 5, &nul, 1)),
            "the job record has a malformed --dir grant");
  const uint8_t notAFlag = 2;
  EXPECT_EQ(refusal(patched(kEnvCountAt - 1, &notAFlag, 1)),
            "the job record has a malformed --dir grant");
  const char notEquals = '-';  // "K-V"
  EXPECT_EQ(refusal(patched(kEnvCountAt + 4 + 4 + 1, &notEquals, 1)),
            "the job record has an --env variable that is not KEY=VALUE");
}

TEST(CheckpointFile, ChecksumCoversTheHeaderAndRankCountIsChecked) {
  std::string file = sampleFile();
  uint32_t none = 0;
  std::memcpy(file.data() + 12, &none, 4);
  EXPECT_EQ(refusal(file), "the checkpoint's checksum does not match its contents (corrupt file)");
  EXPECT_EQ(refusal(withFreshChecksum(file)), "the checkpoint holds 0 ranks");
}

}  // namespace
}  // namespace synergy::checkpoint
