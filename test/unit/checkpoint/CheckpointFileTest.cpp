//===- CheckpointFileTest.cpp - the checkpoint file format -----------------===//
//
// Round trip of the checkpoint format, and refusal of every kind of bad
// file: foreign, truncated, corrupt, of another version, and files whose
// checksum is right but whose counts, lengths, offsets or open files lie.
// Also the checks --resume makes on a checkpoint's open files before it
// applies anything (OpenFileRecord.h), on real directories, and on its MPI
// objects (MpiObjectRecord.h).
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointFile.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/CheckpointCopy.h"
#include "checkpoint/CheckpointedJob.h"
#include "checkpoint/MpiObjectRecord.h"
#include "checkpoint/OpenFileRecord.h"
#include "checkpoint/PartFile.h"
#include "checkpoint/RankMove.h"
#include "mpi/Datatype.h"
#include "mpi/MpiAbi.h"

#include "util/Crc32c.h"
#include "util/FileIO.h"
#include "util/Sha256.h"

namespace synergy::checkpoint {
namespace {

constexpr uint64_t kMemoryBytes = 2 * 65536;
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 32 + 8 + 4;

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
// empty reason, no host parts.
constexpr size_t kGrantCountAt = 8 + 8 + (4 + 9) + 4 + (4 + 1) + (4 + 2);
constexpr size_t kEnvCountAt = kGrantCountAt + 4 + (4 + 2) + (4 + 2) + 1;
constexpr size_t kJobBytes = kEnvCountAt + 4 + (4 + 3) + 4 + 4;

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
  util::Crc32c checksum;
  checksum.update(std::string_view(file).substr(0, kHeaderBytes - 4));
  checksum.update(std::string_view(file).substr(kHeaderBytes));
  uint32_t value = checksum.value();
  std::memcpy(file.data() + kHeaderBytes - 4, &value, sizeof value);
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

// A host storing a copy (CheckpointCopy.h) decodes the file with its runs
// as views into the bytes: the same runs, none copied; the refusals are
// the same (a flipped byte in a run fails the checksum).
TEST(CheckpointFile, DecodedWithViewsHoldsTheSameRunsUncopied) {
  std::string file = sampleFile();
  std::string error;
  auto copied = decodeCheckpoint(file, error);
  auto viewed = decodeCheckpoint(file, error, true);
  ASSERT_TRUE(copied && viewed) << error;
  ASSERT_EQ(viewed->ranks.size(), copied->ranks.size());
  for (size_t rank = 0; rank < viewed->ranks.size(); ++rank) {
    ASSERT_EQ(viewed->ranks[rank].runs.size(), copied->ranks[rank].runs.size());
    for (size_t run = 0; run < viewed->ranks[rank].runs.size(); ++run) {
      const MemoryRun& view = viewed->ranks[rank].runs[run];
      EXPECT_TRUE(view.bytes.empty());
      EXPECT_GE(view.view.data(), file.data());
      EXPECT_LE(view.view.data() + view.view.size(), file.data() + file.size());
      EXPECT_EQ(view.offset, copied->ranks[rank].runs[run].offset);
      EXPECT_EQ(view.contents(), copied->ranks[rank].runs[run].contents());
    }
  }
  file[file.size() - 100] ^= 1;
  EXPECT_FALSE(decodeCheckpoint(file, error, true));
}

// A live move's bytes (RankMove.h) are one checkpoint section, the rank's
// progress record and their CRC-32C: they decode to the rank's image, and every truncation, every
// flipped byte, another rank's section and a rank outside the job are
// refused with a line before anything could be applied.
TEST(RankMove, DepartingBytesDecodeAndHostileOnesAreRefused) {
  std::vector<uint8_t> memory = sampleMemory(7);
  std::string bytes =
      sealDepartingRank(encodeRankSection(1, 65536, {1, 2, 3, 4}, memory.data(), kMemoryBytes), {});
  std::string error;
  auto image = decodeDepartingRank(bytes, 1, 3, 0, error);
  ASSERT_TRUE(image) << error;
  EXPECT_EQ(image->worldRank, 1u);
  EXPECT_EQ(image->globals, (std::vector<uint8_t>{1, 2, 3, 4}));
  std::vector<uint8_t> rebuilt(kMemoryBytes, 0);
  for (const MemoryRun& run : image->runs) {
    // A view of the departing bytes, not a copy of them.
    EXPECT_TRUE(run.bytes.empty());
    EXPECT_GE(run.view.data(), bytes.data());
    EXPECT_LE(run.view.data() + run.view.size(), bytes.data() + bytes.size());
    std::memcpy(rebuilt.data() + run.offset, run.contents().data(), run.contents().size());
  }
  EXPECT_EQ(rebuilt, memory);
  for (size_t length = 0; length < bytes.size(); length += 1 + length / 8) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(std::string_view(bytes).substr(0, length), 1, 3, 0, error))
        << length;
    EXPECT_FALSE(error.empty());
  }
  for (size_t at = 0; at < bytes.size(); at += 1 + at / 16) {
    std::string flipped = bytes;
    flipped[at] = char(flipped[at] ^ 0x20);
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(flipped, 1, 3, 0, error)) << at;
    EXPECT_FALSE(error.empty());
  }
  EXPECT_FALSE(decodeDepartingRank(bytes, 2, 3, 0, error));
  EXPECT_NE(error.find("names rank 1"), std::string::npos) << error;
  EXPECT_FALSE(decodeDepartingRank(bytes, 1, 1, 0, error));
  EXPECT_FALSE(decodeDepartingRank(bytes, 1, 0, 0, error));
  // The section alone, with the checksum right but trailing bytes.
  EXPECT_FALSE(decodeRankSection(bytes, 1, 3, 0, error));
  EXPECT_NE(error.find("bytes after its section"), std::string::npos) << error;
}

// A live move carries the rank's own progress on each communicator it
// holds, after its section: it decodes with the image, and a record that
// names a context none of its communicators has, names one twice, leaves
// one out, finishes more collectives than it entered, or whose count
// claims more entries than the bytes hold (or wraps) is refused with a
// line, however its checksum is made to match.
TEST(RankMove, DepartingProgressIsCheckedAgainstTheRanksCommunicators) {
  std::vector<uint8_t> memory = sampleMemory(5);
  MpiObjects objects;
  objects.nextContext = 40;
  MpiObjects::CommRecord world;
  world.handle = uint32_t(mpi::abi::kCommWorld);
  world.context = 0;
  world.worldRanks = {0, 1, 2};
  MpiObjects::CommRecord split;
  split.handle = 7;
  split.context = 33;
  split.worldRanks = {2, 1};
  split.nonblockingCollectives = 2;
  objects.comms = {world, split};
  std::string section =
      encodeRankSection(1, 65536, {9}, memory.data(), kMemoryBytes, {}, objects);
  const std::vector<CommProgressRecord> good = {{0, 12, 12, 1}, {33, 5, 5, 3}};
  std::string error;
  auto image = decodeDepartingRank(sealDepartingRank(section, good), 1, 3, 0, error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->progress.size(), 2u);
  EXPECT_EQ(image->progress[1].context, 33u);
  EXPECT_EQ(image->progress[1].collectives, 5u);
  EXPECT_EQ(image->progress[1].finished, 5u);
  EXPECT_EQ(image->progress[1].sequence, 3u);
  EXPECT_EQ(image->mpi.comms.size(), 2u);
  struct Bad {
    std::vector<CommProgressRecord> progress;
    const char* says;
  };
  const Bad bad[] = {
      {{{0, 12, 12, 1}, {34, 5, 5, 3}}, "none of its communicators has"},
      {{{0, 12, 12, 1}, {0, 12, 12, 1}}, "twice"},
      {{{0, 12, 12, 1}}, "on 1 of its 2 communicators"},
      {{}, "on 0 of its 2 communicators"},
      {{{0, 12, 12, 1}, {33, 5, 6, 3}}, "finished more collectives than it entered"},
  };
  for (const Bad& record : bad) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(sealDepartingRank(section, record.progress), 1, 3, 0, error));
    EXPECT_NE(error.find(record.says), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos);
  }
  // The count and tag rewritten, the checksum made again: a count past the
  // bytes (or one that would wrap their size) is refused before any entry
  // is read; a wrong tag says there is no record.
  std::string sealed = sealDepartingRank(section, good);
  std::string body = sealed.substr(0, sealed.size() - 4);
  auto reseal = [](std::string text) {
    util::Crc32c checksum;
    checksum.update(text);
    for (int shift = 0; shift < 32; shift += 8)
      text.push_back(char((checksum.value() >> shift) & 0xff));
    return text;
  };
  for (uint32_t count : {3u, 1000u, 0x7fffffffu, 0xffffffffu}) {
    std::string tampered = body;
    for (int i = 0; i < 4; ++i) tampered[tampered.size() - 8 + size_t(i)] = char(count >> (8 * i));
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(reseal(tampered), 1, 3, 0, error)) << count;
    EXPECT_FALSE(error.empty()) << count;
  }
  {
    std::string tampered = body;
    tampered[tampered.size() - 1] ^= 1;
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(reseal(tampered), 1, 3, 0, error));
    EXPECT_NE(error.find("no progress record"), std::string::npos) << error;
  }
  for (size_t length : {size_t(0), size_t(3), size_t(7)}) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(reseal(body.substr(0, length)), 1, 3, 0, error)) << length;
    EXPECT_FALSE(error.empty());
  }
  // A count of 1000 that the bytes do hold is no longer a progress record
  // past the section: the section is cut short and refused.
  {
    std::string tampered = body;
    tampered[tampered.size() - 8] = 1;
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(reseal(tampered), 1, 3, 0, error));
    EXPECT_FALSE(error.empty());
  }
}

