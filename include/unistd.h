/* <unistd.h> for Synergy granules: wasi-libc's, plus fork() and getppid().
 *
 * WASI has no processes, so wasi-libc leaves fork() out. A process granule
 * forks as Faabric's do (its paper, section 3.1): the runtime suspends it at
 * the call, and a new granule starts from a copy of its memory and open
 * files (guestlib/Fork.c; runtime/process). <sys/wait.h> waits for it.
 */
#ifndef SYNERGY_UNISTD_H
#define SYNERGY_UNISTD_H

#include_next <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

pid_t fork(void);
pid_t getppid(void);

#ifdef __cplusplus
}
#endif

#endif
