#!/usr/bin/env python3
"""Speed and area of Synergy engines against the original Verilog examples.

  bench/verilog/run-bench.py --bin-dir BUILD/bin [--json out.json] [--quick]
                             [--examples bitcoin,df] [--repeat N]

For each example of examples/verilog this prints one table row (stdout;
progress goes to stderr) and writes every number as JSON. Timing numbers are
reported, never asserted.

Workloads. The examples finish in a few hundred ticks, far too short to time,
so each one is copied into a temporary directory and scaled there (the files
under examples/verilog are never touched):
  bitcoin  DIFFICULTY 32 (no nonce qualifies) and MAX_NONCES 8000 (quick 800);
  df       stops after 400000 multiplications instead of 24 (quick 40000);
  mips32   `syscall` jumps back to address 0 instead of halting, so the sort
           program runs again and again; stops after 1200000 cycles
           (quick 120000);
  regex    input.txt repeated 12000 times (quick 1200);
  nw       pairs.txt repeated 4000 times (quick 400);
  adpcm    samples.bin repeated 500 times (quick 50) and the `originals`
           array enlarged to hold them;
  file_sum the paper's streaming file sum (Fig. 2), test/verilog/file_sum.v,
           over its numbers.bin repeated 62500 times (quick 6250): one
           $fread and one $feof every rising edge.
Scaled runs of the engine and of the native model must print the same text;
the JSON records whether they did (outputs_match).

Speed. One tick is one toggle of the testbench clock.
  engine  synergy-cc on the scaled copy, then synergy-run with
          SYNERGY_ENGINE_STATS=1 (open loop, the default); ticks, trapped
          tasks and seconds come from its stats line, whose time covers the
          tick loop only. Build time is the first run's wall time minus its
          loop time, with an empty engine cache (SYNERGY_CACHE_DIR in the
          temporary directory; the first example also pays for Verilator's
          runtime objects).
  native  Verilator on the ORIGINAL (scaled) design: `always #1 clock =
          ~clock` is replaced by a `clock` input port, verilated with
          `--cc --exe -O3 -fno-localize` and driven by a small C++ main that
          toggles the clock and calls eval() until $finish, timing that loop
          only. The C++ is compiled like the engine's: clang++-19 -O2. (--timing is not
          used: Verilator 5.006's coroutine flags do not build with clang,
          and a host-toggled clock is the fastest way to run a Verilator
          model, which makes it the strictest peer. -fno-localize works
          around a Verilator 5.006 bug: it turns a file descriptor set in
          `initial` and read in `always` into a local of the always block, so
          nw and adpcm read from descriptor 0 and stop at once.)
  slowdown = (engine seconds per tick) / (native seconds per tick); the
  best of --repeat runs is used on both sides. For designs that trap tasks
  (regex, nw, adpcm and file_sum read and write files; df prints every
  tick) the row
  also gives trapped tasks per second.

Area. yosys 0.23 on the UNSCALED design, twice, with the same script:
    read_verilog -sv F; hierarchy -top T; proc; flatten;
    setattr -set keep 1 w:*; synth -top T; stat
  The testbench tops have no outputs, so without `keep` on every wire yosys
  would delete the whole design; keeping every (flattened) wire keeps every
  register and the logic computing it, in both designs alike.
  original     the example's synthesizable core: the free-running clock
               becomes an input port; every value-returning system function
               ($fgetc, $fread's results, ...) becomes a fresh 32-bit input
               port (the value the host would supply); $fopen becomes a
               constant descriptor; output-only system tasks ($display,
               $write, $fwrite, $fclose, $finish) become empty statements.
               $readmemh stays (yosys loads it as initial memory contents).
  transformed  `synergy-hwc --emit-verilog` of the same design, top
               synergy_engine, as the engine runtime builds it.
  FFs are the flip-flop and latch cells ($_DFF*, $_SDFF*, $_DLATCH*,
  $_SR*, ...; memories are mapped to flip-flops by synth); LUT-equivalents
  are all other cells. Ratios are transformed / original.
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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = ["bitcoin", "mips32", "regex", "nw", "adpcm", "df", "file_sum"]
CXX = "clang++-19"
CXX_OPT = "-O2"

NATIVE_MAIN = r"""// Drives the verilated testbench: toggles the clock and evaluates until
// $finish; times the tick loop only.
#include <chrono>
#include <cstdio>
#include <memory>
#include "Vtb.h"
#include "verilated.h"
int main(int argc, char** argv) {
  auto context = std::make_unique<VerilatedContext>();
  context->commandArgs(argc, argv);
  auto top = std::make_unique<Vtb>(context.get());
  unsigned long long ticks = 0;
  auto start = std::chrono::steady_clock::now();
  top->clock = 0;
  top->eval();
  while (!context->gotFinish()) {
    top->clock = !top->clock;
    top->eval();
    ++ticks;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  top->final();
  std::fprintf(stderr, "native-stats ticks=%llu seconds=%.6f\n", ticks, seconds);
  return 0;
}
"""


def log(message):
    print(message, file=sys.stderr, flush=True)


def replace_once(text, old, new):
    if old not in text:
        raise RuntimeError("scaling pattern not found: " + old)
    return text.replace(old, new, 1)


def repeat_file(path, times):
    data = open(path, "rb").read()
    with open(path, "wb") as out:
        out.write(data * times)


# Each scaler edits the copied example in `work` and returns a one-line
# description of the workload.
def scale_bitcoin(work, quick):
    nonces = 800 if quick else 8000
    path = os.path.join(work, "bitcoin.v")
    text = open(path).read()
    text = replace_once(text, "parameter DIFFICULTY = 10;", "parameter DIFFICULTY = 32;")
    text = replace_once(text, "parameter MAX_NONCES = 2000;", "parameter MAX_NONCES = %d;" % nonces)
    open(path, "w").write(text)
    return "%d nonces, difficulty 32" % nonces


def scale_df(work, quick):
    steps = 40000 if quick else 400000
    path = os.path.join(work, "df.v")
    text = replace_once(open(path).read(), "if (n == 24) $finish;", "if (n == %d) $finish;" % steps)
    open(path, "w").write(text)
    return "%d multiplications" % steps


def scale_mips32(work, quick):
    cycles = 120000 if quick else 1200000
    path = os.path.join(work, "mips32.v")
    text = open(path).read()
    text = replace_once(text, "6'h0c: begin halted <= 1; pc <= pc; end", "6'h0c: pc <= 0;")
    text = replace_once(text, "cycles == 5000", "cycles == %d" % cycles)
    open(path, "w").write(text)
    return "sort program rerun for %d cycles" % cycles


def scale_regex(work, quick):
    times = 1200 if quick else 12000
    repeat_file(os.path.join(work, "input.txt"), times)
    return "input.txt x%d" % times


def scale_file_sum(work, quick):
    times = 6250 if quick else 62500
    repeat_file(os.path.join(work, "numbers.bin"), times)
    return "numbers.bin x%d (%d words)" % (times, times * 16)


def scale_nw(work, quick):
    times = 400 if quick else 4000
    repeat_file(os.path.join(work, "pairs.txt"), times)
    return "pairs.txt x%d" % times


def scale_adpcm(work, quick):
    times = 50 if quick else 500
    samples_path = os.path.join(work, "samples.bin")
    samples = os.path.getsize(samples_path) // 2 * times
    repeat_file(samples_path, times)
    path = os.path.join(work, "adpcm.v")
    text = replace_once(open(path).read(), "originals [0:255]", "originals [0:%d]" % (samples - 1))
    open(path, "w").write(text)
    return "samples.bin x%d (%d samples)" % (times, samples)


SCALERS = {"bitcoin": scale_bitcoin, "df": scale_df, "mips32": scale_mips32, "regex": scale_regex,
           "nw": scale_nw, "adpcm": scale_adpcm, "file_sum": scale_file_sum}


def stage(name, work):
    """Copies a program and its inputs into `work`: an example's directory,
    or the paper's streaming file sum from the Verilog test corpus."""
    if name != "file_sum":
        shutil.copytree(os.path.join(ROOT, "examples", "verilog", name), work)
        return
    corpus = os.path.join(ROOT, "test", "verilog")
    os.makedirs(work)
    shutil.copy(os.path.join(corpus, "file_sum.v"), work)
    shutil.copy(os.path.join(corpus, "Inputs", "numbers.bin"), work)

CLOCK_DECLARATION = "reg clock = 0;"
CLOCK_GENERATOR = "always #1 clock = ~clock;"


def clock_as_port(text, extra_ports=()):
    """The testbench with its free-running clock turned into an input port."""
    text = replace_once(text, CLOCK_DECLARATION, "")
    text = replace_once(text, CLOCK_GENERATOR, "")
    ports = ["input wire clock"] + ["input wire [31:0] %s" % port for port in extra_ports]
    return replace_once(text, "module tb;", "module tb(%s);" % ", ".join(ports))


def call_end(text, open_paren):
    """Index just past the parenthesis closing the one at open_paren."""
    depth = 0
    index = open_paren
    while index < len(text):
        char = text[index]
        if char == '"':
            index += 1
            while text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise RuntimeError("unbalanced parentheses in a system call")


OUTPUT_TASKS = {"display", "write", "fwrite", "fclose", "finish", "stop", "fflush", "fdisplay"}
KEPT_FUNCTIONS = {"signed", "unsigned", "clog2", "readmemh", "readmemb"}


def synthesizable_core(text):
    """The original design as yosys can read it (see the header, Area)."""
    ports = []

    def host_input():
        ports.append("bench_in%d" % len(ports))
        return ports[-1]

    # `got = $fread(target, fd);` sets both target and got from the host.
    def split_fread(match):
        return "%s = %s; %s = %s;" % (match.group(2), host_input(), match.group(1), host_input())

    text = re.sub(r"(\w+)\s*=\s*\$fread\(\s*([^,]+?)\s*,[^;]*\);", split_fread, text)
    pieces = []
    position = 0
    for match in re.finditer(r"\$(\w+)", text):
        if match.start() < position:
            continue
        name = match.group(1)
        if name in KEPT_FUNCTIONS:
            continue
        end = match.end()
        rest = text[end:].lstrip()
        if rest.startswith("("):
            end = call_end(text, text.index("(", end))
        pieces.append(text[position:match.start()])
        if name in OUTPUT_TASKS:
            semicolon = text.index(";", end)
            pieces.append("begin end")
            end = semicolon + 1
        elif name == "fopen":
            pieces.append("32'd3")
        else:
            pieces.append(host_input())
        position = end
    pieces.append(text[position:])
    # Loops that only printed are now empty, and their bounds need not be
    # constant (nw prints len_a characters); yosys rejects such loops.
    core = re.sub(r"for\s*\([^)]*\)\s*begin end", "begin end", "".join(pieces))
    return clock_as_port(core, ports)


def run(argv, cwd, env=None, quiet=True):
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).decode(errors="replace").strip().splitlines()
        raise RuntimeError("%s failed: %s" % (os.path.basename(argv[0]), detail[-1] if detail else proc.returncode))
    return proc


