/* <fcntl.h> for Synergy granules: wasi-libc's, plus POSIX record locks.
 *
 * wasi-libc leaves out F_GETLK/F_SETLK/F_SETLKW and the lock types, so
 * programs that lock files (SQLite's unix VFS) do not compile. synergy-cc
 * links a wrapper around fcntl (guestlib/FileLocks.c) that the runtime serves
 * with the same POSIX record locks on the host file, so they exclude other
 * processes as a native program's do. The values are Linux's.
 */
#ifndef SYNERGY_FCNTL_H
#define SYNERGY_FCNTL_H

#include_next <fcntl.h>

#ifndef F_GETLK
#define F_GETLK 5
#define F_SETLK 6
#define F_SETLKW 7
#endif
#ifndef F_RDLCK
#define F_RDLCK 0
#define F_WRLCK 1
#define F_UNLCK 2
#endif

#endif
