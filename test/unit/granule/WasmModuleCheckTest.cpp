// Unit tests for the .wasm trust boundary: checkWasmModule, which refuses
// names that could reach generated C, and rewriteNamesForWasm2c, which hands
// wasm2c only debug names in our own mangling.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "granule/NameSectionRewriter.h"
#include "granule/WasmModuleCheck.h"

using synergy::granule::checkWasmModule;
using synergy::granule::isSafeInterfaceName;
using synergy::granule::rewriteNamesForWasm2c;

namespace {

std::string leb(uint32_t value) {
  std::string out;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out += char(value ? byte | 0x80 : byte);
  } while (value);
  return out;
}

std::string name(const std::string& text) { return leb(uint32_t(text.size())) + text; }

std::string section(uint8_t id, const std::string& body) {
  return std::string(1, char(id)) + leb(uint32_t(body.size())) + body;
}

const std::string kHeader("\0asm\1\0\0\0", 8);

// (type (func)), one function import module.field, one export `exported`.
std::string moduleWith(const std::string& module, const std::string& field,
                       const std::string& exported, const std::string& extra = "") {
  std::string types = section(1, leb(1) + "\x60" + leb(0) + leb(0));
  std::string imports = section(2, leb(1) + name(module) + name(field) + '\0' + leb(0));
  std::string exports = section(7, leb(1) + name(exported) + '\0' + leb(0));
  return kHeader + types + imports + exports + extra;
}

std::string nameMap(uint8_t id, uint32_t index, const std::string& text) {
  std::string map = leb(1) + leb(index) + name(text);
  return std::string(1, char(id)) + leb(uint32_t(map.size())) + map;
}

std::string expectRefused(const std::string& bytes) {
  auto problem = checkWasmModule(bytes);
  EXPECT_TRUE(problem.has_value());
  if (!problem) return {};
  EXPECT_EQ(problem->find('\n'), std::string::npos) << "diagnostic must be one line";
  return *problem;
}

}  // namespace

TEST(WasmModuleCheck, AcceptsToolchainNames) {
  EXPECT_EQ(checkWasmModule(kHeader), std::nullopt);
  EXPECT_EQ(checkWasmModule(moduleWith("wasi_snapshot_preview1", "fd_write", "_start")),
            std::nullopt);
  EXPECT_EQ(checkWasmModule(moduleWith("env", "__kmpc_fork_call", "asyncify.$x-1")),
            std::nullopt);
}

TEST(WasmModuleCheck, RefusesNewlineInImportName) {
  std::string problem =
      expectRefused(moduleWith("env", "f\n__attribute__((constructor)) void x(void) {}", "_start"));
  EXPECT_NE(problem.find("import name \"f\\x0a__attribute__"), std::string::npos) << problem;
  EXPECT_NE(problem.find("contains byte 0x0a"), std::string::npos) << problem;
  EXPECT_NE(problem.find("(in module \"env\")"), std::string::npos) << problem;
}

TEST(WasmModuleCheck, RefusesCommentCloseInExportAndModuleNames) {
  std::string problem = expectRefused(moduleWith("env", "f", "run*/ int x; /*"));
  EXPECT_NE(problem.find("export name \"run*/ int x; /*\" contains '*'"), std::string::npos)
      << problem;
  problem = expectRefused(moduleWith("e*/nv", "f", "_start"));
  EXPECT_NE(problem.find("import module name \"e*/nv\" contains '*'"), std::string::npos)
      << problem;
  EXPECT_NE(expectRefused(moduleWith("env", "a'b", "_start")).find("contains '''"),
            std::string::npos);
}

TEST(WasmModuleCheck, RefusesEmptyAndOverlongNames) {
  EXPECT_NE(expectRefused(moduleWith("env", "", "_start")).find("import name is empty"),
            std::string::npos);
  std::string problem = expectRefused(moduleWith("env", "f", std::string(1025, 'a')));
  EXPECT_NE(problem.find("is longer than 1024 bytes"), std::string::npos) << problem;
  EXPECT_LT(problem.size(), 200u) << "the quoted name is truncated";
}

