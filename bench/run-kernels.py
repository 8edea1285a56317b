#!/usr/bin/env python3
"""Run the granule kernel suite against native builds and report the ratios.

Each kernel in bench/kernels/ is built twice from the same source: natively
with clang-19 and as a granule with synergy-cc. Both are run REPEAT times,
each repetition a native run followed by a granule run, so that load from
other processes hits both sides of a pair alike. Each pair gives a ratio
(granule / native) and a kernel's ratio is the median over its pairs.

By default (--metric process) a run's figure is the user plus system CPU time
of the whole process, as the kernel reports it to its parent: start-up,
input generation, page faults and teardown included, which is what a user
pays, and CPU rather than wall-clock time because wall-clock time on a
machine shared with other work mostly measures the scheduler. The table
shows user and system time apart, so memory costs (page faults, zeroing,
unmapping) stay visible. Each kernel also times its hot loop from inside
and prints four figures: `time_s`, wall-clock, and `cpu_s`, the CPU time of
the thread running it, each over the whole loop; and `round_time_s` and
`round_cpu_s`, the same clocks over the loop's fastest round (an iteration,
a sweep, a band of rows) scaled to the whole loop. --metric round, cpu, wall
and round-wall select those instead. All other output lines must be
identical between every run on both sides; a mismatch fails the run.

It also times a hello-world granule end to end: once against a fresh, empty
AOT cache (cold start: wasm2c, post-pass and native compile included) and
then with the cache filled (warm start).

Usage:
  bench/run-kernels.py --build BUILD_DIR [--repeat N] [--json OUT] [--quick]
                       [--metric process|round|cpu|wall|round-wall] [--kernel NAME ...]
                       [--no-startup] [--work-dir DIR]
                       [--granule-flag=FLAG ...]

Progress goes to stderr; the table goes to stdout. Exit status is non-zero
when a build fails or native and granule outputs differ, never because of a
timing: the targets are reported, not enforced.
"""

import argparse
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
KERNEL_DIR = os.path.join(BENCH_DIR, "kernels")

# name -> problem size for --quick (argv[1] of the kernel). The full-size
# defaults live in each kernel so that running one by hand needs no argument.
KERNELS = {
    "dgemm": 200,
    "stencil2d": 300,
    "nstream": 200000,
    "spmv": 50000,
    "nbody": 300,
    "sort": 500000,
    "strhash": 50000,
    # Linear algebra: BLAS-3 and BLAS-2 shapes.
    "gemm": 200,
    "mm2": 150,
    "mm3": 150,
    "atax": 800,
    "bicg": 800,
    "mvt": 800,
    "gemver": 600,
    "gesummv": 700,
    "symm": 160,
    "syrk": 180,
    "syr2k": 140,
    "trmm": 200,
    # Solvers and factorizations.
    "cholesky": 250,
    "lu": 250,
    "ludcmp": 200,
    "trisolv": 800,
    "durbin": 1500,
    "gramschmidt": 150,
    # Stencils, 1-D to 3-D.
    "jacobi1d": 200000,
    "jacobi2d": 250,
    "heat3d": 40,
    "fdtd2d": 250,
    "seidel2d": 250,
    "adi": 250,
    # Dynamic programming.
    "floydwarshall": 250,
    "nussinov": 300,
    # Data mining and image filters.
    "covariance": 180,
    "correlation": 180,
    "deriche": 400,
    "doitgen": 50,
    # Conversions, memory backing, latency.
    "f2ihash": 500000,
    "quantize": 200000,
    "firsttouch": 32,
    "ptrchase": 200000,
}

# Compile flags shared by both sides. -ffp-contract=off keeps clang from
# fusing multiply-adds differently on the two targets, so floating results
# are bit-identical and the checksums can be compared exactly.
COMMON_FLAGS = ["-O2", "-ffp-contract=off", "-I", KERNEL_DIR]
NATIVE_CC = "clang-19"

# Smallest size every kernel accepts (stencil2d needs a 3x3 grid).
WARM_UP_SIZE = "4"

# Issue 19's targets over the broad suite.
GEOMEAN_TARGET = 1.05
KERNEL_TARGET = 1.20
RUN_TIMEOUT_S = 900


class BenchError(Exception):
    """A build or run failure; reported in one line, then exit non-zero."""


