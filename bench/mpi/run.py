#!/usr/bin/env python3
"""Synergy MPI vs OpenMPI, measured in the same run.

Builds bench/mpi/osu.c and bench/mpi/kernels.c with OpenMPI's mpicc and with
synergy-cc, runs each under `mpirun --oversubscribe -np N` and
`synergy-run -np N`, prints a table of synergy/OpenMPI ratios, and writes
every number to a JSON file.

Each (test, rank count) runs --repeat times, alternating OpenMPI and
synergy so that load from other processes hits both alike, and the best
value of each side is kept (the least time, the most bandwidth): one stall
of a loaded machine would otherwise dominate a microsecond average.

Ratios are synergy/OpenMPI of the measured value: for times (latency,
collectives, kernels) below 1.0 means synergy is faster; for bandwidth above
1.0 means synergy is faster. A kernel that fails its own check is reported
as FAILED. The summary counts the rows that meet the issue's targets.

usage: bench/mpi/run.py --build <build-dir> [--json out.json] [--quick] [--repeat N]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(command):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                          timeout=900)
    if done.returncode != 0:
        sys.stderr.write("failed (%d): %s\n%s" % (done.returncode, " ".join(command),
                                                  done.stderr.decode(errors="replace")))
        sys.exit(1)
    return done.stdout.decode()


def parse(text):
    """Lines "<name> <key> <value> [status]" -> {(name, key): (value, status)}."""
    results = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            results[(parts[0], parts[1])] = (float(parts[2]), parts[3] if len(parts) > 3 else "")
    return results


def best_of(runs, higher_is_better):
    """Merges parse() results of several runs, keeping each key's best value;
    a status other than "ok" in any run wins, so a failed check shows."""
    merged = {}
    for results in runs:
        for key, (value, status) in results.items():
            if key not in merged:
                merged[key] = (value, status)
                continue
            old, old_status = merged[key]
            better = value > old if higher_is_better(key) else value < old
            merged[key] = (value if better else old,
                           old_status if old_status != "ok" else status)
    return merged


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True, help="Synergy build directory")
    parser.add_argument("--json", default="mpi-bench.json")
    parser.add_argument("--quick", action="store_true", help="fewer rank counts")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per test and rank count; the best is kept (default 3)")
    options = parser.parse_args()
    synergy_cc = os.path.join(options.build, "bin", "synergy-cc")
    synergy_run = os.path.join(options.build, "bin", "synergy-run")
    work = tempfile.mkdtemp(prefix="synergy-mpi-bench-")
    binaries = {}
    for program in ("osu", "kernels"):
        source = os.path.join(HERE, program + ".c")
        native = os.path.join(work, program)
        granule = os.path.join(work, program + ".wasm")
        run(["mpicc", "-O2", source, "-o", native, "-lm"])
        run([synergy_cc, "-O2", source, "-o", granule, "-lm"])
        binaries[program] = (native, granule)

    collective_ranks = [2, 4] if options.quick else [2, 4, 8]
    plan = [("osu", "latency", [2]), ("osu", "bandwidth", [2])]
    plan += [("osu", test, collective_ranks) for test in ("allreduce", "bcast")]
    plan += [("kernels", kernel, [2, 4]) for kernel in
             ("p2p", "stencil", "transpose", "nstream", "reduce")]

    rows = []
    for program, test, rank_counts in plan:
        native, granule = binaries[program]
        for ranks in rank_counts:
            openmpi_runs, synergy_runs = [], []
            for _ in range(max(1, options.repeat)):
                openmpi_runs.append(parse(run(["mpirun", "--oversubscribe", "-np", str(ranks),
                                               native, test])))
                synergy_runs.append(parse(run([synergy_run, "-np", str(ranks), granule, test])))
            is_bandwidth = lambda key: key[0] == "bandwidth"
            openmpi = best_of(openmpi_runs, is_bandwidth)
            synergy = best_of(synergy_runs, is_bandwidth)
            sys.stderr.write("[bench] %s -np %d done\n" % (test, ranks))
            for key in sorted(openmpi, key=lambda k: float(k[1]) if k[1].replace(".", "").isdigit() else 0):
                if key not in synergy:
                    continue
                name, size = key
                o, ostatus = openmpi[key]
                s, sstatus = synergy[key]
                rows.append({"test": name, "ranks": ranks,
                             "size": size if program == "osu" else "-",
                             "unit": "MB/s" if name == "bandwidth" else ("s" if program == "kernels" else "us"),
                             "openmpi": o, "synergy": s,
                             "ratio": s / o if o else None,
                             "check": "" if program == "osu" else (
                                 "ok" if ostatus == sstatus == "ok" else "FAILED")})

    print("%-10s %5s %9s %5s %12s %12s %8s %s" % ("test", "ranks", "bytes", "unit", "openmpi",
                                                  "synergy", "ratio", "check"))
    for row in rows:
        print("%-10s %5d %9s %5s %12.3f %12.3f %8.2f %s" % (
            row["test"], row["ranks"], row["size"], row["unit"], row["openmpi"],
            row["synergy"], row["ratio"] or 0, row["check"]))
    osu = [row for row in rows if row["size"] != "-" and row["ratio"] is not None]
    met = [row for row in osu if (row["ratio"] >= 1.0 if row["test"] == "bandwidth"
                                  else row["ratio"] <= 1.0)]
    print("targets (latency and collectives <= 1.0x, bandwidth >= 1.0x): %d of %d rows met"
          % (len(met), len(osu)))
    for name in ("latency", "bandwidth", "allreduce", "bcast"):
        missed = [row for row in osu if row["test"] == name and row not in met]
        if missed:
            print("  %s missed at: %s" % (name, ", ".join(
                "%s B @%d (%.2fx)" % (row["size"], row["ranks"], row["ratio"]) for row in missed)))
    with open(options.json, "w") as out:
        json.dump({"results": rows}, out, indent=1)
    print("wrote %s" % options.json)
    return 1 if any(row["check"] == "FAILED" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
