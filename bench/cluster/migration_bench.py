#!/usr/bin/env python3
"""What moving a rank between hosts costs (issue 22, part 1).

Starts redis-server and three synergyd (cluster_bench.Cluster, two slots
each, SYNERGY_MIGRATION_STATS=1) and runs migration_probe.c at np 2, one
rank on each of h2 and h3 (--policy spread), with each rank's buffer of
SIZE MiB, once unmoved and once with rank 1 moved to h2 at the second
barrier control point (SYNERGY_FORCE_MIGRATION=1@2:h2), alternating, each
--repeat times, after one unmeasured run in which each host compiles the
module. Both runs must print the same sum. Reported per size, the repeat
with the smallest move time:

  capture ms    the slowest part's time from the decision to its end: its
                ranks unwound, their memory, globals, WASI and MPI state
                captured, written to the shared checkpoint directory, and
                part 0's commit of the file (cluster/Migration.h)
  snapshot MiB  the checkpoint file the job restarts from (both ranks)
  restore ms    the slowest restarted part's read and check of that file
                (length, version, SHA-256) before its ranks are rewound
  move ms       wall time of the moved run minus the unmoved one: the
                whole cost of the move, restart of both parts included
  CPU ms        the same difference in CPU time (user + sys of the client,
                the daemons and every part process they started), which
                moves far less than wall time on a loaded machine

A move here restarts both parts from the checkpoint (Migration.h says
why), so "transfer" is the checkpoint through the file system the hosts
share, inside capture and restore. The load average is recorded.

usage: bench/cluster/migration_bench.py --build build [--json out.json] [--repeat N]
                                        [--sizes 1,64]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster_bench import BenchError, Cluster, children_cpu_ms, processes_cpu_ms, run  # noqa: E402

PHASES = 8
TARGET_64MIB_MS = 100.0


def stats(err, pattern):
    return [float(value) for value in re.findall(pattern, err)]


def one_run(cluster, program, size, moves, forced):
    shutil.rmtree(moves, ignore_errors=True)
    os.makedirs(moves)
    env = dict(os.environ)
    if forced:
        env["SYNERGY_FORCE_MIGRATION"] = forced
    daemons = [p.pid for p in cluster.processes[1:]]
    cpu_before = processes_cpu_ms(daemons) + children_cpu_ms()
    started = time.monotonic()
    done = subprocess.run(cluster.client(2, "spread") + ["--checkpoint-dir", moves, program,
                                                         str(size), str(PHASES)],
                          capture_output=True, text=True, timeout=600, env=env)
    wall_ms = (time.monotonic() - started) * 1000
    if done.returncode != 0:
        raise BenchError("run failed (%d):\n%s" % (done.returncode, done.stderr))
    return {"out": done.stdout, "err": done.stderr, "wall_ms": wall_ms,
            "cpu_ms": processes_cpu_ms(daemons) + children_cpu_ms() - cpu_before}


def measure(cluster, program, size, moves, repeat):
    best = None
    for _ in range(repeat):
        plain = one_run(cluster, program, size, moves, None)
        moved = one_run(cluster, program, size, moves, "1@2:h2")
        if plain["out"] != moved["out"] or not plain["out"].startswith("sum "):
            raise BenchError("the moved run printed %r, the unmoved one %r" %
                             (moved["out"], plain["out"]))
        if "stopped at a barrier control point to move rank 1" not in moved["err"]:
            raise BenchError("rank 1 was not moved:\n" + moved["err"])
        capture = stats(moved["err"], r"part \d+: its ranks unwound, captured and written in "
                                      r"([0-9.]+) ms")
        restore = stats(moved["err"], r"part \d+: read and checked the checkpoint in ([0-9.]+) ms")
        snapshot = stats(moved["err"], r"checkpoint of (\d+) bytes")
        if len(capture) != 2 or len(restore) != 1 or len(snapshot) != 1:
            raise BenchError("missing migration stats lines:\n" + moved["err"])
        row = {"size_mib": size, "capture_ms": max(capture), "snapshot_mib": snapshot[0] / 2**20,
               "restore_ms": max(restore), "move_ms": moved["wall_ms"] - plain["wall_ms"],
               "move_cpu_ms": moved["cpu_ms"] - plain["cpu_ms"],
               "unmoved_ms": plain["wall_ms"], "moved_ms": moved["wall_ms"]}
        if best is None or row["move_ms"] < best["move_ms"]:
            best = row
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--json")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="1,64")
    parser.add_argument("--redis-server", default=shutil.which("redis-server") or "redis-server")
    args = parser.parse_args()
    bin_dir = os.path.abspath(os.path.join(args.build, "bin"))
    os.environ["SYNERGY_MIGRATION_STATS"] = "1"
    with tempfile.TemporaryDirectory(prefix="synergy-migration-bench-") as workdir:
        os.environ["SYNERGY_CACHE_DIR"] = os.path.join(workdir, "cache")
        program = os.path.join(workdir, "migration_probe.wasm")
        run([os.path.join(bin_dir, "synergy-cc"), "-O2", os.path.join(HERE, "migration_probe.c"),
             "-o", program])
        cluster = Cluster(bin_dir, args.redis_server, workdir, ("--allow-dir", workdir))
        rows = []
        try:
            cluster.start()
            # Warm-up, not measured: each host compiles the module once.
            one_run(cluster, program, 1, os.path.join(workdir, "moves"), None)
            for size in [int(s) for s in args.sizes.split(",")]:
                rows.append(measure(cluster, program, size, os.path.join(workdir, "moves"),
                                    args.repeat))
        finally:
            cluster.stop()
    load = os.getloadavg()
    print("migration of one rank between two synergyd (np 2, best of %d; load %.1f %.1f %.1f)" %
          ((args.repeat,) + load))
    print("%8s %11s %13s %11s %9s %11s" % ("MiB/rank", "capture ms", "snapshot MiB", "restore ms",
                                           "move ms", "move CPU ms"))
    for row in rows:
        print("%8d %11.1f %13.1f %11.1f %9.0f %11.0f" % (
            row["size_mib"], row["capture_ms"], row["snapshot_mib"], row["restore_ms"],
            row["move_ms"], row["move_cpu_ms"]))
    big = [row for row in rows if row["size_mib"] == 64]
    if big:
        print("target: a 64 MiB granule moved in under %.0f ms: %s (%.0f ms)" %
              (TARGET_64MIB_MS, "met" if big[0]["move_ms"] < TARGET_64MIB_MS else "NOT met",
               big[0]["move_ms"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load": load, "repeat": args.repeat, "phases": PHASES, "rows": rows,
                       "target_64mib_ms": TARGET_64MIB_MS}, f, indent=2)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as error:
        print("migration_bench: %s" % error, file=sys.stderr)
        sys.exit(1)
