#!/usr/bin/env python3
"""Synergy OpenMP vs libgomp, measured in the same run.

Builds each ParRes-style kernel in bench/omp/ natively with gcc -fopenmp
(libgomp) and as a granule with synergy-cc -fopenmp, runs both at each
thread count (OMP_NUM_THREADS), the granule once with plain shared memory
and once with `synergy-run --dsm`, prints a table and writes every number
to a JSON file.

Columns: the kernel's own time (seconds of its timed loop, or microseconds
per region/barrier/step for forkjoin, barrier and loopsync; the minimum
over --repeat runs). By default (--metric round) a loop kernel's time is its fastest
iteration times the iteration count, which filters the bursts of other
tenants' memory traffic that a whole-loop time absorbs (see
bench/README.md); --metric loop uses the whole loop's wall-clock time.
Then `syn/gomp` = synergy shared / libgomp (below 1.0 means synergy is
faster), and `dsm/shr` = synergy dsm / synergy shared, the price of DSM.
A last table gives the speed of the byte-wise diff that --dsm computes at
every synchronisation, against memcmp on the same machine.
Native and granule outputs must be identical apart from the timing lines
(same checksum at the same thread count); a mismatch or a failed run is
reported in the `check` column and makes the exit status non-zero. Timings
never do.

usage: bench/omp/run.py --build <build-dir> [--json out.json] [--quick]
                        [--threads 1,2,4] [--repeat N] [--kernel NAME ...]
                        [--native-only] [--metric round|loop]
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (full-size arguments, --quick arguments); argv[1] is the size,
# argv[2] the iteration count. The full sizes keep a whole run, native and
# both granule modes at three thread counts, to a few minutes on 2 cores.
KERNELS = {
    "nstream": (["2000000", "40"], ["200000", "5"]),
    "stencil": (["1000", "20"], ["200", "5"]),
    "transpose": (["1200", "40"], ["300", "3"]),
    "reduce": (["500000", "20"], ["50000", "5"]),
    "dgemm": (["400", "4"], ["128", "2"]),
    "forkjoin": (["2000"], ["200"]),
    "barrier": (["10000"], ["1000"]),
    "loopsync": (["20000"], ["2000"]),
}

# -ffp-contract=off on both sides, as in bench/run-kernels.py: no fused
# multiply-adds on one side only, so floating checksums compare exactly.
FLAGS = ["-O2", "-fopenmp", "-ffp-contract=off"]
TIMING_LINES = ("time_s", "round_time_s", "us_per_op")
RUN_TIMEOUT_S = 600


class BenchError(Exception):
    """A build or run failure."""


def progress(message):
    print("[omp-bench] %s" % message, file=sys.stderr, flush=True)


def run(argv, env=None, what=None):
    try:
        done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=RUN_TIMEOUT_S)
    except FileNotFoundError:
        raise BenchError("%s: not found" % argv[0])
    except subprocess.TimeoutExpired:
        raise BenchError("%s: timed out after %d s" % (what or argv[0], RUN_TIMEOUT_S))
    if done.returncode != 0:
        detail = (done.stderr.decode(errors="replace").strip() or
                  done.stdout.decode(errors="replace").strip()).splitlines()
        raise BenchError("%s: exit %d: %s" % (what or " ".join(argv), done.returncode,
                                              detail[-1] if detail else "no output"))
    return done.stdout.decode()


def parse(text, what, metric):
    """(result lines without timings, measured value, unit)."""
    result, timings = [], {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] in TIMING_LINES:
            timings[words[0]] = float(words[1])
        else:
            result.append(line)
    if "us_per_op" in timings:
        return "\n".join(result), timings["us_per_op"], "us"
    if metric == "round" and "round_time_s" in timings:
        return "\n".join(result), timings["round_time_s"], "s"
    if "time_s" in timings:
        return "\n".join(result), timings["time_s"], "s"
    raise BenchError("%s: no time_s line in output" % what)


def environment(threads, cache=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["OMP_NUM_THREADS"] = str(threads)
    if cache:
        env["SYNERGY_CACHE_DIR"] = cache
    return env


def measure(row, commands, sides, repeat, cache, metric):
    """Runs every side `repeat` times, interleaved so load from other
    processes hits all alike, and fills `row` with each side's minimum.
    A side that fails or prints a different result is dropped from `row`
    and its error recorded."""
    name, threads = row["kernel"], row["threads"]
    reference, best, failed = None, {}, set()
    for rep in range(repeat):
        for side in sides:
            if side in failed:
                continue
            what = "%s %s %d threads run %d" % (name, side, threads, rep + 1)
            try:
                env = environment(threads, None if side == "libgomp" else cache)
                result, value, unit = parse(run(commands[side], env=env, what=what), what, metric)
            except BenchError as error:
                row["errors"].append(str(error))
                failed.add(side)
                continue
            row["unit"] = unit
            if reference is None:
                reference = result
            if result != reference:
                failed.add(side)
                row["errors"].append("%s: output differs from libgomp's:\n--- expected\n%s\n"
                                     "--- got\n%s" % (what, reference, result))
                continue
            best[side] = min(best.get(side, value), value)
    row.update(best)
    if reference:
        row["checksum"] = next((l.split()[1] for l in reference.splitlines()
                                if l.startswith("checksum ")), None)
    progress("%s %d threads: %s" % (name, threads, ", ".join(
        "%s %.4g" % (side, row[side]) for side in sides if row[side] is not None)))


def diff_throughput(build_dir):
    """The --dsm diff's speed against memcmp (bench/omp/diff_throughput.cpp)."""
    progress("diff throughput: building")
    run(["cmake", "--build", build_dir, "--target", "synergy-diff-throughput"],
        what="build of synergy-diff-throughput")
    return json.loads(run([os.path.join(build_dir, "bench", "synergy-diff-throughput")],
                          what="synergy-diff-throughput"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="Synergy build directory (holds bin/synergy-cc)")
    parser.add_argument("--json", default="omp-bench.json", help="results file (default omp-bench.json)")
    parser.add_argument("--quick", action="store_true", help="small problem sizes, for a smoke test")
    parser.add_argument("--threads", default="1,2,4", help="OMP_NUM_THREADS values (default 1,2,4)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per side; the minimum is kept (default 2)")
    parser.add_argument("--kernel", action="append", choices=sorted(KERNELS),
                        help="run only this kernel (repeatable)")
    parser.add_argument("--native-only", action="store_true", help="libgomp side only")
    parser.add_argument("--metric", choices=("round", "loop"), default="round",
                        help="loop kernels' figure: fastest iteration times the iteration count "
                             "(round, the default) or the whole loop's time (loop)")
    options = parser.parse_args()
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    thread_counts = [int(t) for t in options.threads.split(",") if t]

    build_dir = os.path.abspath(options.build)
    synergy_cc = os.path.join(build_dir, "bin", "synergy-cc")
    synergy_run = os.path.join(build_dir, "bin", "synergy-run")
    gcc = shutil.which("gcc")
    if gcc is None:
        print("run.py: error: gcc not found on PATH", file=sys.stderr)
        return 1
    work = os.path.join(build_dir, "bench", "omp-quick" if options.quick else "omp")
    # A private AOT cache: never a stale entry from, or pollution of, the user's.
    cache = os.path.join(work, "aot-cache")
    os.makedirs(cache, exist_ok=True)
    sides = ["libgomp"] if options.native_only else ["libgomp", "shared", "dsm"]

    rows = []
    for name in options.kernel or list(KERNELS):
        source = os.path.join(HERE, name + ".c")
        native = os.path.join(work, name)
        granule = os.path.join(work, name + ".wasm")
        arguments = KERNELS[name][1 if options.quick else 0]
        commands = {"libgomp": [native, *arguments],
                    "shared": [synergy_run, granule, *arguments],
                    "dsm": [synergy_run, "--dsm", granule, *arguments]}
        progress("%s: building" % name)
        broken = None
        try:
            run([gcc, *FLAGS, source, "-o", native, "-lm"], what="gcc build of %s" % name)
            if not options.native_only:
                run([synergy_cc, *FLAGS, source, "-o", granule, "-lm"], what="synergy-cc build of %s" % name)
                # Fill the AOT cache outside the timed runs.
                run([synergy_run, granule, *KERNELS[name][1]], env=environment(1, cache),
                    what="%s granule warm-up" % name)
        except BenchError as error:
            broken = str(error)
        for threads in thread_counts:
            row = {"kernel": name, "threads": threads, "arguments": arguments, "unit": None,
                   "libgomp": None, "shared": None, "dsm": None, "checksum": None, "errors": []}
            if broken:
                row["errors"].append(broken)
            else:
                measure(row, commands, sides, options.repeat, cache, options.metric)
            rows.append(row)

    diff = None if options.native_only else diff_throughput(build_dir)

    def ratio(a, b):
        return a / b if a is not None and b else None

    for row in rows:
        row["synergy_over_libgomp"] = ratio(row["shared"], row["libgomp"])
        row["dsm_over_shared"] = ratio(row["dsm"], row["shared"])

    def cell(value, width, digits):
        return ("%*.*f" % (width, digits, value)) if value is not None else "%*s" % (width, "-")

    print("%-10s %7s %4s %11s %11s %11s %8s %8s  %s" % (
        "kernel", "threads", "unit", "libgomp", "synergy", "dsm", "syn/gomp", "dsm/shr", "check"))
    for row in rows:
        print("%-10s %7d %4s %s %s %s %s %s  %s" % (
            row["kernel"], row["threads"], row["unit"] or "-", cell(row["libgomp"], 11, 4),
            cell(row["shared"], 11, 4), cell(row["dsm"], 11, 4),
            cell(row["synergy_over_libgomp"], 8, 2), cell(row["dsm_over_shared"], 8, 2),
            "FAILED" if row["errors"] else "ok"))
    for row in rows:
        for error in row["errors"]:
            print("%s %d threads: %s" % (row["kernel"], row["threads"], error))
    if diff:
        print("\ndiff throughput (snapshot::diffPages over 64 MiB) against memcmp %.2f GB/s:"
              % diff["memcmp_gbps"])
        for pattern in ("unchanged", "one_byte_per_page", "one_byte_per_64"):
            print("  %-18s %6.2f GB/s  (%.2f of memcmp)" % (
                pattern, diff[pattern]["diff_gbps"], diff[pattern]["diff_gbps"] / diff["memcmp_gbps"]))
    with open(options.json, "w") as out:
        json.dump({"machine": {"node": platform.node(), "machine": platform.machine(),
                               "cpus": os.cpu_count()},
                   "quick": options.quick, "repeat": options.repeat, "metric": options.metric,
                   "flags": FLAGS,
                   "threads": thread_counts, "native_only": options.native_only,
                   "results": rows, "diff_throughput": diff}, out, indent=1)
        out.write("\n")
    print("wrote %s" % options.json)
    return 1 if any(row["errors"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
