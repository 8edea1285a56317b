#!/usr/bin/env python3
"""Differential test of OpenMP and pthread programs: native gcc (libgomp,
glibc pthreads) against Synergy (synergy-cc + synergy-run). stdout and exit
status must match byte for byte, for every thread count and memory mode.

Each program's first line says how to build it: `// MODE: openmp` builds
with -fopenmp, `// MODE: pthread` with -pthread; both sides use -O2 and
-lm. Every program is then run with OMP_NUM_THREADS=n for each n in
--threads (or its own `// THREADS: a,b` line after the MODE line): once
natively, and under `synergy-run` once per --modes entry (or its own
`// MODES: shared` line; shared: plain threads in one memory; dsm:
`synergy-run --dsm`). All other OMP_* and GOMP_*
variables are removed, so OMP_SCHEDULE is unset and schedule(runtime) gets
each runtime's default; a `// WAIT_POLICIES: passive,active` line runs the
whole matrix once per OMP_WAIT_POLICY value, natively too. Each run is cut off after --timeout seconds (180)
and reported as a time-out; a program's first synergy-run, which also
AOT-compiles the granule when the cache is cold, gets --first-run-timeout
(300). The cut-off only catches hangs: a --dsm run of the atomics-heavy
programs takes about 30 s on an idle 2-core machine, and twice that while
ctest -j2 runs a heavy test beside it.

With --native-only no Synergy tool is needed: every native run is made
twice and the two outputs must agree, which checks that a program's output
does not depend on scheduling luck.

  run_differential.py --bin-dir build/bin [--gcc gcc] [--threads 1,2,3,4,8]
                      [--modes shared,dsm] [--timeout S] [--first-run-timeout S]
                      [--native-only] [--keep] t1.c ...
Exit status 0 when every program matched.
"""
import argparse
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_TIMEOUT = 600
MODE_FLAGS = {"openmp": "-fopenmp", "pthread": "-pthread"}
RUN_FLAGS = {"shared": [], "dsm": ["--dsm"]}


class Failure(Exception):
    """A set-up or build failure; the program's runs are skipped."""


def program_mode(source):
    with open(source) as text:
        match = re.match(r"//\s*MODE:\s*(\w+)", text.readline())
    if not match or match.group(1) not in MODE_FLAGS:
        raise Failure("first line must be `// MODE: openmp` or `// MODE: pthread`")
    return match.group(1)


def program_directives(source):
    """The `// NAME: value` lines right after the MODE line: `THREADS: a,b`
    replaces the --threads list (for a program whose team sizes are fixed by
    num_threads clauses), `MODES: shared` the --modes list, `WAIT_POLICIES:
    passive,active` runs everything once per OMP_WAIT_POLICY value."""
    directives = {}
    with open(source) as text:
        text.readline()
        for line in text:
            match = re.match(r"//\s*(THREADS|MODES|WAIT_POLICIES):\s*(\S+)\s*$", line)
            if not match:
                break
            directives[match.group(1)] = match.group(2)
    return directives


def run_environment(threads, wait_policy):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["OMP_NUM_THREADS"] = str(threads)
    if wait_policy:
        env["OMP_WAIT_POLICY"] = wait_policy
    return env


def build(what, argv, cwd):
    try:
        proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=BUILD_TIMEOUT)
    except FileNotFoundError:
        raise Failure("%s: %s not found" % (what, argv[0]))
    except subprocess.TimeoutExpired:
        raise Failure("%s timed out after %d s" % (what, BUILD_TIMEOUT))
    if proc.returncode != 0:
        raise Failure("%s failed:\n%s%s" % (what, proc.stdout.decode(errors="replace"),
                                            proc.stderr.decode(errors="replace")))