def progress(message):
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def children_cpu_s():
    """(user, system) seconds of every child waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime, usage.ru_stime


def run_checked(argv, env=None, what=None):
    """Runs argv, returns (stdout, wall seconds, (user, system) CPU seconds of
    the process and every descendant it waited for); raises BenchError on
    failure. Children run one at a time, so the difference of the
    accumulated child times is this process's own."""
    user_start, system_start = children_cpu_s()
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    except FileNotFoundError:
        raise BenchError(f"{argv[0]}: not found")
    except subprocess.TimeoutExpired:
        raise BenchError(f"{what or argv[0]}: timed out after {RUN_TIMEOUT_S} s")
    wall = time.perf_counter() - start
    user_end, system_end = children_cpu_s()
    cpu = (user_end - user_start, system_end - system_start)
    if proc.returncode != 0:
        detail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        last = detail[-1] if detail else "no output"
        raise BenchError(f"{what or ' '.join(argv)}: exit {proc.returncode}: {last}")
    return proc.stdout, wall, cpu


TIMING_LINES = {"time_s": "wall", "cpu_s": "cpu", "round_time_s": "round-wall", "round_cpu_s": "round"}
# Measured by this script around each whole process.
PROCESS_CLOCKS = ("user", "system", "process")


def split_output(text, what):
    """Returns (result lines without the timing lines, {metric: seconds})."""
    result, times = [], {}
    for line in text.splitlines():
        words = line.split()
        if words and words[0] in TIMING_LINES and len(words) == 2:
            times[TIMING_LINES[words[0]]] = float(words[1])
        else:
            result.append(line)
    for label, metric in TIMING_LINES.items():
        if metric not in times:
            raise BenchError(f"{what}: no '{label}' line in output")
    return "\n".join(result), times


class Toolchain:
    def __init__(self, build_dir, work_dir, granule_flags):
        bin_dir = os.path.join(build_dir, "bin")
        self.synergy_cc = os.path.join(bin_dir, "synergy-cc")
        self.synergy_run = os.path.join(bin_dir, "synergy-run")
        for tool in (self.synergy_cc, self.synergy_run):
            if not os.access(tool, os.X_OK):
                raise BenchError(f"{tool}: not found; build the synergy-cc and synergy-run targets first")
        if shutil.which(NATIVE_CC) is None:
            raise BenchError(f"{NATIVE_CC}: not found on PATH")
        self.work_dir = work_dir
        self.granule_flags = granule_flags
        os.makedirs(work_dir, exist_ok=True)
        # The kernels get their own AOT cache so a benchmark never reads a
        # stale entry from, or pollutes, the user's cache.
        self.kernel_cache = os.path.join(work_dir, "aot-cache")
        os.makedirs(self.kernel_cache, exist_ok=True)

    def build_native(self, source, output):
        run_checked([NATIVE_CC, *COMMON_FLAGS, source, "-o", output, "-lm"], what=f"native build of {source}")

    def build_granule(self, source, output):
        run_checked([self.synergy_cc, *COMMON_FLAGS, *self.granule_flags, source, "-o", output],
                    what=f"granule build of {source}")

    def granule_env(self, cache_dir):
        env = dict(os.environ)
        env["SYNERGY_CACHE_DIR"] = cache_dir
        return env


