// Unit tests for the glue writer's parsing of wasm2c's header: what it copies
// into the glue, and the lines it refuses to copy because they are not exactly
// what wasm2c emits for a checked module.
#include <gtest/gtest.h>

#include <string>

#include "granule/GlueWriter.h"

using synergy::granule::Glue;
using synergy::granule::writeGlue;

namespace {

const std::string kStruct = R"(typedef struct Z_guest_instance_t {
  struct Z_env_instance_t* Z_env_instance;
  u32 w2c_g;
  bool data_segment_dropped_w2c_d0 : 1;
  wasm_rt_memory_t w2c_memory;
} Z_guest_instance_t;

void Z_guest_instantiate(Z_guest_instance_t*, struct Z_env_instance_t*);
)";

const std::string kExport = R"(/* export: '_start' */
void Z_guestZ__start(Z_guest_instance_t*);
)";

bool write(const std::string& header, Glue& glue, std::string& error) {
  return writeGlue(header, "guest", [](const std::string&) { return false; }, glue, error);
}

}  // namespace

TEST(GlueWriter, CopiesParsedDeclarations) {
  Glue glue;
  std::string error;
  std::string header = kStruct +
                       "/* import: 'env' 'f' */\n"
                       "u32 Z_envZ_f(struct Z_env_instance_t*, u32);\n" +
                       kExport;
  ASSERT_TRUE(write(header, glue, error)) << error;
  EXPECT_EQ(glue.memoryField, "w2c_memory");
  ASSERT_EQ(glue.unresolvedImports, std::vector<std::string>{"env.f"});
  EXPECT_NE(glue.source.find("u32 Z_envZ_f(struct Z_env_instance_t* a0, u32 a1) {\n"
                             "  synergy_unresolved_import(\"env\", \"f\");\n}\n"),
            std::string::npos)
      << glue.source;
  EXPECT_NE(glue.source.find("{\"_start\", 0, (void*)&Z_guestZ__start},"), std::string::npos);
  EXPECT_NE(glue.source.find("offsetof(Z_guest_instance_t, w2c_g)"), std::string::npos);
  EXPECT_EQ(glue.source.find("data_segment_dropped"), std::string::npos);
}

TEST(GlueWriter, RefusesAnImportCommentThatIsNotTwoSafeNames) {
  Glue glue;
  std::string error;
  std::string header = kStruct +
                       "/* import: 'env' 'f */ int x; /*' */\n"
                       "u32 Z_envZ_f(struct Z_env_instance_t*, u32);\n";
  EXPECT_FALSE(write(header, glue, error));
  EXPECT_EQ(error, "unexpected wasm2c output: an import comment that is not two safe names");
  EXPECT_TRUE(glue.source.empty());
}

TEST(GlueWriter, RefusesAnImportDeclarationItWouldHaveToCopyUnparsed) {
  Glue glue;
  std::string error;
  std::string header = kStruct +
                       "/* import: 'env' 'f' */\n"
                       "static void x(struct Z_env_instance_t*, u32) { system(\"id\"); } "
                       "u32 Z_envZ_f(struct Z_env_instance_t*, u32);\n";
  EXPECT_FALSE(write(header, glue, error));
  EXPECT_EQ(error, "unexpected wasm2c declaration for import 'env.f'");
  EXPECT_TRUE(glue.source.empty());
}

TEST(GlueWriter, RefusesAnExportCommentWithAnythingMore) {
  Glue glue;
  std::string error;
  std::string header =
      kStruct + "/* export: '_start' */ int x;\nvoid Z_guestZ__start(Z_guest_instance_t*);\n";
  EXPECT_FALSE(write(header, glue, error));
  EXPECT_EQ(error,
            "unexpected wasm2c output: an export that is not one safe name and a declaration");
}
