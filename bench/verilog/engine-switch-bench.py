#!/usr/bin/env python3
"""The software engine, the compiled engine and vvp on the Verilog examples,
and the instant start with a hand-off between them (issue 20).

  bench/verilog/engine-switch-bench.py --bin-dir BUILD/bin [--json out.json]
                                       [--png-dir DIR] [--quick]
                                       [--examples bitcoin,df] [--no-cold]
                                       [--repeat N] [--long]

Each example is copied and scaled exactly as run-bench.py does (its scalers
are reused, so the workloads are the same; --quick is 10x smaller), then:

  ticks/s   the same design, run to its end three ways: `vvp -n`,
            synergy-run --engine software and --engine compiled with a warm
            cache, --repeat times each (default 5). Each side's ticks/s is
            the ticks over its best CPU time (user + sys of the whole
            process), which a loaded machine disturbs far less than wall
            time; the load average is printed and recorded. Ticks are
            counted by synergy-run; vvp runs the same ticks.
  cold      with an empty engine cache each time: `--engine auto` (software
            first, hand-off when the Verilator build is ready) against
            `--engine compiled` (compile, then run). For both, the time from
            starting synergy-run to its first byte of output and to its
            exit; for auto also the switch pause (switch-seconds: copying
            every state variable across) and the tick it happened after.
            vvp's first output byte is timed too: a design whose first
            output comes late in its run cannot print sooner on any engine.
            Each cold run writes a --timeline CSV; with --png-dir they are
            drawn, ticks/s against wall time, one PNG per example.
  long      with --long: mips32 for 10^7 cycles with an empty cache, end to
            end (wall and CPU): --engine auto against --engine compiled
            against vvp.

Prints one table and, with --json, writes every number. Timing numbers are
reported, never asserted; every side must print vvp's output (the JSON
records outputs_match). --png-dir needs python3-matplotlib: run the script
with Debian's /usr/bin/python3.

A cold `--engine auto` run that ends before the compiled engine is built
exits at once and leaves the build running in a detached process, which
fills the cache for the next run (its stats line then says build=detached,
recorded as build_detached). The bench waits for that process to end
before the next measurement, so that it does not share the CPU with it.
"""
import argparse
import csv
import importlib.util
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("run_bench", os.path.join(HERE, "run-bench.py"))
run_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_bench)

EXAMPLES = ["bitcoin", "mips32", "regex", "nw", "adpcm", "df"]
# The cold run of fixed length (issue 20's target: faster end to end than
# both vvp and compile-then-run): mips32 for this many clock cycles, two
# virtual ticks each.
LONG_CYCLES = 10 ** 7


def log(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def fresh_cache(root, label):
    path = tempfile.mkdtemp(prefix="cache-%s-" % label, dir=root)
    os.chmod(path, 0o700)
    return path


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Timed:
    """One run: stdout, stderr, seconds to the first output byte (None: no
    output) and to exit, and the CPU seconds (user + sys) of the process and
    the children it waited for."""

    def __init__(self, argv, cwd, env):
        cpu = children_cpu_seconds()
        start = time.perf_counter()
        # Unbuffered: the first byte is read alone, the rest by communicate().
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        first = proc.stdout.read(1)
        first_seconds = time.perf_counter() - start
        rest, self.err = proc.communicate()
        self.total = time.perf_counter() - start
        self.cpu = children_cpu_seconds() - cpu
        if proc.returncode != 0:
            detail = self.err.decode(errors="replace").strip().splitlines()
            raise RuntimeError("%s failed: %s" % (os.path.basename(argv[0]), detail[-1] if detail else proc.returncode))
        self.out = first + rest
        self.first = first_seconds if first else None


def wait_for_detached_build(stderr):
    """Waits until the build a run left behind (build-pid=N) is gone; True when there was one."""
    fields = dict(f.split("=", 1) for f in stderr.decode(errors="replace").split() if f.startswith("build-pid="))
    if "build-pid" not in fields:
        return False
    stat = "/proc/%s/stat" % fields["build-pid"]
    while True:
        try:
            with open(stat) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.2)


