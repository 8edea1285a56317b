# Locates the external tools Synergy drives and records their paths in a
# generated header, so every binary agrees on one toolchain.
find_program(SYNERGY_CLANG NAMES clang-19 REQUIRED)
find_program(SYNERGY_CLANGXX NAMES clang++-19 REQUIRED)
find_program(SYNERGY_LLVM_AR NAMES llvm-ar-19 REQUIRED)
find_program(SYNERGY_LLVM_RANLIB NAMES llvm-ranlib-19 REQUIRED)
find_program(SYNERGY_WASM_LD NAMES wasm-ld-19 REQUIRED)
find_program(SYNERGY_WASM2C NAMES wasm2c REQUIRED)
find_program(SYNERGY_LLVM_SYMBOLIZER NAMES llvm-symbolizer-19 REQUIRED)
find_program(SYNERGY_WASM_DIS NAMES wasm-dis REQUIRED)
find_program(SYNERGY_WASM_VALIDATE NAMES wasm-validate)
find_program(SYNERGY_IVERILOG NAMES iverilog)
find_program(SYNERGY_VVP NAMES vvp)
find_program(SYNERGY_VERILATOR NAMES verilator)
find_program(SYNERGY_YOSYS NAMES yosys)
find_program(SYNERGY_FILECHECK NAMES FileCheck-19 FileCheck
  HINTS /usr/lib/llvm-19/bin REQUIRED)
find_program(SYNERGY_NOT NAMES not HINTS /usr/lib/llvm-19/bin NO_DEFAULT_PATH)
find_file(SYNERGY_LIT_PY lit.py HINTS /usr/lib/llvm-19/build/utils/lit NO_DEFAULT_PATH)
find_program(SYNERGY_PYTHON NAMES python3 REQUIRED)

set(SYNERGY_WASI_SYSROOT /usr CACHE PATH "wasi-libc sysroot (include/wasm32-wasi, lib/wasm32-wasi)")
set(SYNERGY_WASM_RT_INCLUDE /usr/include CACHE PATH "directory holding wasm-rt.h")

execute_process(COMMAND ${SYNERGY_CLANG} --version OUTPUT_VARIABLE _clang_version
                OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "version [0-9.]+" SYNERGY_CLANG_VERSION "${_clang_version}")
execute_process(COMMAND ${SYNERGY_WASM2C} --version OUTPUT_VARIABLE SYNERGY_WASM2C_VERSION
                OUTPUT_STRIP_TRAILING_WHITESPACE)
# Verilator is a Perl script that takes ~45 ms to start: asking it for its
# version and root on every synergy-run would double a short run's time.
if(SYNERGY_VERILATOR)
  execute_process(COMMAND ${SYNERGY_VERILATOR} --version OUTPUT_VARIABLE SYNERGY_VERILATOR_VERSION
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${SYNERGY_VERILATOR} --getenv VERILATOR_ROOT
                  OUTPUT_VARIABLE SYNERGY_VERILATOR_ROOT OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()

configure_file(${CMAKE_CURRENT_LIST_DIR}/ToolPaths.h.in
               ${PROJECT_BINARY_DIR}/generated/synergy/ToolPaths.h @ONLY)
add_library(synergy_tool_paths INTERFACE)
target_include_directories(synergy_tool_paths INTERFACE ${PROJECT_BINARY_DIR}/generated)
add_library(synergy::tool_paths ALIAS synergy_tool_paths)