// A live move carries the rank's requests between its section and its
// progress record: completed ones with their status, posted receives with
// their buffer, count, datatype, communicator, source and tag. They decode
// with the image; an entry with handle 0 or 1 (the permanent completed
// send's), a handle twice, an unknown state or kind, a negative or
// oversized count or a buffer past 4 GiB is refused with a line, as is a
// count past the bytes, however the checksum is made to match.
TEST(RankMove, DepartingRequestsDecodeAndHostileOnesAreRefused) {
  std::vector<uint8_t> memory = sampleMemory(3);
  std::string section = encodeRankSection(1, 65536, {9}, memory.data(), kMemoryBytes);
  CarriedRequestRecord completed;
  completed.handle = 2;
  completed.state = CarriedRequestRecord::kCompleted;
  completed.kind = 1;
  completed.source = 2;
  completed.tag = 7;
  completed.bytes = 4;
  CarriedRequestRecord posted;
  posted.handle = 5;
  posted.state = CarriedRequestRecord::kPostedReceive;
  posted.kind = 1;
  posted.source = mpi::abi::kAnySource;
  posted.tag = mpi::abi::kAnyTag;
  posted.buffer = 4096;
  posted.count = 1000;
  posted.type = 3;
  posted.comm = 4;
  // The section holds no communicator: no progress on any.
  const std::vector<CommProgressRecord> none;
  std::string error;
  auto image = decodeDepartingRank(sealDepartingRank(section, none, {completed, posted}), 1, 3,
                                   0, error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->requests.size(), 2u);
  EXPECT_EQ(image->requests[0].handle, 2u);
  EXPECT_EQ(image->requests[0].state, CarriedRequestRecord::kCompleted);
  EXPECT_EQ(image->requests[0].source, 2);
  EXPECT_EQ(image->requests[0].tag, 7);
  EXPECT_EQ(image->requests[0].bytes, 4);
  EXPECT_EQ(image->requests[1].handle, 5u);
  EXPECT_EQ(image->requests[1].source, mpi::abi::kAnySource);
  EXPECT_EQ(image->requests[1].tag, mpi::abi::kAnyTag);
  EXPECT_EQ(image->requests[1].buffer, 4096u);
  EXPECT_EQ(image->requests[1].count, 1000);
  EXPECT_EQ(image->requests[1].type, 3);
  EXPECT_EQ(image->requests[1].comm, 4);
  std::vector<CarriedRequestRecord> bad;
  auto with = [&](auto change) {
    CarriedRequestRecord record = posted;
    change(record);
    return record;
  };
  bad.push_back(with([](CarriedRequestRecord& r) { r.handle = 0; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.handle = 1; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.handle = 1u << 25; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.state = 0; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.state = 5; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.kind = 0; }));  // a posted send
  bad.push_back(with([](CarriedRequestRecord& r) { r.flags = CarriedRequestRecord::kBuffered; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.cancelled = true; }));
  bad.push_back(with([](CarriedRequestRecord& r) {
    r.state = CarriedRequestRecord::kPersistent;  // a receive has no send mode
    r.flags = CarriedRequestRecord::kSynchronous;
  }));
  bad.push_back(with([](CarriedRequestRecord& r) {
    r.state = CarriedRequestRecord::kPersistent;  // a send of two modes
    r.kind = 0;
    r.flags = CarriedRequestRecord::kSynchronous | CarriedRequestRecord::kBuffered;
  }));
  bad.push_back(with([](CarriedRequestRecord& r) {
    r.state = CarriedRequestRecord::kAttachedBuffer;  // a buffer has handle 0
    r.kind = 0;
  }));
  bad.push_back(with([](CarriedRequestRecord& r) {
    r.state = CarriedRequestRecord::kCompleted;
    r.flags = CarriedRequestRecord::kStartedPersistent;
  }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.count = -1; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.count = int64_t(1) << 40; }));
  bad.push_back(with([](CarriedRequestRecord& r) { r.buffer = uint64_t(1) << 33; }));
  bad.push_back(with([](CarriedRequestRecord& r) {
    r.state = CarriedRequestRecord::kCompleted;
    r.kind = 3;  // a nonblocking collective is not carried
  }));
  for (const CarriedRequestRecord& record : bad) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(sealDepartingRank(section, none, {completed, record}), 1,
                                     3, 0, error))
        << record.handle;
    EXPECT_NE(error.find("is malformed"), std::string::npos) << error;
  }
  error.clear();
  EXPECT_FALSE(decodeDepartingRank(sealDepartingRank(section, none, {posted, posted}), 1, 3, 0,
                                   error));
  EXPECT_NE(error.find("is malformed"), std::string::npos) << error;
  // A persistent send not started, a started persistent receive and the
  // attached buffer decode; a second attached buffer does not.
  CarriedRequestRecord persistentSend = posted;
  persistentSend.handle = 6;
  persistentSend.state = CarriedRequestRecord::kPersistent;
  persistentSend.kind = 0;
  persistentSend.source = 1;
  persistentSend.tag = 50;
  persistentSend.flags = CarriedRequestRecord::kBuffered;
  CarriedRequestRecord startedReceive = posted;
  startedReceive.handle = 7;
  startedReceive.flags = CarriedRequestRecord::kStartedPersistent;
  CarriedRequestRecord buffer;
  buffer.state = CarriedRequestRecord::kAttachedBuffer;
  buffer.buffer = 8192;
  buffer.count = 64;
  error.clear();
  image = decodeDepartingRank(
      sealDepartingRank(section, none, {persistentSend, startedReceive, buffer}), 1, 3, 0, error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->requests.size(), 3u);
  EXPECT_EQ(image->requests[0].flags, CarriedRequestRecord::kBuffered);
  EXPECT_EQ(image->requests[1].flags, CarriedRequestRecord::kStartedPersistent);
  EXPECT_EQ(image->requests[2].state, CarriedRequestRecord::kAttachedBuffer);
  EXPECT_EQ(image->requests[2].buffer, 8192u);
  EXPECT_EQ(image->requests[2].count, 64);
  error.clear();
  EXPECT_FALSE(decodeDepartingRank(sealDepartingRank(section, none, {buffer, buffer}), 1, 3, 0,
                                   error));
  EXPECT_NE(error.find("is malformed"), std::string::npos) << error;
  // The requests' count rewritten past the bytes, the checksum made again.
  std::string sealed = sealDepartingRank(section, none, {completed});
  const size_t countAt = sealed.size() - 4 - 8 - 8;
  for (uint32_t count : {1000u, 0x7fffffffu, 0xffffffffu}) {
    std::string tampered = sealed.substr(0, sealed.size() - 4);
    for (int i = 0; i < 4; ++i) tampered[countAt + size_t(i)] = char(count >> (8 * i));
    util::Crc32c checksum;
    checksum.update(tampered);
    for (int shift = 0; shift < 32; shift += 8)
      tampered.push_back(char((checksum.value() >> shift) & 0xff));
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(tampered, 1, 3, 0, error)) << count;
    EXPECT_NE(error.find("requests record names"), std::string::npos) << error;
  }
  // Cut short, or with an entry's bytes taken out and the checksum made
  // again (the count then names one entry more than the record holds, and
  // the section's own bytes would be read as it), the bytes are refused.
  const std::string whole = sealDepartingRank(section, none, {completed, posted});
  for (size_t cut : {size_t(1), size_t(4), size_t(12), size_t(52), size_t(60), whole.size() / 2}) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(whole.substr(0, whole.size() - cut), 1, 3, 0, error)) << cut;
    EXPECT_FALSE(error.empty()) << cut;
  }
  std::string unsealed = whole.substr(0, whole.size() - 4);
  const size_t entriesAt = unsealed.size() - 8 - 8 - 2 * 52;
  unsealed.erase(entriesAt, 52);
  util::Crc32c again;
  again.update(unsealed);
  for (int shift = 0; shift < 32; shift += 8)
    unsealed.push_back(char((again.value() >> shift) & 0xff));
  error.clear();
  EXPECT_FALSE(decodeDepartingRank(unsealed, 1, 3, 0, error));
  EXPECT_FALSE(error.empty());
}

// Re-seals departing bytes whose last four bytes are their CRC-32C after
// `change` edited the rest: the checksum then matches the tampering.
static std::string resealed(const std::string& sealed,
                            const std::function<void(std::string&)>& change) {
  std::string bytes = sealed.substr(0, sealed.size() - 4);
  change(bytes);
  util::Crc32c checksum;
  checksum.update(bytes);
  for (int shift = 0; shift < 32; shift += 8)
    bytes.push_back(char((checksum.value() >> shift) & 0xff));
  return bytes;
}

