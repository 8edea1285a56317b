// Unit tests for granules: AOT loading, traps (per thread), and snapshots.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "granule/Granule.h"
#include "granule/HostStack.h"
#include "util/FileIO.h"
#include "util/Subprocess.h"

using namespace synergy;
using granule::RunResult;

namespace {

// Builds a freestanding guest (no libc) whose entry is `_start`.
std::shared_ptr<granule::Module> buildGuest(const std::string& name, const std::string& source) {
  std::string dir = ::testing::TempDir() + "synergy-granule-" + name;
  util::makeDirectories(dir);
  std::string c = dir + "/" + name + ".c", object = dir + "/" + name + ".o",
              wasm = dir + "/" + name + ".wasm";
  std::ofstream(c) << source;
  auto compiled =
      util::runProcess({SYNERGY_TEST_CLANG, "--target=wasm32", "-O1", "-c", c, "-o", object});
  EXPECT_EQ(compiled.exitCode, 0) << compiled.output;
  // Linking without -O keeps clang from running wasm-opt, which would strip
  // the function names that trap reports use.
  auto linked = util::runProcess({SYNERGY_TEST_CLANG, "--target=wasm32", "-nostdlib",
                                  "-Wl,--no-entry", "-Wl,--export=_start", object, "-o", wasm});
  EXPECT_EQ(linked.exitCode, 0) << linked.output;
  std::string error;
  auto module = granule::Module::loadFile(wasm, error);
  EXPECT_TRUE(module) << error;
  return module;
}

RunResult runGuest(const std::shared_ptr<granule::Module>& module) {
  granule::Granule granule(module, {});
  RunResult result;
  EXPECT_TRUE(granule::runOnFreshHostStack(8u << 20, [&] { result = granule.runStart(); }));
  return result;
}

const char* kTrappers = R"(
volatile int zero = 0;
volatile int sink;
int recurse(int n) { sink = n; return recurse(n + 1) + recurse(n + 2); }
void _start(void) {
  switch (TRAP_KIND) {
    case 0: *(volatile int*)0xfffffff0u = 1; break;
    case 1: sink = 10 / zero; break;
    case 2: __builtin_trap();
    case 3: sink = recurse(0); break;
  }
}
)";

std::shared_ptr<granule::Module> trapper(int kind) {
  std::string source = "#define TRAP_KIND " + std::to_string(kind) + "\n" + kTrappers;
  return buildGuest("trap" + std::to_string(kind), source);
}

}  // namespace

TEST(GranuleTraps, OutOfBoundsAccess) {
  auto result = runGuest(trapper(0));
  ASSERT_EQ(result.kind, RunResult::Kind::Trapped);
  EXPECT_EQ(result.trapReason, "out of bounds memory access");
  EXPECT_EQ(result.trapFunction, "_start");
}

TEST(GranuleTraps, DivisionByZero) {
  auto result = runGuest(trapper(1));
  ASSERT_EQ(result.kind, RunResult::Kind::Trapped);
  EXPECT_EQ(result.trapReason, "integer divide by zero");
  EXPECT_EQ(result.trapFunction, "_start");
}

TEST(GranuleTraps, Unreachable) {
  auto result = runGuest(trapper(2));
  ASSERT_EQ(result.kind, RunResult::Kind::Trapped);
  EXPECT_EQ(result.trapReason, "unreachable executed");
}

TEST(GranuleTraps, StackOverflow) {
  auto result = runGuest(trapper(3));
  ASSERT_EQ(result.kind, RunResult::Kind::Trapped);
  EXPECT_EQ(result.trapReason, "call stack exhausted");
  EXPECT_EQ(result.trapFunction, "recurse");
}

// Each thread has its own jump buffer and signal stack: traps raised at the
// same time on several threads each land in their own granule.
TEST(GranuleTraps, ConcurrentTrapsOnManyThreads) {
  std::vector<std::shared_ptr<granule::Module>> modules = {trapper(0), trapper(1), trapper(3)};
  const char* expected[] = {"out of bounds memory access", "integer divide by zero",
                            "call stack exhausted"};
  for (int round = 0; round < 3; ++round) {
    std::vector<RunResult> results(12);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < results.size(); ++i)
      threads.emplace_back([&, i] { results[i] = runGuest(modules[i % 3]); });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < results.size(); ++i) {
      ASSERT_EQ(results[i].kind, RunResult::Kind::Trapped);
      EXPECT_EQ(results[i].trapReason, expected[i % 3]);
    }
  }
}

TEST(GranuleRun, ReturnFromStartIsExitZero) {
  auto module = buildGuest("ok", "int counter; void _start(void) { counter++; }");
  auto result = runGuest(module);
  EXPECT_EQ(result.kind, RunResult::Kind::Exited);
  EXPECT_EQ(result.exitCode, 0);
}

