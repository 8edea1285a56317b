//===- CheckpointFileTest.cpp - the checkpoint file format -----------------===//
//
// Round trip of the checkpoint format, and refusal of every kind of bad
// file: foreign, truncated, corrupt, of another version, and files whose
// checksum is right but whose counts, lengths, offsets or open files lie.
// Also the check --resume makes on a checkpoint's open files before it
// applies anything (OpenFileRecord.h), on real directories.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointFile.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "checkpoint/OpenFileRecord.h"

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
            "checkpoint format version 9 is not version 4, the one this synergy-run reads "
            "(checkpoint again with this build)");
  // Version 2, before grants and the environment were recorded, and 3,
  // before open files were.
  file[8] = 2;
  EXPECT_NE(refusal(file).find("checkpoint format version 2 is not version 4"),
            std::string::npos);
  file[8] = 3;
  EXPECT_NE(refusal(file).find("checkpoint format version 3 is not version 4"),
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
  std::string file = fileWithOpenFiles({sampleOpenFile()}, 5);
  EXPECT_NE(refusal(file).find("truncated or over-long open file record"), std::string::npos);
  std::string noCount = fileWithOpenFiles({}, 2);
  EXPECT_NE(refusal(noCount).find("truncated open file count"), std::string::npos);
  // A count no file can hold, behind a good checksum.
  std::string many = fileWithOpenFiles({});
  uint32_t count = 0x7fffffff;
  std::memcpy(many.data() + many.size() - 4, &count, 4);
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

}  // namespace
}  // namespace synergy::checkpoint