def stats_of(stderr):
    ticks, tasks, seconds = run_bench.parse_stats(b"synergy-engine-stats", stderr)
    extra = {}
    for field in stderr.decode(errors="replace").split():
        if field.startswith(("switch-after-tick=", "switch-seconds=", "engine=")):
            key, value = field.split("=", 1)
            extra[key.replace("-", "_")] = value
    return ticks, tasks, seconds, extra


def bench(name, args, root):
    work = os.path.join(root, name)
    run_bench.stage(name, work)
    workload = run_bench.SCALERS[name](work, args.quick)
    log("[%s] %s" % (name, workload))
    row = {"example": name, "workload": workload}
    eng = os.path.join(work, name + ".eng")
    run_bench.run([os.path.join(args.bin_dir, "synergy-cc"), name + ".v", "-o", eng], work)
    run_bench.run(["iverilog", "-o", os.path.join(work, "tb.vvp"), name + ".v"], work)

    synergy_run = os.path.join(args.bin_dir, "synergy-run")
    mismatches = []
    expected = None

    def checked(name, run):
        if expected is not None and run.out != expected:
            mismatches.append(name)
            with open(os.path.join(args.keep_mismatches or root, "%s-%s.out" % (work_name, name)), "wb") as f:
                f.write(run.out)
        return run

    def engine(kind, cache, extra=(), design=eng):
        env = dict(os.environ, SYNERGY_ENGINE_STATS="1", SYNERGY_CACHE_DIR=cache)
        return checked(kind, Timed([synergy_run, "--engine", kind] + list(extra) + [design], work, env))

    def best(runs):
        return min(runs, key=lambda run: run.cpu)

    work_name = name
    log("[%s] vvp, best CPU of %d" % (name, args.repeat))
    vvp = best([Timed(["vvp", "-n", "tb.vvp"], work, None) for _ in range(args.repeat)])
    expected = vvp.out
    warm = fresh_cache(root, name + "-warm")
    log("[%s] software engine, best CPU of %d" % (name, args.repeat))
    software = best([engine("software", warm) for _ in range(args.repeat)])
    ticks, tasks, software_loop_seconds, _ = stats_of(software.err)
    log("[%s] compiled engine (build, then warm runs)" % name)
    engine("compiled", warm)
    compiled = best([engine("compiled", warm) for _ in range(args.repeat)])
    _, _, compiled_loop_seconds, _ = stats_of(compiled.err)
    # Ratios are of whole-process CPU time (user + sys): on a loaded machine
    # wall time measures the other processes as much as these.
    row.update({"ticks": ticks, "tasks": tasks,
                "vvp_cpu_s": vvp.cpu, "software_cpu_s": software.cpu, "compiled_cpu_s": compiled.cpu,
                "vvp_ticks_per_s": ticks / vvp.cpu,
                "software_ticks_per_s": ticks / software.cpu,
                "compiled_ticks_per_s": ticks / compiled.cpu,
                "software_loop_wall_s": software_loop_seconds, "compiled_loop_wall_s": compiled_loop_seconds})
    row["software_vs_vvp"] = vvp.cpu / software.cpu

    if not args.no_cold:
        for kind in ("auto", "compiled"):
            log("[%s] cold cache, --engine %s" % (name, kind))
            timeline = os.path.join(work, "timeline-%s.csv" % kind)
            run = engine(kind, fresh_cache(root, name + "-" + kind), ["--timeline", timeline])
            _, _, _, extra = stats_of(run.err)
            row[kind] = {"first_output_s": run.first, "total_s": run.total, "cpu_s": run.cpu,
                         "engine": extra.get("engine"), "timeline": read_timeline(timeline),
                         "build_detached": wait_for_detached_build(run.err)}
            if "switch_seconds" in extra:
                row[kind]["switch_pause_s"] = float(extra["switch_seconds"])
                row[kind]["switch_after_tick"] = int(extra["switch_after_tick"])
        row["vvp_total_s"] = vvp.total
        row["vvp_first_output_s"] = vvp.first
    row["outputs_match"] = not mismatches
    row["mismatched_engines"] = mismatches
    return row


