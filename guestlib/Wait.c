// wait() and waitpid() for the granules fork() made. They answer from the
// runtime's table of the process's granules and never unwind: their
// "process_" names keep them off the control-point list. The import's
// result is negative exactly when it is an errno value.
#include <errno.h>
#include <stdint.h>
#include <sys/wait.h>

#include "synergy.h"

SYNERGY_IMPORT("process_wait") int32_t __synergy_process_wait(int32_t pid, int* status,
                                                              int32_t options);

pid_t waitpid(pid_t pid, int* status, int options) {
  int32_t result = __synergy_process_wait(pid, status, options);
  if (result < 0) {
    errno = -result;
    return -1;
  }
  return result;
}

pid_t wait(int* status) { return waitpid(-1, status, 0); }
