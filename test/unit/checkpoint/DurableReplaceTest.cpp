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

}  // namespace
}  // namespace synergy::checkpoint
