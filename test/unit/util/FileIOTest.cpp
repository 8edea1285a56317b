//===- FileIOTest.cpp - whole-file reads into a reused buffer -------------===//
//
// readRegularFileInto must give exactly the file's bytes whatever the buffer
// held before (longer, shorter or garbage), keep its allocation when the
// file fits, and refuse what readRegularFile refuses: a directory, a file
// past the limit, a missing path.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "util/FileIO.h"

namespace synergy::util {
namespace {

class ReadIntoBuffer : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/synergy-fileio-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    directory_ = pattern;
  }
  void TearDown() override {
    unlink((directory_ + "/short").c_str());
    unlink((directory_ + "/long").c_str());
    rmdir(directory_.c_str());
  }
  std::string write(const std::string& name, const std::string& bytes) {
    std::string path = directory_ + "/" + name;
    EXPECT_TRUE(writeFileAtomically(path, bytes));
    return path;
  }
  std::string directory_;
};

TEST_F(ReadIntoBuffer, GivesTheFileWhateverTheBufferHeld) {
  std::string longBytes(100000, '\0');
  for (size_t i = 0; i < longBytes.size(); ++i) longBytes[i] = char(i * 7 + 1);
  std::string longPath = write("long", longBytes);
  std::string shortPath = write("short", "abc");
  std::string buffer = "garbage";
  std::string error;
  ASSERT_TRUE(readRegularFileInto(longPath, 1 << 20, buffer, error)) << error;
  EXPECT_EQ(buffer, longBytes);
  const char* pages = buffer.data();
  ASSERT_TRUE(readRegularFileInto(shortPath, 1 << 20, buffer, error)) << error;
  EXPECT_EQ(buffer, "abc");
  ASSERT_TRUE(readRegularFileInto(longPath, 1 << 20, buffer, error)) << error;
  EXPECT_EQ(buffer, longBytes);
  EXPECT_EQ(buffer.data(), pages);
  EXPECT_EQ(readRegularFile(longPath, 1 << 20, error), longBytes);
}

TEST_F(ReadIntoBuffer, RefusesWhatReadRegularFileRefuses) {
  std::string path = write("long", std::string(4096, 'x'));
  std::string buffer, error;
  EXPECT_FALSE(readRegularFileInto(path, 4095, buffer, error));
  EXPECT_EQ(error, path + ": larger than the limit of 4095 bytes");
  EXPECT_FALSE(readRegularFileInto(directory_, 1 << 20, buffer, error));
  EXPECT_EQ(error, directory_ + ": not a regular file");
  EXPECT_FALSE(readRegularFileInto(directory_ + "/missing", 1 << 20, buffer, error));
  EXPECT_EQ(error.rfind(directory_ + "/missing: ", 0), 0u) << error;
}

}  // namespace
}  // namespace synergy::util