def run_kernel(tools, name, quick_size, quick, repeat, metric):
    source = os.path.join(KERNEL_DIR, f"{name}.c")
    native = os.path.join(tools.work_dir, f"{name}.native")
    granule = os.path.join(tools.work_dir, f"{name}.wasm")
    progress(f"{name}: building")
    tools.build_native(source, native)
    tools.build_granule(source, granule)
    size_args = [str(quick_size)] if quick else []
    env = tools.granule_env(tools.kernel_cache)

    # One untimed granule run at a tiny size fills the AOT cache, so the
    # first timed run does not also compete with the compiler for the CPU.
    run_checked([tools.synergy_run, granule, WARM_UP_SIZE], env=env, what=f"{name} granule warm-up")

    reference = None
    clocks = (*PROCESS_CLOCKS, *TIMING_LINES.values())
    times = {side: {clock: [] for clock in clocks} for side in ("native", "granule")}
    for rep in range(repeat):
        for side, argv, side_env in (
            ("native", [native, *size_args], None),
            ("granule", [tools.synergy_run, granule, *size_args], env),
        ):
            what = f"{name} {side} run {rep + 1}"
            stdout, _, (user, system) = run_checked(argv, env=side_env, what=what)
            result, measured = split_output(stdout, what)
            if reference is None:
                reference = result
            elif result != reference:
                raise BenchError(f"{what}: output differs from the first native run:\n"
                                 f"--- expected\n{reference}\n--- got\n{result}")
            measured.update({"user": user, "system": system, "process": user + system})
            for clock, seconds in measured.items():
                times[side][clock].append(seconds)
        progress(f"{name}: run {rep + 1}/{repeat}: "
                 f"native {times['native']['user'][-1]:.3f} s user + {times['native']['system'][-1]:.3f} s sys, "
                 f"granule {times['granule']['user'][-1]:.3f} s user + {times['granule']['system'][-1]:.3f} s sys")

    def paired_median(clock):
        ratios = [g / n for n, g in zip(times["native"][clock], times["granule"][clock]) if n > 0]
        return statistics.median(ratios) if ratios else float("inf")

    checksum = next((l.split()[1] for l in reference.splitlines() if l.startswith("checksum ")), None)
    return {
        "kernel": name,
        "parameters": reference.splitlines()[0] if reference else "",
        "checksum": checksum,
        "metric": metric,
        "native_s": times["native"],
        "granule_s": times["granule"],
        "median_s": {side: {clock: statistics.median(times[side][clock]) for clock in clocks}
                     for side in ("native", "granule")},
        "paired_ratios": [g / n if n > 0 else float("inf")
                          for n, g in zip(times["native"][metric], times["granule"][metric])],
        "ratio_by_metric": {clock: paired_median(clock) for clock in clocks},
        "ratio": paired_median(metric),
    }