TEST(GranuleSnapshot, RestoreYieldsIdenticalMemoryAndGlobals) {
  auto module = buildGuest("snap", R"(
    int counter = 5;
    int buffer[100000];
    void _start(void) {
      for (int i = 0; i < 100000; ++i) buffer[i] += i * 3 + counter;
      counter++;
    }
  )");
  granule::Granule granule(module, {});
  std::string error;
  ASSERT_TRUE(granule.instantiate(error)) << error;
  ASSERT_EQ(runGuest(module).kind, RunResult::Kind::Exited);
  ASSERT_EQ(granule.runStart().kind, RunResult::Kind::Exited);

  std::vector<uint8_t> memoryBefore(granule.memoryBase(),
                                    granule.memoryBase() + granule.memorySize());
  auto* instance = static_cast<uint8_t*>(granule.instance());
  ASSERT_FALSE(module->globals().empty());
  std::vector<uint8_t> globalsBefore;
  for (auto slot : module->globals())
    globalsBefore.insert(globalsBefore.end(), instance + slot.offset,
                         instance + slot.offset + slot.size);

  auto snap = granule.captureSnapshot(error);
  ASSERT_TRUE(snap) << error;

  ASSERT_EQ(granule.runStart().kind, RunResult::Kind::Exited);  // mutate memory
  for (auto slot : module->globals()) std::memset(instance + slot.offset, 0x5a, slot.size);
  ASSERT_NE(std::memcmp(memoryBefore.data(), granule.memoryBase(), memoryBefore.size()), 0);

  ASSERT_TRUE(granule.restoreSnapshot(*snap, error)) << error;
  ASSERT_EQ(granule.memorySize(), memoryBefore.size());
  EXPECT_EQ(std::memcmp(memoryBefore.data(), granule.memoryBase(), memoryBefore.size()), 0);
  std::vector<uint8_t> globalsAfter;
  for (auto slot : module->globals())
    globalsAfter.insert(globalsAfter.end(), instance + slot.offset,
                        instance + slot.offset + slot.size);
  EXPECT_EQ(globalsAfter, globalsBefore);

  // The restored granule keeps running from the restored state.
  ASSERT_EQ(granule.runStart().kind, RunResult::Kind::Exited);
}

TEST(GranuleLoad, MalformedAndTruncatedModulesAreRejected) {
  std::string error;
  EXPECT_FALSE(granule::Module::loadBytes("not wasm at all", "junk.wasm", error));
  EXPECT_NE(error.find("bad magic"), std::string::npos) << error;
  std::string truncated("\0asm\1\0\0\0\1\x7f", 10);
  EXPECT_FALSE(granule::Module::loadBytes(truncated, "cut.wasm", error));
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  std::string badBody("\0asm\1\0\0\0\1\3\xff\xff\xff", 13);
  EXPECT_FALSE(granule::Module::loadBytes(badBody, "bad.wasm", error));
  EXPECT_NE(error.find("invalid wasm module"), std::string::npos) << error;
}

// A thread granule is a second instance over its parent's memory: what one
// writes the other reads, but globals (the stack pointer) are its own, and so
// are the function table's closures, so an indirect call in the thread runs
// in the thread's instance.
TEST(GranuleThreads, ThreadSharesMemoryButNotGlobalsOrTableClosures) {
  auto module = buildGuest("thread", R"(
    int shared_value = 7;
    int read_shared(void) { return shared_value; }
    int (*volatile table_entry)(void) = read_shared;
    void _start(void) { shared_value = table_entry() + 34; }
  )");
  granule::Granule parent(module, {});
  std::string error;
  ASSERT_TRUE(parent.instantiate(error)) << error;
  ASSERT_EQ(parent.runStart().kind, RunResult::Kind::Exited);

  auto thread = granule::Granule::spawnThread(parent);
  EXPECT_EQ(thread->memoryBase(), parent.memoryBase());
  EXPECT_EQ(thread->memorySize(), parent.memorySize());

  uint32_t parentStack = 0, threadStack = 0;
  ASSERT_TRUE(parent.readGlobal32("__stack_pointer", parentStack));
  ASSERT_TRUE(thread->writeGlobal32("__stack_pointer", parentStack - 4096));
  ASSERT_TRUE(thread->readGlobal32("__stack_pointer", threadStack));
  uint32_t parentAfter = 0;
  ASSERT_TRUE(parent.readGlobal32("__stack_pointer", parentAfter));
  EXPECT_EQ(threadStack, parentStack - 4096);
  EXPECT_EQ(parentAfter, parentStack);

  // _start run in the thread reads and writes the parent's memory: 41 + 34.
  ASSERT_EQ(thread->runStart().kind, RunResult::Kind::Exited);
  ASSERT_EQ(parent.runStart().kind, RunResult::Kind::Exited);
  auto* parentTable = module->table(parent.instance());
  auto* threadTable = module->table(thread->instance());
  ASSERT_TRUE(parentTable && threadTable);
  ASSERT_EQ(parentTable->size, threadTable->size);
  EXPECT_NE(parentTable->data, threadTable->data);
  int closures = 0;
  for (uint32_t i = 0; i < threadTable->size; ++i) {
    if (!threadTable->data[i].func) continue;
    ++closures;
    EXPECT_EQ(threadTable->data[i].module_instance, thread->instance());
    EXPECT_EQ(parentTable->data[i].module_instance, parent.instance());
  }
  EXPECT_GT(closures, 0);
  int32_t value = 0;
  uint32_t address = 0;
  // shared_value is the only initialised data word the program changes;
  // find it by scanning for the final value 41 + 34 + 34 = 109.
  for (uint32_t a = 0; a + 4 <= parent.memorySize() && !address; a += 4) {
    std::memcpy(&value, parent.memoryBase() + a, 4);
    if (value == 109) address = a;
  }
  EXPECT_NE(address, 0u);
  EXPECT_EQ(std::memcmp(thread->guestBytes(address, 4), parent.guestBytes(address, 4), 4), 0);
}