// A live move carries the rank's windows in a record before its requests
// (LMW1; the requests record is then LMR2): each decodes with the image.
// An entry with a handle out of order or out of range, a flavor other than
// MPI_Win_create's or MPI_Win_allocate's, unknown flags, a rank outside its
// members or more members than the job has ranks, a base past 4 GiB, a user
// error handler, memory allocated for a created window (or elsewhere than
// its base), a negative size, a displacement unit of 0 or a name longer
// than MPI's limit is refused as malformed; one lying past the rank's
// memory, or naming as its own context a communicator the rank does not
// hold, one of other members, one that does not hold the rank there, or one
// another window names, is refused; so are a count past the bytes, a
// truncated entry and a requests record of version 1, however the
// checksum is made to match.
TEST(RankMove, DepartingWindowsDecodeAndHostileOnesAreRefused) {
  std::vector<uint8_t> memory = sampleMemory(4);
  MpiObjects objects;
  objects.nextContext = 40;
  MpiObjects::CommRecord world;
  world.handle = uint32_t(mpi::abi::kCommWorld);
  world.context = 0;
  world.worldRanks = {0, 1, 2};
  MpiObjects::CommRecord fences = world;
  fences.handle = 7;
  fences.context = 33;
  MpiObjects::CommRecord split;
  split.handle = 8;
  split.context = 34;
  split.worldRanks = {2, 1};
  objects.comms = {world, fences, split};
  std::string section =
      encodeRankSection(1, 65536, {9}, memory.data(), kMemoryBytes, {}, objects);
  const std::vector<CommProgressRecord> progress = {{0, 4, 4, 2}, {33, 1, 1, 0}, {34, 1, 1, 0}};
  CarriedWindowRecord created;
  created.handle = 1;
  created.comm = mpi::abi::kCommWorld;
  created.fenceComm = 7;
  created.flavor = uint8_t(mpi::abi::kWinFlavorCreate);
  created.flags = CarriedWindowRecord::kFenceEpoch;
  created.me = 1;
  created.spanningId = uint64_t(33) << 32;
  created.base = 4096;
  created.errhandler = mpi::abi::kErrorsAreFatal;
  created.name = "created";
  created.sizes = {256, 512, 1024};
  created.dispUnits = {4, 4, 8};
  CarriedWindowRecord allocated;
  allocated.handle = 3;
  allocated.comm = 8;
  allocated.fenceComm = 8;
  allocated.flavor = uint8_t(mpi::abi::kWinFlavorAllocate);
  allocated.me = 1;
  allocated.base = 8192;
  allocated.allocatedGuest = 8192;
  allocated.attributesGuest = 16384;
  allocated.errhandler = mpi::abi::kErrorsReturn;
  allocated.sizes = {0, 64};
  allocated.dispUnits = {1, 1};
  std::string error;
  const std::string sealed = sealDepartingRank(section, progress, {}, {created, allocated});
  auto image = decodeDepartingRank(sealed, 1, 3, 0, error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->windows.size(), 2u);
  EXPECT_EQ(image->windows[0].handle, 1u);
  EXPECT_EQ(image->windows[0].fenceComm, 7);
  EXPECT_EQ(image->windows[0].flags, CarriedWindowRecord::kFenceEpoch);
  EXPECT_EQ(image->windows[0].spanningId, uint64_t(33) << 32);
  EXPECT_EQ(image->windows[0].base, 4096u);
  EXPECT_EQ(image->windows[0].name, "created");
  EXPECT_EQ(image->windows[0].sizes, (std::vector<int64_t>{256, 512, 1024}));
  EXPECT_EQ(image->windows[0].dispUnits, (std::vector<int64_t>{4, 4, 8}));
  EXPECT_EQ(image->windows[1].handle, 3u);
  EXPECT_EQ(image->windows[1].comm, 8);
  EXPECT_EQ(image->windows[1].flavor, uint8_t(mpi::abi::kWinFlavorAllocate));
  EXPECT_EQ(image->windows[1].allocatedGuest, 8192u);
  EXPECT_EQ(image->windows[1].attributesGuest, 16384u);
  EXPECT_EQ(image->windows[1].errhandler, mpi::abi::kErrorsReturn);
  auto with = [&](auto change) {
    CarriedWindowRecord record = created;
    change(record);
    return record;
  };
  using Record = CarriedWindowRecord;
  const std::vector<Record> malformed = {
      with([](Record& w) { w.handle = 0; }),
      with([](Record& w) { w.handle = 1u << 25; }),
      with([](Record& w) { w.flavor = uint8_t(mpi::abi::kWinFlavorDynamic); }),
      with([](Record& w) { w.flavor = uint8_t(mpi::abi::kWinFlavorShared); }),
      with([](Record& w) { w.flavor = 0; }),
      with([](Record& w) { w.flags = 2; }),
      with([](Record& w) { w.me = 3; }),
      with([](Record& w) {
        w.sizes.clear();
        w.dispUnits.clear();
        w.me = 0;
      }),
      with([](Record& w) {
        w.sizes.push_back(8);  // four members in a job of three ranks
        w.dispUnits.push_back(1);
      }),
      with([](Record& w) { w.base = uint64_t(1) << 33; }),
      with([](Record& w) { w.errhandler = 7; }),
      with([](Record& w) { w.allocatedGuest = 4096; }),
      with([](Record& w) {
        w.flavor = uint8_t(mpi::abi::kWinFlavorAllocate);
        w.allocatedGuest = 8192;
      }),
      with([](Record& w) { w.sizes[0] = -1; }),
      with([](Record& w) { w.sizes[2] = int64_t(1) << 40; }),
      with([](Record& w) { w.dispUnits[1] = 0; }),
      with([](Record& w) { w.dispUnits[0] = int64_t(1) << 32; }),
      with([](Record& w) { w.name.assign(size_t(mpi::abi::kMaxObjectName) + 1, 'n'); }),
  };
  for (size_t i = 0; i < malformed.size(); ++i) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(sealDepartingRank(section, progress, {}, {malformed[i]}), 1,
                                     3, 0, error))
        << i;
    EXPECT_NE(error.find("is malformed"), std::string::npos) << i << ": " << error;
  }
  // Handles out of order.
  error.clear();
  EXPECT_FALSE(decodeDepartingRank(sealDepartingRank(section, progress, {}, {allocated, created}),
                                   1, 3, 0, error));
  EXPECT_NE(error.find("is malformed"), std::string::npos) << error;
  struct Bad {
    std::vector<Record> windows;
    const char* says;
  };
  Record second = with([](Record& w) { w.handle = 2; });
  const Bad bad[] = {
      {{with([](Record& w) { w.base = kMemoryBytes - 100; })}, "outside the rank's memory"},
      {{with([](Record& w) { w.attributesGuest = kMemoryBytes; })}, "outside the rank's memory"},
      {{with([](Record& w) { w.fenceComm = 9; })}, "no collective context"},
      {{with([](Record& w) { w.fenceComm = mpi::abi::kCommWorld; })}, "no collective context"},
      {{with([](Record& w) { w.fenceComm = 8; })}, "no collective context"},  // two members
      {{with([](Record& w) { w.me = 0; })}, "no collective context"},  // rank 0 there
      {{created, second}, "no collective context"},  // both name communicator 7
  };
  for (const Bad& b : bad) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(sealDepartingRank(section, progress, {}, b.windows), 1, 3, 0,
                                     error))
        << b.says;
    EXPECT_NE(error.find(b.says), std::string::npos) << error;
  }
  // Where the records end, from the back: the CRC, the progress record,
  // the requests record (none) and the windows record's bytes, count, tag.
  const size_t progressBytes = 8 + progress.size() * 28;
  const size_t requestsTagAt = sealed.size() - 4 - progressBytes - 4;
  const size_t windowsCountAt = requestsTagAt - 4 - 8;
  for (uint32_t count : {3u, 1000u, 0xffffffffu}) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(resealed(sealed,
                                              [&](std::string& bytes) {
                                                for (int i = 0; i < 4; ++i)
                                                  bytes[windowsCountAt + size_t(i)] =
                                                      char(count >> (8 * i));
                                              }),
                                     1, 3, 0, error))
        << count;
    EXPECT_FALSE(error.empty());
  }
  for (uint32_t recordBytes : {0u, 10u, 0x7fffffffu}) {
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(resealed(sealed,
                                              [&](std::string& bytes) {
                                                for (int i = 0; i < 4; ++i)
                                                  bytes[windowsCountAt - 4 + size_t(i)] =
                                                      char(recordBytes >> (8 * i));
                                              }),
                                     1, 3, 0, error))
        << recordBytes;
    EXPECT_FALSE(error.empty());
  }
  // A byte of the last entry taken out: the entries no longer fill the
  // bytes the record states.
  error.clear();
  EXPECT_FALSE(decodeDepartingRank(
      resealed(sealed, [&](std::string& bytes) { bytes.erase(windowsCountAt - 5, 1); }), 1, 3, 0,
      error));
  EXPECT_FALSE(error.empty());
  // No windows record at all: the tag missing.
  error.clear();
  EXPECT_FALSE(decodeDepartingRank(
      resealed(sealed, [&](std::string& bytes) { bytes[windowsCountAt + 4] ^= 1; }), 1, 3, 0,
      error));
  EXPECT_NE(error.find("no windows record"), std::string::npos) << error;
  // A requests record of version 1 (LMR1), which had no windows record.
  error.clear();
  EXPECT_FALSE(decodeDepartingRank(
      resealed(sealed, [&](std::string& bytes) { bytes[requestsTagAt + 3] = '1'; }), 1, 3, 0,
      error));
  EXPECT_NE(error.find("version 1"), std::string::npos) << error;
}

// A departing rank's section is laid out in pieces (RankMove.cpp puts the
// memory runs' bytes in place itself): joined, they are encodeRankSection's
// bytes, each run's piece naming where its bytes lie in the memory.
TEST(RankMove, SectionPiecesJoinToTheSection) {
  std::vector<uint8_t> memory = sampleMemory(5);
  MpiObjects mpi;
  std::vector<OpenFile> files(1);
  files[0].guestFd = 5;
  files[0].path = "data/in.txt";
  std::string whole =
      encodeRankSection(2, 65536, {9, 8, 7}, memory.data(), kMemoryBytes, files, mpi);
  std::vector<SectionPiece> pieces =
      layoutRankSection(2, 65536, {9, 8, 7}, memory.data(), kMemoryBytes, files, mpi, false);
  std::string joined;
  size_t runs = 0;
  for (const SectionPiece& piece : pieces) {
    if (piece.length) {
      ++runs;
      EXPECT_TRUE(piece.literal.empty());
      ASSERT_LE(piece.memoryOffset + piece.length, kMemoryBytes);
      joined.append(reinterpret_cast<const char*>(memory.data() + piece.memoryOffset),
                    size_t(piece.length));
    } else {
      joined += piece.literal;
    }
  }
  EXPECT_EQ(runs, 2u);
  EXPECT_EQ(joined, whole);
}

// The same bytes as they land at a live move's target, whose transport
// computed their CRC-32C chunk by chunk as they arrived (landedCrc): the
// stated checksum must equal that one, and every record is still checked.
// Truncated, flipped or mis-stated bytes, each with the CRC-32C a transport
// would have computed over what really landed, are refused.
TEST(RankMove, LandedBytesAreCheckedAgainstTheCrcComputedAsTheyLanded) {
  std::vector<uint8_t> memory = sampleMemory(9);
  std::string bytes =
      sealDepartingRank(encodeRankSection(1, 65536, {1, 2, 3, 4}, memory.data(), kMemoryBytes), {});
  auto crcOf = [](std::string_view section) {
    util::Crc32c checksum;
    checksum.update(section);
    return checksum.value();
  };
  uint32_t stated = crcOf(std::string_view(bytes).substr(0, bytes.size() - 4));
  auto landedCrc = [&](std::string_view landed) {
    return crcOf(landed.substr(0, landed.size() < 4 ? 0 : landed.size() - 4));
  };
  std::string error;
  auto image = decodeDepartingRank(bytes, 1, 3, 0, error, landedCrc(bytes));
  ASSERT_TRUE(image) << error;
  std::vector<uint8_t> rebuilt(kMemoryBytes, 0);
  for (const MemoryRun& run : image->runs)
    std::memcpy(rebuilt.data() + run.offset, run.contents().data(), run.contents().size());
  EXPECT_EQ(rebuilt, memory);
  // A computed CRC-32C that is not the stated one.
  EXPECT_FALSE(decodeDepartingRank(bytes, 1, 3, 0, error, stated ^ 1));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
  for (size_t length = 0; length < bytes.size(); length += 1 + length / 8) {
    std::string_view cut = std::string_view(bytes).substr(0, length);
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(cut, 1, 3, 0, error, landedCrc(cut))) << length;
    EXPECT_FALSE(error.empty());
  }
  for (size_t at = 0; at < bytes.size(); at += 1 + at / 16) {
    std::string flipped = bytes;
    flipped[at] = char(flipped[at] ^ 0x20);
    error.clear();
    EXPECT_FALSE(decodeDepartingRank(flipped, 1, 3, 0, error, landedCrc(flipped))) << at;
    EXPECT_FALSE(error.empty());
  }
  // Records are checked as ever: a well-checksummed section of another
  // rank, or of a rank outside the job.
  EXPECT_FALSE(decodeDepartingRank(bytes, 2, 3, 0, error, landedCrc(bytes)));
  EXPECT_NE(error.find("names rank 1"), std::string::npos) << error;
  EXPECT_FALSE(decodeDepartingRank(bytes, 1, 1, 0, error, landedCrc(bytes)));
}

