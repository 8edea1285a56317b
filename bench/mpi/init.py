#!/usr/bin/env python3
"""MPI start-up: Synergy against OpenMPI, measured in the same run.

Builds bench/mpi/init.c with OpenMPI's mpicc and with synergy-cc, and runs
it under `mpirun --oversubscribe -np N` and `synergy-run -np N` for each N
of --ranks (1, 2, 4), --repeat times each, alternating the two so that load
from other processes hits both alike (one warm-up run of each first, which
for Synergy also fills the AOT cache). Three figures per run:
  - init_us: the slowest rank's MPI_Init, timed inside the program;
  - job_ms: the wall time from launching mpirun / synergy-run to its exit;
  - cpu_ms: the user + system CPU time of the launcher and everything it
    started (the ranks, OpenMPI's daemons), from the rusage of the children
    this script waited for.
The table shows the median and the best of each, and synergy/OpenMPI
ratios of the medians (below 1.0: Synergy takes less). Wall times on a
loaded machine mostly measure the scheduler; cpu_ms does not.

usage: bench/mpi/init.py --build <build-dir> [--ranks 1,2,4] [--repeat 10]
                         [--json init.json]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES = ("init_us", "job_ms", "cpu_ms")


def build(command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit("build failed: %s\n%s" % (" ".join(command), done.stdout.decode(errors="replace")))


def measure(command):
    """One run: its three figures."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                          timeout=300)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (done.returncode, " ".join(command),
                                          done.stderr.decode(errors="replace")))
    printed = dict(line.split() for line in done.stdout.decode().splitlines() if line.strip())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"init_us": float(printed["init_us"]), "job_ms": wall * 1e3, "cpu_ms": cpu * 1e3}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True, help="Synergy build directory")
    parser.add_argument("--ranks", default="1,2,4")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--json", default="mpi-init.json")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="synergy-mpi-init-")
    source = os.path.join(HERE, "init.c")
    native, granule = os.path.join(work, "init"), os.path.join(work, "init.wasm")
    build(["mpicc", "-O2", source, "-o", native])
    build([os.path.join(options.build, "bin", "synergy-cc"), "-O2", source, "-o", granule])
    synergy_run = os.path.join(options.build, "bin", "synergy-run")

    rows = []
    for ranks in [int(n) for n in options.ranks.split(",")]:
        commands = {"openmpi": ["mpirun", "--oversubscribe", "-np", str(ranks), native],
                    "synergy": [synergy_run, "-np", str(ranks), granule]}
        for command in commands.values():
            measure(command)  # warm-up: page cache, and the AOT cache for the granule
        runs = {side: [] for side in commands}
        for _ in range(max(1, options.repeat)):
            for side, command in commands.items():
                runs[side].append(measure(command))
        sys.stderr.write("[bench] MPI_Init -np %d done\n" % ranks)
        for figure in FIGURES:
            row = {"figure": figure, "ranks": ranks, "runs": options.repeat}
            for side in commands:
                values = [run[figure] for run in runs[side]]
                row[side] = {"median": statistics.median(values), "best": min(values),
                             "all": values}
            row["ratio_median"] = row["synergy"]["median"] / row["openmpi"]["median"]
            rows.append(row)

    load = os.getloadavg()
    print("MPI start-up, %d runs each, load %.1f %.1f %.1f" % (options.repeat, *load))
    print("%-8s %5s %14s %14s %14s %14s %8s" % ("figure", "ranks", "openmpi med", "synergy med",
                                                "openmpi best", "synergy best", "ratio"))
    for row in rows:
        print("%-8s %5d %14.1f %14.1f %14.1f %14.1f %8.3f" % (
            row["figure"], row["ranks"], row["openmpi"]["median"], row["synergy"]["median"],
            row["openmpi"]["best"], row["synergy"]["best"], row["ratio_median"]))
    slower = [row for row in rows if row["figure"] == "init_us" and row["ratio_median"] > 1.0]
    print("MPI_Init no slower than OpenMPI's (median): %d of %d rank counts" % (
        len([row for row in rows if row["figure"] == "init_us"]) - len(slower),
        len([row for row in rows if row["figure"] == "init_us"])))
    with open(options.json, "w") as out:
        json.dump({"load": load, "results": rows}, out, indent=1)
    print("wrote %s" % options.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