def parse_stats(prefix, stderr):
    match = re.search(prefix + rb" ticks=(\d+)(?: tasks=(\d+))? seconds=([0-9.]+)", stderr)
    if not match:
        raise RuntimeError("no %s line" % prefix.decode())
    return int(match.group(1)), int(match.group(2) or 0), float(match.group(3))


def strip_finish_note(output):
    """Verilator's main prints `- file:line: Verilog $finish`; vvp and the engine do not."""
    return b"".join(line for line in output.splitlines(True) if not re.match(rb"- \S+: Verilog \$finish", line))


def bench_engine(name, work, args, cache_dir):
    env = dict(os.environ, SYNERGY_ENGINE_STATS="1", SYNERGY_CACHE_DIR=cache_dir)
    eng = os.path.join(work, name + ".eng")
    run([os.path.join(args.bin_dir, "synergy-cc"), name + ".v", "-o", eng], work)
    runner = [os.path.join(args.bin_dir, "synergy-run"), eng]
    start = time.perf_counter()
    first = run(runner, work, env)
    wall = time.perf_counter() - start
    ticks, tasks, seconds = parse_stats(b"synergy-engine-stats", first.stderr)
    build_seconds = wall - seconds
    best = seconds
    for _ in range(args.repeat - 1):
        ticks, tasks, seconds = parse_stats(b"synergy-engine-stats", run(runner, work, env).stderr)
        best = min(best, seconds)
    return {"ticks": ticks, "tasks": tasks, "seconds": best, "build_seconds": build_seconds,
            "output": first.stdout}


