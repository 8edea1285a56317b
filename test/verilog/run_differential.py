#!/usr/bin/env python3
"""Differential test of Verilog programs: Icarus (iverilog + vvp -n) against
Synergy (synergy-cc + synergy-run). stdout and exit status must match byte
for byte. With --save-restart the Synergy run is split in two processes:
`--save-at-tick K state` then `--restart state`, and the concatenated output
must still equal vvp's. K comes from a `// SAVE-AT-TICK: K` line in the test,
else 5.

Every run happens in a fresh directory holding a copy of Inputs/ (or of
--inputs DIR), so programs open their data files by plain relative names.
With --expected FILE, vvp's output must also equal FILE (the examples'
checked-in expected output).

With --engine E every synergy-run uses `--engine E` (default compiled: the
corpus's own run checks the Verilator build, whatever synergy-run's default
is); --restart-engine E2
makes the restart half of the split use E2 instead (save on one engine,
restart on the other). --switch-at-ticks K1,K2,.. adds one run per K with
`--engine auto --switch-at-tick K`: the hand-off from the software to the
compiled engine at the end of tick K must not change the output. Under
--engine software a design must run there: a refusal (status 2) fails.

  run_differential.py --bin-dir build/bin [--vvp-only] [--save-restart]
                      [--engine E] [--restart-engine E2] [--switch-at-ticks K,..]
                      [--inputs DIR] [--expected FILE] t1.v t2.v ...
Exit status 0 when every program matched.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = [os.path.join(HERE, "Inputs")]
TIMEOUT = 600


def fresh_dir(root, name):
    path = os.path.join(root, name)
    shutil.copytree(INPUTS[0], path)
    return path


def run(argv, cwd):
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    return proc.stdout, proc.returncode, proc.stderr


def under_vvp(source, root, iverilog, vvp):
    work = fresh_dir(root, "vvp")
    image = os.path.join(work, "tb.vvp")
    out, status, err = run([iverilog, "-o", image, source], work)
    if status != 0:
        raise RuntimeError("iverilog failed:\n" + err.decode(errors="replace"))
    return run([vvp, "-n", image], work)[:2]


def compile_engine(source, root, bin_dir):
    # In a copy of the inputs too: synergy-cc loads the files a $readmemh
    # reads before time advances into ROMs, as a user compiling next to them.
    engine = os.path.join(root, "tb.eng")
    work = fresh_dir(root, "compile")
    out, status, err = run([os.path.join(bin_dir, "synergy-cc"), source, "-o", engine], work)
    if status != 0:
        raise RuntimeError("synergy-cc failed:\n" + err.decode(errors="replace"))
    return engine


def under_synergy(engine, root, bin_dir, name, extra=()):
    work = fresh_dir(root, name)
    out, status, err = run([os.path.join(bin_dir, "synergy-run"), engine, *extra], work)
    return out, status, err


def under_synergy_split(engine, root, bin_dir, tick, save_args=(), restart_args=()):
    work = fresh_dir(root, "split")
    state = os.path.join(root, "tb.state")
    runner = os.path.join(bin_dir, "synergy-run")
    first, status, err = run([runner, *save_args, engine, "--save-at-tick", str(tick), state], work)
    if status != 0 or not os.path.exists(state):
        return first, status, err
    second, status, err = run([runner, *restart_args, engine, "--restart", state], work)
    return first + second, status, err


def report(name, what, expected, actual):
    diff = difflib.unified_diff(expected[0].decode(errors="replace").splitlines(True),
                                actual[0].decode(errors="replace").splitlines(True),
                                "vvp", what)
    sys.stdout.write("FAIL %s (%s): exit %d vs %d\n%s" % (name, what, expected[1], actual[1], "".join(diff)))
    if len(actual) > 2 and actual[2]:
        sys.stdout.write("stderr:\n" + actual[2].decode(errors="replace"))


def check(source, args):
    name = os.path.basename(source)
    text = open(source).read()
    match = re.search(r"//\s*SAVE-AT-TICK:\s*(\d+)", text)
    tick = int(match.group(1)) if match else 5
    root = tempfile.mkdtemp(prefix="synergy-verilog-")
    try:
        expected = under_vvp(source, root, args.iverilog, args.vvp)
        if expected[1] != 0 or not expected[0]:
            sys.stdout.write("FAIL %s: vvp exit %d, %d bytes of output\n" % (name, expected[1], len(expected[0])))
            return False
        if args.expected and expected[0] != open(args.expected, "rb").read():
            report(name, "expected file", (open(args.expected, "rb").read(), 0), expected)
            return False
        if args.vvp_only:
            return True
        engine = compile_engine(source, root, args.bin_dir)
        engine_args = ["--engine", args.engine]
        restart_args = ["--engine", args.restart_engine] if args.restart_engine else engine_args
        actual = under_synergy(engine, root, args.bin_dir, "synergy", engine_args)
        ok = actual[:2] == expected
        if not ok:
            report(name, "synergy-run", expected, actual)
        if args.save_restart:
            split = under_synergy_split(engine, root, args.bin_dir, tick, engine_args, restart_args)
            if split[:2] != expected:
                report(name, "save at tick %d + restart" % tick, expected, split)
                ok = False
        for switch in args.switch_at_ticks:
            handed = under_synergy(engine, root, args.bin_dir, "switch%d" % switch,
                                   ["--engine", "auto", "--switch-at-tick", str(switch)])
            if handed[:2] != expected:
                report(name, "switch after tick %d" % switch, expected, handed)
                ok = False
        return ok
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        sys.stdout.write("FAIL %s: %s\n" % (name, error))
        return False
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default="", help="directory holding synergy-cc and synergy-run")
    parser.add_argument("--iverilog", default=shutil.which("iverilog") or "iverilog")
    parser.add_argument("--vvp", default=shutil.which("vvp") or "vvp")
    parser.add_argument("--vvp-only", action="store_true", help="only check that each program runs under vvp")
    parser.add_argument("--save-restart", action="store_true", help="also run split by a save and a restart")
    parser.add_argument("--engine", default="compiled", help="synergy-run --engine for every run (default compiled)")
    parser.add_argument("--restart-engine", help="synergy-run --engine for the restart half of the split")
    parser.add_argument("--switch-at-ticks", default="", help="comma-separated ticks to force a hand-off at")
    parser.add_argument("--inputs", help="directory copied into each run's working directory")
    parser.add_argument("--expected", help="file vvp's output must equal")
    parser.add_argument("tests", nargs="*", help="programs (default: every .v next to this script)")
    args = parser.parse_args()
    args.switch_at_ticks = [int(t) for t in args.switch_at_ticks.split(",") if t]
    if args.inputs:
        INPUTS[0] = os.path.abspath(args.inputs)
    tests = args.tests or sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".v"))
    tests = [os.path.abspath(t) for t in tests]
    failures = [t for t in tests if not check(t, args)]
    sys.stdout.write("%d of %d programs matched\n" % (len(tests) - len(failures), len(tests)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
