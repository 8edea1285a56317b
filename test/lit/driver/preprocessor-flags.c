// -D, -U, -I and -include reach the compiler in command-line order.
// RUN: %synergy-cc -E -DGREETING=hello -DDROPPED=1 -UDROPPED -I %S/Inputs/include %s | FileCheck %s
// RUN: %synergy-cc -E -include %S/Inputs/include/driver-test-config.h -D GREETING=hi %s | FileCheck %s --check-prefix=FORCED
// CHECK: greeting is hello
// CHECK: dropped is undefined
// CHECK: config from include dir 1
// FORCED: greeting is hi
// FORCED: config from include dir 1
//
// The target is wasm32-wasi, the guest headers are found, and the host's
// glibc headers (in /usr/include, the Debian wasi sysroot; argp.h is
// glibc-only) are not.
// CHECK: target wasm32 wasi
// CHECK: synergy header found
// CHECK: host headers hidden
#if __has_include(<driver-test-config.h>)
#include <driver-test-config.h>
#endif
greeting is GREETING
#ifdef DROPPED
dropped is DROPPED
#else
dropped is undefined
#endif
config from include dir CONFIG_FROM_INCLUDE_DIR
#if defined(__wasm32__) && defined(__wasi__)
target wasm32 wasi
#endif
#if __has_include(<synergy.h>)
synergy header found
#endif
#if !__has_include(<argp.h>)
host headers hidden
#endif
