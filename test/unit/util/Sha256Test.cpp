//===- Sha256Test.cpp - SHA-256 against the FIPS 180-2 examples -----------===//
//
// Both block functions, the portable one and the one over the x86 SHA
// extensions, must give the digests of FIPS 180-2 appendix B, whatever the
// split of the input into update() calls. On a CPU without the extensions
// the fast path is the portable one and the test says so.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/Sha256.h"

namespace synergy::util {
namespace {

using Implementation = Sha256::Implementation;

std::string digestOf(Implementation implementation, const std::string& message, size_t chunk) {
  Sha256 hash(implementation);
  for (size_t at = 0; at < message.size(); at += chunk)
    hash.update(message.data() + at, std::min(chunk, message.size() - at));
  return hash.hexDigest();
}

struct Example {
  std::string message;
  const char* digest;
};

std::vector<Example> fipsExamples() {
  return {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {std::string(1000000, 'a'), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
  };
}

void expectFipsDigests(Implementation implementation) {
  // One call, byte by byte, and chunks that straddle block boundaries.
  for (size_t chunk : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(1) << 20}) {
    for (const Example& example : fipsExamples()) {
      if (chunk == 1 && example.message.size() > 4096)
        continue;
      EXPECT_EQ(digestOf(implementation, example.message, chunk), example.digest)
          << "message of " << example.message.size() << " bytes in chunks of " << chunk;
    }
  }
}

TEST(Sha256Test, PortableMatchesFips180Examples) { expectFipsDigests(Implementation::Portable); }

TEST(Sha256Test, FastestMatchesFips180Examples) {
  if (!Sha256::cpuHasShaExtensions())
    GTEST_LOG_(INFO) << "this CPU has no SHA extensions: the fastest path is the portable one";
  expectFipsDigests(Implementation::Fastest);
}

// Lengths around the padding boundary (55, 56 and 64 bytes need one more
// block or not) on both paths, against each other.
TEST(Sha256Test, PathsAgreeAroundPaddingBoundaries) {
  std::string message;
  for (size_t length = 0; length < 300; ++length) {
    EXPECT_EQ(digestOf(Implementation::Fastest, message, 7), digestOf(Implementation::Portable, message, 64))
        << "length " << length;
    message.push_back(static_cast<char>(length * 31 + 7));
  }
}

}  // namespace
}  // namespace synergy::util
