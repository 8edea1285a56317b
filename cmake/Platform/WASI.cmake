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