def measure_startup(tools, repeat):
    """Wall and CPU time of a whole hello-world process: cold, warm, native.
    CPU time includes the AOT compiler processes of the cold start."""
    source = os.path.join(KERNEL_DIR, "hello.c")
    native = os.path.join(tools.work_dir, "hello.native")
    granule = os.path.join(tools.work_dir, "hello.wasm")
    progress("hello: building")
    tools.build_native(source, native)
    tools.build_granule(source, granule)

    cold_cache = tempfile.mkdtemp(prefix="cold-cache-", dir=tools.work_dir)
    try:
        env = tools.granule_env(cold_cache)
        progress("hello: cold start (empty AOT cache)")
        _, cold, (cold_user, cold_system) = run_checked([tools.synergy_run, granule], env=env,
                                                        what="hello cold start")
        cold_cpu = cold_user + cold_system
        warm, native_runs = [], []
        for rep in range(repeat):
            _, wall, (user, system) = run_checked([tools.synergy_run, granule], env=env,
                                                  what="hello warm start")
            warm.append((wall, user + system))
            _, wall, (user, system) = run_checked([native], what="hello native")
            native_runs.append((wall, user + system))
        progress(f"hello: cold {cold:.3f} s, warm {min(w for w, _ in warm) * 1e3:.1f} ms")
    finally:
        shutil.rmtree(cold_cache, ignore_errors=True)
    return {
        "cold_wall_s": cold,
        "cold_cpu_s": cold_cpu,
        "warm_wall_s": [w for w, _ in warm],
        "warm_cpu_s": [c for _, c in warm],
        "native_wall_s": [w for w, _ in native_runs],
        "native_cpu_s": [c for _, c in native_runs],
        "warm_min_wall_s": min(w for w, _ in warm),
        "warm_min_cpu_s": min(c for _, c in warm),
        "native_min_wall_s": min(w for w, _ in native_runs),
        "native_min_cpu_s": min(c for _, c in native_runs),
    }


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def print_table(results, geomean, startup, metric):
    print(f"ratio: median over runs of the paired granule/native '{metric}' ratio; "
          f"user and sys: median seconds of the whole process; "
          f"loop: the same paired ratio of the kernel loop's thread CPU time")
    print(f"{'kernel':<14} {'native user':>11} {'sys':>7} {'granule user':>12} {'sys':>7} "
          f"{'ratio':>7} {'min':>7} {'max':>7} {'loop':>7}")
    for r in results:
        flag = "  over target" if r["ratio"] > KERNEL_TARGET else ""
        native, granule = r["median_s"]["native"], r["median_s"]["granule"]
        print(f"{r['kernel']:<14} {native['user']:>11.3f} {native['system']:>7.3f} "
              f"{granule['user']:>12.3f} {granule['system']:>7.3f} {r['ratio']:>6.3f}x "
              f"{min(r['paired_ratios']):>6.3f}x {max(r['paired_ratios']):>6.3f}x "
              f"{r['ratio_by_metric']['cpu']:>6.3f}x{flag}")
    print(f"{'geomean':<14} {'':>11} {'':>7} {'':>12} {'':>7} {geomean:>6.3f}x")
    worst = max(results, key=lambda r: r["ratio"])
    print(f"targets: geomean <= {GEOMEAN_TARGET:.2f}x: {'met' if geomean <= GEOMEAN_TARGET else 'MISSED'}; "
          f"every kernel <= {KERNEL_TARGET:.2f}x: "
          f"{'met' if worst['ratio'] <= KERNEL_TARGET else 'MISSED (' + worst['kernel'] + ')'}")
    if startup:
        print("hello world, whole process (wall / CPU incl. child processes):")
        print(f"  cold start (empty AOT cache) {startup['cold_wall_s'] * 1e3:9.1f} ms / "
              f"{startup['cold_cpu_s'] * 1e3:7.1f} ms")
        print(f"  warm start (cached)          {startup['warm_min_wall_s'] * 1e3:9.1f} ms / "
              f"{startup['warm_min_cpu_s'] * 1e3:7.1f} ms")
        print(f"  native                       {startup['native_min_wall_s'] * 1e3:9.1f} ms / "
              f"{startup['native_min_cpu_s'] * 1e3:7.1f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="Synergy build directory (holds bin/synergy-cc)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs per side, paired; the median ratio is kept (default 5)")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--quick", action="store_true", help="small problem sizes, for a smoke test")
    parser.add_argument("--metric", choices=("process", *TIMING_LINES.values()), default="process",
                        help="figure the ratios use: the whole process's user + system CPU time "
                             "(process, the default); the kernel loop's fastest round's thread CPU "
                             "time (round) or wall-clock time (round-wall), or the whole loop's "
                             "(cpu, wall)")
    parser.add_argument("--kernel", action="append", choices=sorted(KERNELS),
                        help="run only this kernel (repeatable)")
    parser.add_argument("--granule-flag", action="append", default=[], metavar="FLAG",
                        help="extra synergy-cc flag for the granule side only, to try a "
                             "toolchain change (repeatable; use --granule-flag=-fno-...)")
    parser.add_argument("--no-startup", action="store_true", help="skip the hello-world start-up timing")
    parser.add_argument("--work-dir", help="where binaries and the kernels' AOT cache go (default: "
                                           "BUILD_DIR/bench/kernels[-quick][-trial]); set it to "
                                           "measure another build without writing into it")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    build_dir = os.path.abspath(args.build)
    work_name = "kernels-quick" if args.quick else "kernels"
    if args.granule_flag:
        # Separate work files, so a trial build never replaces the plain one.
        work_name += "-trial"
    work_dir = os.path.abspath(args.work_dir) if args.work_dir else os.path.join(build_dir, "bench", work_name)
    try:
        tools = Toolchain(build_dir, work_dir, args.granule_flag)
        names = args.kernel or list(KERNELS)
        results = [run_kernel(tools, n, KERNELS[n], args.quick, args.repeat, args.metric)
                   for n in names]
        startup = None if args.no_startup else measure_startup(tools, args.repeat)
    except BenchError as err:
        print(f"run-kernels.py: error: {err}", file=sys.stderr)
        return 1

    geomean = geometric_mean([r["ratio"] for r in results])
    print_table(results, geomean, startup, args.metric)
    if args.json:
        report = {
            "machine": {"node": platform.node(), "machine": platform.machine(),
                        "processor": platform.processor(), "cpus": os.cpu_count()},
            "quick": args.quick,
            "repeat": args.repeat,
            "metric": args.metric,
            "flags": COMMON_FLAGS[:2],
            "granule_extra_flags": args.granule_flag,
            "kernels": results,
            "geomean": geomean,
            "targets": {"geomean": GEOMEAN_TARGET, "per_kernel": KERNEL_TARGET,
                        "geomean_met": geomean <= GEOMEAN_TARGET,
                        "per_kernel_met": all(r["ratio"] <= KERNEL_TARGET for r in results)},
            "startup": startup,
        }
        with open(args.json, "w") as out:
            json.dump(report, out, indent=2)
            out.write("\n")
        progress(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
