//===- FileTableReadAheadTest.cpp - read-ahead of a remote engine's input --===//
//
// A tenant of synergy-hv sends the next bytes of its input files with each
// open-loop request and afterwards moves its streams as far as the
// hypervisor read (hypervisor/RemoteEngine.cpp). These tests check that only
// files nothing else changes are offered, that a peek leaves a stream as it
// was, and that an advance leaves it exactly where the same reads through
// $fgetc would, end-of-file flag included.
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

}  // namespace
}  // namespace synergy::engine
