//===- DurableReplaceTest.cpp - crash-safe replacement of checkpoint files -===//
//
// A recycled replacement writes only what differs from the spare, so what
// it must guarantee is the file's bytes: after every replacement the file
// holds exactly the pieces, whatever the spare held (an older generation,
// garbage, a longer file), the replaced generation becomes the spare, and a
// spare that is a link to some other file is never written through. The
// counts say what was written, which is how the saving is checked.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint/DurableReplace.h"
#include "util/Crc32c.h"

namespace synergy::checkpoint {
namespace {

class DurableReplaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/synergy-durable-replace-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    directory_ = pattern;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + directory_ + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }

  std::string read(const std::string& name) {
    std::ifstream in(directory_ + "/" + name, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }
  void writeRaw(const std::string& name, const std::string& bytes) {
    std::ofstream(directory_ + "/" + name, std::ios::binary) << bytes;
  }
  ReplaceCounts replace(const std::vector<std::string_view>& pieces, bool recycle = true) {
    ReplaceCounts counts;
    std::string error;
    EXPECT_TRUE(replaceFileDurably(directory_, "file", pieces, recycle, counts, error)) << error;
    return counts;
  }

  std::string directory_;
};

// A generation of 64 pages where page `changed` differs from generation 0.
std::string generation(int changed, char mark) {
  std::string bytes;
  for (int page = 0; page < 64; ++page)
    bytes += std::string(4096, page == changed ? mark : char('a' + page % 26));
  return bytes;
}

TEST_F(DurableReplaceTest, WritesOnlyThePagesThatDifferFromTheSpare) {
  std::string head = "HEAD", first = generation(-1, 0), second = generation(3, 'X');
  std::string third = generation(40, 'Y');
  ReplaceCounts one = replace({head, first});
  EXPECT_EQ(read("file"), head + first);
  EXPECT_EQ(one.fileBytes, head.size() + first.size());
  EXPECT_EQ(one.changedBytes, one.fileBytes);  // no spare yet
  ReplaceCounts two = replace({head, second});
  EXPECT_EQ(read("file"), head + second);
  EXPECT_EQ(two.changedBytes, two.fileBytes);  // the first file became the file, not a spare
  EXPECT_EQ(read("file.spare"), head + first);  // exchanged: the replaced file is the spare
  ReplaceCounts three = replace({head, third});
  EXPECT_EQ(read("file"), head + third);
  EXPECT_EQ(read("file.spare"), head + second);
  // Against the first generation only pages 40 and 41 (the pieces are not
  // page-aligned: the head shifts them) and the head's page differ.
  EXPECT_EQ(three.fileBytes, head.size() + third.size());
  EXPECT_LE(three.changedBytes, 3u * 4096);
  EXPECT_GT(three.changedBytes, 0u);
}

TEST_F(DurableReplaceTest, AShorterFileTruncatesTheSpareAndALongerOneGrowsIt) {
  std::string big = generation(-1, 0), small = "small file";
  replace({big});
  replace({big});
  replace({small});
  EXPECT_EQ(read("file"), small);
  replace({big + big});
  EXPECT_EQ(read("file"), big + big);
}

TEST_F(DurableReplaceTest, WhateverTheSpareHoldsTheFileIsExactlyThePieces) {
  std::string bytes = generation(7, 'Z');
  writeRaw("file", "old");
  writeRaw("file.spare", std::string(1 << 20, '\xff'));
  ReplaceCounts counts = replace({bytes});
  EXPECT_EQ(read("file"), bytes);
  EXPECT_EQ(read("file.spare"), "old");
  EXPECT_EQ(counts.changedBytes, bytes.size());
}

TEST_F(DurableReplaceTest, ALinkInPlaceOfTheSpareIsNotWrittenThrough) {
  writeRaw("other", "someone else's file");
  ASSERT_EQ(symlink((directory_ + "/other").c_str(), (directory_ + "/file.spare").c_str()), 0);
  replace({"one"});
  EXPECT_EQ(read("file"), "one");
  EXPECT_EQ(read("other"), "someone else's file");
  ASSERT_EQ(link((directory_ + "/other").c_str(), (directory_ + "/file.spare").c_str()), 0);
  replace({"two"});
  EXPECT_EQ(read("file"), "two");
  EXPECT_EQ(read("other"), "someone else's file");
}

// Another user who may write the spare could also cut it short while it is
// mapped to be compared: such a spare is replaced, not written, whatever it
// holds.
TEST_F(DurableReplaceTest, ASpareOthersMayWriteIsNotWrittenThrough) {
  std::string bytes = generation(5, 'W');
  replace({bytes});
  replace({bytes});
  std::string spare = directory_ + "/file.spare";
  ASSERT_EQ(chmod(spare.c_str(), 0666), 0);
  int held = open(spare.c_str(), O_RDONLY);  // someone else's descriptor
  ASSERT_GE(held, 0);
  ReplaceCounts counts = replace({bytes});
  EXPECT_EQ(read("file"), bytes);
  EXPECT_EQ(counts.changedBytes, bytes.size());  // written whole, not through the old spare
  std::string stillThere(bytes.size() + 1, '\0');
  EXPECT_EQ(pread(held, stillThere.data(), stillThere.size(), 0), ssize_t(bytes.size()));
  stillThere.resize(bytes.size());
  EXPECT_EQ(stillThere, bytes);  // the old inode kept its bytes
  struct stat info;
  ASSERT_EQ(stat(spare.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0077, 0u);  // the file and the next spare are this user's alone
  ASSERT_EQ(stat((directory_ + "/file").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0077, 0u);
  close(held);
}

TEST_F(DurableReplaceTest, ADirectoryInPlaceOfTheSpareCostsOnlyTheSaving) {
  ASSERT_EQ(mkdir((directory_ + "/file.spare").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((directory_ + "/file.spare/inside").c_str(), 0700), 0);
  ReplaceCounts counts = replace({"bytes"});
  EXPECT_EQ(read("file"), "bytes");
  EXPECT_EQ(counts.changedBytes, 5u);
}

TEST_F(DurableReplaceTest, WithoutRecyclingNoSpareIsKept) {
  replace({"one"}, false);
  replace({"two"}, false);
  EXPECT_EQ(read("file"), "two");
  EXPECT_NE(access((directory_ + "/file.spare").c_str(), F_OK), 0);
}

TEST_F(DurableReplaceTest, AnUnwritableDirectoryIsOneLineOfError) {
  ReplaceCounts counts;
  std::string error;
  EXPECT_FALSE(replaceFileDurably("/proc", "file", {"bytes"}, true, counts, error));
  EXPECT_NE(error.find("cannot create a file in /proc"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  EXPECT_EQ(counts.fileBytes, 0u);
}

uint32_t crcOf(std::string_view bytes) {
  util::Crc32c checksum;
  checksum.update(bytes);
  return checksum.value();
}

// The head is written last, from the pieces' CRC-32Cs taken as they were
// written; a piece may be a range of another file, read as it is copied.
TEST_F(DurableReplaceTest, HeadComesLastWithThePiecesChecksums) {
  std::string memoryPiece = generation(7, 'M');
  std::string source = "skip" + generation(9, 'F') + "tail";
  writeRaw("source", source);
  int sourceFd = open((directory_ + "/source").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(sourceFd, 0);
  uint64_t fromFile = source.size() - 8;
  std::vector<ReplacePiece> pieces{ReplacePiece{memoryPiece}, ReplacePiece{{}, sourceFd, 4, fromFile}};
  std::vector<uint32_t> seen;
  HeadWriter head = [&](const std::vector<uint32_t>& checksums, std::string& bytes, std::string&) {
    seen = checksums;
    bytes = "HD" + std::to_string(checksums.size());
    return true;
  };
  for (bool recycle : {true, true, true, false}) {
    ReplaceCounts counts;
    std::string error;
    seen.clear();
    ASSERT_TRUE(replaceFileDurably(directory_, "file", 3, head, pieces, recycle, counts, error))
        << error;
    EXPECT_EQ(read("file"), "HD2" + memoryPiece + source.substr(4, fromFile));
    EXPECT_EQ(seen, (std::vector<uint32_t>{crcOf(memoryPiece), crcOf(source.substr(4, fromFile))}));
    EXPECT_EQ(counts.fileBytes, 3 + memoryPiece.size() + fromFile);
  }
  close(sourceFd);
}

// A source shorter than its piece, a head that refuses (part 0's check of a
// part file's checksum) or one of the wrong length: the file stays as it
// was, and no spare is left half written.
TEST_F(DurableReplaceTest, AFailedSourceOrHeadLeavesTheFileAsItWas) {
  std::string good = generation(-1, 0);
  replace({good});
  replace({good});
  writeRaw("source", "short");
  int sourceFd = open((directory_ + "/source").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(sourceFd, 0);
  HeadWriter fine = [](const std::vector<uint32_t>&, std::string& bytes, std::string&) {
    bytes = "H";
    return true;
  };
  HeadWriter refuses = [](const std::vector<uint32_t>&, std::string&, std::string& error) {
    error = "part 1's checksum does not match";
    return false;
  };
  std::string other = generation(5, 'Z');
  struct Case {
    HeadWriter head;
    std::vector<ReplacePiece> pieces;
    std::string message;
  };
  std::vector<Case> cases{
      {fine, {ReplacePiece{{}, sourceFd, 0, 6}}, "its source is shorter than announced"},
      {refuses, {ReplacePiece{other}}, "part 1's checksum does not match"},
      {[](const std::vector<uint32_t>&, std::string& bytes, std::string&) {
         bytes = "HH";
         return true;
       },
       {ReplacePiece{other}},
       "the file's head is not the length announced"}};
  for (const Case& failing : cases)
    for (bool recycle : {true, false}) {
      ReplaceCounts counts;
      std::string error;
      EXPECT_FALSE(replaceFileDurably(directory_, "file", 1, failing.head, failing.pieces, recycle,
                                      counts, error));
      EXPECT_NE(error.find(failing.message), std::string::npos) << error;
      EXPECT_EQ(error.find('\n'), std::string::npos);
      EXPECT_EQ(read("file"), good);
      EXPECT_EQ(counts.fileBytes, 0u);
      struct stat info;
      EXPECT_NE(stat((directory_ + "/file.spare").c_str(), &info), 0);
    }
  close(sourceFd);
  // The next replacement starts a spare again.
  replace({other});
  EXPECT_EQ(read("file"), other);
}

// An incremental write (PieceChunks): a piece of 16 checksum chunks whose
// chunks 0-3 and 12-15 are the ones the spare holds at that place (the
// file placed two writes ago), and whose checksums the writer knows for
// every chunk but 7.
class IncrementalReplaceTest : public DurableReplaceTest {
 protected:
  static constexpr uint64_t kChunk = kChecksumChunkBytes;
  // 16 chunks; chunk i filled with `mark + i`.
  static std::string piece(char mark) {
    std::string bytes;
    for (int chunk = 0; chunk < 16; ++chunk) bytes += std::string(kChunk, char(mark + chunk));
    return bytes;
  }
  // The piece that generation `oldest` was, with chunks 4-11 from `newer`.
  static std::string mixed(char oldest, char newer) {
    std::string bytes = piece(oldest);
    std::string other = piece(newer);
    bytes.replace(4 * kChunk, 8 * kChunk, other.substr(4 * kChunk, 8 * kChunk));
    return bytes;
  }
  PieceChunks hints(const std::string& bytes) {
    PieceChunks chunks;
    for (int chunk = 0; chunk < 16; ++chunk) {
      util::Crc32c crc;
      crc.update(std::string_view(bytes).substr(chunk * kChunk, kChunk));
      chunks.checksums.push_back(crc.value());
      chunks.known.push_back(chunk != 7);
      chunks.onSpare.push_back(chunk < 4 || chunk >= 12);
    }
    chunks.checksums[7] = 0;  // not known: must be taken
    return chunks;
  }
  // Writes "HD" + `bytes` with `chunks`; the pieces' checksums into `seen`.
  ReplaceCounts write(const std::string& bytes, PieceChunks* chunks, const FileIdentity* expected,
                      std::vector<uint32_t>& seen) {
    HeadWriter head = [&](const std::vector<uint32_t>& checksums, std::string& out, std::string&) {
      seen = checksums;
      out = "HD";
      return true;
    };
    ReplacePiece only{bytes};
    only.chunks = chunks;
    ReplaceCounts counts;
    std::string error;
    EXPECT_TRUE(replaceFileDurably(directory_, "file", 2, head, {only}, true, counts, error,
                                   expected))
        << error;
    return counts;
  }
  // Three writes: A, then B, then `third` with hints against A, which is
  // the spare by then.
  FileIdentity firstTwo(std::vector<uint32_t>& seen) {
    ReplaceCounts first = write(piece('A'), nullptr, nullptr, seen);
    EXPECT_EQ(first.placed.bytes, 2 + 16 * kChunk);
    ReplaceCounts second = write(piece('a'), nullptr, nullptr, seen);
    EXPECT_TRUE(second.exchanged);
    EXPECT_NE(second.placed.inode, first.placed.inode);
    return first.placed;
  }
};

TEST_F(IncrementalReplaceTest, ChunksOnTheExpectedSpareAreNeitherComparedNorChecksummed) {
  std::vector<uint32_t> seen;
  FileIdentity spare = firstTwo(seen);
  std::string third = mixed('A', 'X');
  PieceChunks chunks = hints(third);
  ReplaceCounts counts = write(third, &chunks, &spare, seen);
  EXPECT_EQ(read("file"), "HD" + third);
  EXPECT_EQ(counts.skippedBytes, 8 * kChunk);
  EXPECT_LE(counts.changedBytes, 8 * kChunk + 2 * 4096);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], crcOf(third));
  // Chunk 7's checksum was taken and is known now.
  EXPECT_EQ(chunks.known, std::vector<uint8_t>(16, 1));
  EXPECT_EQ(chunks.checksums[7], crcOf(std::string_view(third).substr(7 * kChunk, kChunk)));
}

TEST_F(IncrementalReplaceTest, AnotherSpareThanTheOneNamedIsComparedWhole) {
  std::vector<uint32_t> seen;
  FileIdentity spare = firstTwo(seen);
  std::string third = mixed('A', 'X');
  for (FileIdentity wrong : {FileIdentity{spare.device, ~spare.inode, spare.bytes},
                             FileIdentity{spare.device, spare.inode, spare.bytes + 1}}) {
    PieceChunks chunks = hints(third);
    // Two writes so that the spare holds A again (each exchanges), at its
    // inode, which `wrong` does not name.
    write(piece('A'), nullptr, nullptr, seen);
    write(piece('a'), nullptr, nullptr, seen);
    ReplaceCounts counts = write(third, &chunks, &wrong, seen);
    EXPECT_EQ(read("file"), "HD" + third);
    EXPECT_EQ(counts.skippedBytes, 0u);
    EXPECT_EQ(seen[0], crcOf(third));
  }
  // No spare named at all: the same.
  PieceChunks chunks = hints(third);
  write(piece('A'), nullptr, nullptr, seen);
  write(piece('a'), nullptr, nullptr, seen);
  EXPECT_EQ(write(third, &chunks, nullptr, seen).skippedBytes, 0u);
  EXPECT_EQ(read("file"), "HD" + third);
}

// Hints sized for another piece are not followed: every chunk is compared
// and checksummed, and the checksums are then the piece's.
TEST_F(IncrementalReplaceTest, HintsOfAnotherLengthAreIgnored) {
  std::vector<uint32_t> seen;
  FileIdentity spare = firstTwo(seen);
  std::string third = mixed('A', 'X');
  PieceChunks chunks = hints(third);
  chunks.known.pop_back();
  chunks.onSpare.push_back(1);
  ReplaceCounts counts = write(third, &chunks, &spare, seen);
  EXPECT_EQ(counts.skippedBytes, 0u);
  EXPECT_EQ(read("file"), "HD" + third);
  EXPECT_EQ(seen[0], crcOf(third));
  ASSERT_EQ(chunks.checksums.size(), 16u);
  for (int chunk = 0; chunk < 16; ++chunk)
    EXPECT_EQ(chunks.checksums[chunk],
              crcOf(std::string_view(third).substr(chunk * kChunk, kChunk)));
}

// The spare changed behind the writer's back (same file, other bytes): the
// skipped chunk keeps the foreign bytes, but the file's checksum is the
// one of the bytes meant, so the file no longer matches it and a reader
// that checks it (decodeCheckpoint) refuses it: never a wrong file taken
// for a checkpoint.
TEST_F(IncrementalReplaceTest, ASpareChangedBehindTheWriterGivesAFileItsChecksumRefuses) {
  std::vector<uint32_t> seen;
  FileIdentity spare = firstTwo(seen);
  {
    int fd = open((directory_ + "/file.spare").c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, "!", 1, off_t(2 + 13 * kChunk + 5)), 1);
    close(fd);
  }
  std::string third = mixed('A', 'X');
  PieceChunks chunks = hints(third);
  write(third, &chunks, &spare, seen);
  std::string written = read("file");
  ASSERT_EQ(written.size(), 2 + third.size());
  EXPECT_NE(written.substr(2), third);
  EXPECT_EQ(seen[0], crcOf(third));
  EXPECT_NE(crcOf(std::string_view(written).substr(2)), seen[0]);
}

}  // namespace
}  // namespace synergy::checkpoint
