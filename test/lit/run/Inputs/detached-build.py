#!/usr/bin/env python3
"""Waits for, or kills, the engine build a `synergy-run --engine auto` run left behind.

Usage: detached-build.py wait|kill STATS.txt

STATS.txt holds the run's stderr with SYNERGY_ENGINE_STATS=1, whose stats
line names the detached build's process (`build-pid=N`), which leads its own
process group. `wait` returns once that process is gone; `kill` sends
SIGKILL to its whole group (the build and the tools it runs) and then waits
the same way. The process is not our child, and may be left a zombie where
nothing reaps orphans, so "gone" means no /proc entry or a zombie one. Prints
one line saying what it saw; the only bound is a guard against a hung build.
"""
import os
import re
import signal
import sys
import time

HANG_GUARD_SECONDS = 1800


def gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def main():
    action, stats_path = sys.argv[1], sys.argv[2]
    match = re.search(r"build-pid=(\d+)", open(stats_path).read())
    if not match:
        print("no detached build")
        return 1
    pid = int(match.group(1))
    if action == "kill":
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            print("build already gone")
            return 1
    waited = 0.0
    while not gone(pid):
        if waited > HANG_GUARD_SECONDS:
            print("build still running")
            return 1
        time.sleep(0.2)
        waited += 0.2
    print("build killed" if action == "kill" else "build finished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
