#!/usr/bin/env python3
"""Engines as tenants of synergy-hv against the same engines run solo, and
timelines of tenants that share a hypervisor, move between two, join and
leave (Fig. 9, 11 and 12 of the Synergy paper).

  bench/verilog/hypervisor.py --bin-dir BUILD/bin [--json out.json] [--quick]
                              [--examples df,regex] [--repeat N]
                              [--plots DIR | --no-plots] [--scenario-seconds S]

Each example is staged and scaled exactly as bench/verilog/run-bench.py does
(its scalers are imported from there), compiled once with synergy-cc, and
then timed with SYNERGY_ENGINE_STATS=1, whose seconds cover the tick loop:
  solo     synergy-run --engine compiled design.eng (best of --repeat runs);
  tenant   synergy-run --hypervisor ... design.eng, one tenant alone (best);
  pair     two tenants of the same design at once, --repeat times (the
           ratios are those of the pair whose slower tenant was fastest),
           after an untimed pair whose combined program the hypervisor has
           finished compiling, so that the timed pairs' comes from the
           cache, as the solo engine does, and no compile competes with it;
  four     four tenants of the same design at once, once, after an untimed
           four whose combined program is built (quad_* in the JSON);
  start    the wall time of a tenant run minus its loop time, with the
           engine already in the cache: connect, submit, cache-hit load.
Each timed pair makes the hypervisor combine both engines into one program
(from the cache) and move both into it: the moves' pauses, from the program
being ready (the interrupt) to the engine serving again, and the part of it
the tenant's request was held for the state copy, are read from the daemon's
log (swap_pause_ms, swap_hold_ms, and the fabric thread's CPU time for the
copy, swap_hold_cpu_ms); swap_pause_ms_stats gives their minimum, median and
maximum over all --repeat pairs.
The pair's fairness is each tenant's share of the work both did while both
ran (pair_share, from their --timeline: 0.5 each is an even split): of the
trapped tasks for a design that traps often, of the ticks otherwise.

Two kinds of ratio to solo are reported; say which one you quote:
  wall   the tenant's (or each pair tenant's) ticks/s over the solo run's,
         both from the stats line's loop seconds: what a user waits for,
         but on a loaded host mostly a measure of the load;
  cpu    from CPU seconds (user+system) per unit of work, measured in the
         same run: what each tenant would get of a solo run if CPU were the
         only limit. "A core each" (cpu_ratio): the tenant and hypervisor
         processes run in parallel, so a tenant is held back by the busier
         of its share of the hypervisor's CPU (the one fabric thread all
         tenants take turns on) and its own process's CPU. "One core"
         (cpu_ratio_one_core): everything summed, as if all of it ran on
         one core, which a tenant pipelined with the hypervisor (a design
         that prints every tick: the hypervisor runs it, the tenant
         formats) never meets.
The unit of work is a trapped task when the design traps often (regex,
file_sum, nw, adpcm) and a tick otherwise. The engine requests the
hypervisor served per unit (requests_per_unit; its status counts them) show
how many round trips a unit costs a tenant, alone and in the pair.

The timelines (unless --no-plots) are drawn with matplotlib into PNG files
next to the JSON (--plots DIR to put them elsewhere), and their paths are
printed. Each scenario runs the paper's streaming file sum
(test/verilog/file_sum.v, one $fread and one $feof a tick) over a
numbers.bin sized so that a solo run lasts about --scenario-seconds (3):
  Fig. 11  hypervisor-stream-pair.png: two streaming tenants started
           together: each one's trapped tasks/s over time (about half each);
  Fig. 9   hypervisor-migration.png: one tenant of a synergy-hv on
           127.0.0.1 is migrated (synergy-hv-ctl migrate) to one on
           127.0.0.2 once its timeline shows 30% of a solo run's ticks, and
           back at 60%: its ticks/s over time, each migration marked from
           the request to its engine running on the other hypervisor;
  Fig. 12  hypervisor-join-leave.png: three tenants start 0.3 solo runs
           apart and
           leave when done; each one's tasks/s over time with joins, leaves
           and the moves into combined programs marked.
Before the recorded pair and join/leave runs an untimed one has the
combined programs built, so the recorded ones move from the cache. The
per-example pairs' timelines are drawn too (hypervisor-pair-NAME.png).
matplotlib comes from Debian (python3-matplotlib): when the python running
this cannot import it, the bench runs itself again under /usr/bin/python3,
or stops with a message saying so.

Outputs of every run must equal the solo run's (outputs_match, the exit
status). One synergy-hv on 127.0.0.1 serves all runs; it shares the bench's
engine cache. Timing numbers are reported, never asserted.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import resource
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("run_bench", os.path.join(HERE, "run-bench.py"))
run_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_bench)

DEBIAN_PYTHON = "/usr/bin/python3"
MOVE_LINE = re.compile(r"moved into combined program \d+ slot \d+: ([0-9.]+) ms from the interrupt, "
                       r"([0-9.]+) ms holding it \(([0-9.]+) ms of CPU")


def ensure_matplotlib():
    """Returns when matplotlib imports; otherwise runs this bench again under
    Debian's python (a pyenv python3 first on PATH lacks Debian's packages)
    or exits with the reason."""
    try:
        import matplotlib  # noqa: F401 (only whether it imports)
        return
    except ImportError:
        pass
    if (os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON) and os.access(DEBIAN_PYTHON, os.X_OK)
            and subprocess.run([DEBIAN_PYTHON, "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode == 0):
        run_bench.log("hypervisor.py: %s has no matplotlib; running under %s" % (sys.executable, DEBIAN_PYTHON))
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("hypervisor.py: error: the timelines are drawn with matplotlib, which neither %s nor %s can import; "
             "install Debian's python3-matplotlib (cmake/debian-packages.txt) or pass --no-plots" %
             (sys.executable, DEBIAN_PYTHON))


class Hypervisor:
    """A synergy-hv on `host`; each line of its log is kept with the
    time.perf_counter() at which it arrived, so that swaps, joins and
    migrations can be placed on the tenants' timelines."""

    def __init__(self, bin_dir, host, token, admin_token, env, log_path):
        self.bin_dir, self.token, self.admin_token = bin_dir, token, admin_token
        self.proc = subprocess.Popen([os.path.join(bin_dir, "synergy-hv"), "--listen", host + ":0", "--token-file",
                                      token, "--admin-token-file", admin_token],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines = []
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self.read_log, args=(log_path,), daemon=True)
        self.reader.start()
        if not select.select([self.proc.stdout], [], [], 30)[0]:
            raise RuntimeError("synergy-hv on %s did not start" % host)
        self.address = re.search(r"listening on (\S+)", self.proc.stdout.readline().decode()).group(1)

    def read_log(self, log_path):
        with open(log_path, "wb") as log:
            for raw in iter(self.proc.stderr.readline, b""):
                arrived = time.perf_counter()
                log.write(raw)
                with self.lock:
                    self.lines.append((arrived, raw.decode(errors="replace").rstrip("\n")))

    def mark(self):
        with self.lock:
            return len(self.lines)

    def since(self, mark):
        with self.lock:
            return self.lines[mark:]

    def ctl(self, *command, admin=False):
        argv = [os.path.join(self.bin_dir, "synergy-hv-ctl"), "--connect", self.address, "--token-file", self.token]
        if admin:
            argv += ["--admin-token-file", self.admin_token]
        proc = subprocess.run(argv + list(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError("synergy-hv-ctl %s failed: %s" % (" ".join(command), proc.stderr.decode().strip()))
        return proc.stdout.decode()

    def counters(self):
        status = self.ctl("status")
        requests, traps = re.search(r"^engine requests (\d+), trapped tasks (\d+)", status, re.M).groups()
        combined = re.search(r"^combined compiles (\d+)", status, re.M).group(1)
        return {"requests": int(requests), "traps": int(traps), "combined_compiles": int(combined)}

    def running_engines(self):
        return [int(id) for id in re.findall(r" engine (\d+) \"[^\"]*\" running", self.ctl("status"))]

    def wait_idle(self, timeout=900):
        """Waits until no combined program is compiling."""
        deadline = time.monotonic() + timeout
        while "combined compiling nothing" not in self.ctl("status"):
            if time.monotonic() > deadline:
                raise RuntimeError("a combined program on %s still compiles after %d s" % (self.address, timeout))
            time.sleep(0.5)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait()
        self.reader.join(timeout=30)


def timed_run(argv, work, env):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc, start


def collect(proc, start):
    out, err = proc.communicate()
    end = time.perf_counter()
    if proc.returncode != 0:
        raise RuntimeError("run failed (%d): %s" % (proc.returncode, err.decode(errors="replace").strip()[-300:]))
    ticks, tasks, seconds = run_bench.parse_stats(b"synergy-engine-stats", err)
    return {"ticks": ticks, "tasks": tasks, "seconds": seconds, "wall": end - start, "start": start, "end": end,
            "output": out}


def collect_all(started):
    """Collects runs that go on at once. Their output is read at once: a
    tenant whose pipe is left full blocks inside its tick, and the runs
    would measure the pipe."""
    with concurrent.futures.ThreadPoolExecutor(len(started)) as pool:
        return list(pool.map(lambda run: collect(*run), started))


def children_cpu():
    """User+system CPU seconds of the bench's waited-for children so far:
    around runs made one at a time (or one pair), the runs' own CPU."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid):
    """User+system CPU seconds of a running process (the hypervisor)."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(run, hv):
    """Runs run() and returns its result with the CPU seconds of the
    processes it waited for, the hypervisor's CPU seconds meanwhile, the
    engine requests it served and the lines it logged. The status requests
    that count the engine requests are made outside the CPU window, so
    synergy-hv-ctl's CPU is not counted."""
    requests, mark = hv.counters()["requests"], hv.mark()
    own, hv_cpu = children_cpu(), process_cpu(hv.proc.pid)
    result = run()
    cpu, hv_cpu = children_cpu() - own, process_cpu(hv.proc.pid) - hv_cpu
    return {"result": result, "cpu": cpu, "hv_cpu": hv_cpu, "requests": hv.counters()["requests"] - requests,
            "log": hv.since(mark)}


def mismatch(name, output, expected):
    """Where a run's output first differs from the solo run's, for the JSON."""
    at = next((k for k, (a, b) in enumerate(zip(output, expected)) if a != b), min(len(output), len(expected)))
    return {"run": name, "bytes": len(output), "solo_bytes": len(expected), "first_difference": at,
            "output_there": output[max(0, at - 80):at + 160].decode(errors="replace"),
            "solo_there": expected[max(0, at - 80):at + 160].decode(errors="replace")}


def rates(result):
    return result["ticks"] / result["seconds"], result["tasks"] / result["seconds"]


def cpu_ratios(solo_cpu_per_unit, group, units, each_share):
    """The CPU-based ratios to solo of the tenants of one measured() run:
    (one core, a core each), one per tenant. One core: each tenant's share
    of the work times the solo CPU per unit over the group's (tenants and
    hypervisor summed). A core each: the lower of what the hypervisor's CPU
    per unit leaves each tenant (its share of the fabric) and what the
    tenant processes' own CPU per unit allows (split as their work is)."""
    everything = (group["cpu"] + group["hv_cpu"]) / units
    fabric = group["hv_cpu"] / units
    tenants = group["cpu"] / units
    one_core, core_each = [], []
    for share in each_share:
        if share is None:
            one_core.append(None)
            core_each.append(None)
            continue
        one_core.append(share * solo_cpu_per_unit / everything)
        core_each.append(min(share * solo_cpu_per_unit / fabric if fabric else float("inf"),
                             solo_cpu_per_unit / tenants if tenants else float("inf")))
    return one_core, core_each


def spread(values):
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "count": len(values)}


def read_timeline(path):
    """Rows of a --timeline CSV as dicts of floats (the engine column dropped)."""
    with open(path) as csv:
        header = csv.readline().strip().split(",")
        return [{key: float(value) for key, value in zip(header, line.strip().split(",")) if key != "engine"}
                for line in csv]


def start_offsets(runs):
    """Each run's start after the first one's, in seconds."""
    return [run["start"] - min(r["start"] for r in runs) for run in runs]


def shares(timelines, column, offsets=None):
    """Each run's share of `column` (ticks or tasks) done while all of them
    ran: up to the first end, from the last start (offsets: each timeline's
    start on a common clock; all zero when they started together)."""
    series = [read_timeline(path) for path in timelines]
    if not all(series):
        return [None] * len(series)
    offsets = offsets or [0.0] * len(series)
    begin = max(offsets)
    end = min(offset + rows[-1]["time_s"] for offset, rows in zip(offsets, series))

    def done_by(rows, offset, moment):
        return max([row[column] for row in rows if offset + row["time_s"] <= moment] or [0.0])

    work = [done_by(rows, offset, end) - done_by(rows, offset, begin) for rows, offset in zip(series, offsets)]
    total = sum(work)
    return [w / total if total > 0 else None for w in work]


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_timelines(png, title, series, columns, marks=(), levels=()):
    """series: (label, start offset, timeline rows); columns: (CSV column,
    axis label); marks: (time, kind, label) with kind join, leave, swap or
    migrate, drawn as vertical lines on every axis (a swap's label goes to
    the legend once: moves come in bursts, one per engine); levels:
    (value, label) drawn as horizontal lines on the first axis."""
    plt = pyplot()
    figure, axes = plt.subplots(len(columns), 1, figsize=(10, 2.8 * len(columns) + 0.6), sharex=True, squeeze=False)
    styles = {"join": ("tab:green", "--"), "leave": ("tab:gray", ":"), "swap": ("tab:red", "-"),
              "migrate": ("tab:purple", "-")}
    for axis, (column, label) in zip((row[0] for row in axes), columns):
        for name, offset, rows in series:
            axis.plot([offset + row["time_s"] for row in rows], [row[column] for row in rows], label=name)
        for moment, kind, text in marks:
            color, line = styles[kind]
            axis.axvline(moment, color=color, linestyle=line, linewidth=0.8)
        axis.set_ylabel(label)
        axis.set_ylim(bottom=0)
    top = axes[0][0]
    for value, text in levels:
        top.axhline(value, color="black", linestyle="-.", linewidth=0.7, label=text)
    swaps = [text for _, kind, text in marks if kind == "swap"]
    if swaps:
        top.plot([], [], color=styles["swap"][0], linewidth=0.8, label=swaps[0])
    for moment, kind, text in marks:
        if text and kind != "swap":
            top.annotate(text, (moment, 1.0), xycoords=("data", "axes fraction"), rotation=90, fontsize=7,
                         va="top", ha="right", color=styles[kind][0])
    top.set_title(title)
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    axes[-1][0].set_xlabel("time (s)")
    figure.tight_layout()
    figure.savefig(png, dpi=100)
    plt.close(figure)
    print("plot: %s" % png, flush=True)


def bench(name, args, root, hv, env):
    work = os.path.join(root, name)
    run_bench.stage(name, work)
    workload = run_bench.SCALERS[name](work, args.quick)
    source = "file_sum.v" if name == "file_sum" else name + ".v"
    eng = os.path.join(work, name + ".eng")
    run_bench.run([os.path.join(args.bin_dir, "synergy-cc"), source, "-o", eng], work)
    solo_argv = [os.path.join(args.bin_dir, "synergy-run"), "--engine", "compiled", eng]
    tenant_argv = [os.path.join(args.bin_dir, "synergy-run"), "--hypervisor", hv.address, "--token-file", hv.token,
                   eng]
    collect(*timed_run(solo_argv, work, env))  # builds the engine into the cache
    solo = min((measured(lambda: collect(*timed_run(solo_argv, work, env)), hv) for _ in range(args.repeat)),
               key=lambda m: m["result"]["seconds"])
    tenant = min((measured(lambda: collect(*timed_run(tenant_argv, work, env)), hv) for _ in range(args.repeat)),
                 key=lambda m: m["result"]["seconds"])
    # Tenants that run at once each get a directory of their own, as solo
    # runs would: a design that writes a file and reads it back (adpcm's
    # codes.bin) would otherwise read another tenant's.
    places = [work]
    for k in range(1, 4):
        places.append(work + "-%d" % k)
        shutil.copytree(work, places[-1])
    timelines = [os.path.join(work, "pair-%d.csv" % k) for k in range(2)]
    pair_argv = [tenant_argv[:-1] + ["--timeline", timeline, eng] for timeline in timelines]

    def run_pair():
        return collect_all([timed_run(argv, place, env) for argv, place in zip(pair_argv, places)])

    quad_timelines = [os.path.join(work, "quad-%d.csv" % k) for k in range(4)]

    def run_quad():
        return collect_all([timed_run(tenant_argv[:-1] + ["--timeline", timeline, eng], place, env)
                            for timeline, place in zip(quad_timelines, places)])

    run_pair()
    run_quad()
    hv.wait_idle()
    quad = measured(run_quad, hv)
    pairs = []
    for _ in range(args.repeat):
        pair = measured(run_pair, hv)
        pair["share"] = shares(timelines, "tasks" if rates(solo["result"])[1] > 1000 else "ticks",
                               start_offsets(pair["result"]))
        pair["timelines"] = [read_timeline(path) for path in timelines]
        pairs.append(pair)
    moves = [[float(value) for value in match.groups()]
             for pair in pairs for _, line in pair["log"] for match in [MOVE_LINE.search(line)] if match]
    best = max(pairs, key=lambda p: min(r["ticks"] / r["seconds"] for r in p["result"]))
    if args.plots:
        plot_timelines(os.path.join(args.plots, "hypervisor-pair-%s.png" % name),
                       "%s: two tenants of one synergy-hv" % name,
                       [("tenant %d" % (k + 1), 0.0, rows) for k, rows in enumerate(best["timelines"])],
                       [("ticks_per_s", "virtual ticks/s")] +
                       ([("tasks_per_s", "trapped tasks/s")] if best["result"][0]["tasks"] else []))
    runs = [("tenant", tenant["result"])] + [("four tenants, %d" % (k + 1), r) for k, r in enumerate(quad["result"])]
    runs += [("pair %d, tenant %d" % (p + 1, k + 1), r) for p, pair in enumerate(pairs)
             for k, r in enumerate(pair["result"])]
    mismatches = [mismatch(name, run["output"], solo["result"]["output"]) for name, run in runs
                  if run["output"] != solo["result"]["output"]]
    outputs_match = not mismatches
    solo_ticks, solo_tasks = rates(solo["result"])
    unit = "tasks" if solo_tasks > 1000 else "ticks"
    solo_units = solo["result"][unit]
    tenant_units = tenant["result"][unit]
    best_units = sum(r[unit] for r in best["result"])
    solo_cpu_per_unit = solo["cpu"] / solo_units
    tenant_cpu_per_unit = (tenant["cpu"] + tenant["hv_cpu"]) / tenant_units
    pair_cpu_per_unit = (best["cpu"] + best["hv_cpu"]) / best_units
    row = {"example": name, "workload": workload, "ticks": solo["result"]["ticks"], "tasks": solo["result"]["tasks"],
           "solo_ticks_per_s": solo_ticks, "solo_tasks_per_s": solo_tasks,
           "tenant_ticks_per_s": rates(tenant["result"])[0], "tenant_tasks_per_s": rates(tenant["result"])[1],
           "pair_ticks_per_s": [rates(r)[0] for r in best["result"]],
           "pair_tasks_per_s": [rates(r)[1] for r in best["result"]],
           "tenant_start_seconds": tenant["result"]["wall"] - tenant["result"]["seconds"],
           "outputs_match": outputs_match,
           "swap_pause_ms": [m[0] for m in moves], "swap_hold_ms": [m[1] for m in moves],
           "swap_hold_cpu_ms": [m[2] for m in moves],
           "swap_pause_ms_stats": spread([m[0] for m in moves]), "swap_hold_ms_stats": spread([m[1] for m in moves]),
           "unit": unit, "solo_cpu_s": solo["cpu"], "tenant_cpu_s": tenant["cpu"], "tenant_hv_cpu_s": tenant["hv_cpu"],
           "pair_cpu_s": best["cpu"], "pair_hv_cpu_s": best["hv_cpu"],
           "solo_cpu_us_per_unit": solo_cpu_per_unit * 1e6, "tenant_cpu_us_per_unit": tenant_cpu_per_unit * 1e6,
           "pair_cpu_us_per_unit": pair_cpu_per_unit * 1e6,
           "tenant_requests_per_unit": tenant["requests"] / tenant_units,
           "pair_requests_per_unit": best["requests"] / best_units,
           "load_average": os.getloadavg()[0]}
    row["tenant_vs_solo"] = row["tenant_ticks_per_s"] / solo_ticks
    row["pair_vs_solo"] = [r / solo_ticks for r in row["pair_ticks_per_s"]]
    row["pair_share"] = best["share"]
    row["mismatches"] = mismatches
    row["quad_ticks_per_s"] = [rates(r)[0] for r in quad["result"]]
    row["quad_tasks_per_s"] = [rates(r)[1] for r in quad["result"]]
    row["quad_vs_solo"] = [r / solo_ticks for r in row["quad_ticks_per_s"]]
    row["quad_share"] = shares(quad_timelines, unit, start_offsets(quad["result"]))
    quad_units = sum(r[unit] for r in quad["result"])
    row["quad_cpu_ratio_one_core"], row["quad_cpu_ratio"] = cpu_ratios(solo_cpu_per_unit, quad, quad_units,
                                                                       row["quad_share"])
    row["quad_requests_per_unit"] = quad["requests"] / quad_units
    row["quad_swap_pause_ms"] = [float(m.group(1)) for _, line in quad["log"] for m in [MOVE_LINE.search(line)] if m]
    (row["tenant_cpu_ratio_one_core"],), (row["tenant_cpu_ratio"],) = cpu_ratios(solo_cpu_per_unit, tenant,
                                                                                  tenant_units, [1.0])
    row["pair_cpu_ratio_one_core"], row["pair_cpu_ratio"] = cpu_ratios(solo_cpu_per_unit, best, best_units,
                                                                       best["share"])
    return row


def stream_design(args, root, env):
    """The streaming file sum compiled once, its numbers.bin repeated so
    that a solo run lasts about --scenario-seconds (measured here, at this
    load). It only reads numbers.bin, so its tenants share the directory.
    Returns (work directory, engine, a solo run's argv)."""
    work = os.path.join(root, "stream")
    run_bench.stage("file_sum", work)
    numbers = os.path.join(work, "numbers.bin")
    unit = open(numbers, "rb").read()
    eng = os.path.join(work, "file_sum.eng")
    run_bench.run([os.path.join(args.bin_dir, "synergy-cc"), "file_sum.v", "-o", eng], work)
    solo_argv = [os.path.join(args.bin_dir, "synergy-run"), "--engine", "compiled", eng]
    copies = 6250
    open(numbers, "wb").write(unit * copies)
    collect(*timed_run(solo_argv, work, env))  # builds the engine into the cache
    copies = max(copies, int(copies * args.scenario_seconds / collect(*timed_run(solo_argv, work, env))["seconds"]))
    open(numbers, "wb").write(unit * copies)
    return work, eng, solo_argv


def tenant_argv(args, hv, eng, timeline):
    return [os.path.join(args.bin_dir, "synergy-run"), "--hypervisor", hv.address, "--token-file", hv.token,
            "--timeline", timeline, eng]


def swap_marks(lines, origin):
    """The moves into combined programs in a hypervisor's log lines, on the
    clock of origin, labelled with their pauses' range."""
    moves = [(arrived - origin, float(m.group(1))) for arrived, line in lines for m in [MOVE_LINE.search(line)] if m]
    if not moves:
        return []
    label = "move into a combined program (pauses %.2f-%.2f ms)" % (min(p for _, p in moves), max(p for _, p in moves))
    return [(moment, "swap", label) for moment, _ in moves]


def scenario_stream_pair(args, hv, work, eng, env, solo):
    """Fig. 11: two streaming tenants started together, against a solo run
    of the same (solo: its collect(), with its CPU seconds measured)."""
    timelines = [os.path.join(work, "stream-pair-%d.csv" % k) for k in range(2)]
    argvs = [tenant_argv(args, hv, eng, timeline) for timeline in timelines]
    collect_all([timed_run(argv, work, env) for argv in argvs])
    hv.wait_idle()
    pair = measured(lambda: collect_all([timed_run(argv, work, env) for argv in argvs]), hv)
    runs = pair["result"]
    origin = min(run["start"] for run in runs)
    offsets = start_offsets(runs)
    series = [read_timeline(path) for path in timelines]
    share = shares(timelines, "tasks", offsets)
    solo_rate = solo["result"]["tasks"] / solo["result"]["seconds"]
    png = os.path.join(args.plots, "hypervisor-stream-pair.png")
    plot_timelines(png, "Two streaming tenants (file_sum) of one synergy-hv: shares %s" %
                   " / ".join("%.2f" % s if s is not None else "-" for s in share),
                   [("tenant %d" % (k + 1), offset, rows) for k, (offset, rows) in enumerate(zip(offsets, series))],
                   [("tasks_per_s", "trapped tasks/s")], swap_marks(pair["log"], origin),
                   [(solo_rate, "solo run"), (solo_rate / 2, "half of the solo run")])
    tasks = sum(run["tasks"] for run in runs)
    solo_cpu_per_task = solo["cpu"] / solo["result"]["tasks"]
    return {"png": png, "share": share, "solo_tasks_per_s": solo_rate,
            "tasks_per_s": [run["tasks"] / run["seconds"] for run in runs],
            "vs_solo": [run["tasks"] / run["seconds"] / solo_rate for run in runs],
            "solo_cpu_us_per_task": solo_cpu_per_task * 1e6,
            "pair_cpu_us_per_task": (pair["cpu"] + pair["hv_cpu"]) / tasks * 1e6,
            "pair_hv_cpu_us_per_task": pair["hv_cpu"] / tasks * 1e6,
            "cpu_ratio_one_core": cpu_ratios(solo_cpu_per_task, pair, tasks, share)[0],
            "cpu_ratio": cpu_ratios(solo_cpu_per_task, pair, tasks, share)[1],
            "requests_per_task": pair["requests"] / tasks, "load_average": os.getloadavg()[0],
            "outputs_match": all(run["output"] == solo["result"]["output"] for run in runs), "timelines": series}


def wait_running(hv, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        engines = hv.running_engines()
        if engines:
            return engines[-1]
        if time.monotonic() > deadline:
            raise RuntimeError("no engine runs on %s after %d s" % (hv.address, timeout))
        time.sleep(0.02)


def timeline_ticks(path):
    """The ticks a running tenant's --timeline shows so far."""
    try:
        with open(path) as csv:
            lines = csv.read().splitlines()
    except FileNotFoundError:
        return 0
    return int(lines[-1].split(",")[1]) if len(lines) > 1 and lines[-1].count(",") >= 5 else 0


def scenario_migration(args, hv, other, work, eng, env, solo):
    """Fig. 9: one tenant migrated from hv (127.0.0.1) to other (127.0.0.2)
    once its timeline shows 30% of a solo run's ticks, and back at 60%."""
    timeline = os.path.join(work, "migration.csv")
    proc, start = timed_run(tenant_argv(args, hv, eng, timeline), work, env)
    engine = wait_running(hv)
    marks, legs = [], []
    source, destination = hv, other
    for fraction in (0.3, 0.6):
        while proc.poll() is None and timeline_ticks(timeline) < fraction * solo["ticks"]:
            time.sleep(0.01)
        if proc.poll() is not None:
            raise RuntimeError("the migration scenario's tenant ended before %d%% of its ticks showed in its "
                               "timeline: %s" % (fraction * 100, collect(proc, start)))
        mark = destination.mark()
        asked = time.perf_counter()
        source.ctl("migrate", str(engine), "--to", destination.address, admin=True)
        engine = wait_running(destination)
        arrived = [when for when, line in destination.since(mark) if re.search(r"engine \d+ of tenant \d+ is running",
                                                                             line)]
        running = arrived[0] if arrived else time.perf_counter()
        legs.append({"to": destination.address, "asked_s": asked - start, "running_s": running - start,
                     "ms": (running - asked) * 1e3})
        marks += [(asked - start, "migrate", "migrate to %s" % destination.address.rsplit(":", 1)[0]),
                  (running - start, "migrate", "%.0f ms" % ((running - asked) * 1e3))]
        source, destination = destination, source
    run = collect(proc, start)
    rows = read_timeline(timeline)
    png = os.path.join(args.plots, "hypervisor-migration.png")
    plot_timelines(png, "A streaming tenant (file_sum) migrated between two synergy-hv (%s, %s)" % (
                       hv.address.rsplit(":", 1)[0], other.address.rsplit(":", 1)[0]),
                   [("tenant", 0.0, rows)], [("ticks_per_s", "virtual ticks/s")], marks,
                   [(solo["ticks"] / solo["seconds"], "solo run")])
    return {"png": png, "legs": legs, "ticks_per_s": run["ticks"] / run["seconds"],
            "outputs_match": run["output"] == solo["output"], "timeline": rows}


def scenario_join_leave(args, hv, work, eng, env, solo):
    """Fig. 12: three streaming tenants join 0.3 solo runs apart and leave
    when done; an untimed round first has their combined programs built."""
    timelines = [os.path.join(work, "join-leave-%d.csv" % k) for k in range(3)]

    def staggered():
        started = []
        for k, timeline in enumerate(timelines):
            if started:
                time.sleep(max(0.0, started[0][1] + 0.3 * k * solo["seconds"] - time.perf_counter()))
            started.append(timed_run(tenant_argv(args, hv, eng, timeline), work, env))
        return collect_all(started)

    staggered()
    hv.wait_idle()
    before, mark = hv.counters()["combined_compiles"], hv.mark()
    runs = staggered()
    compiled = hv.counters()["combined_compiles"] - before
    origin = runs[0]["start"]
    offsets = [run["start"] - origin for run in runs]
    lines = hv.since(mark)
    marks = [(offset, "join", "tenant %d joins" % (k + 1)) for k, offset in enumerate(offsets)]
    marks += [(run["end"] - origin, "leave", "tenant %d leaves" % (k + 1)) for k, run in enumerate(runs)]
    marks += swap_marks(lines, origin)
    series = [read_timeline(path) for path in timelines]
    png = os.path.join(args.plots, "hypervisor-join-leave.png")
    plot_timelines(png, "Streaming tenants (file_sum) joining and leaving one synergy-hv",
                   [("tenant %d" % (k + 1), offset, rows) for k, (offset, rows) in enumerate(zip(offsets, series))],
                   [("tasks_per_s", "trapped tasks/s")], marks, [(solo["tasks"] / solo["seconds"], "solo run")])
    pauses = [float(m.group(1)) for _, line in lines for m in [MOVE_LINE.search(line)] if m]
    return {"png": png, "joins_s": offsets, "leaves_s": [run["end"] - origin for run in runs],
            "swap_pause_ms": pauses, "swap_pause_ms_stats": spread(pauses), "combined_compiles_during_run": compiled,
            "outputs_match": all(run["output"] == solo["output"] for run in runs), "timelines": series}


def print_row(row):
    print("%-9s %12.4g %12.4g %8.3f %7.3f %7.3f %11s %12.4g %12.4g %8.3f %6s" % (
        row["example"], row["solo_ticks_per_s"], row["tenant_ticks_per_s"], row["tenant_vs_solo"],
        row["pair_vs_solo"][0], row["pair_vs_solo"][1],
        "/".join("%.2f" % share if share is not None else "-" for share in row["pair_share"]),
        row["solo_tasks_per_s"], row["tenant_tasks_per_s"], row["tenant_start_seconds"], row["outputs_match"]),
        flush=True)
    print("%-9s cpu per %s (us): solo %.3f, tenant %.3f, pair %.3f; cpu ratio (a core each / one core): "
          "tenant %.3f / %.3f, pair %s / %s; requests per %s: tenant %.4f, pair %.4f" % (
              "", row["unit"][:-1], row["solo_cpu_us_per_unit"], row["tenant_cpu_us_per_unit"],
              row["pair_cpu_us_per_unit"], row["tenant_cpu_ratio"], row["tenant_cpu_ratio_one_core"],
              "/".join("%.3f" % r if r is not None else "-" for r in row["pair_cpu_ratio"]),
              "/".join("%.3f" % r if r is not None else "-" for r in row["pair_cpu_ratio_one_core"]),
              row["unit"][:-1], row["tenant_requests_per_unit"], row["pair_requests_per_unit"]), flush=True)
    print("%-9s four tenants: wall ratios %s, cpu ratios %s, shares %s, requests per %s %.4f" % (
        "", "/".join("%.3f" % r for r in row["quad_vs_solo"]),
        "/".join("%.3f" % r if r is not None else "-" for r in row["quad_cpu_ratio"]),
        "/".join("%.2f" % s if s is not None else "-" for s in row["quad_share"]), row["unit"][:-1],
        row["quad_requests_per_unit"]), flush=True)
    for wrong in row["mismatches"]:
        print("%-9s OUTPUT DIFFERS: %s, %d bytes against the solo run's %d, first at byte %d" % (
            "", wrong["run"], wrong["bytes"], wrong["solo_bytes"], wrong["first_difference"]), flush=True)
    stats = row["swap_pause_ms_stats"]
    print("%-9s swap pause ms over %s: %s (held ms, max %s) (load %.1f)" % (
        "", "%d moves" % stats["count"] if stats else "no moves",
        "min %.2f median %.2f max %.2f" % (stats["min"], stats["median"], stats["max"]) if stats else "-",
        "%.2f" % row["swap_hold_ms_stats"]["max"] if stats else "-", row["load_average"]), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--examples", default="df,bitcoin,mips32,regex,file_sum")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plots", help="draw the PNG timelines into this directory (default: beside --json)")
    parser.add_argument("--no-plots", action="store_true", help="draw no timelines and run no scenario")
    parser.add_argument("--scenario-seconds", type=float, default=None,
                        help="how long a solo run of the scenarios' streaming tenant lasts (default 3, quick 1.5)")
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)
    if args.scenario_seconds is None:
        args.scenario_seconds = 1.5 if args.quick else 3.0
    if args.no_plots:
        args.plots = None
    elif not args.plots:
        args.plots = os.path.dirname(os.path.abspath(args.json)) if args.json else None
        if not args.plots:
            run_bench.log("hypervisor.py: no --json or --plots, so no timelines are drawn")
    if args.plots:
        ensure_matplotlib()
        os.makedirs(args.plots, exist_ok=True)
    root = tempfile.mkdtemp(prefix="synergy-hv-bench-")
    cache_dir = os.path.join(root, "cache")
    os.makedirs(cache_dir, mode=0o700)
    tokens = []
    for name in ("token", "admin-token"):
        path = os.path.join(root, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, os.urandom(24).hex().encode())
        os.close(fd)
        tokens.append(path)
    env = dict(os.environ, SYNERGY_ENGINE_STATS="1", SYNERGY_CACHE_DIR=cache_dir)
    hv_env = dict(os.environ, SYNERGY_CACHE_DIR=cache_dir)
    report = {"examples": [], "timelines": {}}
    print("%-9s %12s %12s %8s %15s %11s %12s %12s %8s %6s" % (
        "example", "solo tick/s", "tenant", "ratio", "pair ratios", "pair share", "solo task/s", "tenant", "start s",
        "match"), flush=True)
    hv = other = None
    try:
        hv = Hypervisor(args.bin_dir, "127.0.0.1", *tokens, hv_env, os.path.join(root, "synergy-hv.log"))
        for name in args.examples.split(","):
            if not name:
                continue
            run_bench.log("hypervisor bench: " + name)
            row = bench(name, args, root, hv, env)
            report["examples"].append(row)
            print_row(row)
        if args.plots:
            run_bench.log("hypervisor bench: timelines")
            work, eng, solo_argv = stream_design(args, root, env)
            solo = measured(lambda: collect(*timed_run(solo_argv, work, env)), hv)
            report["timelines"]["solo_seconds"] = solo["result"]["seconds"]
            pair = scenario_stream_pair(args, hv, work, eng, env, solo)
            report["timelines"]["stream_pair"] = pair
            print("stream pair: solo %.4g tasks/s; tenants %s tasks/s, wall ratios %s, cpu ratios %s, shares %s; "
                  "cpu per task (us): solo %.4f, pair %.4f (hypervisor %.4f); requests per task %.5f; "
                  "outputs match %s (load %.1f)" % (
                      pair["solo_tasks_per_s"], " ".join("%.4g" % r for r in pair["tasks_per_s"]),
                      "/".join("%.3f" % r for r in pair["vs_solo"]),
                      "/".join("%.3f" % r if r is not None else "-" for r in pair["cpu_ratio"]) + " (one core " +
                      "/".join("%.3f" % r if r is not None else "-" for r in pair["cpu_ratio_one_core"]) + ")",
                      "/".join("%.2f" % s if s is not None else "-" for s in pair["share"]),
                      pair["solo_cpu_us_per_task"], pair["pair_cpu_us_per_task"], pair["pair_hv_cpu_us_per_task"],
                      pair["requests_per_task"], pair["outputs_match"], pair["load_average"]), flush=True)
            other = Hypervisor(args.bin_dir, "127.0.0.2", *tokens, hv_env, os.path.join(root, "synergy-hv-2.log"))
            migration = scenario_migration(args, hv, other, work, eng, env, solo["result"])
            report["timelines"]["migration"] = migration
            print("migration: %s; outputs match %s" % (
                ", ".join("to %s at %.2f s, running after %.1f ms" % (leg["to"], leg["asked_s"], leg["ms"])
                          for leg in migration["legs"]), migration["outputs_match"]), flush=True)
            join_leave = scenario_join_leave(args, hv, work, eng, env, solo["result"])
            report["timelines"]["join_leave"] = join_leave
            stats = join_leave["swap_pause_ms_stats"]
            print("join/leave: %d moves, pause ms %s, %d combined compiles during the run, outputs match %s" % (
                stats["count"] if stats else 0,
                "min %.2f median %.2f max %.2f" % (stats["min"], stats["median"], stats["max"]) if stats else "-",
                join_leave["combined_compiles_during_run"], join_leave["outputs_match"]), flush=True)
    finally:
        for each in (hv, other):
            if each:
                each.stop()
        shutil.rmtree(root, ignore_errors=True)
    report["load_average"] = os.getloadavg()
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)
        print("json: %s" % os.path.abspath(args.json), flush=True)
    matches = [row["outputs_match"] for row in report["examples"]]
    matches += [scenario["outputs_match"] for scenario in report["timelines"].values() if isinstance(scenario, dict)]
    return 0 if all(matches) else 1


if __name__ == "__main__":
    sys.exit(main())