TEST(WasmModuleCheck, RefusesBadFraming) {
  EXPECT_EQ(expectRefused("this is not wasm"), "not a wasm module (bad magic number)");
  EXPECT_EQ(expectRefused(std::string("\0asm\1", 5)), "truncated wasm module (no version)");
  EXPECT_EQ(expectRefused(std::string("\0asm\2\0\0\0", 8)), "unsupported wasm version");
  EXPECT_NE(expectRefused(kHeader + "\x01\x05\x00").find("runs past the end"), std::string::npos);
  // A LEB128 length wider than 32 bits.
  EXPECT_NE(expectRefused(kHeader + "\x01\xff\xff\xff\xff\x7f").find("runs past the end"),
            std::string::npos);
  EXPECT_NE(expectRefused(kHeader + section(14, "")).find("unknown section id 14"),
            std::string::npos);
  std::string twice = kHeader + section(1, leb(0)) + section(1, leb(0));
  EXPECT_NE(expectRefused(twice).find("out of order or repeated"), std::string::npos);
  std::string reversed = kHeader + section(3, leb(0)) + section(2, leb(0));
  EXPECT_NE(expectRefused(reversed).find("out of order or repeated"), std::string::npos);
}

TEST(WasmModuleCheck, RefusesMalformedImportAndExportEntries) {
  // Count says two imports, one is present.
  std::string imports = section(2, leb(2) + name("env") + name("f") + '\0' + leb(0));
  EXPECT_NE(expectRefused(kHeader + imports).find("malformed import entry"), std::string::npos);
  std::string badKind = section(2, leb(1) + name("env") + name("f") + '\x09' + leb(0));
  EXPECT_NE(expectRefused(kHeader + badKind).find("malformed import entry"), std::string::npos);
  // A table of typed references (0x64 heap-type) or a GC abstract type:
  // wasm2c cannot compile either, so the gate names it.
  std::string typedTable = section(2, leb(1) + name("env") + name("t") + '\x01' + "\x64\x00" +
                                          '\0' + leb(1));
  EXPECT_NE(expectRefused(kHeader + typedTable).find("unsupported reference type"),
            std::string::npos);
  std::string structTable =
      section(2, leb(1) + name("env") + name("t") + '\x01' + "\x6b" + '\0' + leb(1));
  EXPECT_NE(expectRefused(kHeader + structTable).find("unsupported reference type"),
            std::string::npos);
  std::string badGlobal =
      section(2, leb(1) + name("env") + name("g") + '\x03' + "\x40" + '\0');
  EXPECT_NE(expectRefused(kHeader + badGlobal).find("unsupported value type"), std::string::npos);
  std::string funcTable =
      section(2, leb(1) + name("env") + name("t") + '\x01' + "\x70" + '\0' + leb(1));
  EXPECT_FALSE(checkWasmModule(kHeader + funcTable).has_value());
  std::string trailing = section(7, leb(0) + "x");
  EXPECT_NE(expectRefused(kHeader + trailing).find("trailing bytes"), std::string::npos);
}

TEST(WasmModuleCheck, ChecksTheNameSectionStructureOnly) {
  std::string evil = "f*/ evil\n#include <x>";
  std::string names = section(0, name("name") + nameMap(1, 0, evil));
  EXPECT_EQ(checkWasmModule(moduleWith("env", "f", "_start", names)), std::nullopt);
  std::string cut = section(0, name("name") + "\x01\x10\x01");
  EXPECT_NE(expectRefused(moduleWith("env", "f", "_start", cut)).find("malformed \"name\""),
            std::string::npos);
  std::string unordered = section(0, name("name") + nameMap(7, 0, "g") + nameMap(1, 0, "f"));
  EXPECT_NE(expectRefused(moduleWith("env", "f", "_start", unordered)).find("out of order"),
            std::string::npos);
}

