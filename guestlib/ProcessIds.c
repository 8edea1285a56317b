// getpid() and getppid(): the runtime's ids of the process's granules (the
// one synergy-run starts is 1, forked ones count up from 2), in place of
// wasi-libc's getpid emulation, whose one constant a forked child would
// share with its parent. Never control points ("process_" names).
#include <stdint.h>
#include <unistd.h>

#include "synergy.h"

SYNERGY_IMPORT("process_id") int32_t __synergy_process_id(void);
SYNERGY_IMPORT("process_parent_id") int32_t __synergy_process_parent_id(void);

pid_t getpid(void) { return __synergy_process_id(); }

pid_t getppid(void) { return __synergy_process_parent_id(); }