// A checkpoint's section of a live rank skips the pages the kernel never
// populated unread (snapshot/NonZeroPages.h): it must hold the same bytes
// as one that reads every page, and as one of a plain copy.
TEST(CheckpointFile, SectionOfAnAnonymousMemoryIsTheSameWithoutReadingUntouchedPages) {
  void* mapped = mmap(nullptr, kMemoryBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* memory = static_cast<uint8_t*>(mapped);
  std::vector<uint8_t> sample = sampleMemory(7);
  std::memcpy(memory, sample.data(), 4 * 4096);        // pages 0-3, page 0 zeros but populated
  memory[kMemoryBytes - 1] = sample[kMemoryBytes - 1];  // the last page; the rest untouched
  std::string skipping = encodeRankSection(1, 65536, {4}, memory, kMemoryBytes, {}, {}, true);
  std::string reading = encodeRankSection(1, 65536, {4}, memory, kMemoryBytes, {}, {}, false);
  munmap(mapped, kMemoryBytes);
  EXPECT_EQ(skipping, reading);
  EXPECT_EQ(skipping, encodeRankSection(1, 65536, {4}, sample.data(), kMemoryBytes));
}

// A section built in the last checkpoint's buffer is the same section, in
// the same allocation when it fits, whatever the buffer held.
TEST(CheckpointFile, SectionReusesItsBuffer) {
  std::vector<uint8_t> memory = sampleMemory(9);
  std::string fresh = encodeRankSection(2, 65536, {5, 6}, memory.data(), kMemoryBytes);
  std::string buffer(fresh.size() + 8192, 'x');
  const char* pages = buffer.data();
  std::string reused = encodeRankSection(2, 65536, {5, 6}, memory.data(), kMemoryBytes, {}, {},
                                         false, std::move(buffer));
  EXPECT_EQ(reused, fresh);
  EXPECT_EQ(reused.data(), pages);
  std::string small = "too small";
  EXPECT_EQ(encodeRankSection(2, 65536, {5, 6}, memory.data(), kMemoryBytes, {}, {}, false,
                              std::move(small)),
            fresh);
}

// A section rebuilt over the rank's last one from the pages written since
// is what a whole build gives; where the runs would be cut otherwise, or
// the section is not the rank's last of the same memory, it is refused and
// built whole.
TEST(CheckpointFile, SectionPatchedFromWrittenPagesIsTheWholeSection) {
  constexpr uint64_t kPage = 4096;
  // Runs: pages 1-2 and the last page (sampleMemory), plus page 7.
  std::vector<uint8_t> memory = sampleMemory(3);
  memory[7 * kPage + 5] = 9;
  const std::vector<uint8_t> globals = {1, 2, 3, 4};
  std::string last = encodeRankSection(1, 65536, globals, memory.data(), kMemoryBytes);
  const std::vector<uint8_t> original = memory;
  auto patch = [&](std::string section, const std::vector<uint64_t>& written,
                   std::vector<uint8_t> nowGlobals, uint64_t& copied,
                   std::vector<OpenFile> files = {}, uint32_t rank = 1,
                   uint64_t bytes = kMemoryBytes) -> std::optional<std::string> {
    if (!patchRankSection(section, rank, 131072, nowGlobals, memory.data(), bytes, written,
                          files, {}, copied))
      return std::nullopt;
    return section;
  };
  // Pages written inside runs (the first and last of the memory's runs),
  // new globals, a moved unwind buffer and an open file now: only the two
  // pages are copied.
  memory[2 * kPage + 100] ^= 0xff;
  memory[kMemoryBytes - 2] = 77;
  std::vector<OpenFile> files(1);
  files[0].guestFd = 4;
  files[0].path = "data/x";
  uint64_t copied = 0;
  auto patched = patch(last, {2, kMemoryBytes / kPage - 1}, {4, 3, 2, 1}, copied, files);
  ASSERT_TRUE(patched);
  EXPECT_TRUE(*patched == encodeRankSection(1, 131072, {4, 3, 2, 1}, memory.data(), kMemoryBytes,
                                            files));
  EXPECT_EQ(copied, 2 * kPage);
  // The ranges said to have changed hold every byte that differs from the
  // last section, and no more than the head, the two pages and the tail.
  {
    std::string section = last;
    std::vector<std::pair<uint64_t, uint64_t>> changed;
    ASSERT_TRUE(patchRankSection(section, 1, 131072, {4, 3, 2, 1}, memory.data(), kMemoryBytes,
                                 {2, kMemoryBytes / kPage - 1}, files, {}, copied, &changed));
    EXPECT_EQ(section, *patched);
    auto inChanged = [&](uint64_t at) {
      for (const auto& [offset, length] : changed)
        if (at >= offset && at < offset + length) return true;
      return false;
    };
    for (uint64_t at = 0; at < section.size(); ++at)
      if (at >= last.size() || section[at] != last[at]) ASSERT_TRUE(inChanged(at)) << at;
    uint64_t total = 0, end = 0;
    for (const auto& [offset, length] : changed) {
      EXPECT_GE(offset, end);  // increasing, disjoint
      end = offset + length;
      total += length;
    }
    EXPECT_EQ(end, section.size());  // the tail is the last range
    EXPECT_LE(total, 2 * kPage + 4096);
  }
  // A written page outside every run that is still zero, and one in a run
  // written back to what it held: nothing to cut differently.
  EXPECT_TRUE(patch(last, {0, 7}, globals, copied));
  // A page that became non-zero outside the runs, or zero inside one, would
  // cut other runs: refused.
  memory = original;
  memory[4 * kPage] = 1;
  EXPECT_FALSE(patch(last, {4}, globals, copied));
  memory = original;
  std::memset(memory.data() + 7 * kPage, 0, kPage);
  EXPECT_FALSE(patch(last, {7}, globals, copied));
  memory = original;
  // Not the rank's last section of this memory: another rank's, another
  // size of memory or of globals, pages out of order or out of the memory.
  EXPECT_FALSE(patch(last, {}, globals, copied, {}, 2));
  EXPECT_FALSE(patch(last, {}, {1, 2, 3}, copied));
  EXPECT_FALSE(patch(last, {}, globals, copied, {}, 1, kMemoryBytes - 65536));
  EXPECT_FALSE(patch(last, {2, 1}, globals, copied));
  EXPECT_FALSE(patch(last, {kMemoryBytes / kPage}, globals, copied));
  // Whatever the buffer holds is checked: every cut of it, and lying runs.
  for (size_t cut = 0; cut < 64 && cut < last.size(); ++cut)
    EXPECT_FALSE(patch(last.substr(0, cut), {}, globals, copied)) << cut;
  EXPECT_FALSE(patch(last.substr(0, last.size() - 5000), {}, globals, copied));
  const size_t runsAt = 4 + 4 + 4 + globals.size() + 8 + 4;
  for (uint64_t lie : {uint64_t(1), uint64_t(kMemoryBytes), ~uint64_t(0) - 4095}) {
    std::string lying = last;
    std::memcpy(lying.data() + runsAt + 8, &lie, sizeof lie);  // the first run's length
    EXPECT_FALSE(patch(lying, {}, globals, copied)) << lie;
  }
  // Untouched, the section is rebuilt as it was, but for the unwind buffer
  // the patch names.
  auto same = patch(last, {}, globals, copied);
  ASSERT_TRUE(same);
  EXPECT_TRUE(*same == encodeRankSection(1, 131072, globals, memory.data(), kMemoryBytes));
  EXPECT_EQ(copied, 0u);
}

// The coordinator writes encodeCheckpointHead's bytes and then the
// sections from where they are (part 0 puts every part's in world rank
// order): that must be encodeCheckpoint's file.
TEST(CheckpointFile, AHeadFollowedByItsSectionsIsTheFile) {
  std::vector<std::string> sections;
  for (uint32_t rank = 0; rank < 3; ++rank)
    sections.push_back(encodeRankSection(rank, 65536, {1, uint8_t(rank)},
                                         sampleMemory(uint8_t(rank + 1)).data(), kMemoryBytes));
  std::vector<std::string_view> views(sections.begin(), sections.end());
  std::string file = encodeCheckpointHead(9, programDigest(), views, sampleJob());
  for (const std::string& section : sections) file += section;
  EXPECT_EQ(file, encodeCheckpoint(9, programDigest(), sections, sampleJob()));
  std::string error;
  auto image = decodeCheckpoint(file, error);
  ASSERT_TRUE(image) << error;
  EXPECT_EQ(image->ranks.size(), 3u);
  EXPECT_EQ(image->ranks[2].globals, (std::vector<uint8_t>{1, 2}));
}

// A host part's file, which part 0 reads back from a shared directory.
// Its ranks need not be consecutive (a rank moved live leaves a gap): each
// section comes back as its own view, for part 0 to put in rank order.
std::string partFileOf(const PartSections& part, const std::vector<std::string>& sections) {
  std::vector<uint64_t> sectionBytes;
  util::Crc32c checksum;
  std::string sectionsBytes;
  for (const std::string& section : sections) {
    sectionBytes.push_back(section.size());
    checksum.update(section);
    sectionsBytes += section;
  }
  return encodePartFileHead(part, sectionBytes, checksum.value()) + sectionsBytes;
}

TEST(CheckpointPartFile, RoundTripAndRefusals) {
  std::vector<std::string> sections{"rank 1's bytes", "rank 4's", "rank 5"};
  PartSections part{12, 2, {1, 4, 5}, "a reason", {}};
  std::string file = partFileOf(part, sections);
  std::string error;
  auto decoded = decodePartFile(file, part, error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_EQ(decoded->ranks, (std::vector<uint32_t>{1, 4, 5}));
  EXPECT_EQ(decoded->sections,
            (std::vector<std::string_view>{sections[0], sections[1], sections[2]}));
  EXPECT_EQ(decoded->unresumable, "a reason");

  PartSections otherCheckpoint = part;
  otherCheckpoint.sequence = 11;
  EXPECT_FALSE(decodePartFile(file, otherCheckpoint, error));
  EXPECT_EQ(error, "the part file is not part 2 of checkpoint 11");
  for (std::vector<uint32_t> ranks : {std::vector<uint32_t>{1, 4, 6}, {1, 4}, {1, 4, 5, 6}}) {
    PartSections otherRanks = part;
    otherRanks.ranks = ranks;
    EXPECT_FALSE(decodePartFile(file, otherRanks, error));
    EXPECT_EQ(error, "the part file is not part 2 of checkpoint 12");
  }
  EXPECT_FALSE(decodePartFile(file.substr(0, file.size() - 1), part, error));
  EXPECT_EQ(error, "the part file's length is not the one its header gives");
  EXPECT_FALSE(decodePartFile(file.substr(0, 20), part, error));
  EXPECT_EQ(error, "the part file is truncated");
  // A section length past the end of the file: u64 at offset 8 + 4 + 8 +
  // 4 + 4 (count) + 4 (rank 1).
  std::string tooLong = file;
  tooLong[39] = char(0x80);
  EXPECT_FALSE(decodePartFile(tooLong, part, error));
  EXPECT_EQ(error, "the part file's length is not the one its header gives");
  std::string corrupt = file;
  corrupt[corrupt.size() - 3] ^= 1;
  EXPECT_FALSE(decodePartFile(corrupt, part, error));
  EXPECT_EQ(error, "the part file's checksum does not match (corrupt)");
  // The checksum itself, the four bytes before the sections.
  std::string corruptChecksum = file;
  corruptChecksum[file.size() - sections[0].size() - sections[1].size() - sections[2].size() -
                  1] ^= 0x80;
  EXPECT_FALSE(decodePartFile(corruptChecksum, part, error));
  EXPECT_EQ(error, "the part file's checksum does not match (corrupt)");
  // A version 2 file (first rank and count instead of the list).
  std::string version2 = file;
  version2[8] = 2;
  EXPECT_FALSE(decodePartFile(version2, part, error));
  EXPECT_EQ(error, "the part file is not part 2 of checkpoint 12");
  EXPECT_FALSE(decodePartFile("SYNCKPT", part, error));
  EXPECT_EQ(error, "not a part of a Synergy checkpoint");
}

// Part 0 reads only a part file's head, at most maxPartFileHeadBytes of
// it, and checks the sections by their CRC-32C as it copies them.
TEST(CheckpointPartFile, HeadAloneGivesTheSectionsAndChecksThem) {
  std::vector<std::string> sections{std::string(5000, 'a'), "", std::string(2 << 20, 'c')};
  PartSections part{3, 1, {0, 2, 7}, "", {}};
  std::string file = partFileOf(part, sections);
  std::string_view prefix = std::string_view(file).substr(0, maxPartFileHeadBytes(3));
  ASSERT_LT(prefix.size(), file.size());
  std::string error;
  auto head = decodePartFileHead(prefix, file.size(), part, error);
  ASSERT_TRUE(head) << error;
  EXPECT_EQ(head->sectionBytes, (std::vector<uint64_t>{5000, 0, 2 << 20}));
  EXPECT_EQ(head->headBytes, file.size() - 5000 - (2 << 20));
  util::Crc32c checksum;
  checksum.update(std::string_view(file).substr(head->headBytes));
  EXPECT_TRUE(head->sectionsMatch(checksum.value()));
  checksum.update("x");
  EXPECT_FALSE(head->sectionsMatch(checksum.value()));
  // The file's length, not the prefix's, is what the lengths must fill.
  EXPECT_FALSE(decodePartFileHead(prefix, file.size() + 1, part, error));
  EXPECT_EQ(error, "the part file's length is not the one its header gives");
  EXPECT_FALSE(decodePartFileHead(prefix.substr(0, 40), file.size(), part, error));
  EXPECT_EQ(error, "the part file is truncated");
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
            "checkpoint format version 9 is not version 8, the one this synergy-run reads "
            "(checkpoint again with this build)");
  // Version 2, before grants and the environment were recorded, 3, before
  // open files were, 4, before MPI objects were, 5, before the output
  // counts of host parts were, 6, with a SHA-256 where the CRC-32C is, and
  // 7, before the communicators' counts of nonblocking collectives were.
  for (char old : {2, 3, 4, 5, 6, 7}) {
    file[8] = old;
    EXPECT_NE(refusal(file).find("checkpoint format version " + std::to_string(old) +
                                 " is not version 8"),
              std::string::npos);
  }
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
  // A flipped bit in the sequence, the program digest or the checksum itself.
  for (size_t at : {size_t(16), size_t(30), kHeaderBytes - 4, kHeaderBytes - 1}) {
    std::string flipped = sampleFile();
    flipped[at] ^= 0x01;
    EXPECT_EQ(refusal(flipped),
              "the checkpoint's checksum does not match its contents (corrupt file)")
        << "byte " << at;
  }
}

// A resumed part of a job whose hosts keep their own checkpoints gets the
// file from part 0 (cluster/CheckpointAgreement.h): the bytes get the
// checks of a file read from disk, and the errors name where they came
// from.
TEST(CheckpointFile, BytesFromElsewhereAreCheckedAsAFileIs) {
  const std::string origin = "the checkpoint 5 part 0 sent";
  std::string error;
  std::string corrupt = sampleFile();
  corrupt[corrupt.size() / 2] ^= 0x40;
  EXPECT_FALSE(resumableCheckpoint(corrupt, origin, "", error).has_value());
  EXPECT_EQ(error, origin + ": the checkpoint's checksum does not match its contents (corrupt file)");
  std::string whole = sampleFile();
  EXPECT_FALSE(resumableCheckpoint(whole.substr(0, whole.size() - 1), origin, "", error));
  EXPECT_EQ(error.rfind(origin + ": ", 0), 0u) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // A sound file of another program.
  char path[] = "/tmp/synergy-resumable-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "other", 5), 5);
  close(fd);
  EXPECT_FALSE(resumableCheckpoint(sampleFile(), origin, path, error).has_value());
  EXPECT_EQ(error, "cannot resume from " + origin +
                       ": prog.wasm is not the program that was checkpointed (its SHA-256 differs)");
  unlink(path);
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
  uint32_t manyParts = 0x7fffffff;
  EXPECT_EQ(refusal(patched(kJobBytes - 4, &manyParts, 4)),
            "the job record has more host parts than the file can hold");
}

TEST(CheckpointFile, KeepsTheOutputCountsOfHostParts) {
  JobRecord job = sampleJob();
  job.partOutputs = {{77, 0, 120}, {77, 2, 1u << 20}};
  std::vector<std::string> sections;
  for (uint32_t rank = 0; rank < 2; ++rank)
    sections.push_back(encodeRankSection(rank, 65536, {1, 2}, sampleMemory(uint8_t(rank)).data(),
                                         kMemoryBytes));
  std::string error;
  auto image = decodeCheckpoint(encodeCheckpoint(3, Digest{}, sections, job), error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->job.partOutputs.size(), 2u);
  EXPECT_EQ(image->job.partOutputs[1].jobId, 77u);
  EXPECT_EQ(image->job.partOutputs[1].part, 2u);
  EXPECT_EQ(image->job.partOutputs[1].stdoutBytes, 1u << 20);
  EXPECT_EQ(image->job.partOutputs[0].stdoutBytes, 120u);
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

// A writable log at descriptor 4, the first above sampleJob()'s one
// preopen.
OpenFile sampleOpenFile() {
  OpenFile file;
  file.guestFd = 4;
  file.grant = 0;
  file.path = "logs/rank0.log";
  file.access = OpenFile::kReadable | OpenFile::kWritable;
  file.fdflags = 1;  // append
  file.rightsBase = 0x1234;
  file.rightsInheriting = 0x5678;
  file.offset = 17;
  file.lengthToRestore = 40;
  return file;
}

// The MPI objects of a rank that has none: twelve u32 counts and counters
// and the u64 next attribute order.
constexpr size_t kEmptyMpiObjectsBytes = 12 * 4 + 8;

// A one-rank checkpoint of sampleJob() whose rank holds `files`; `cut`
// bytes are taken off the end of the rank's section (the header still
// agrees with the payload, so the section parser meets the cut).
std::string fileWithOpenFiles(const std::vector<OpenFile>& files, size_t cut = 0) {
  std::vector<uint8_t> memory = sampleMemory(7);
  std::string section = encodeRankSection(0, 65536, {1, 2}, memory.data(), kMemoryBytes, files);
  section.resize(section.size() - cut);
  return encodeCheckpoint(1, programDigest(), {section}, sampleJob());
}

TEST(CheckpointFile, OpenFilesRoundTrip) {
  OpenFile directory;
  directory.guestFd = 9;
  directory.path = ".";
  directory.kind = OpenFile::Kind::Directory;
  std::string error;
  std::optional<CheckpointImage> image =
      decodeCheckpoint(fileWithOpenFiles({sampleOpenFile(), directory}), error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->ranks[0].files.size(), 2u);
  const OpenFile& log = image->ranks[0].files[0];
  EXPECT_EQ(log.guestFd, 4u);
  EXPECT_EQ(log.path, "logs/rank0.log");
  EXPECT_EQ(log.access, OpenFile::kReadable | OpenFile::kWritable);
  EXPECT_EQ(log.fdflags, 1u);
  EXPECT_EQ(log.rightsBase, 0x1234u);
  EXPECT_EQ(log.rightsInheriting, 0x5678u);
  EXPECT_EQ(log.offset, 17u);
  EXPECT_EQ(log.lengthToRestore, 40);
  EXPECT_EQ(image->ranks[0].files[1].kind, OpenFile::Kind::Directory);
  EXPECT_EQ(image->ranks[0].files[1].path, ".");
}

// Each row changes one field of a good open file; the checksum is right,
// so what refuses the file is the record check, with a one-line reason.
TEST(CheckpointFile, RefusesLyingOpenFilesBehindAGoodChecksum) {
  struct Row {
    const char* what;
    std::function<void(OpenFile&)> lie;
    const char* reason;
  };
  const char* order = "is out of order, a preopen's or past 4096";
  const char* notPlain = "has a path that is not plain and relative to its grant";
  const char* unknown = "has an unknown kind, access mode or flag";
  const char* misfit = "has an offset or length that does not fit its kind and access";
  std::vector<Row> rows = {
      {"a preopen's number", [](OpenFile& f) { f.guestFd = 3; }, order},
      {"stdout's number", [](OpenFile& f) { f.guestFd = 1; }, order},
      {"past the table", [](OpenFile& f) { f.guestFd = 4096; }, order},
      {"a missing grant", [](OpenFile& f) { f.grant = 1; }, "names --dir grant 1 of 1"},
      {"an absurd grant", [](OpenFile& f) { f.grant = 0xffffffff; }, "names --dir grant"},
      {"dot-dot", [](OpenFile& f) { f.path = "../etc/passwd"; }, notPlain},
      {"dot-dot inside", [](OpenFile& f) { f.path = "logs/../../x"; }, notPlain},
      {"absolute", [](OpenFile& f) { f.path = "/etc/passwd"; }, notPlain},
      {"empty", [](OpenFile& f) { f.path = ""; }, notPlain},
      {"empty component", [](OpenFile& f) { f.path = "logs//x"; }, notPlain},
      {"trailing slash", [](OpenFile& f) { f.path = "logs/"; }, notPlain},
      {"dot inside", [](OpenFile& f) { f.path = "logs/./x"; }, notPlain},
      {"NUL", [](OpenFile& f) { f.path = std::string("lo\0gs", 5); }, notPlain},
      {"over-long path", [](OpenFile& f) { f.path = std::string(5000, 'a'); },
       "truncated or over-long open file record"},
      {"unknown kind", [](OpenFile& f) { f.kind = OpenFile::Kind(2); }, unknown},
      {"no access", [](OpenFile& f) { f.access = 0; }, unknown},
      {"unknown access", [](OpenFile& f) { f.access = 4; }, unknown},
      {"unknown flag", [](OpenFile& f) { f.fdflags = 0x20; }, unknown},
      {"writable directory",
       [](OpenFile& f) {
         f.kind = OpenFile::Kind::Directory;
         f.offset = 0;
       },
       misfit},
      {"directory with offset",
       [](OpenFile& f) {
         f.kind = OpenFile::Kind::Directory;
         f.access = OpenFile::kReadable;
         f.lengthToRestore = -1;
       },
       misfit},
      {"writable without length", [](OpenFile& f) { f.lengthToRestore = -1; }, misfit},
      {"read-only with length", [](OpenFile& f) { f.access = OpenFile::kReadable; }, misfit},
      {"negative length", [](OpenFile& f) { f.lengthToRestore = -2; }, misfit},
      {"absurd offset", [](OpenFile& f) { f.offset = ~uint64_t(0); }, misfit},
  };
  for (const Row& row : rows) {
    OpenFile file = sampleOpenFile();
    row.lie(file);
    std::string reason = refusal(fileWithOpenFiles({file}));
    EXPECT_NE(reason.find(row.reason), std::string::npos) << row.what << ": " << reason;
    EXPECT_EQ(reason.rfind("rank 0: ", 0), 0u) << row.what << ": " << reason;
  }
  // Two files at one number, or out of order.
  OpenFile second = sampleOpenFile();
  EXPECT_NE(refusal(fileWithOpenFiles({sampleOpenFile(), second})).find(order), std::string::npos);
  second.guestFd = 3;
  EXPECT_NE(refusal(fileWithOpenFiles({sampleOpenFile(), second})).find(order), std::string::npos);
}

TEST(CheckpointFile, RefusesTruncatedOrUncountableOpenFiles) {
  // Cut inside the record, and inside the count.
  std::string file = fileWithOpenFiles({sampleOpenFile()}, kEmptyMpiObjectsBytes + 5);
  EXPECT_NE(refusal(file).find("truncated or over-long open file record"), std::string::npos);
  std::string noCount = fileWithOpenFiles({}, kEmptyMpiObjectsBytes + 2);
  EXPECT_NE(refusal(noCount).find("truncated open file count"), std::string::npos);
  // A count no file can hold, behind a good checksum.
  std::string many = fileWithOpenFiles({});
  uint32_t count = 0x7fffffff;
  std::memcpy(many.data() + many.size() - kEmptyMpiObjectsBytes - 4, &count, 4);
  EXPECT_NE(refusal(withFreshChecksum(many)).find("more open files than the file can hold"),
            std::string::npos);
}

TEST(CheckpointFile, PlainRelativePaths) {
  for (const char* good : {".", "a", "a/b", "a.b/c..d", "...", ".hidden"})
    EXPECT_TRUE(isPlainRelativePath(good)) << good;
  for (const char* bad : {"", "/", "/a", "a/", "..", "a/..", "./a", "a/./b", "a//b"})
    EXPECT_FALSE(isPlainRelativePath(bad)) << bad;
}

// A scratch directory tree, removed at the end of the test.
class CheckpointOpenFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/synergy-openfile-XXXXXX";
    ASSERT_TRUE(mkdtemp(pattern));
    root_ = pattern;
    ASSERT_EQ(system(("mkdir -p " + root_ + "/grant/logs " + root_ + "/outside").c_str()), 0);
    write(root_ + "/grant/logs/rank0.log", std::string(40, 'x'));
    write(root_ + "/outside/secret.log", std::string(40, 's'));
  }
  void TearDown() override { system(("rm -rf " + root_).c_str()); }
  static void write(const std::string& path, const std::string& bytes) {
    std::ofstream(path) << bytes;
  }
  std::string check(const OpenFile& file, bool readOnly = false) {
    std::string error;
    std::vector<sandbox::Grant> grants = {{root_ + "/grant", "/g", readOnly}};
    bool accepted = checkOpenFiles(grants, {file}, error);
    EXPECT_EQ(accepted, error.empty());
    EXPECT_EQ(error.find('\n'), std::string::npos);
    return error;
  }
  std::string root_;
};

