#!/usr/bin/env python3
"""Smoke test of bench/cluster/cluster_bench.py: it runs and writes valid JSON.

Runs the bench with --quick (its own redis-server and three synergyd on
127.0.0.2-4, OpenMPI over TCP on loopback) and checks the JSON it writes:
every section is there, every measured value is a positive number, each
ratio is synergy/OpenMPI of its own row, and no kernel failed its check. It
never looks at how fast anything was: the figures are the bench's to report.

    bench_smoke.py --build build --redis-server /usr/bin/redis-server
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(SOURCE_DIR, "bench", "cluster", "cluster_bench.py")
EXPECTED_TESTS = {"latency", "bandwidth", "allreduce", "p2p"}
START_PATHS = {"cluster_np1", "cluster_np2_spread", "local_np1", "openmpi_np1"}


def positive(value):
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def validate(report):
    """Returns the list of problems with the bench's JSON."""
    problems = []
    rows = report.get("results")
    if not isinstance(rows, list) or not rows:
        return ["no results"]
    seen = {row.get("test") for row in rows}
    if not EXPECTED_TESTS <= seen:
        problems.append("results lack %s" % sorted(EXPECTED_TESTS - seen))
    for row in rows:
        name = "%s np %s size %s" % (row.get("test"), row.get("ranks"), row.get("size"))
        if row.get("check") == "FAILED":
            problems.append(name + ": the kernel failed its own check")
        # A bandwidth of tiny messages may round to 0 on a loaded machine;
        # a time never does.
        if row.get("unit") == "MB/s":
            continue
        if not positive(row.get("openmpi")) or not positive(row.get("synergy")):
            problems.append(name + ": a time is not a positive number")
        elif not positive(row.get("ratio")) or \
                abs(row["ratio"] - row["synergy"] / row["openmpi"]) > 1e-9 * row["ratio"]:
            problems.append(name + ": the ratio is not synergy/openmpi")
    start = report.get("job_start", {})
    if set(start) != START_PATHS:
        problems.append("job_start has %s, not %s" % (sorted(start), sorted(START_PATHS)))
    for path, figures in start.items():
        if not all(positive(figures.get(k)) for k in ("start_ms_median", "start_ms_min",
                                                        "total_ms_median")):
            problems.append("job_start %s: figures are not positive numbers" % path)
        if not all(isinstance(figures.get(k), (int, float)) and figures[k] >= 0
                   for k in ("client_cpu_ms", "daemon_cpu_ms")):
            problems.append("job_start %s: no CPU time per job" % path)
    throughput = report.get("throughput", {})
    if not positive(throughput.get("jobs_per_second")) or throughput.get("jobs", 0) < 1:
        problems.append("throughput: no jobs per second")
    if not positive(throughput.get("redis_commands_per_job")):
        problems.append("throughput: no Redis commands per job")
    # The daemons' CPU comes from /proc in clock ticks (10 ms): a quick
    # run's six jobs may cost less than one, as job_start's figures may.
    if not all(isinstance(throughput.get(k), (int, float)) and throughput[k] >= 0
               for k in ("client_cpu_ms", "daemon_cpu_ms")):
        problems.append("throughput: no CPU time per job")
    if not isinstance(report.get("load_average"), list) or len(report["load_average"]) != 3:
        problems.append("no load average")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--redis-server", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="synergy-bench-smoke-") as work:
        out = os.path.join(work, "bench.json")
        done = subprocess.run([sys.executable, BENCH, "--build", args.build, "--quick",
                               "--redis-server", args.redis_server, "--json", out],
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            print("FAIL: the bench exited with %d\n%s%s" % (done.returncode, done.stdout,
                                                           done.stderr))
            return 1
        try:
            with open(out) as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            print("FAIL: the bench wrote no valid JSON: %s" % e)
            return 1
    problems = validate(report)
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        return 1
    print("PASS: %d rows, job start and jobs per second present" % len(report["results"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
