#!/usr/bin/env python3
"""A live move's section (cluster/RankSectionTransfer.h) against a raw TCP copy.

Runs build/bench/synergy-rank-section-bench in turn in its two modes, so that
both see the same load: `transfer` (part 0 announces, the source ships the
section over its Transport, the target places it, checks its CRC-32C and
acknowledges; three processes on loopback) and `tcp` (the same bytes from one
process to another over a plain loopback socket). Prints a table of the
median and best time and each side's CPU (user + system, all threads), the
ratio of the medians, and the load average; --json writes the same and every
sample.

    cmake --build build --target synergy-rank-section-bench
    python3 bench/cluster/rank_section_bench.py --build build --repeat 10 --json F
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(binary, mode, size):
    out = subprocess.run([binary, mode, str(size)], check=True, capture_output=True, text=True,
                         timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def summary(samples, key):
    values = [s[key] for s in samples]
    return {"median": statistics.median(values), "best": min(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--repeat", type=int, default=10, help="runs of each mode, alternated")
    parser.add_argument("--mib", type=int, default=64, help="section size in MiB")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    binary = os.path.join(args.build, "bench", "synergy-rank-section-bench")
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary} missing: cmake --build {args.build} --target synergy-rank-section-bench")
    size = args.mib << 20
    load_before = os.getloadavg()
    samples = {"transfer": [], "tcp": []}
    for _ in range(args.repeat):
        for mode in ("transfer", "tcp"):
            samples[mode].append(run(binary, mode, size))
    load_after = os.getloadavg()
    result = {"benchmark": "rank-section-transfer", "bytes": size, "repeat": args.repeat,
              "load_average_before": load_before, "load_average_after": load_after,
              "unit": "milliseconds", "modes": {}}
    print(f"{args.mib} MiB section, {args.repeat} runs of each mode alternated; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'mode':<10}{'median ms':>11}{'best ms':>9}{'source cpu':>12}{'target cpu':>12}"
          f"{'part0 cpu':>11}{'GiB/s':>8}")
    for mode, runs in samples.items():
        row = {key: summary(runs, key)
               for key in ("ms", "source_cpu_ms", "target_cpu_ms", "part0_cpu_ms")}
        row["samples"] = runs
        result["modes"][mode] = row
        gibs = size / (1 << 30) / (row["ms"]["median"] / 1e3)
        print(f"{mode:<10}{row['ms']['median']:>11.2f}{row['ms']['best']:>9.2f}"
              f"{row['source_cpu_ms']['median']:>12.2f}{row['target_cpu_ms']['median']:>12.2f}"
              f"{row['part0_cpu_ms']['median']:>11.2f}{gibs:>8.2f}")
    ratio = result["modes"]["transfer"]["ms"]["median"] / result["modes"]["tcp"]["ms"]["median"]
    result["transfer_over_tcp_median"] = ratio
    print(f"transfer / raw TCP (medians): {ratio:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