def bench_native(name, work, args):
    native = os.path.join(work, "native")
    os.makedirs(native)
    source = os.path.join(native, "tb.v")
    open(source, "w").write(clock_as_port(open(os.path.join(work, name + ".v")).read()))
    main_path = os.path.join(native, "bench_main.cpp")
    open(main_path, "w").write(NATIVE_MAIN)
    start = time.perf_counter()
    run(["verilator", "--cc", "--exe", "-O3", "-fno-localize", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--default-language",
         "1364-2005", "--top-module", "tb", "--Mdir", native, source, main_path], work)
    run(["make", "-C", native, "-f", "Vtb.mk", "CXX=" + CXX, "OPT_FAST=" + CXX_OPT, "OPT_SLOW=" + CXX_OPT,
         "OPT_GLOBAL=" + CXX_OPT], work)
    build_seconds = time.perf_counter() - start
    best = None
    output = b""
    for _ in range(args.repeat):
        proc = run([os.path.join(native, "Vtb")], work)
        ticks, _, seconds = parse_stats(b"native-stats", proc.stderr)
        output = proc.stdout
        best = seconds if best is None else min(best, seconds)
    return {"ticks": ticks, "seconds": best, "build_seconds": build_seconds, "output": strip_finish_note(output)}


FLOP_CELL = re.compile(r"DFF|DLATCH|\$_SR_")


