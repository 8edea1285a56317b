#!/usr/bin/env python3
"""Differential test driver for MPI programs.

Builds one C program twice, natively with OpenMPI's mpicc and as a granule
with synergy-cc, runs it under `mpirun -np N` and `synergy-run -np N` for
each requested N, and requires the same exit status and the same stdout.
Lines are sorted before comparing unless --ordered is given, because the
interleaving of lines from different ranks is free. Exits 1 with a diff on
the first mismatch.
"""
import argparse
import difflib
import os
import shutil
import signal
import subprocess
import sys

from openmpi_oracle import run_openmpi


def run(command, timeout):
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout
    return (done.returncode, done.stdout.decode(errors="replace"),
            done.stderr.decode(errors="replace"))


def build(command):
    code, out, err = run(command, 300)
    if code != 0:
        sys.stderr.write("build failed: %s\n%s%s" % (" ".join(command), out, err))
        sys.exit(1)


def normalise(text, ordered):
    lines = text.splitlines()
    return lines if ordered else sorted(lines)


def run_resumed(options, synergy, ranks):
    directory = os.path.join(options.workdir, "checkpoints-%d" % ranks)
    output = os.path.join(options.workdir, "resumed-%d.out" % ranks)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    env = dict(os.environ, SYNERGY_CHECKPOINT_KILL_AFTER=str(options.resume_after))
    command = (synergy[:-1] + ["--checkpoint-every", "0", "--checkpoint-dir", directory] +
               synergy[-1:] + options.arg)
    with open(output, "wb") as out:
        killed = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, env=env,
                                timeout=options.timeout)
    if killed.returncode != -signal.SIGKILL:
        return (killed.returncode, "", "expected SIGKILL after checkpoint %d, got exit %s:\n%s" %
                (options.resume_after, killed.returncode, killed.stderr.decode(errors="replace")))
    with open(output, "ab") as out:
        resumed = subprocess.run([options.synergy_run, "--resume", directory], stdout=out,
                                 stderr=subprocess.PIPE, timeout=options.timeout)
    with open(output, "rb") as out:
        text = out.read().decode(errors="replace")
    return (resumed.returncode, text,
            killed.stderr.decode(errors="replace") + resumed.stderr.decode(errors="replace"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--synergy-cc", required=True)
    parser.add_argument("--synergy-run", required=True)
    parser.add_argument("--ordered", action="store_true",
                        help="compare lines in order (only for single-writer output)")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--cflag", action="append", default=[],
                        help="compiler flag for both builds (e.g. -pthread)")
    parser.add_argument("--arg", action="append", default=[], help="program argument")
    parser.add_argument("--run-option", action="append", default=[],
                        help="synergy-run option, before the program")
    parser.add_argument("--resume-after", type=int, default=0,
                        help="checkpoint at every barrier, kill synergy-run with SIGKILL "
                        "after its Nth checkpoint (SYNERGY_CHECKPOINT_KILL_AFTER), resume it "
                        "with --resume, and compare the two runs' output (stdout appended to "
                        "one file) and the resumed run's exit status")
    parser.add_argument("--live-move", type=int, default=0, metavar="N",
                        help="move the last rank live at control point N "
                        "(SYNERGY_TEST_LIVE_MOVE): it departs and arrives in a fresh "
                        "instance; fails unless it arrived")
    parser.add_argument("source")
    parser.add_argument("workdir")
    parser.add_argument("ranks", nargs="+", type=int)
    options = parser.parse_args()

    os.makedirs(options.workdir, exist_ok=True)
    native = os.path.join(options.workdir, "native")
    granule = os.path.join(options.workdir, "granule.wasm")
    build(["mpicc", "-O2"] + options.cflag + ["-o", native, options.source, "-lm"])
    build([options.synergy_cc, "-O2"] + options.cflag + ["-o", granule, options.source, "-lm"])

    for ranks in options.ranks:
        synergy = [options.synergy_run, "-np", str(ranks)] + options.run_option + [granule]
        expected_code, expected, expected_err = run_openmpi(ranks, [native] + options.arg,
                                                             options.timeout)
        if options.resume_after:
            actual_code, actual, actual_err = run_resumed(options, synergy, ranks)
        elif options.live_move:
            os.environ["SYNERGY_TEST_LIVE_MOVE"] = "%d@%d" % (ranks - 1, options.live_move)
            os.environ["SYNERGY_LIVE_MOVE_STATS"] = "1"
            actual_code, actual, actual_err = run(synergy + options.arg, options.timeout)
            del os.environ["SYNERGY_TEST_LIVE_MOVE"], os.environ["SYNERGY_LIVE_MOVE_STATS"]
            if "live move: rank %d arrived" % (ranks - 1) not in actual_err:
                sys.stderr.write("-np %d: rank %d did not move live at control point %d:\n%s\n" %
                                 (ranks, ranks - 1, options.live_move, actual_err))
                return 1
        else:
            actual_code, actual, actual_err = run(synergy + options.arg, options.timeout)
        if expected_code is None:
            sys.stderr.write("mpirun -np %d: %s\n%s" % (ranks, expected_err, expected))
            return 1
        want = normalise(expected, options.ordered)
        got = normalise(actual, options.ordered)
        if want != got or expected_code != actual_code:
            sys.stderr.write("-np %d: mismatch (mpirun exit %s, synergy-run exit %s)\n" %
                             (ranks, expected_code, actual_code))
            sys.stderr.writelines(line + "\n" for line in difflib.unified_diff(
                want, got, "mpirun", "synergy-run", lineterm=""))
            sys.stderr.write("mpirun stderr:\n%s\n" % expected_err)
            sys.stderr.write("synergy-run stderr:\n%s\n" % actual_err)
            return 1
        print("-np %d: %d lines, exit %d, identical" % (ranks, len(got), actual_code))
    return 0


if __name__ == "__main__":
    sys.exit(main())
