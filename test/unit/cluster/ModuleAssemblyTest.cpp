//===- ModuleAssemblyTest.cpp - a module in chunks, and hostile chunks ----===//
//
// A module arrives as a stated length and chunks in order; every hostile
// sequence (no head, an absurd length, overlapping, out-of-range, empty or
// missing chunks, a second head, bytes that are not the named module, a
// length the host cannot set aside) is refused with its reason, and no
// bytes are handed out for it.
//
//===----------------------------------------------------------------------===//
#include "cluster/ModuleAssembly.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <string>

#include "transport/FrameTypes.h"
#include "util/Sha256.h"

using namespace synergy::cluster;
using namespace std::string_literals;

namespace {

std::array<uint8_t, 32> hashOf(const std::string& bytes) {
  synergy::util::Sha256 hasher;
  hasher.update(bytes);
  return hasher.digest();
}

const uint8_t* bytesOf(const std::string& text, size_t offset = 0) {
  return reinterpret_cast<const uint8_t*>(text.data()) + offset;
}

TEST(ModuleAssemblyTest, AssemblesChunksInOrderAndChecksTheHash) {
  std::string module = "\0asm\1\0\0\0 a module in three chunks"s;
  ModuleAssembly assembly;
  std::string reason, out;
  ASSERT_TRUE(assembly.begin(module.size(), reason)) << reason;
  ASSERT_TRUE(assembly.addChunk(0, bytesOf(module), 5, reason)) << reason;
  EXPECT_FALSE(assembly.complete());
  ASSERT_TRUE(assembly.addChunk(5, bytesOf(module, 5), 10, reason)) << reason;
  ASSERT_TRUE(assembly.addChunk(15, bytesOf(module, 15), module.size() - 15, reason)) << reason;
  ASSERT_TRUE(assembly.complete());
  ASSERT_TRUE(assembly.finish(hashOf(module), out, reason)) << reason;
  EXPECT_EQ(out, module);
  EXPECT_FALSE(assembly.started());
}

TEST(ModuleAssemblyTest, RefusesAbsurdLengthsAndChunksWithoutAHead) {
  ModuleAssembly assembly;
  std::string reason;
  EXPECT_FALSE(assembly.begin(0, reason));
  EXPECT_EQ(reason, "ModuleHead announcing a module of 0 bytes (1 to 1073741824)");
  EXPECT_FALSE(assembly.begin(synergy::transport::kMaxModuleBytes + 1, reason));
  EXPECT_EQ(reason, "ModuleHead announcing a module of 1073741825 bytes (1 to 1073741824)");
  EXPECT_FALSE(assembly.begin(UINT64_MAX, reason));
  EXPECT_FALSE(assembly.started());
  EXPECT_FALSE(assembly.addChunk(0, bytesOf("abc"), 3, reason));
  EXPECT_EQ(reason, "ModuleChunk without a ModuleHead");
}

TEST(ModuleAssemblyTest, RefusesOverlappingMissingEmptyAndOutOfRangeChunks) {
  std::string module(100, 'x');
  ModuleAssembly assembly;
  std::string reason;
  ASSERT_TRUE(assembly.begin(100, reason));
  ASSERT_TRUE(assembly.addChunk(0, bytesOf(module), 40, reason));
  EXPECT_FALSE(assembly.addChunk(39, bytesOf(module), 10, reason));
  EXPECT_EQ(reason, "ModuleChunk at offset 39 overlaps the 40 bytes already received");
  EXPECT_FALSE(assembly.addChunk(0, bytesOf(module), 40, reason));
  EXPECT_EQ(reason, "ModuleChunk at offset 0 overlaps the 40 bytes already received");
  EXPECT_FALSE(assembly.addChunk(41, bytesOf(module), 10, reason));
  EXPECT_EQ(reason, "ModuleChunk at offset 41 leaves bytes 40 to 40 missing");
  EXPECT_FALSE(assembly.addChunk(UINT64_MAX, bytesOf(module), 1, reason));
  EXPECT_FALSE(assembly.addChunk(40, bytesOf(module), 0, reason));
  EXPECT_EQ(reason, "empty ModuleChunk at offset 40");
  EXPECT_FALSE(assembly.addChunk(40, bytesOf(module), 61, reason));
  EXPECT_EQ(reason, "ModuleChunk of 61 bytes at offset 40 runs past the module's 100 bytes");
  EXPECT_FALSE(assembly.begin(100, reason));
  EXPECT_EQ(reason, "ModuleHead while 60 of the 100 bytes of the previous module are missing");
  // None of the refused chunks counted: the right one still fits.
  ASSERT_TRUE(assembly.addChunk(40, bytesOf(module), 60, reason)) << reason;
  EXPECT_TRUE(assembly.complete());
}

TEST(ModuleAssemblyTest, GivesNothingForMissingOrForeignBytes) {
  std::string module(64, 'm');
  ModuleAssembly assembly;
  std::string reason, out = "untouched";
  ASSERT_TRUE(assembly.begin(64, reason));
  ASSERT_TRUE(assembly.addChunk(0, bytesOf(module), 32, reason));
  EXPECT_FALSE(assembly.finish(hashOf(module), out, reason));
  EXPECT_EQ(reason, "the module is missing 32 of its 64 bytes");
  EXPECT_EQ(out, "untouched");
  EXPECT_FALSE(assembly.started());

  ASSERT_TRUE(assembly.begin(64, reason));
  ASSERT_TRUE(assembly.addChunk(0, bytesOf(module), 64, reason));
  EXPECT_FALSE(assembly.finish(hashOf(std::string(64, 'n')), out, reason));
  EXPECT_EQ(reason, "module bytes do not match the hash in RunJob");
  EXPECT_EQ(out, "untouched");
}

TEST(ModuleAssemblyTest, ALengthThatCannotBeSetAsideIsRefused) {
  // A peer may state the largest module allowed; a daemon whose address
  // space cannot hold it refuses that module and takes the next one.
  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  struct rlimit capped = saved;
  capped.rlim_cur = 512ull << 20;
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < capped.rlim_cur)
    GTEST_SKIP() << "the address space is capped below 512 MiB already";
  ASSERT_EQ(setrlimit(RLIMIT_AS, &capped), 0);
  ModuleAssembly assembly;
  std::string reason;
  bool begun = assembly.begin(synergy::transport::kMaxModuleBytes, reason);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  EXPECT_FALSE(begun);
  EXPECT_EQ(reason, "no memory for a module of 1073741824 bytes");
  std::string module = "\0asm\1\0\0\0"s, out;
  ASSERT_TRUE(assembly.begin(module.size(), reason)) << reason;
  ASSERT_TRUE(assembly.addChunk(0, bytesOf(module), module.size(), reason)) << reason;
  ASSERT_TRUE(assembly.finish(hashOf(module), out, reason)) << reason;
  EXPECT_EQ(out, module);
}

}  // namespace
