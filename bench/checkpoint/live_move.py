#!/usr/bin/env python3
"""The cost of a live move of one rank inside one process (issue 22, part 1).

Runs bench/checkpoint/memory_barriers.c (each rank fills MIB MiB of heap
with non-zero bytes, then meets the others at 10 barriers) at -np 2 with
SYNERGY_TEST_LIVE_MOVE=1@5 SYNERGY_LIVE_MOVE_STATS=1: rank 1 departs at the
5th control point and arrives in a fresh instance. Reports, per memory
size, the departing half (encode the rank's state: wall and CPU ms of the
rank's thread) and the arriving half (decode, check and restore into a
fresh instance, start the rewind: wall and CPU ms), the time the other rank
was held at the control point until the arrival (builds that hold it), and
the encoded bytes; each run's output must equal an unmoved run's.

  bench/checkpoint/live_move.py --build BUILD [--mib 16 64] [--repeat 5] [--json F]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LEFT = re.compile(r"live move: rank (\d+) left: ([0-9.]+) ms, cpu ([0-9.]+) ms, (\d+) bytes "
                  r"of (\d+) memory")
ARRIVED = re.compile(r"live move: rank (\d+) arrived: ([0-9.]+) ms, cpu ([0-9.]+) ms "
                     r"\(([0-9.]+) ms after it left\)")
HELD = re.compile(r"live move: \d+ other ranks held ([0-9.]+) ms at the control point")


def median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--mib", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    options = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    run = os.path.join(options.build, "bin", "synergy-run")
    with tempfile.TemporaryDirectory() as work:
        wasm = os.path.join(work, "memory.wasm")
        subprocess.run([os.path.join(options.build, "bin", "synergy-cc"), "-O2",
                        os.path.join(here, "memory_barriers.c"), "-o", wasm], check=True)
        rows = []
        for mib in options.mib:
            plain = subprocess.run([run, "-np", "2", wasm, str(mib)], capture_output=True,
                                   text=True, check=True).stdout
            samples = []
            for _ in range(options.repeat):
                env = dict(os.environ, SYNERGY_TEST_LIVE_MOVE="1@5", SYNERGY_LIVE_MOVE_STATS="1")
                done = subprocess.run([run, "-np", "2", wasm, str(mib)], capture_output=True,
                                      text=True, env=env)
                left, arrived = LEFT.search(done.stderr), ARRIVED.search(done.stderr)
                if done.returncode != 0 or done.stdout != plain or not left or not arrived:
                    sys.exit("live move of a %d MiB rank failed (status %d):\n%s" %
                             (mib, done.returncode, done.stderr))
                samples.append({
                    "leave_ms": float(left.group(2)), "leave_cpu_ms": float(left.group(3)),
                    "bytes": int(left.group(4)), "memory_bytes": int(left.group(5)),
                    "arrive_ms": float(arrived.group(2)),
                    "arrive_cpu_ms": float(arrived.group(3)),
                    "left_to_arrived_ms": float(arrived.group(4))})
                held = HELD.search(done.stderr)
                if held:
                    samples[-1]["held_ms"] = float(held.group(1))
            row = {"mib": mib, "runs": samples, "load": os.getloadavg()[0]}
            for key in ("leave_ms", "leave_cpu_ms", "arrive_ms", "arrive_cpu_ms",
                        "left_to_arrived_ms"):
                row[key + "_median"] = median([sample[key] for sample in samples])
            if all("held_ms" in sample for sample in samples):
                row["held_ms_median"] = median([sample["held_ms"] for sample in samples])
            rows.append(row)
    print("%6s %12s %12s %12s %12s %14s %10s %12s %6s" % (
        "MiB", "leave ms", "leave cpu", "arrive ms", "arrive cpu", "left->arrived", "held ms",
        "bytes", "load"))
    for row in rows:
        held = row.get("held_ms_median")
        print("%6d %12.1f %12.1f %12.1f %12.1f %14.1f %10s %12d %6.1f" % (
            row["mib"], row["leave_ms_median"], row["leave_cpu_ms_median"],
            row["arrive_ms_median"], row["arrive_cpu_ms_median"],
            row["left_to_arrived_ms_median"], "-" if held is None else "%.1f" % held,
            row["runs"][0]["bytes"], row["load"]))
    if options.json:
        with open(options.json, "w") as out:
            json.dump({"bench": "live_move", "ranks": 2, "at_control_point": 5,
                       "repeat": options.repeat, "rows": rows}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