def yosys_cells(verilog_path, top, cwd):
    stat_path = verilog_path + ".stat"
    script = ("read_verilog -sv {f}; hierarchy -top {t}; proc; flatten; setattr -set keep 1 w:*; "
              "synth -top {t}; tee -q -o {s} stat").format(f=verilog_path, t=top, s=stat_path)
    run(["yosys", "-q", "-p", script], cwd)
    cells = [(name, int(count)) for name, count in
             re.findall(r"^\s+(\$\S+)\s+(\d+)\s*$", open(stat_path).read(), re.M)]
    flops = sum(count for name, count in cells if FLOP_CELL.search(name))
    return {"ffs": flops, "lut_equivalents": sum(count for _, count in cells) - flops}


def bench_area(name, work, args):
    original = os.path.join(work, name + ".core.v")
    open(original, "w").write(synthesizable_core(open(os.path.join(work, name + ".v")).read()))
    transformed = os.path.join(work, name + ".engine.v")
    run([os.path.join(args.bin_dir, "synergy-hwc"), name + ".v", "--emit-verilog", transformed], work)
    area = {"original": yosys_cells(original, "tb", work), "transformed": yosys_cells(transformed, "synergy_engine", work)}
    for kind in ("ffs", "lut_equivalents"):
        base = area["original"][kind]
        area[kind + "_ratio"] = area["transformed"][kind] / base if base else None
    return area