def long_cold_run(args, root):
    """mips32 for LONG_CYCLES cycles with an empty cache, end to end: --engine
    auto (software at once, the switch when the build is ready) against
    --engine compiled (build, then run) against vvp. CPU is that of the
    process and the children it waited for: compiled's build, and auto's
    when it switched (it then reaps the build); not one it left running."""
    name = "mips32"
    work = os.path.join(root, "long-" + name)
    run_bench.stage(name, work)
    path = os.path.join(work, name + ".v")
    text = open(path).read()
    text = run_bench.replace_once(text, "6'h0c: begin halted <= 1; pc <= pc; end", "6'h0c: pc <= 0;")
    text = run_bench.replace_once(text, "cycles == 5000", "cycles == %d" % LONG_CYCLES)
    open(path, "w").write(text)
    eng = os.path.join(work, name + ".eng")
    run_bench.run([os.path.join(args.bin_dir, "synergy-cc"), name + ".v", "-o", eng], work)
    run_bench.run(["iverilog", "-o", os.path.join(work, "tb.vvp"), name + ".v"], work)
    log("[long] vvp, %d cycles" % LONG_CYCLES)
    vvp = Timed(["vvp", "-n", "tb.vvp"], work, None)
    row = {"example": name, "cycles": LONG_CYCLES, "vvp": {"total_s": vvp.total, "cpu_s": vvp.cpu}}
    synergy_run = os.path.join(args.bin_dir, "synergy-run")
    for kind in ("auto", "compiled"):
        log("[long] cold cache, --engine %s" % kind)
        env = dict(os.environ, SYNERGY_ENGINE_STATS="1", SYNERGY_CACHE_DIR=fresh_cache(root, "long-" + kind))
        run = Timed([synergy_run, "--engine", kind, eng], work, env)
        ticks, _, _, extra = stats_of(run.err)
        row[kind] = {"total_s": run.total, "cpu_s": run.cpu, "ticks": ticks, "engine": extra.get("engine"),
                     "outputs_match": run.out == vvp.out, "build_detached": wait_for_detached_build(run.err)}
        if "switch_seconds" in extra:
            row[kind]["switch_pause_s"] = float(extra["switch_seconds"])
            row[kind]["switch_after_tick"] = int(extra["switch_after_tick"])
    return row


def read_timeline(path):
    with open(path) as f:
        return [{"time_s": float(r["time_s"]), "ticks": int(r["ticks"]), "ticks_per_s": float(r["ticks_per_s"]),
                 "tasks_per_s": float(r["tasks_per_s"]), "engine": r["engine"]} for r in csv.DictReader(f)]


