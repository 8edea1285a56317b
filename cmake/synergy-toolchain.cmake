# CMake toolchain file for Synergy granules: builds an ordinary CMake C/C++
# project into wasm32-wasi modules with synergy-cc / synergy-c++.
#
#   cmake -S proj -B build -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/synergy/synergy-toolchain.cmake
#
# Everything is found relative to this file (<prefix>/share/synergy), so the
# build tree and any install prefix work the same way. CMake reads this file
# again for every try_compile, so it only sets variables.
set(CMAKE_SYSTEM_NAME WASI)
set(CMAKE_SYSTEM_VERSION 1)
set(CMAKE_SYSTEM_PROCESSOR wasm32)

# Platform/WASI.cmake (suffix .wasm, static libraries only) lives beside us.
if(NOT "${CMAKE_CURRENT_LIST_DIR}/cmake" IN_LIST CMAKE_MODULE_PATH)
  list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}/cmake")
endif()

get_filename_component(_synergy_prefix "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(CMAKE_C_COMPILER "${_synergy_prefix}/bin/synergy-cc")
set(CMAKE_CXX_COMPILER "${_synergy_prefix}/bin/synergy-c++")
# Granules run under synergy-run, so try_run() and add_test() work unchanged.
set(CMAKE_CROSSCOMPILING_EMULATOR "${_synergy_prefix}/bin/synergy-run")
# Archives hold wasm objects, which only LLVM's archiver indexes.
find_program(CMAKE_AR NAMES llvm-ar-19 REQUIRED)
find_program(CMAKE_RANLIB NAMES llvm-ranlib-19 REQUIRED)
