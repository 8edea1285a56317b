# CMake platform description for wasm32-wasi granules. CMake 3.25 ships none,
# and its generic defaults (applied after the toolchain file) would reset the
# executable suffix. synergy-toolchain.cmake puts this directory on
# CMAKE_MODULE_PATH, where CMake looks for Platform/${CMAKE_SYSTEM_NAME}.
set(WASI 1)
# wasi-libc is a POSIX-style libc (unistd.h, stdio, libm as -lm), so projects'
# UNIX branches are the right ones; this also gives .o objects and lib*.a.
set(UNIX 1)

set(CMAKE_EXECUTABLE_SUFFIX ".wasm")
set(CMAKE_STATIC_LIBRARY_PREFIX "lib")
set(CMAKE_STATIC_LIBRARY_SUFFIX ".a")
set(CMAKE_FIND_LIBRARY_PREFIXES "lib")
set(CMAKE_FIND_LIBRARY_SUFFIXES ".a")

# A granule is one statically linked module.
set_property(GLOBAL PROPERTY TARGET_SUPPORTS_SHARED_LIBS FALSE)

# The old signature, add_test(<name> <command> [args...]) (zlib's tests use
# it), does not map a target name to its file: ctest looks for a file named
# <command>, finds only <command>.wasm, and could not execute a wasm module
# anyway ("Unable to find executable"). The NAME signature maps the target to
# its file and prepends CMAKE_CROSSCOMPILING_EMULATOR (synergy-run), so the
# old form is forwarded to it; a command that is not a target runs as before.
# Redefining a command twice would make _add_test call the first redefinition
# (endless recursion), hence the guard.
get_property(_synergy_add_test_forwarded GLOBAL PROPERTY SYNERGY_ADD_TEST_FORWARDED)
if(NOT _synergy_add_test_forwarded)
  set_property(GLOBAL PROPERTY SYNERGY_ADD_TEST_FORWARDED TRUE)
  function(add_test first)
    if(first STREQUAL "NAME")
      _add_test(NAME ${ARGN})
    else()
      _add_test(NAME ${first} COMMAND ${ARGN})
    endif()
  endfunction()
endif()
