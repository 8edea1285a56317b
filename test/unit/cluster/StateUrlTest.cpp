//===- StateUrlTest.cpp - --state URLs, with and without credentials ------===//
//
// The state URL may carry a Redis password (redis://:PASSWORD@HOST:PORT, or
// USER:PASSWORD for a Redis ACL user). These tests pin what is accepted,
// that text() never shows the credentials, and that no refusal quotes the
// password back.
//
//===----------------------------------------------------------------------===//
#include "cluster/RedisConnection.h"

#include <gtest/gtest.h>

using namespace synergy::cluster;

namespace {

std::string refusal(const std::string& text) {
  StateUrl url;
  std::string error;
  EXPECT_FALSE(parseStateUrl(text, url, error)) << text;
  return error;
}

TEST(StateUrlTest, PlainUrls) {
  StateUrl url;
  std::string error;
  ASSERT_TRUE(parseStateUrl("redis://127.0.0.1:6380", url, error)) << error;
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, 6380);
  EXPECT_EQ(url.password, "");
  EXPECT_EQ(url.textWithCredentials(), "redis://127.0.0.1:6380");
  ASSERT_TRUE(parseStateUrl("redis://state.example", url, error)) << error;
  EXPECT_EQ(url.port, 6379);
}

TEST(StateUrlTest, CredentialsAreParsedAndNeverShown) {
  StateUrl url;
  std::string error;
  ASSERT_TRUE(parseStateUrl("redis://:pa@ss:w0rd@10.0.0.1:6380", url, error)) << error;
  EXPECT_EQ(url.user, "");
  EXPECT_EQ(url.password, "pa@ss:w0rd");
  EXPECT_EQ(url.host, "10.0.0.1");
  EXPECT_EQ(url.port, 6380);
  EXPECT_EQ(url.text(), "redis://10.0.0.1:6380");
  EXPECT_EQ(url.textWithCredentials(), "redis://:pa@ss:w0rd@10.0.0.1:6380");

  ASSERT_TRUE(parseStateUrl("redis://synergy:hunter2@10.0.0.1", url, error)) << error;
  EXPECT_EQ(url.user, "synergy");
  EXPECT_EQ(url.password, "hunter2");
  StateUrl again;
  ASSERT_TRUE(parseStateUrl(url.textWithCredentials(), again, error)) << error;
  EXPECT_EQ(again.user, "synergy");
  EXPECT_EQ(again.password, "hunter2");
  EXPECT_EQ(again.port, 6379);
}

TEST(StateUrlTest, BadCredentialsAreRefusedWithoutQuotingThem) {
  EXPECT_EQ(refusal("redis://hunter2@10.0.0.1:6380"),
            "state URL's credentials must be :PASSWORD or USER:PASSWORD before the '@'");
  EXPECT_EQ(refusal("redis://:@10.0.0.1:6380"),
            "state URL's password must be 1 to 512 printable characters without spaces");
  EXPECT_EQ(refusal("redis://:hun ter2@10.0.0.1:6380"),
            "state URL's password must be 1 to 512 printable characters without spaces");
  EXPECT_EQ(refusal("redis://:hunter2\n@10.0.0.1:6380"),
            "state URL's password must be 1 to 512 printable characters without spaces");
  EXPECT_EQ(refusal("redis://:" + std::string(513, 'x') + "@10.0.0.1"),
            "state URL's password must be 1 to 512 printable characters without spaces");
  EXPECT_EQ(refusal("redis://us;er:hunter2@10.0.0.1"),
            "state URL's user name must be at most 128 letters, digits, '_', '.' or '-'");
  EXPECT_EQ(refusal("redis://:hunter2@10.0.0.1:99999"),
            "state URL 'redis://10.0.0.1:99999' has an invalid port");
  EXPECT_EQ(refusal("redis://:hunter2@"), "state URL 'redis://' has no valid host name");
  EXPECT_EQ(refusal("http://:hunter2@10.0.0.1"),
            "state URL must look like redis://[:PASSWORD@]HOST:PORT");
}

}  // namespace