def draw(rows, png_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(png_dir, exist_ok=True)
    for row in rows:
        if "auto" not in row:
            continue
        fig, ax = plt.subplots(figsize=(7, 3.5))
        for kind, style in (("auto", "-"), ("compiled", "--")):
            points = row[kind]["timeline"]
            ax.plot([p["time_s"] for p in points], [p["ticks_per_s"] for p in points], style,
                    label="--engine %s (cold cache)" % kind)
            switch = next((p["time_s"] for p in points if kind == "auto" and p["engine"] == "compiled"), None)
            if switch is not None:
                ax.axvline(switch, color="gray", linewidth=0.8)
                ax.annotate("switch", (switch, ax.get_ylim()[1] * 0.9), fontsize=8)
        ax.axhline(row["vvp_ticks_per_s"], color="black", linewidth=0.8, linestyle=":", label="vvp")
        ax.set_xlabel("wall time (s)")
        ax.set_ylabel("virtual ticks/s")
        ax.set_title("%s: %s" % (row["example"], row["workload"]))
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(png_dir, "timeline-%s.png" % row["example"])
        fig.savefig(path, dpi=100)
        plt.close(fig)
        log("wrote " + path)


def cell(value, spec="%.3g"):
    return "-" if value is None else spec % value


def print_table(rows):
    header = ("example", "ticks", "vvp t/s", "sw t/s", "comp t/s", "sw/vvp", "auto 1st", "comp 1st",
              "vvp 1st", "auto tot", "comp tot", "vvp tot", "pause", "match")
    print(("%-8s" + " %10s" * (len(header) - 1)) % header)
    for row in rows:
        if "error" in row:
            print("%-8s %s" % (row["example"], row["error"]))
            continue
        auto, comp = row.get("auto", {}), row.get("compiled", {})
        print(("%-8s" + " %10s" * (len(header) - 1)) % (
            row["example"], row["ticks"], cell(row["vvp_ticks_per_s"]), cell(row["software_ticks_per_s"]),
            cell(row["compiled_ticks_per_s"]), cell(row["software_vs_vvp"], "%.2f"),
            cell(auto.get("first_output_s"), "%.3fs"), cell(comp.get("first_output_s"), "%.3fs"),
            cell(row.get("vvp_first_output_s"), "%.3fs"),
            cell(auto.get("total_s"), "%.2fs"), cell(comp.get("total_s"), "%.2fs"),
            cell(row.get("vvp_total_s"), "%.2fs"), cell(auto.get("switch_pause_s"), "%.4fs"),
            "yes" if row["outputs_match"] else "NO"))
    ratios = [row["software_vs_vvp"] for row in rows if "software_vs_vvp" in row]
    if ratios:
        print("software engine / vvp ticks/s, geomean: %.2f" % math.exp(sum(map(math.log, ratios)) / len(ratios)))
    print("1st = seconds to the first output byte, tot = to exit (cold cache; vvp's from its warm runs);"
          " pause = the switch's state copy")


def print_long(row):
    if "error" in row:
        print("cold %d-cycle run: %s" % (LONG_CYCLES, row["error"]))
        return
    print("cold %d-cycle run of %s, %s ticks (wall / CPU seconds, end to end):"
          % (LONG_CYCLES, row["example"], row["compiled"]["ticks"]))
    for kind in ("vvp", "auto", "compiled"):
        side = row[kind]
        note = ""
        if "switch_after_tick" in side:
            note = " switch after tick %d, pause %.4fs" % (side["switch_after_tick"], side["switch_pause_s"])
        if kind != "vvp" and not side["outputs_match"]:
            note += " OUTPUT DIFFERS FROM VVP"
        print("  %-9s %8.2fs %8.2fs%s" % (kind, side["total_s"], side["cpu_s"], note))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True, help="directory holding synergy-cc and synergy-run")
    parser.add_argument("--json", help="write all rows here")
    parser.add_argument("--png-dir", help="draw each example's cold timelines here (python3-matplotlib)")
    parser.add_argument("--quick", action="store_true", help="10x smaller workloads")
    parser.add_argument("--examples", default=",".join(EXAMPLES))
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-cache runs (two builds an example)")
    parser.add_argument("--keep-mismatches", help="write the output of an engine that differs from vvp's here")
    parser.add_argument("--repeat", type=int, default=5, help="runs of vvp, software and compiled; the best CPU counts")
    parser.add_argument("--long", action="store_true", help="also the cold run of %d cycles of mips32" % LONG_CYCLES)
    args = parser.parse_args()
    load_before = os.getloadavg()
    args.bin_dir = os.path.abspath(args.bin_dir)
    root = tempfile.mkdtemp(prefix="synergy-engine-switch-bench-")
    rows = []
    try:
        for name in filter(None, args.examples.split(",")):
            if name not in run_bench.SCALERS:
                log("engine-switch-bench.py: error: unknown example %s" % name)
                return 1
            try:
                rows.append(bench(name, args, root))
            except (RuntimeError, OSError) as error:
                log("[%s] failed: %s" % (name, error))
                rows.append({"example": name, "error": str(error)})
        long_row = None
        if args.long:
            try:
                long_row = long_cold_run(args, root)
            except (RuntimeError, OSError) as error:
                log("[long] failed: %s" % error)
                long_row = {"error": str(error)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    load = {"before": load_before, "after": os.getloadavg()}
    print_table(rows)
    print("load average (1, 5, 15 min) before %.1f %.1f %.1f, after %.1f %.1f %.1f" % (load["before"] + load["after"]))
    if long_row:
        print_long(long_row)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"quick": args.quick, "repeat": args.repeat, "load_average": load, "rows": rows,
                       "long_cold_run": long_row}, out, indent=2)
        log("wrote " + args.json)
    if args.png_dir:
        try:
            draw(rows, args.png_dir)
        except ImportError:
            log("engine-switch-bench.py: error: --png-dir needs matplotlib (Debian: python3-matplotlib, "
                "run with /usr/bin/python3)")
            return 1
    return 0 if all("error" not in row and row["outputs_match"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
