#!/usr/bin/env python3
"""Tells whether a run's first line reaches a pipe while the run still runs.

Usage: first-line-before-go.py DIR COMMAND...

Runs COMMAND in DIR with stdout a pipe. The design prints a line, then waits
(tick after tick) until a file named `go` appears in DIR. Only once the first
line has arrived does this script create `go`; so with output held back until
the run ends, the line never comes, and after 60 s the script says so and
stops the run. It prints the first line, the rest of the output and the exit
status.
"""
import os
import select
import subprocess
import sys


def main():
    workdir, command = sys.argv[1], sys.argv[2:]
    run = subprocess.Popen(command, cwd=workdir, stdout=subprocess.PIPE)
    ready, _, _ = select.select([run.stdout], [], [], 60)
    if not ready:
        run.kill()
        run.wait()
        print("no output while the run waited")
        return
    print("before go: " + run.stdout.readline().decode().rstrip("\n"))
    open(os.path.join(workdir, "go"), "w").close()
    rest = run.stdout.read().decode()
    print("after go: " + rest.replace("\n", "|"))
    print("exit: %d" % run.wait(timeout=60))


if __name__ == "__main__":
    main()
