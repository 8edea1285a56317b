// Unit tests for the wasm2c memory-base hoisting post-pass.
#include <gtest/gtest.h>

#include "granule/MemoryBaseHoisting.h"

using synergy::granule::hoistMemoryBase;

namespace {

const char* kGenerated = R"(DEFINE_LOAD(i32_load, u32, u32, u32)
DEFINE_STORE(i32_store, u32, u32)

static u32 w2c_f(Z_guest_instance_t* instance, u32 w2c_p0) {
  u32 w2c_i0;
  w2c_i0 = i32_load(&instance->w2c_memory, (u64)(w2c_p0) + 4u);
  i32_store(&instance->w2c_memory, (u64)(w2c_p0), w2c_i0);
  w2c_i0 = wasm_rt_grow_memory(&instance->w2c_memory, w2c_i0);
  return w2c_i0;
}
)";

}  // namespace

TEST(MemoryBaseHoisting, LoadsAndStoresUseTheHoistedBase) {
  std::string source = kGenerated;
  ASSERT_TRUE(hoistMemoryBase(source, "guest", "w2c_memory"));
  EXPECT_NE(source.find("SYNERGY_DEFINE_LOAD_AT_BASE(i32_load, u32, u32, u32)"), std::string::npos);
  EXPECT_NE(source.find("SYNERGY_DEFINE_STORE_AT_BASE(i32_store, u32, u32)"), std::string::npos);
  EXPECT_NE(source.find("{\n  u8* const synergy_membase = instance->w2c_memory.data;\n"),
            std::string::npos);
  EXPECT_NE(source.find("i32_load_at_base(synergy_membase, (u64)(w2c_p0) + 4u)"),
            std::string::npos);
  EXPECT_NE(source.find("i32_store_at_base(synergy_membase, (u64)(w2c_p0), w2c_i0)"),
            std::string::npos);
  // memory.grow still needs the memory object itself.
  EXPECT_NE(source.find("wasm_rt_grow_memory(&instance->w2c_memory, w2c_i0)"),
            std::string::npos);
  EXPECT_EQ(source.find("i32_load(&instance"), std::string::npos);
}

TEST(MemoryBaseHoisting, RefusesUnrecognisedOutput) {
  std::string source = "int main(void) { return 0; }\n";
  std::string original = source;
  EXPECT_FALSE(hoistMemoryBase(source, "guest", "w2c_memory"));
  EXPECT_EQ(source, original);
}

// wasm2c breaks a long parameter list over several lines (an OpenMP region
// body that shares many variables); the base belongs after the '{'.
TEST(MemoryBaseHoisting, WrappedParameterListsGetTheBaseInTheBody) {
  std::string source = R"(DEFINE_LOAD(i32_load, u32, u32, u32)

static void w2c_g(Z_guest_instance_t* instance, u32 w2c_p0, u32 w2c_p1, 
    u32 w2c_p2);
static void w2c_g(Z_guest_instance_t* instance, u32 w2c_p0, u32 w2c_p1, 
    u32 w2c_p2) {
  u32 w2c_i0;
  w2c_i0 = i32_load(&instance->w2c_memory, (u64)(w2c_p2));
}
)";
  ASSERT_TRUE(hoistMemoryBase(source, "guest", "w2c_memory"));
  EXPECT_NE(source.find("    u32 w2c_p2) {\n  u8* const synergy_membase = instance->w2c_memory.data;\n"),
            std::string::npos);
  EXPECT_EQ(source.find("w2c_p2);\n  u8* const"), std::string::npos);
  EXPECT_NE(source.find("i32_load_at_base(synergy_membase, (u64)(w2c_p2))"), std::string::npos);
}
