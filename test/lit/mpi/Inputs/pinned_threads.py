"""For bind-to.test: runs COMMAND (a synergy-run -np N job of
waits_for_stdin.c), waits until all N ranks say they run, and prints how
many of the process's threads have a narrower CPU affinity than the process
itself (the pinned ranks). It then closes the job's stdin, which ends it,
and exits with the job's status.

usage: pinned_threads.py N COMMAND...
"""
import os
import subprocess
import sys


def allowed_cpus(status_path):
    with open(status_path) as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    raise SystemExit("no Cpus_allowed_list in " + status_path)


def main():
    ranks = int(sys.argv[1])
    job = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for _ in range(ranks):
        line = job.stdout.readline()
        if not line:
            raise SystemExit("the job ended before all ranks ran")
    process = allowed_cpus("/proc/%d/status" % job.pid)
    threads = os.listdir("/proc/%d/task" % job.pid)
    pinned = sum(1 for tid in threads
                 if allowed_cpus("/proc/%d/task/%s/status" % (job.pid, tid)) != process)
    print("pinned threads: %d" % pinned)
    job.stdin.close()
    job.stdout.read()
    return job.wait()


if __name__ == "__main__":
    sys.exit(main())