TEST(WasmModuleCheck, NeverReadsPastAnyPrefixOrFlippedByte) {
  std::string names = section(0, name("name") + nameMap(1, 0, "f") + nameMap(7, 0, "g"));
  std::string good = moduleWith("env", "f", "_start", names);
  for (size_t size = 0; size < good.size(); ++size) checkWasmModule(good.substr(0, size));
  for (size_t at = 0; at < good.size(); ++at)
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = good;
      flipped[at] = char(flipped[at] ^ (1 << bit));
      if (!checkWasmModule(flipped)) rewriteNamesForWasm2c(flipped);
    }
}

TEST(WasmModuleCheck, SafeInterfaceNames) {
  EXPECT_TRUE(isSafeInterfaceName("__wasm_call_ctors"));
  EXPECT_FALSE(isSafeInterfaceName("a b"));
  EXPECT_FALSE(isSafeInterfaceName("a\\b"));
  EXPECT_FALSE(isSafeInterfaceName(std::string("a\0b", 3)));
  EXPECT_FALSE(isSafeInterfaceName(""));
}

TEST(NameSectionRewriter, KeepsFunctionAndGlobalNamesInOurMangling) {
  std::string code = section(10, leb(0));
  std::string names = section(0, name("name") + nameMap(0, 0, "mod*/") +
                                     nameMap(1, 3, "f*/ evil\n(x)") + nameMap(2, 0, "") +
                                     nameMap(7, 1, "__stack_pointer") + nameMap(9, 0, "d*/"));
  std::string producers = section(0, name("producers") + "*/ junk");
  std::string module = kHeader + code + producers + names;
  ASSERT_EQ(checkWasmModule(module), std::nullopt);
  std::string expectedNames =
      section(0, name("name") + nameMap(1, 3, "f___evil__x_") + nameMap(7, 1, "__stack_pointer"));
  EXPECT_EQ(rewriteNamesForWasm2c(module), kHeader + code + expectedNames);
}

TEST(NameSectionRewriter, DropsNamesThatMangleToNothingAndCutsLongOnes) {
  std::string map = leb(2) + leb(0) + name("") + leb(1) + name(std::string(300, 'x'));
  std::string names = section(0, name("name") + "\x01" + leb(uint32_t(map.size())) + map);
  std::string rewritten = rewriteNamesForWasm2c(kHeader + names);
  std::string expected = section(0, name("name") + nameMap(1, 1, std::string(256, 'x')));
  EXPECT_EQ(rewritten, kHeader + expected);
}

TEST(NameSectionRewriter, MakesCollidingNamesUnique) {
  std::string map = leb(3) + leb(0) + name("a b") + leb(1) + name("a_b") + leb(2) + name("a.b");
  std::string names = section(0, name("name") + "\x01" + leb(uint32_t(map.size())) + map);
  std::string expectedMap =
      leb(3) + leb(0) + name("a_b") + leb(1) + name("a_b_1") + leb(2) + name("a_b_2");
  std::string expected =
      section(0, name("name") + "\x01" + leb(uint32_t(expectedMap.size())) + expectedMap);
  EXPECT_EQ(rewriteNamesForWasm2c(kHeader + names), kHeader + expected);
}

TEST(NameSectionRewriter, ImportedFunctionsLoseTheirNames) {
  std::string names = section(0, name("name") + section(1, leb(2) + leb(0) + name("memory") +
                                                               leb(1) + name("main")));
  // section() frames a subsection the same way: id byte, then size.
  std::string module = moduleWith("env", "f", "_start", names);
  ASSERT_EQ(checkWasmModule(module), std::nullopt);
  std::string expected = moduleWith("env", "f", "_start",
                                    section(0, name("name") + nameMap(1, 1, "main")));
  EXPECT_EQ(rewriteNamesForWasm2c(module), expected);
}
