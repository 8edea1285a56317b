#!/usr/bin/env python3
"""The barrier-bound kernels against libgomp, in counts as well as time.

On a loaded machine a barrier's wall time mostly measures which spinning
thread the scheduler ran, so this runs bench/omp's barrier and loopsync
kernels natively (gcc -fopenmp, libgomp) and as granules, alternating the
two sides run by run, under `perf stat`, and reports per barrier (or step)
the medians over --repeat runs of: wall µs (the kernel's own clock), CPU µs
(task-clock), context switches, and futex and sched_yield calls (the
syscalls:sys_enter_* tracepoints; a column is missing where perf cannot
count them). Each is run with the default wait policy and with
OMP_WAIT_POLICY=passive, under which nobody spins and the CPU per barrier
is the barrier's work and its sleeps and wake-ups, far less sensitive to
the load. The 1-minute load average is printed after every round. Outputs
other than the timing lines must be equal between the sides (a mismatch
makes the exit status non-zero; timings never do). Writes every run to
the JSON file.

usage: bench/omp/barrier_counts.py --build <build-dir> [--repeat N]
                                   [--threads 2,4] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"barrier": 20000, "loopsync": 5000}
FLAGS = ["-O2", "-fopenmp", "-ffp-contract=off"]
EVENTS = ["task-clock", "context-switches", "syscalls:sys_enter_futex",
          "syscalls:sys_enter_sched_yield"]
COLUMNS = ["us/op", "cpu_us/op", "ctxsw/op", "futex/op", "yield/op"]
RUN_TIMEOUT_S = 600


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def build(build_dir, work):
    os.makedirs(work, exist_ok=True)
    for kernel in SIZES:
        source = os.path.join(HERE, kernel + ".c")
        subprocess.run(["gcc", *FLAGS, "-I", HERE, source, "-o",
                        os.path.join(work, kernel + ".gomp")], check=True)
        wasm = os.path.join(work, kernel + ".wasm")
        subprocess.run([os.path.join(build_dir, "bin", "synergy-cc"), *FLAGS, "-I", HERE,
                        source, "-o", wasm], check=True)
        # The AOT compile happens here, untimed.
        subprocess.run([os.path.join(build_dir, "bin", "synergy-run"), wasm, "10"],
                       env=dict(os.environ, OMP_NUM_THREADS="1"), check=True,
                       stdout=subprocess.DEVNULL)


def run_once(command, threads, policy, size):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if policy == "passive":
        env["OMP_WAIT_POLICY"] = "passive"
    result = subprocess.run(["perf", "stat", "-x,", "-e", ",".join(EVENTS), *command],
                            env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    if result.returncode != 0:
        raise RuntimeError(f"{command} failed: {result.stderr.strip()[-300:]}")
    counts = {}
    for line in result.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 3 and fields[2] in EVENTS and fields[0].replace(".", "").isdigit():
            counts[fields[2]] = float(fields[0])
    lines = result.stdout.splitlines()
    us = float(next(l.split()[1] for l in lines if l.startswith("us_per_op")))
    output = [l for l in lines if not l.startswith(("time_s", "us_per_op"))]
    values = [us, counts.get("task-clock", float("nan")) * 1000 / size]
    values += [counts[e] / size if e in counts else float("nan") for e in EVENTS[1:]]
    return values, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", default="2,4")
    parser.add_argument("--json", default="barrier-counts.json")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build)
    work = os.path.join(build_dir, "bench", "omp", "counts")
    os.environ["SYNERGY_CACHE_DIR"] = os.path.join(work, "cache")
    build(build_dir, work)
    threads = [int(t) for t in args.threads.split(",")]
    runs, outputs, loads = {}, {}, [load_average()]
    for _ in range(args.repeat):
        for policy in ("default", "passive"):
            for kernel, size in SIZES.items():
                for team in threads:
                    for side in ("libgomp", "synergy"):
                        command = ([os.path.join(work, kernel + ".gomp"), str(size)]
                                   if side == "libgomp" else
                                   [os.path.join(build_dir, "bin", "synergy-run"),
                                    os.path.join(work, kernel + ".wasm"), str(size)])
                        values, output = run_once(command, team, policy, size)
                        runs.setdefault((kernel, policy, team, side), []).append(values)
                        outputs.setdefault((kernel, team), set()).add("\n".join(output))
        loads.append(load_average())
    print("1-min load average before and after each round:", " ".join(f"{l:.1f}" for l in loads))
    print(f"{'kernel':9} {'policy':8} {'thr':>3} {'side':8} " +
          " ".join(f"{c:>10}" for c in COLUMNS) + f"   medians of {args.repeat}")
    medians = {}
    for key in sorted(runs):
        medians[key] = [statistics.median(run[i] for run in runs[key]) for i in range(len(COLUMNS))]
        print(f"{key[0]:9} {key[1]:8} {key[2]:3} {key[3]:8} " +
              " ".join(f"{v:10.3f}" for v in medians[key]))
    print("synergy / libgomp:")
    for kernel in SIZES:
        for policy in ("default", "passive"):
            for team in threads:
                own, peer = medians[(kernel, policy, team, "synergy")], \
                    medians[(kernel, policy, team, "libgomp")]
                print(f"  {kernel:9} {policy:8} t={team}: wall {own[0] / peer[0]:.2f}"
                      f"  cpu {own[1] / peer[1]:.2f}")
    mismatches = [key for key, seen in outputs.items() if len(seen) != 1]
    for kernel, team in mismatches:
        print(f"FAILED: {kernel} at {team} threads: outputs differ between runs or sides")
    with open(args.json, "w") as f:
        json.dump({"loads": loads, "runs": [
            {"kernel": k, "policy": p, "threads": t, "side": s, "columns": COLUMNS, "values": v}
            for (k, p, t, s), v in runs.items()]}, f, indent=1)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
