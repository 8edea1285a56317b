// fork() for process granules. It is a control point (an import of module
// "synergy"): the runtime unwinds the caller with Asyncify, starts a child
// granule from a copy of the suspended one and rewinds both, so the call
// returns twice (runtime/process/ProcessTable.cpp). The import's result is
// negative exactly when it is an errno value.
//
// fork, waitpid and the process ids are separate members of the archive, so
// that a program defining a function of one of those names for itself still
// links with the others.
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "synergy.h"

SYNERGY_IMPORT("fork") int32_t __synergy_fork(void);

pid_t fork(void) {
  int32_t result = __synergy_fork();
  if (result < 0) {
    errno = -result;
    return -1;
  }
  return result;
}
