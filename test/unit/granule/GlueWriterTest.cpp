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

// env.invoke_* (LLVM's setjmp/longjmp lowering) becomes a trampoline around
// synergy_setjmp_invoke: the callee's type (the import's, minus the table
// index) is registered, and the call goes through it with our own names.
TEST(GlueWriter, DefinesSetjmpInvokeImports) {
  Glue glue;
  std::string error;
  std::string header = kStruct +
                       "/* import: 'env' 'invoke_iij' */\n"
                       "u32 Z_envZ_invoke_iij(struct Z_env_instance_t*, u32, u32, u64);\n"
                       "/* import: 'env' 'invoke_v' */\n"
                       "void Z_envZ_invoke_v(struct Z_env_instance_t*, u32);\n" +
                       kExport;
  ASSERT_TRUE(write(header, glue, error)) << error;
  EXPECT_TRUE(glue.unresolvedImports.empty());
  EXPECT_NE(glue.source.find("u32 Z_envZ_invoke_iij(struct Z_env_instance_t* host, u32 function, "
                             "u32 a0, u64 a1) {\n"
                             "  struct synergy_invoke_args_0 args = {0, a0, a1};\n"
                             "  synergy_setjmp_invoke(host, synergy_invoke_type_0, function, "
                             "synergy_invoke_call_0, &args);\n"
                             "  return args.result;\n}\n"),
            std::string::npos)
      << glue.source;
  EXPECT_NE(glue.source.find("args->result = ((u32 (*)(void*, u32, u64))callee->func)"
                             "(callee->module_instance, args->a0, args->a1);"),
            std::string::npos)
      << glue.source;
  EXPECT_NE(glue.source.find("synergy_invoke_type_0 = wasm_rt_register_func_type(2, 1, "
                             "WASM_RT_I32, WASM_RT_I64, WASM_RT_I32);"),
            std::string::npos)
      << glue.source;
  EXPECT_NE(glue.source.find("synergy_invoke_type_1 = wasm_rt_register_func_type(0, 0);"),
            std::string::npos)
      << glue.source;
}

// The first argument is a table index; an invoke import whose first argument
// is anything else is not LLVM's, and the module is refused.
TEST(GlueWriter, RefusesASetjmpInvokeWithoutATableIndex) {
  Glue glue;
  std::string error;
  std::string header = kStruct +
                       "/* import: 'env' 'invoke_vi' */\n"
                       "void Z_envZ_invoke_vi(struct Z_env_instance_t*, f64);\n";
  EXPECT_FALSE(write(header, glue, error));
  EXPECT_EQ(error, "unexpected wasm2c declaration for import 'env.invoke_vi'");
  EXPECT_TRUE(glue.source.empty());
  header = kStruct +
           "/* import: 'env' 'invoke_x' */\n"
           "void Z_envZ_invoke_x(struct Z_env_instance_t*);\n";
  Glue second;
  EXPECT_FALSE(write(header, second, error));
  EXPECT_EQ(error, "unexpected wasm2c declaration for import 'env.invoke_x'");
}
