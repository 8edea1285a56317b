//===- ClusterTokenTest.cpp - Reading and comparing cluster tokens --------===//
#include "transport/ClusterToken.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace synergy::transport;

namespace {

class ClusterTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("synergy-token-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string writeToken(const std::string& contents, mode_t mode) {
    std::string path = directory_ / "token";
    std::ofstream(path, std::ios::trunc) << contents;
    chmod(path.c_str(), mode);
    return path;
  }

  std::filesystem::path directory_;
};

TEST_F(ClusterTokenTest, ReadsAPrivateTokenWithoutItsNewline) {
  std::string token, error;
  ASSERT_TRUE(readClusterToken(writeToken("0123456789abcdef\n", 0600), token, error)) << error;
  EXPECT_EQ(token, "0123456789abcdef");
}

TEST_F(ClusterTokenTest, RefusesAFileOthersCanRead) {
  std::string token, error;
  std::string path = writeToken("0123456789abcdef\n", 0644);
  EXPECT_FALSE(readClusterToken(path, token, error));
  EXPECT_EQ(error, "token file '" + path + "' is accessible by group or others; chmod 600 it");
  EXPECT_TRUE(token.empty());
}

TEST_F(ClusterTokenTest, RefusesShortAndLongTokens) {
  std::string token, error;
  std::string path = writeToken("short\n", 0600);
  EXPECT_FALSE(readClusterToken(path, token, error));
  EXPECT_EQ(error, "token in '" + path + "' must be 16 to 256 bytes long, not 5");
  EXPECT_FALSE(readClusterToken(writeToken(std::string(300, 'x'), 0600), token, error));
  EXPECT_EQ(error, "token file '" + path + "' is longer than 256 bytes");
}

TEST_F(ClusterTokenTest, RefusesAMissingFile) {
  std::string token, error;
  EXPECT_FALSE(readClusterToken((directory_ / "absent").string(), token, error));
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
}

TEST(TokensMatchTest, ComparesWholeTokens) {
  EXPECT_TRUE(tokensMatch("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(tokensMatch("0123456789abcdef", "0123456789abcdeg"));
  EXPECT_FALSE(tokensMatch("0123456789abcdef", "0123456789abcde"));
  EXPECT_FALSE(tokensMatch("0123456789abcdef", ""));
}

}  // namespace