TEST_F(CheckpointOpenFiles, AcceptsTheRecordedFile) { EXPECT_EQ(check(sampleOpenFile()), ""); }

TEST_F(CheckpointOpenFiles, RefusesASymbolicLinkOutOfTheGrant) {
  ASSERT_EQ(symlink((root_ + "/outside").c_str(), (root_ + "/grant/out").c_str()), 0);
  OpenFile file = sampleOpenFile();
  file.path = "out/secret.log";
  EXPECT_NE(check(file).find("leads out of its grant"), std::string::npos);
  ASSERT_EQ(symlink("../outside/secret.log", (root_ + "/grant/logs/link.log").c_str()), 0);
  file.path = "logs/link.log";
  EXPECT_NE(check(file).find("is now a symbolic link"), std::string::npos);
}

TEST_F(CheckpointOpenFiles, RefusesWhatChangedSinceTheCheckpoint) {
  OpenFile file = sampleOpenFile();
  file.path = "logs/gone.log";
  EXPECT_NE(check(file).find("cannot be reopened: No such file or directory"), std::string::npos);
  file = sampleOpenFile();
  file.lengthToRestore = 41;
  EXPECT_NE(check(file).find("holds 40 bytes, fewer than the 41"), std::string::npos);
  file = sampleOpenFile();
  file.path = "logs";
  file.access = OpenFile::kReadable;
  file.lengthToRestore = -1;
  EXPECT_NE(check(file).find("is no longer a regular file"), std::string::npos);
  // Writing below a read-only grant is what the guest could never do.
  EXPECT_NE(check(sampleOpenFile(), /*readOnly=*/true).find("open for writing below a read-only grant"),
            std::string::npos);
  // Nothing was cut back or created by the checks.
  std::ifstream log(root_ + "/grant/logs/rank0.log");
  std::string bytes((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.size(), 40u);
  EXPECT_NE(access((root_ + "/grant/logs/gone.log").c_str(), F_OK), 0);
}


// Rank 0's MPI objects as a program leaves them: a vector of ints built on
// a contiguous pair (node 0), both named, a freed handle between them, a
// group, an op, two keyvals, an error handler, and its communicators:
// MPI_COMM_WORLD with an attribute and MPI_ERRORS_RETURN, MPI_COMM_SELF,
// and a periodic ring of both ranks in reverse order, named, with the
// program's error handler.
MpiObjects sampleMpiObjects() {
  MpiObjects objects;
  DatatypeNode pair;
  pair.segments = {{0, 8}};
  pair.size = 8;
  pair.ub = pair.trueUb = 8;
  pair.alignment = 4;
  pair.element = uint8_t(mpi::ElementKind::Int32);
  pair.combiner = mpi::abi::kCombinerContiguous;
  pair.committed = true;
  pair.integers = {2};
  pair.oldTypes = {{/*MPI_INT*/ 6, 0}};
  DatatypeNode vector;
  vector.segments = {{0, 8}, {16, 8}};
  vector.size = 16;
  vector.ub = vector.trueUb = 24;
  vector.alignment = 4;
  vector.element = uint8_t(mpi::ElementKind::Int32);
  vector.combiner = mpi::abi::kCombinerVector;
  vector.integers = {2, 1, 2};
  vector.oldTypes = {{0, 0}};
  objects.typeNodes = {pair, vector};
  objects.types = {{63, 0}, {65, 1}};
  objects.typeNames = {{6, "my int"}, {65, "vec"}};
  objects.groups = {{2, {1, 0}}, {4, {}}};
  objects.nextOp = 17;
  objects.ops = {{16, 5, true}};
  objects.nextKeyval = 34;
  objects.keyvals = {{32, 0, 7, 99, true}, {33, 3, 0, 0, false}};
  objects.nextAttributeOrder = 5;
  objects.nextErrorHandler = 4;
  objects.commErrorHandlers = {{3, 11}};
  objects.nextContext = 7;
  MpiObjects::CommRecord world{1, 0, {0, 1}, "MPI_COMM_WORLD", 2, false, {}, {}, {{33, 1234, 4}}, 3};
  MpiObjects::CommRecord self{2, 1, {0}, "MPI_COMM_SELF", 1, false, {}, {}, {}};
  MpiObjects::CommRecord ring{3, 4, {1, 0}, "ring", 3, true, {2}, {1}, {}, 5, 2};
  objects.comms = {world, self, ring};
  return objects;
}

// A two-rank checkpoint of sampleJob() whose rank 0 holds `objects`; `cut`
// bytes are taken off the end of its section.
std::string fileWithMpiObjects(const MpiObjects& objects, size_t cut = 0) {
  std::vector<uint8_t> memory = sampleMemory(7);
  std::string section =
      encodeRankSection(0, 65536, {1, 2}, memory.data(), kMemoryBytes, {}, objects);
  section.resize(section.size() - cut);
  return encodeCheckpoint(1, programDigest(), {section, encodeRankSection(1, 65536, {1, 2}, memory.data(), kMemoryBytes)},
                          sampleJob());
}

TEST(CheckpointFile, MpiObjectsRoundTrip) {
  std::string error;
  std::optional<CheckpointImage> image = decodeCheckpoint(fileWithMpiObjects(sampleMpiObjects()), error);
  ASSERT_TRUE(image) << error;
  const MpiObjects& objects = image->ranks[0].mpi;
  ASSERT_EQ(objects.typeNodes.size(), 2u);
  const DatatypeNode& vector = objects.typeNodes[1];
  ASSERT_EQ(vector.segments.size(), 2u);
  EXPECT_EQ(vector.segments[1].offset, 16);
  EXPECT_EQ(vector.segments[1].length, 8);
  EXPECT_EQ(vector.size, 16);
  EXPECT_EQ(vector.ub, 24);
  EXPECT_EQ(vector.trueUb, 24);
  EXPECT_EQ(vector.alignment, 4);
  EXPECT_EQ(vector.combiner, mpi::abi::kCombinerVector);
  EXPECT_FALSE(vector.committed);
  EXPECT_TRUE(objects.typeNodes[0].committed);
  EXPECT_EQ(vector.integers, (std::vector<int32_t>{2, 1, 2}));
  ASSERT_EQ(vector.oldTypes.size(), 1u);
  EXPECT_EQ(vector.oldTypes[0].predefined, 0);
  EXPECT_EQ(vector.oldTypes[0].node, 0u);
  EXPECT_EQ(objects.typeNodes[0].oldTypes[0].predefined, 6);
  EXPECT_EQ(objects.types, (std::vector<std::pair<uint32_t, uint32_t>>{{63, 0}, {65, 1}}));
  EXPECT_EQ(objects.typeNames,
            (std::vector<std::pair<uint32_t, std::string>>{{6, "my int"}, {65, "vec"}}));
  ASSERT_EQ(objects.groups.size(), 2u);
  EXPECT_EQ(objects.groups[0].handle, 2u);
  EXPECT_EQ(objects.groups[0].worldRanks, (std::vector<uint32_t>{1, 0}));
  EXPECT_TRUE(objects.groups[1].worldRanks.empty());
  EXPECT_EQ(objects.nextOp, 17u);
  ASSERT_EQ(objects.ops.size(), 1u);
  EXPECT_EQ(objects.ops[0].handle, 16u);
  EXPECT_EQ(objects.ops[0].function, 5u);
  EXPECT_TRUE(objects.ops[0].commutative);
  EXPECT_EQ(objects.nextKeyval, 34u);
  ASSERT_EQ(objects.keyvals.size(), 2u);
  EXPECT_EQ(objects.keyvals[0].deleteFunction, 7u);
  EXPECT_EQ(objects.keyvals[0].extraState, 99u);
  EXPECT_TRUE(objects.keyvals[0].freed);
  EXPECT_EQ(objects.keyvals[1].copyFunction, 3u);
  EXPECT_FALSE(objects.keyvals[1].freed);
  EXPECT_EQ(objects.nextErrorHandler, 4u);
  EXPECT_EQ(objects.commErrorHandlers, (std::vector<std::pair<uint32_t, uint32_t>>{{3, 11}}));
  EXPECT_EQ(objects.nextContext, 7u);
  ASSERT_EQ(objects.comms.size(), 3u);
  EXPECT_EQ(objects.nextAttributeOrder, 5u);
  EXPECT_EQ(objects.comms[0].attributes, (std::vector<MpiObjects::AttributeRecord>{{33, 1234, 4}}));
  EXPECT_EQ(objects.comms[0].errhandler, 2u);
  EXPECT_EQ(objects.comms[1].name, "MPI_COMM_SELF");
  const MpiObjects::CommRecord& ring = objects.comms[2];
  EXPECT_EQ(ring.handle, 3u);
  EXPECT_EQ(ring.context, 4u);
  EXPECT_EQ(ring.worldRanks, (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(ring.name, "ring");
  EXPECT_EQ(ring.errhandler, 3u);
  EXPECT_TRUE(ring.cartesian);
  EXPECT_EQ(ring.dims, (std::vector<int32_t>{2}));
  EXPECT_EQ(ring.periods, (std::vector<uint8_t>{1}));
  EXPECT_EQ(objects.comms[0].nonblockingCollectives, 3u);
  EXPECT_EQ(objects.comms[1].nonblockingCollectives, 0u);
  EXPECT_EQ(ring.nonblockingCollectives, 5u);
  EXPECT_EQ(ring.windowsSpanningHosts, 2u);
  // Rank 1 made none.
  EXPECT_TRUE(image->ranks[1].mpi.typeNodes.empty());
  EXPECT_EQ(image->ranks[1].mpi.nextOp, uint32_t(mpi::abi::kLastPredefinedOp + 1));
}

// Each row changes one field of sampleMpiObjects(); the checksum is right,
// so what refuses the file is the object check, with a one-line reason.
TEST(CheckpointFile, RefusesLyingMpiObjectsBehindAGoodChecksum) {
  struct Row {
    const char* what;
    std::function<void(MpiObjects&)> lie;
    const char* reason;
  };
  const char* bounds = "has bounds, a size or an alignment no datatype has";
  const char* segment = "has a segment outside its true bounds";
  const char* old = "names an old type that is neither predefined nor an earlier node";
  const char* unknown = "has an unknown element kind, combiner or commit flag";
  const char* handle = "a datatype handle is truncated, out of order, out of range or names no node";
  const char* name = "a datatype name is truncated, too long or names no live datatype";
  const char* group = "is not a distinct world rank of the job";
  const char* op = "a user-defined op is truncated, out of order or past the next op handle";
  const char* keyval = "a predefined key's or past the next keyval";
  const char* comm = "a communicator record is truncated, has a member that is not a distinct world "
                     "rank of the job, or attributes out of order or set after the next attribute";
  const char* notMine = "does not hold this rank, or its context or size is not one it can have";
  const char* cart = "has a cartesian topology whose dimensions do not multiply to its size";
  const char* commName = "has a name that is too long or holds NUL";
  auto vector = [](MpiObjects& o) -> DatatypeNode& { return o.typeNodes[1]; };
  std::vector<Row> rows = {
      {"segment past trueUb", [&](MpiObjects& o) { vector(o).segments[1].length = 9; }, segment},
      {"segment below trueLb", [&](MpiObjects& o) { vector(o).segments[0].offset = -1; }, segment},
      {"empty segment", [&](MpiObjects& o) { vector(o).segments[0].length = 0; }, segment},
      {"wrapping segment",
       [&](MpiObjects& o) { vector(o).segments[1] = {INT64_MAX - 2, 8}; }, segment},
      {"size that lies", [&](MpiObjects& o) { vector(o).size = 24; }, "not its size 24"},
      {"negative size", [&](MpiObjects& o) { vector(o).size = -16; }, bounds},
      {"inverted true bounds", [&](MpiObjects& o) { vector(o).trueLb = 30; }, bounds},
      {"overflowing extent",
       [&](MpiObjects& o) {
         vector(o).lb = INT64_MIN;
         vector(o).ub = INT64_MAX;
       },
       bounds},
      {"odd alignment", [&](MpiObjects& o) { vector(o).alignment = 3; }, bounds},
      {"zero alignment", [&](MpiObjects& o) { vector(o).alignment = 0; }, bounds},
      {"unknown element", [&](MpiObjects& o) { vector(o).element = 200; }, unknown},
      {"named combiner", [&](MpiObjects& o) { vector(o).combiner = 0; }, unknown},
      {"unknown combiner", [&](MpiObjects& o) { vector(o).combiner = 99; }, unknown},
      {"forward node", [&](MpiObjects& o) { vector(o).oldTypes[0].node = 1; }, old},
      {"node and handle", [&](MpiObjects& o) { o.typeNodes[0].oldTypes[0].node = 1; }, old},
      {"unknown predefined", [&](MpiObjects& o) { vector(o).oldTypes[0].predefined = 63; }, old},
      {"negative predefined", [&](MpiObjects& o) { vector(o).oldTypes[0].predefined = -1; }, old},
      {"predefined handle", [](MpiObjects& o) { o.types[0].first = 62; }, handle},
      {"handle out of order", [](MpiObjects& o) { o.types[1].first = 63; }, handle},
      {"huge handle", [](MpiObjects& o) { o.types[1].first = 0xffffffff; }, handle},
      {"missing node", [](MpiObjects& o) { o.types[1].second = 2; }, handle},
      {"name of a dead type", [](MpiObjects& o) { o.typeNames[1].first = 64; }, name},
      {"long name", [](MpiObjects& o) { o.typeNames[1].second = std::string(64, 'n'); }, name},
      {"NUL in a name", [](MpiObjects& o) { o.typeNames[1].second = std::string("v\0c", 3); }, name},
      {"predefined group", [](MpiObjects& o) { o.groups[0].handle = 1; }, "a group is truncated"},
      {"member past the job", [](MpiObjects& o) { o.groups[0].worldRanks[0] = 2; }, group},
      {"member twice", [](MpiObjects& o) { o.groups[0].worldRanks = {1, 1}; }, group},
      {"predefined op", [](MpiObjects& o) { o.ops[0].handle = 14; }, op},
      {"op past next", [](MpiObjects& o) { o.nextOp = 16; }, op},
      {"next op predefined", [](MpiObjects& o) { o.nextOp = 3; }, op},
      {"predefined keyval", [](MpiObjects& o) { o.keyvals[0].handle = 5; }, keyval},
      {"keyval past next", [](MpiObjects& o) { o.nextKeyval = 33; }, keyval},
      {"predefined error handler", [](MpiObjects& o) { o.commErrorHandlers[0].first = 2; },
       "an error handler is truncated, out of order, predefined"},
      {"error handler past next", [](MpiObjects& o) { o.nextErrorHandler = 3; },
       "an error handler is truncated"},
      {"comm member past the job", [](MpiObjects& o) { o.comms[2].worldRanks = {1, 2}; }, comm},
      {"comm member twice", [](MpiObjects& o) { o.comms[2].worldRanks = {1, 1}; }, comm},
      {"not a member",
       [](MpiObjects& o) {
         o.comms[2].worldRanks = {1};
         o.comms[2].dims = {1};
       },
       notMine},
      {"world of another context", [](MpiObjects& o) { o.comms[0].context = 3; }, notMine},
      {"world of one rank", [](MpiObjects& o) { o.comms[0].worldRanks = {0}; }, notMine},
      {"another rank's self", [](MpiObjects& o) { o.comms[1].context = 2; }, notMine},
      {"a predefined context", [](MpiObjects& o) { o.comms[2].context = 2; }, notMine},
      {"a context with the bit of collectives across hosts",
       [](MpiObjects& o) { o.comms[2].context = 1u << 31; }, notMine},
      {"comm handle out of order", [](MpiObjects& o) { o.comms[2].handle = 2; },
       "is out of order or out of range"},
      {"unknown error handler", [](MpiObjects& o) { o.comms[2].errhandler = 5; },
       "has error handler 5, not one of the rank's"},
      {"attribute of no keyval", [](MpiObjects& o) { o.comms[0].attributes = {{40, 1}}; },
       "has an attribute of keyval 40, not one of the rank's"},
      {"attributes out of order",
       [](MpiObjects& o) { o.comms[0].attributes = {{33, 1}, {32, 2}}; }, comm},
      {"attribute set after the next one",
       [](MpiObjects& o) { o.comms[0].attributes = {{33, 1, 5}}; }, comm},
      {"long comm name", [](MpiObjects& o) { o.comms[2].name = std::string(64, 'r'); }, commName},
      {"over-long comm name", [](MpiObjects& o) { o.comms[2].name = std::string(65, 'r'); }, comm},
      {"NUL in a comm name", [](MpiObjects& o) { o.comms[2].name = std::string("r\0g", 3); },
       commName},
      {"dimensions too few", [](MpiObjects& o) { o.comms[2].dims = {1}; }, cart},
      {"dimensions too many",
       [](MpiObjects& o) {
         o.comms[2].dims = {2, 2};
         o.comms[2].periods = {0, 0};
       },
       cart},
      {"zero dimension", [](MpiObjects& o) { o.comms[2].dims = {0}; }, cart},
      {"negative dimensions",
       [](MpiObjects& o) {
         o.comms[2].dims = {-1, -2};
         o.comms[2].periods = {0, 0};
       },
       cart},
      {"unknown period", [](MpiObjects& o) { o.comms[2].periods = {2}; }, cart},
      {"dimensions without topology", [](MpiObjects& o) { o.comms[2].cartesian = false; }, cart},
  };
  for (const Row& row : rows) {
    MpiObjects objects = sampleMpiObjects();
    row.lie(objects);
    std::string reason = refusal(fileWithMpiObjects(objects));
    EXPECT_NE(reason.find(row.reason), std::string::npos) << row.what << ": " << reason;
    EXPECT_EQ(reason.rfind("rank 0: ", 0), 0u) << row.what << ": " << reason;
  }
}

TEST(CheckpointFile, RefusesTruncatedOrUncountableMpiObjects) {
  // Cut nine bytes short: the ring's two counts (any value is one) and a
  // byte of its attribute count.
  EXPECT_NE(refusal(fileWithMpiObjects(sampleMpiObjects(), 9)).find("a communicator record is truncated"),
            std::string::npos);
  // A node count no file can hold, behind a good checksum: the count is
  // the first field after the (empty) open file count.
  std::string file = fileWithMpiObjects(sampleMpiObjects());
  std::string section = encodeRankSection(0, 65536, {1, 2}, sampleMemory(7).data(), kMemoryBytes);
  size_t nodeCountAt = kHeaderBytes + kJobBytes + section.size() - kEmptyMpiObjectsBytes;
  uint32_t count = 0x7fffffff;
  std::memcpy(file.data() + nodeCountAt, &count, 4);
  EXPECT_EQ(refusal(withFreshChecksum(file)),
            "rank 0: more datatype nodes than the file can hold");
  // A segment count past what a datatype may hold.
  MpiObjects many = sampleMpiObjects();
  many.typeNodes[0].segments.assign(size_t(mpi::kMaxTypeSegments) + 1, {0, 1});
  EXPECT_NE(refusal(fileWithMpiObjects(many)).find("has more segments than a datatype may have"),
            std::string::npos);
}

// The whole job's check (MpiObjectRecord.h): a communicator is one object,
// so every member's record of a context must describe the same one.
TEST(CheckpointFile, RefusesRanksThatDisagreeOnACommunicator) {
  std::vector<RankImage> ranks(2);
  ranks[0].worldRank = 0;
  ranks[1].worldRank = 1;
  ranks[0].mpi = sampleMpiObjects();
  ranks[1].mpi.nextContext = 7;
  ranks[1].mpi.comms = {{3, 4, {1, 0}, "ring", 1, true, {2}, {1}, {}, 5, 2}};
  std::string error;
  EXPECT_TRUE(checkSharedCommunicators(ranks, error)) << error;
  const char* disagree =
      "rank 1's communicator 3 and rank 0's communicator 3 share a context but not their "
      "members, name, topology or counts of nonblocking collectives and windows";
  auto refusedWith = [&](const std::function<void(MpiObjects::CommRecord&)>& lie) {
    std::vector<RankImage> lying = ranks;
    lie(lying[1].mpi.comms[0]);
    std::string reason;
    EXPECT_FALSE(checkSharedCommunicators(lying, reason));
    return reason;
  };
  EXPECT_EQ(refusedWith([](MpiObjects::CommRecord& c) { c.worldRanks = {0, 1}; }), disagree);
  EXPECT_EQ(refusedWith([](MpiObjects::CommRecord& c) { c.name = "rung"; }), disagree);
  EXPECT_EQ(refusedWith([](MpiObjects::CommRecord& c) { c.periods = {0}; }), disagree);
  EXPECT_EQ(refusedWith([](MpiObjects::CommRecord& c) { c.cartesian = false; }), disagree);
  // At a control point every member has started as many nonblocking
  // collectives, and made as many windows, on it.
  EXPECT_EQ(refusedWith([](MpiObjects::CommRecord& c) { c.nonblockingCollectives = 1; }), disagree);
  EXPECT_EQ(refusedWith([](MpiObjects::CommRecord& c) { c.windowsSpanningHosts = 1; }), disagree);
  // Its own error handler and attributes are each handle's.
  std::vector<RankImage> own = ranks;
  own[1].mpi.comms[0].errhandler = 2;
  EXPECT_TRUE(checkSharedCommunicators(own, error)) << error;
  // Spread over hosts, each host's ranks record their host's next context.
  std::vector<RankImage> drawn = ranks;
  drawn[1].mpi.nextContext = (2u << 18) + 5;
  EXPECT_TRUE(checkSharedCommunicators(drawn, error)) << error;
  drawn[1].mpi.nextContext = 2;
  EXPECT_FALSE(checkSharedCommunicators(drawn, error));
  EXPECT_EQ(error, "rank 1 records a next communicator context among the predefined "
                   "communicators'");
}

// What the restore checks beyond the file (MpiObjectRecord.h): an element
// kind that does not divide the size would make a reduction read past the
// packed data.
TEST(CheckpointFile, RestoreRefusesAnElementKindThatDoesNotFitTheSize) {
  MpiObjects objects = sampleMpiObjects();
  std::string error;
  EXPECT_TRUE(checkMpiObjects(objects, error)) << error;
  objects.typeNodes[1].element = uint8_t(mpi::ElementKind::Double);
  objects.typeNodes[1].segments = {{0, 8}, {16, 4}};
  objects.typeNodes[1].size = 12;
  std::string decodeError;
  ASSERT_TRUE(decodeCheckpoint(fileWithMpiObjects(objects), decodeError)) << decodeError;
  EXPECT_FALSE(checkMpiObjects(objects, error));
  EXPECT_EQ(error, "datatype node 1 has a size of 12 bytes, not a whole number of its elements");
}


// A mirror's store of a received copy (CheckpointCopy.h): a file that is
// corrupt, truncated, foreign or of another checkpoint leaves the copy it
// holds as it was; a whole one replaces it.
TEST(CheckpointCopy, KeepsOnlyAWholeCheckpointOfTheExpectedNumber) {
  char pattern[] = "/tmp/synergy-copy-XXXXXX";
  ASSERT_TRUE(mkdtemp(pattern));
  std::string directory = pattern;
  std::string path = directory + "/" + kCheckpointFileName;
  std::string error;
  auto held = [&] {
    std::string readError;
    return util::readRegularFile(path, 1 << 24, readError).value_or("");
  };
  std::string file = sampleFile();
  ASSERT_TRUE(storeCheckpointCopy(directory, file, 5, error)) << error;
  EXPECT_EQ(held(), file);
  std::string corrupt = file;
  corrupt[corrupt.size() / 2] ^= 0x40;
  EXPECT_FALSE(storeCheckpointCopy(directory, corrupt, 5, error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
  EXPECT_FALSE(storeCheckpointCopy(directory, file.substr(0, file.size() - 1), 5, error));
  EXPECT_FALSE(storeCheckpointCopy(directory, "SYCK" + std::string(60, '\0'), 5, error));
  EXPECT_FALSE(storeCheckpointCopy(directory, file, 6, error));
  EXPECT_EQ(error, "it is checkpoint 5, not 6");
  EXPECT_EQ(held(), file);
  system(("rm -rf " + directory).c_str());
}

// A holder answers before part 0 records the new checkpoint in the cluster
// state, so a restart may find the holder's file one checkpoint ahead of
// the record: it resumes from the file that copy replaced, kept as the
// spare, and from no other (readRecordedCheckpoint).
TEST(CheckpointCopy, ARestartResumesFromTheRecordedCheckpointOrFails) {
  char pattern[] = "/tmp/synergy-recorded-XXXXXX";
  ASSERT_TRUE(mkdtemp(pattern));
  std::string directory = pattern;
  std::string program = directory + "/prog.wasm";
  ASSERT_TRUE(util::writeFileAtomically(program, "the program's bytes"));
  util::Sha256 hash;
  hash.update("the program's bytes");
  const Digest digest = hash.digest();
  JobRecord job = sampleJob();
  job.grants.clear();
  job.program = program;
  auto file = [&](uint64_t sequence) {
    std::vector<std::string> sections;
    std::vector<uint8_t> memory = sampleMemory(3);
    MpiObjects mpi;
    mpi.nextContext = 3;  // past MPI_COMM_WORLD's and MPI_COMM_SELF's
    sections.push_back(
        encodeRankSection(0, 65536, {1, 2, 3, 0}, memory.data(), kMemoryBytes, {}, mpi));
    return encodeCheckpoint(sequence, digest, sections, job);
  };
  std::string error, bytes;
  ASSERT_TRUE(storeCheckpointCopy(directory, file(2), 2, error)) << error;
  ASSERT_TRUE(storeCheckpointCopy(directory, file(3), 3, error)) << error;
  for (uint64_t sequence : {0, 3, 2}) {
    std::optional<CheckpointImage> image =
        readRecordedCheckpoint(directory, "", sequence, error, &bytes);
    ASSERT_TRUE(image) << sequence << ": " << error;
    EXPECT_EQ(image->sequence, sequence == 0 ? 3u : sequence);
    EXPECT_EQ(bytes, file(image->sequence));
  }
  const std::string path = directory + "/" + kCheckpointFileName;
  EXPECT_FALSE(readRecordedCheckpoint(directory, "", 1, error, &bytes));
  EXPECT_EQ(error, "cannot resume from " + path + ": the cluster state records checkpoint 1, "
                   "which this host does not hold (it is checkpoint 3; the file before it: "
                   "checkpoint 2)");
  EXPECT_TRUE(bytes.empty());
  // A spare that is not whole is no checkpoint 2.
  std::string corrupt = file(2);
  corrupt[corrupt.size() / 2] ^= 0x40;
  ASSERT_TRUE(util::writeFileAtomically(path + ".spare", corrupt));
  EXPECT_FALSE(readRecordedCheckpoint(directory, "", 2, error));
  EXPECT_NE(error.find("checksum does not match"), std::string::npos) << error;
  unlink((path + ".spare").c_str());
  EXPECT_FALSE(readRecordedCheckpoint(directory, "", 2, error));
  EXPECT_NE(error.find("the file before it: " + path + ".spare"), std::string::npos) << error;
  system(("rm -rf " + directory).c_str());
}

}  // namespace
}  // namespace synergy::checkpoint
