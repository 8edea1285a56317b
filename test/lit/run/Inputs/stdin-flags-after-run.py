"""Runs a command with its stdin on a pipe this script keeps, then reports
whether the pipe's read end is still blocking: a child that set O_NONBLOCK
on its fd 0 would have changed the open file description the two share.

usage: stdin-flags-after-run.py COMMAND [ARGS...]
"""
import fcntl
import os
import subprocess
import sys

read_end, write_end = os.pipe()
completed = subprocess.run(sys.argv[1:], stdin=read_end, stdout=subprocess.PIPE)
sys.stdout.write(completed.stdout.decode(errors="replace"))
flags = fcntl.fcntl(read_end, fcntl.F_GETFL)
print("parent's pipe after the run: %s" % ("NONBLOCKING" if flags & os.O_NONBLOCK else "blocking"))
os.close(write_end)
os.close(read_end)
sys.exit(completed.returncode)
