#!/usr/bin/env python3
"""Warm start of a granule against a native process, interleaved.

Issue 19's target: a granule `hello` run through synergy-run with a warm AOT
cache starts and ends within 2 ms of a native clang `hello`, measured over
the whole process. This bench builds bench/kernels/hello.c both ways, fills a
private AOT cache with one untimed run, and then runs, REPEAT times and in
turn (so that load from other processes hits every variant alike):

  native       the clang-19 -O2 binary;
  run --help   `synergy-run --help`: the cost of starting synergy-run at all
               (loader, relocations, shared libraries, static constructors);
  granule      `synergy-run hello.wasm` with the warm cache;
  baseline     the same with another synergy-run (--baseline-run), to compare
               two builds in one session; it gets its own warm cache.

Each run is timed from outside: wall-clock time from spawn to reap, and the
user and system CPU time the kernel reports for the reaped process
(wait4). The table shows, per variant, the median and the minimum of wall
and CPU time and the median user and system time, and the difference and
ratio of the medians against native. CPU time is the figure to compare on a
loaded machine: wall-clock time there mostly measures the scheduler. Only
the sum of user and system time is exact for processes this short: Linux
splits a process's run time between the two by the timer ticks that landed
in each, and when none landed it reports all of it as user time.

Every run's standard output must be exactly "hello from a granule\\n" on
every side; anything else fails the bench.

Usage:
  bench/warm-start.py --build BUILD_DIR [--repeat N] [--json OUT]
                      [--baseline-run OTHER/synergy-run] [--work-dir DIR]
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
HELLO_SOURCE = os.path.join(BENCH_DIR, "kernels", "hello.c")
EXPECTED_OUTPUT = b"hello from a granule\n"
NATIVE_CC = "clang-19"
TARGET_DIFFERENCE_MS = 2.0
RUN_TIMEOUT_S = 60


class BenchError(Exception):
    """A build or run failure; reported in one line, then exit non-zero."""


def progress(message):
    print(f"[warm-start] {message}", file=sys.stderr, flush=True)


def spawn_and_reap(argv, env, output_path):
    """Runs argv with stdout to output_path; returns (exit status, wall s,
    user s, system s) of that one process as wait4 reports it."""
    actions = [(os.POSIX_SPAWN_OPEN, 1, output_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    start = time.perf_counter()
    try:
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    except OSError as err:
        raise BenchError(f"{argv[0]}: {err.strerror}")
    deadline = start + RUN_TIMEOUT_S
    while True:
        reaped, status, usage = os.wait4(pid, os.WNOHANG)
        if reaped:
            break
        if time.perf_counter() > deadline:
            os.kill(pid, 9)
            os.wait4(pid, 0)
            raise BenchError(f"{' '.join(argv)}: timed out after {RUN_TIMEOUT_S} s")
        time.sleep(0.0002)
    wall = time.perf_counter() - start
    return os.waitstatus_to_exitcode(status), wall, usage.ru_utime, usage.ru_stime


def build(argv, what):
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise BenchError(f"{what}: exit {proc.returncode}: {lines[-1] if lines else 'no output'}")


class Variant:
    def __init__(self, name, argv, env, check_output=True):
        self.name, self.argv, self.env, self.check_output = name, argv, env, check_output
        self.runs = []  # (wall, user, system)

    def run_once(self, output_path):
        code, wall, user, system = spawn_and_reap(self.argv, self.env, output_path)
        if code != 0:
            raise BenchError(f"{self.name}: exit status {code}")
        if self.check_output:
            with open(output_path, "rb") as out:
                text = out.read()
            if text != EXPECTED_OUTPUT:
                raise BenchError(f"{self.name}: unexpected output {text[:80]!r}")
        self.runs.append((wall, user, system))

    def summary(self):
        walls = [w for w, _, _ in self.runs]
        cpus = [u + s for _, u, s in self.runs]
        return {
            "runs": len(self.runs),
            "median_wall_ms": statistics.median(walls) * 1e3,
            "min_wall_ms": min(walls) * 1e3,
            "median_cpu_ms": statistics.median(cpus) * 1e3,
            "min_cpu_ms": min(cpus) * 1e3,
            "median_user_ms": statistics.median(u for _, u, _ in self.runs) * 1e3,
            "median_system_ms": statistics.median(s for _, _, s in self.runs) * 1e3,
            "wall_s": walls,
            "user_s": [u for _, u, _ in self.runs],
            "system_s": [s for _, _, s in self.runs],
        }


def cache_env(cache_dir):
    env = dict(os.environ)
    env["SYNERGY_CACHE_DIR"] = cache_dir
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="Synergy build directory (holds bin/synergy-run)")
    parser.add_argument("--repeat", type=int, default=200, help="runs of each variant (default 200)")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--baseline-run", metavar="SYNERGY_RUN",
                        help="another synergy-run binary to time alongside, e.g. a copy from main")
    parser.add_argument("--work-dir", help="where hello's binaries and AOT caches go "
                                           "(default: BUILD_DIR/bench/warm-start)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    build_dir = os.path.abspath(args.build)
    synergy_cc = os.path.join(build_dir, "bin", "synergy-cc")
    synergy_run = os.path.join(build_dir, "bin", "synergy-run")
    work_dir = os.path.abspath(args.work_dir or os.path.join(build_dir, "bench", "warm-start"))
    try:
        for tool in [synergy_cc, synergy_run] + ([args.baseline_run] if args.baseline_run else []):
            if not os.access(tool, os.X_OK):
                raise BenchError(f"{tool}: not found or not executable")
        if shutil.which(NATIVE_CC) is None:
            raise BenchError(f"{NATIVE_CC}: not found on PATH")
        os.makedirs(work_dir, exist_ok=True)
        native = os.path.join(work_dir, "hello.native")
        granule = os.path.join(work_dir, "hello.wasm")
        progress("building hello natively and as a granule")
        build([NATIVE_CC, "-O2", HELLO_SOURCE, "-o", native], "native build")
        build([synergy_cc, "-O2", HELLO_SOURCE, "-o", granule], "granule build")

        # Fresh caches: an entry from an older build of the runtime is never
        # looked at, and each synergy-run fills its own.
        caches = tempfile.mkdtemp(prefix="caches-", dir=work_dir)
        variants = [
            Variant("native", [native], dict(os.environ)),
            Variant("run --help", [synergy_run, "--help"], dict(os.environ), check_output=False),
            Variant("granule", [synergy_run, granule], cache_env(os.path.join(caches, "granule"))),
        ]
        if args.baseline_run:
            baseline = os.path.abspath(args.baseline_run)
            variants.append(Variant("baseline", [baseline, granule],
                                    cache_env(os.path.join(caches, "baseline"))))
        output_path = os.path.join(work_dir, "stdout.txt")
        progress("filling the AOT caches (untimed)")
        for variant in variants:
            if variant.argv[-1] == granule:
                code, _, _, _ = spawn_and_reap(variant.argv, variant.env, output_path)
                if code != 0:
                    raise BenchError(f"{variant.name}: cold run: exit status {code}")
        progress(f"{args.repeat} interleaved runs of {len(variants)} variants")
        for _ in range(args.repeat):
            for variant in variants:
                variant.run_once(output_path)
        shutil.rmtree(caches, ignore_errors=True)
    except BenchError as err:
        print(f"warm-start.py: error: {err}", file=sys.stderr)
        return 1

    results = {v.name: v.summary() for v in variants}
    native_result = results["native"]
    for name, result in results.items():
        result["cpu_difference_ms"] = result["median_cpu_ms"] - native_result["median_cpu_ms"]
        result["wall_difference_ms"] = result["median_wall_ms"] - native_result["median_wall_ms"]
        result["cpu_ratio"] = result["median_cpu_ms"] / max(native_result["median_cpu_ms"], 1e-9)

    print(f"whole process, {args.repeat} interleaved runs each; medians unless marked min; "
          f"diff = median CPU - native's; load {os.getloadavg()[0]:.1f}")
    print(f"{'variant':<11} {'wall':>8} {'min':>8} {'CPU':>8} {'min':>8} {'user':>8} {'sys':>8} "
          f"{'diff':>8} {'ratio':>7}")
    for name, r in results.items():
        print(f"{name:<11} {r['median_wall_ms']:>6.2f}ms {r['min_wall_ms']:>6.2f}ms "
              f"{r['median_cpu_ms']:>6.2f}ms {r['min_cpu_ms']:>6.2f}ms {r['median_user_ms']:>6.2f}ms "
              f"{r['median_system_ms']:>6.2f}ms {r['cpu_difference_ms']:>+6.2f}ms {r['cpu_ratio']:>6.2f}x")
    met = results["granule"]["cpu_difference_ms"] <= TARGET_DIFFERENCE_MS
    print(f"target: granule warm start within {TARGET_DIFFERENCE_MS:.0f} ms of native (median CPU): "
          f"{'met' if met else 'MISSED'}")
    if args.json:
        report = {
            "machine": {"node": platform.node(), "machine": platform.machine(), "cpus": os.cpu_count()},
            "load_average": os.getloadavg(),
            "repeat": args.repeat,
            "variants": results,
            "target_difference_ms": TARGET_DIFFERENCE_MS,
            "target_met": met,
        }
        with open(args.json, "w") as out:
            json.dump(report, out, indent=2)
            out.write("\n")
        progress(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
