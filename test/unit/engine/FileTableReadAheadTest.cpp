//===- FileTableReadAheadTest.cpp - read-ahead of a remote engine's input --===//
//
// A tenant of synergy-hv sends the next bytes of its input files with each
// open-loop request and afterwards moves its streams as far as the
// hypervisor read (hypervisor/RemoteEngine.cpp). These tests check that only
// files nothing else changes are offered, that a peek leaves a stream as it
// was, and that an advance leaves it exactly where the same reads through
// $fgetc would, end-of-file flag included; and the same of stdin through a
// pipe.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "engine/FileTable.h"

namespace synergy::engine {
namespace {

class FileTableReadAheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("synergy-read-ahead-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "in.txt") << "abcdef";
    std::ofstream(dir_ / "other.txt") << "xyz";
    std::string error;
    auto grants = sandbox::GrantTable::open({{dir_.string(), ".", false}}, error);
    ASSERT_TRUE(grants) << error;
    files_ = std::make_unique<FileTable>(std::move(*grants));
  }
  void TearDown() override {
    files_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  std::unique_ptr<FileTable> files_;
};

TEST_F(FileTableReadAheadTest, OffersOnlyFilesNothingElseChanges) {
  uint32_t in = files_->open("in.txt", "r");
  uint32_t other = files_->open("other.txt", "rb");
  uint32_t appended = files_->open("in2.txt", "w");
  ASSERT_NE(in, 0u);
  ASSERT_NE(other, 0u);
  ASSERT_NE(appended, 0u);
  EXPECT_EQ(files_->readAheadDescriptors(), (std::vector<uint32_t>{in, other}));
  // Opened for writing through another descriptor: its bytes may change.
  uint32_t writer = files_->open("other.txt", "r+");
  ASSERT_NE(writer, 0u);
  EXPECT_EQ(files_->readAheadDescriptors(), (std::vector<uint32_t>{in}));
  files_->close(writer);
  // At its end: the end-of-file flag is set, which a window cannot carry.
  while (std::fgetc(files_->stream(other)) != EOF) {
  }
  EXPECT_EQ(files_->readAheadDescriptors(), (std::vector<uint32_t>{in}));
}

TEST_F(FileTableReadAheadTest, PeekLeavesTheStreamAsItWas) {
  uint32_t in = files_->open("in.txt", "r");
  std::FILE* stream = files_->stream(in);
  ASSERT_EQ(std::fgetc(stream), 'a');
  bool endsAtEof = true;
  EXPECT_EQ(files_->peekInput(in, 3, endsAtEof), std::optional<std::string>("bcd"));
  EXPECT_FALSE(endsAtEof);
  EXPECT_EQ(files_->peekInput(in, 64, endsAtEof), std::optional<std::string>("bcdef"));
  EXPECT_TRUE(endsAtEof);
  EXPECT_EQ(std::ftell(stream), 1);
  EXPECT_FALSE(std::feof(stream));
  EXPECT_FALSE(files_->peekInput(0x80000099u, 8, endsAtEof));
}

TEST_F(FileTableReadAheadTest, AdvanceLeavesTheStreamWhereTheReadsWould) {
  uint32_t in = files_->open("in.txt", "r");
  std::FILE* stream = files_->stream(in);
  ASSERT_TRUE(files_->advanceInput(in, 4, false));
  EXPECT_EQ(std::ftell(stream), 4);
  EXPECT_FALSE(std::feof(stream));
  EXPECT_EQ(std::fgetc(stream), 'e');
  // The rest, then a read at the end: the flag is set as $fgetc's -1 sets it.
  ASSERT_TRUE(files_->advanceInput(in, 1, true));
  EXPECT_EQ(std::ftell(stream), 6);
  EXPECT_TRUE(std::feof(stream));
  EXPECT_FALSE(files_->advanceInput(0x80000099u, 1, false));
}

// A pushed-back byte the file holds just before the position (a peek)
// leaves the stream reading the file's own bytes, so the file is still
// offered; another byte is not in the file, so a window would not show it:
// the file is offered again only once it is read past that byte.
TEST_F(FileTableReadAheadTest, OffersNoFileWithAnotherBytePushedBack) {
  uint32_t in = files_->open("in.txt", "r");
  InputStream* stream = files_->input(in);
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->get(), 'a');
  EXPECT_TRUE(stream->unget('a'));
  EXPECT_EQ(files_->readAheadDescriptors(), (std::vector<uint32_t>{in}));
  bool endsAtEof = false;
  EXPECT_EQ(files_->peekInput(in, 3, endsAtEof), std::optional<std::string>("abc"));
  EXPECT_EQ(stream->get(), 'a');
  EXPECT_TRUE(stream->unget('#'));
  EXPECT_TRUE(files_->readAheadDescriptors().empty());
  EXPECT_EQ(stream->get(), '#');
  EXPECT_EQ(files_->readAheadDescriptors(), (std::vector<uint32_t>{in}));
  EXPECT_EQ(files_->peekInput(in, 3, endsAtEof), std::optional<std::string>("bcd"));
}

// stdin through a pipe, as a tenant reads it (readStdinAhead): a peek
// offers the bytes the pipe has ready and never waits for more, the design's
// reads and an advance consume them in order with pushed-back bytes first,
// and the end is offered only once the writer has closed. fd 0 is the pipe's
// for the test's length.
TEST_F(FileTableReadAheadTest, ReadsAPipedStdinAheadWithoutWaiting) {
  constexpr uint32_t kStdin = 0x80000000u;
  int pipeEnds[2];
  ASSERT_EQ(::pipe(pipeEnds), 0);
  int savedStdin = ::dup(STDIN_FILENO);
  ASSERT_GE(savedStdin, 0);
  ASSERT_EQ(::dup2(pipeEnds[0], STDIN_FILENO), STDIN_FILENO);
  ::close(pipeEnds[0]);
  files_->readStdinAhead();
  bool endsAtEof = true;
  // Nothing written yet: no window, and no wait.
  EXPECT_EQ(files_->readAheadDescriptors(), (std::vector<uint32_t>{kStdin}));
  EXPECT_FALSE(files_->peekInput(kStdin, 8, endsAtEof));
  ASSERT_EQ(::write(pipeEnds[1], "abcdef", 6), 6);
  EXPECT_EQ(files_->peekInput(kStdin, 4, endsAtEof), std::optional<std::string>("abcd"));
  EXPECT_FALSE(endsAtEof);
  ASSERT_TRUE(files_->advanceInput(kStdin, 2, false));
  InputStream* in = files_->input(kStdin);
  EXPECT_EQ(in->get(), 'c');
  EXPECT_TRUE(in->unget('#'));
  EXPECT_EQ(files_->peekInput(kStdin, 8, endsAtEof), std::optional<std::string>("#def"));
  EXPECT_FALSE(endsAtEof);
  // More than it holds, or its end before the writer closed: refused.
  EXPECT_FALSE(files_->advanceInput(kStdin, 5, false));
  EXPECT_FALSE(files_->advanceInput(kStdin, 4, true));
  ::close(pipeEnds[1]);
  EXPECT_EQ(files_->peekInput(kStdin, 8, endsAtEof), std::optional<std::string>("#def"));
  EXPECT_TRUE(endsAtEof);
  ASSERT_TRUE(files_->advanceInput(kStdin, 4, true));
  EXPECT_TRUE(in->atEnd());
  EXPECT_TRUE(files_->readAheadDescriptors().empty());
  EXPECT_EQ(in->get(), EOF);
  // A pushed-back byte clears the end, as ungetc clears the flag.
  EXPECT_TRUE(in->unget('z'));
  EXPECT_FALSE(in->atEnd());
  EXPECT_EQ(in->get(), 'z');
  EXPECT_EQ(in->get(), EOF);
  EXPECT_TRUE(in->atEnd());
  ASSERT_EQ(::dup2(savedStdin, STDIN_FILENO), STDIN_FILENO);
  ::close(savedStdin);
}

}  // namespace
}  // namespace synergy::engine
