#!/usr/bin/env python3
"""Counts, and stops, the processes a run left behind.

Usage: processes-with-env.py NAME=VALUE

Prints `left: N`, the number of live processes (zombies excluded) whose
environment holds NAME=VALUE. A test gives the run it checks an entry no
other process has (a path of its own), so only that run and what it forked
can match: a detached engine build keeps its parent's environment. Each one
found leads its own process group (DetachedEngineBuild.h); that group is
then killed, so that the test leaves nothing running either way.
"""
import os
import signal
import sys


def main():
    entry = sys.argv[1].encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                if entry not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, PermissionError, ProcessLookupError):
            continue
        if fields[0] != "Z":
            found.append((int(name), int(fields[2])))
    print(f"left: {len(found)}")
    for pid, group in found:
        if group == pid:
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
