//===- ProcessorCount.c - sysconf's processor counts for granules ----------===//
//
// wasi-libc's sysconf answers 1 for _SC_NPROCESSORS_ONLN and _CONF, so a
// program sizing its own thread pool would use one thread where
// omp_get_num_procs() reports the host's processors. synergy-cc links with
// --wrap=sysconf: those two names ask the runtime, which counts as
// omp_get_num_procs does; every other name is wasi-libc's.
//
//===----------------------------------------------------------------------===//
#include <unistd.h>

long __real_sysconf(int name);

__attribute__((import_module("env"), import_name("synergy_processor_count")))
int synergy_processor_count(void);

long __wrap_sysconf(int name) {
  if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF)
    return synergy_processor_count();
  return __real_sysconf(name);
}