def run(argv, cwd, threads, timeout, wait_policy=None):
    """(stdout, exit status, stderr); exit status None when it timed out.
    The run gets its own process group, so a time-out also ends whatever it
    started (which would otherwise keep the output pipes open)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=run_environment(threads, wait_policy), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return out, proc.returncode, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return out, None, err + b"\n[run_differential.py: killed after %d s]\n" % timeout


def describe(status):
    return "timed out" if status is None else "exit %d" % status


def report(name, what, expected, actual, expected_label="native"):
    diff = difflib.unified_diff(expected[0].decode(errors="replace").splitlines(True),
                                actual[0].decode(errors="replace").splitlines(True),
                                expected_label, what)
    sys.stdout.write("FAIL %s (%s): %s vs %s\n%s" % (name, what, describe(expected[1]),
                                                     describe(actual[1]), "".join(diff)))
    stderr = actual[2].decode(errors="replace")
    if stderr:
        sys.stdout.write("stderr:\n" + stderr[-4000:] + ("" if stderr.endswith("\n") else "\n"))


def check(source, args):
    name = os.path.splitext(os.path.basename(source))[0]
    root = tempfile.mkdtemp(prefix="synergy-omp-%s-" % name)
    try:
        flag = MODE_FLAGS[program_mode(source)]
        native = os.path.join(root, name)
        build("gcc", [args.gcc, "-O2", flag, source, "-o", native, "-lm"], root)
        granule = os.path.join(root, name + ".wasm")
        if not args.native_only:
            build("synergy-cc", [os.path.join(args.bin_dir, "synergy-cc"), "-O2", flag, source,
                                 "-o", granule, "-lm"], root)
        runner = os.path.join(args.bin_dir, "synergy-run")
        ok = True
        runs = 0
        # The first granule run also compiles it to native code (AOT cache).
        first_timeout = max(args.timeout, args.first_run_timeout)
        directives = program_directives(source)
        thread_counts = number_list(directives["THREADS"]) if "THREADS" in directives else args.threads
        modes = mode_list(directives["MODES"]) if "MODES" in directives else args.modes
        policies = directives["WAIT_POLICIES"].split(",") if "WAIT_POLICIES" in directives else [None]
        for threads, policy in ((t, p) for t in thread_counts for p in policies):
            setting = "OMP_NUM_THREADS=%d" % threads + (" OMP_WAIT_POLICY=%s" % policy if policy else "")
            expected = run([native], root, threads, args.timeout, policy)
            if expected[1] != 0 or not expected[0]:
                sys.stdout.write("FAIL %s: native %s: %s, %d bytes of output\n%s" % (
                    name, setting, describe(expected[1]), len(expected[0]),
                    expected[2].decode(errors="replace")[-4000:]))
                ok = False
                continue
            if args.native_only:
                again = run([native], root, threads, args.timeout, policy)
                runs += 2
                if again[:2] != expected[:2]:
                    report(name, "native rerun %s" % setting, expected, again,
                           "native first run")
                    ok = False
                continue
            for mode in modes:
                actual = run([runner, *RUN_FLAGS[mode], granule], root, threads,
                             first_timeout if runs == 0 else args.timeout, policy)
                runs += 1
                if actual[:2] != expected[:2]:
                    report(name, "synergy-run %s %s" % (mode, setting), expected, actual)
                    ok = False
        if ok:
            sys.stdout.write("PASS %s (%d runs)\n" % (name, runs))
        return ok
    except Failure as error:
        sys.stdout.write("FAIL %s: %s\n" % (name, error))
        return False
    finally:
        if args.keep:
            sys.stdout.write("kept %s\n" % root)
        else:
            shutil.rmtree(root, ignore_errors=True)


def number_list(text):
    try:
        values = [int(v) for v in text.split(",") if v]
    except ValueError:
        raise argparse.ArgumentTypeError("expected a comma-separated list of thread counts")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("thread counts must be positive")
    return values


def mode_list(text):
    modes = [m for m in text.split(",") if m]
    unknown = [m for m in modes if m not in RUN_FLAGS]
    if not modes or unknown:
        raise argparse.ArgumentTypeError("modes are %s" % ", ".join(RUN_FLAGS))
    return modes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default="", help="directory holding synergy-cc and synergy-run")
    parser.add_argument("--gcc", default=shutil.which("gcc") or "gcc", help="native compiler")
    parser.add_argument("--threads", type=number_list, default=[1, 2, 3, 4, 8],
                        help="OMP_NUM_THREADS values, comma-separated (default 1,2,3,4,8)")
    parser.add_argument("--modes", type=mode_list, default=["shared", "dsm"],
                        help="synergy-run memory modes, comma-separated (default shared,dsm)")
    parser.add_argument("--native-only", action="store_true",
                        help="only check that native output is the same on a second run")
    parser.add_argument("--timeout", type=int, default=180, help="seconds allowed per run (default 180)")
    parser.add_argument("--first-run-timeout", type=int, default=300,
                        help="seconds allowed for a program's first synergy-run, which includes "
                             "its AOT compile when the cache is cold (default 300)")
    parser.add_argument("--keep", action="store_true", help="keep each program's temporary directory")
    parser.add_argument("tests", nargs="*", help="programs (default: every .c next to this script)")
    args = parser.parse_args()
    tests = args.tests or sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".c"))
    tests = [os.path.abspath(t) for t in tests]
    failures = [t for t in tests if not check(t, args)]
    sys.stdout.write("%d of %d programs matched\n" % (len(tests) - len(failures), len(tests)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
