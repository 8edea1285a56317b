/* <sys/wait.h> for Synergy granules, which wasi-libc does not have: wait()
 * and waitpid() for the granules fork() made (guestlib/Wait.c). The status
 * word and option values are Linux's, so code that decodes a status
 * by hand agrees with the macros. A child that trapped reads as killed by
 * SIGABRT, as synergy-run's own exit status 134 says of a trapped guest.
 */
#ifndef SYNERGY_SYS_WAIT_H
#define SYNERGY_SYS_WAIT_H

#define __NEED_pid_t
#include <bits/alltypes.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WNOHANG 1
#define WUNTRACED 2

/* Linux's layout: the low 7 bits hold the signal that ended the child (0:
 * it exited; 0x7f: it is stopped), the next byte its exit status. */
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WTERMSIG(s) ((s) & 0x7f)
#define WSTOPSIG(s) WEXITSTATUS(s)
#define WIFEXITED(s) (WTERMSIG(s) == 0)
#define WIFSTOPPED(s) (((s) & 0xff) == 0x7f)
#define WIFSIGNALED(s) (WTERMSIG(s) != 0 && WTERMSIG(s) != 0x7f)
#define WCOREDUMP(s) ((s) & 0x80)

pid_t wait(int* status);
pid_t waitpid(pid_t pid, int* status, int options);

#ifdef __cplusplus
}
#endif

#endif
