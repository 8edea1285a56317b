//===- StateFileTest.cpp - $save files round-trip and refuse damage --------===//
#include <gtest/gtest.h>

#include "engine/StateFile.h"
#include "util/Sha256.h"

namespace synergy::engine {
namespace {

SavedState sampleState() {
  SavedState state;
  state.tick = 41;
  state.randomSeed = -17;
  state.urandomSeed = 3;
  state.files.push_back({0x80000003u, "data dir/in \"x\".txt", "rb", 12});
  state.monitorTask = 2;
  state.monitorOn = false;
  state.monitorValues = "1f,0,";
  SavedVariable scalar{"tb.count", 70, 0, {}};
  BitValue wide = BitValue::zero(70);
  wide.setBit(69, true);
  wide.setBit(0, true);
  scalar.elements.push_back(wide);
  SavedVariable memory{"tb.mem", 8, 3, {}};
  for (uint64_t v : {0u, 0xffu, 0x5au})
    memory.elements.push_back(BitValue::fromUint64(v, 8));
  state.variables = {scalar, memory};
  state.designSignature = designSignature(state.variables);
  return state;
}

// Re-signs a hand-edited body so only the edit itself can be rejected.
std::string withChecksum(const std::string& body) {
  util::Sha256 hash;
  hash.update(body);
  return body + "checksum " + hash.hexDigest() + "\n";
}

TEST(StateFileTest, RoundTripsEveryField) {
  SavedState state = sampleState();
  std::string error;
  auto parsed = parseSavedState(serializeSavedState(state), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->tick, 41u);
  EXPECT_EQ(parsed->randomSeed, -17);
  EXPECT_EQ(parsed->urandomSeed, 3);
  ASSERT_EQ(parsed->files.size(), 1u);
  EXPECT_EQ(parsed->files[0].path, "data dir/in \"x\".txt");
  EXPECT_EQ(parsed->files[0].position, 12);
  EXPECT_EQ(parsed->monitorTask, 2u);
  EXPECT_FALSE(parsed->monitorOn);
  EXPECT_EQ(parsed->monitorValues, "1f,0,");
  ASSERT_EQ(parsed->variables.size(), 2u);
  EXPECT_EQ(parsed->variables[0].elements[0].words, state.variables[0].elements[0].words);
  EXPECT_EQ(parsed->variables[1].elements[2].words, state.variables[1].elements[2].words);
}

TEST(StateFileTest, RefusesAFlippedByte) {
  std::string text = serializeSavedState(sampleState());
  text[text.find("tick 41") + 5] = '5';
  std::string error;
  EXPECT_FALSE(parseSavedState(text, error));
  EXPECT_NE(error.find("checksum"), std::string::npos) << error;
}

TEST(StateFileTest, RefusesATruncatedFile) {
  std::string text = serializeSavedState(sampleState());
  for (size_t length : {size_t(1), text.size() / 2, text.size() - 2}) {
    std::string error;
    EXPECT_FALSE(parseSavedState(text.substr(0, length), error)) << length;
    EXPECT_FALSE(error.empty());
  }
}

TEST(StateFileTest, RefusesAnotherVersion) {
  std::string text = serializeSavedState(sampleState());
  std::string body = text.substr(0, text.rfind("checksum "));
  body.replace(0, body.find('\n'), "SYNERGY-STATE 99");
  std::string error;
  EXPECT_FALSE(parseSavedState(withChecksum(body), error));
  EXPECT_NE(error.find("version 99"), std::string::npos) << error;
}

TEST(StateFileTest, RefusesAValueWiderThanItsVariable) {
  std::string text = serializeSavedState(sampleState());
  std::string body = text.substr(0, text.rfind("checksum "));
  size_t at = body.find("\"tb.mem\" 8 3 0 ff 5a");
  ASSERT_NE(at, std::string::npos) << body;
  body.replace(at, std::string("\"tb.mem\" 8 3 0 ff 5a").size(), "\"tb.mem\" 8 3 0 1ff 5a");
  std::string error;
  EXPECT_FALSE(parseSavedState(withChecksum(body), error));
}

// Replaces the first `from` in a sample state's body and re-signs it.
std::optional<SavedState> parseEdited(const std::string& from, const std::string& to,
                                      std::string& error) {
  std::string text = serializeSavedState(sampleState());
  std::string body = text.substr(0, text.rfind("checksum "));
  size_t at = body.find(from);
  EXPECT_NE(at, std::string::npos) << body;
  if (at != std::string::npos)
    body.replace(at, from.size(), to);
  return parseSavedState(withChecksum(body), error);
}

// A sign would wrap around in an unsigned field; "-5" is refused, not read
// as 2^64 - 5, and so is the one tick that has no successor.
TEST(StateFileTest, RefusesSignedAndOverflowingCounters) {
  std::string error;
  EXPECT_FALSE(parseEdited("tick 41", "tick -5", error));
  EXPECT_NE(error.find("bad tick line"), std::string::npos) << error;
  EXPECT_FALSE(parseEdited("tick 41", "tick 18446744073709551615", error));
  EXPECT_FALSE(parseEdited("tick 41", "tick 99999999999999999999", error));
  EXPECT_FALSE(parseEdited("file 2147483651 12", "file 2147483651 -1", error));
  EXPECT_FALSE(parseEdited("file 2147483651", "file 4294967296", error));
  EXPECT_FALSE(parseEdited("monitor 2 0", "monitor 2 7", error));
  ASSERT_TRUE(parseEdited("tick 41", "tick 18446744073709551614", error)) << error;
}

// A width or depth no design has must be refused before anything that size
// is allocated.
TEST(StateFileTest, RefusesSizesBeyondTheStatedBounds) {
  std::string error;
  EXPECT_FALSE(parseEdited("\"tb.count\" 70 0", "\"tb.count\" 4000000000 0", error));
  EXPECT_NE(error.find("bad variable shape"), std::string::npos) << error;
  EXPECT_FALSE(parseEdited("\"tb.mem\" 8 3 ", "\"tb.mem\" 1048576 4096 ", error));
  EXPECT_NE(error.find("larger than any saved state"), std::string::npos) << error;
  EXPECT_FALSE(parseEdited("\"tb.mem\" 8 3 0 ff 5a", "\"tb.mem\" 8 3 0 ff 5a 7", error));
  EXPECT_NE(error.find("wrong element count"), std::string::npos) << error;
}

// A forged name reaches the error as one printable line: a newline or an
// escape sequence in it is shown as \xHH, never written to the terminal.
TEST(StateFileTest, ErrorsShowForgedNamesPrintably) {
  std::string error;
  EXPECT_FALSE(parseEdited("\"tb.count\" 70 0", "\"tb.\\n\x1b[2Jcount\" 0 0", error));
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(error.find('\x1b'), std::string::npos) << error;
  EXPECT_NE(error.find("'tb.\\x0a\\x1b[2Jcount'"), std::string::npos) << error;
}

TEST(StateFileTest, SignatureDependsOnShape) {
  SavedState state = sampleState();
  auto changed = state.variables;
  changed[1].depth = 4;
  EXPECT_NE(designSignature(changed), designSignature(state.variables));
}

}  // namespace
}  // namespace synergy::engine
