# Holds a POSIX write lock (fcntl F_SETLK, as lockf does) on bytes [0,10) of
# argv[1] while it runs the command in argv[2:], then exits with its status.
import fcntl
import subprocess
import sys

with open(sys.argv[1], "r+b") as held:
    fcntl.lockf(held, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 0)
    sys.exit(subprocess.call(sys.argv[2:]))