def bench(name, args, root):
    row = {"example": name}
    area_work = os.path.join(root, name + "-area")
    stage(name, area_work)
    log("[%s] yosys area" % name)
    try:
        row["area"] = bench_area(name, area_work, args)
    except (RuntimeError, OSError) as error:
        row["area_error"] = str(error)
    work = os.path.join(root, name)
    stage(name, work)
    row["workload"] = SCALERS[name](work, args.quick)
    log("[%s] engine: %s" % (name, row["workload"]))
    engine = bench_engine(name, work, args, os.path.join(root, "engine-cache"))
    log("[%s] native Verilator" % name)
    native = bench_native(name, work, args)
    row["outputs_match"] = engine.pop("output") == native.pop("output")
    row["engine"] = engine
    row["native"] = native
    engine["ticks_per_s"] = engine["ticks"] / engine["seconds"] if engine["seconds"] else None
    native["ticks_per_s"] = native["ticks"] / native["seconds"] if native["seconds"] else None
    if engine["ticks_per_s"] and native["ticks_per_s"]:
        row["slowdown"] = native["ticks_per_s"] / engine["ticks_per_s"]
    if engine["tasks"] and engine["seconds"]:
        engine["tasks_per_s"] = engine["tasks"] / engine["seconds"]
    return row


def cell(value, spec="%.3g"):
    return "-" if value is None else spec % value


COLUMNS = ("%-8s %9s %10s %10s %8s %10s %7s %7s %6s %6s %5s %6s %6s %5s %5s")


def print_table(rows):
    print(COLUMNS % ("example", "ticks", "eng t/s", "nat t/s", "slowdn", "tasks/s", "eng bd", "nat bd",
                     "FF o", "FF t", "FFx", "LUT o", "LUT t", "LUTx", "same"))
    for row in rows:
        if "error" in row:
            print("%-8s error: %s" % (row["example"], row["error"]))
            continue
        engine, native, area = row["engine"], row["native"], row.get("area")
        area_cells = ("-",) * 6
        if area:
            area_cells = (area["original"]["ffs"], area["transformed"]["ffs"], cell(area["ffs_ratio"], "%.2f"),
                          area["original"]["lut_equivalents"], area["transformed"]["lut_equivalents"],
                          cell(area["lut_equivalents_ratio"], "%.2f"))
        print(COLUMNS % ((row["example"], engine["ticks"], cell(engine["ticks_per_s"]), cell(native["ticks_per_s"]),
                          cell(row.get("slowdown"), "%.2f"), cell(engine.get("tasks_per_s")),
                          cell(engine["build_seconds"], "%.1fs"), cell(native["build_seconds"], "%.1fs"))
                         + area_cells + ("yes" if row["outputs_match"] else "NO",)))
    print("slowdn = engine s/tick / native s/tick; eng/nat bd = build seconds; FF/LUT o|t = original|transformed "
          "yosys cells, x = t/o")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True, help="directory holding synergy-cc, synergy-run, synergy-hwc")
    parser.add_argument("--json", help="write all rows here")
    parser.add_argument("--quick", action="store_true", help="10x smaller workloads, one timed run each")
    parser.add_argument("--examples", default=",".join(EXAMPLES))
    parser.add_argument("--repeat", type=int, help="timed runs per side, best kept (default 3, quick 1)")
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    root = tempfile.mkdtemp(prefix="synergy-verilog-bench-")
    rows = []
    try:
        for name in args.examples.split(","):
            if name not in SCALERS:
                log("run-bench.py: error: unknown example %s" % name)
                return 1
            try:
                rows.append(bench(name, args, root))
            except (RuntimeError, OSError) as error:
                log("[%s] failed: %s" % (name, error))
                rows.append({"example": name, "error": str(error)})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print_table(rows)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"quick": args.quick, "repeat": args.repeat, "rows": rows}, out, indent=2)
        log("wrote " + args.json)
    return 0 if all("error" not in row for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
