#!/usr/bin/env python3
"""Engines as tenants of synergy-hv against the same engines run solo.

  bench/verilog/hypervisor.py --bin-dir BUILD/bin [--json out.json] [--quick]
                              [--examples df,regex] [--repeat N] [--plots DIR]

Each example is staged and scaled exactly as bench/verilog/run-bench.py does
(its scalers are imported from there), compiled once with synergy-cc, and
then timed with SYNERGY_ENGINE_STATS=1, whose seconds cover the tick loop:
  solo     synergy-run --engine compiled design.eng (best of --repeat runs);
  tenant   synergy-run --hypervisor ... design.eng, one tenant alone (best);
  pair     two tenants of the same design at once: each one's rate, after
           an untimed pair whose combined program the hypervisor has
           finished compiling, so that the timed pair's comes from the
           cache, as the solo engine does, and no compile competes with it;
  start    the wall time of a tenant run minus its loop time, with the
           engine already in the cache: connect, submit, cache-hit load.
The pair also records each tenant's --timeline; with --plots DIR each
example's two timelines (virtual ticks/s, and trapped tasks/s when it traps)
are drawn to DIR/hypervisor-pair-NAME.png with matplotlib, like Fig. 11 of
the paper. A pair of tenants makes the hypervisor combine them into one
program and move both into it (from the cache after the first time): the
moves' pauses, from the program being ready (the interrupt) to the engine
serving again, and the part of it the tenant's request was held for the
state copy, are read from the daemon's log (swap_pause_ms, swap_hold_ms, and
the fabric thread's CPU time for the copy, swap_hold_cpu_ms).
The pair's fairness is each tenant's share of the work both did while both
ran (pair_share, from the timelines: 0.5 each is an even split; round-robin
with bounded open-loop slices should keep both near it): of the trapped
tasks for a design that traps often, since a remote open-loop run's ticks
show in the timeline only every 100 ms (the hypervisor's progress reports)
and when the run returns, and of the ticks otherwise.
It prints virtual ticks/s and trapped tasks/s and their ratios to solo; the
outputs of every run must equal the solo run's (outputs_match). One
synergy-hv on 127.0.0.1 serves all runs; it shares the bench's engine cache.
On a loaded host the wall-clock rates are noisy, so each row also has the
CPU seconds (user+system) of the solo run, of the tenant and the
hypervisor during the tenant run, and of both tenants and the hypervisor
during the timed pair, with the load average at its end.
Timing numbers are reported, never asserted.
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
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("run_bench", os.path.join(HERE, "run-bench.py"))
run_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_bench)


def timed_run(argv, work, env):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc, start


def collect(proc, start):
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError("run failed (%d): %s" % (proc.returncode, err.decode(errors="replace").strip()[-300:]))
    ticks, tasks, seconds = run_bench.parse_stats(b"synergy-engine-stats", err)
    return {"ticks": ticks, "tasks": tasks, "seconds": seconds, "wall": wall, "output": out}


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


def cpu_of(run, hv_pid):
    """Runs run() and returns its result, the CPU seconds of the processes
    it waited for and the hypervisor's CPU seconds meanwhile."""
    own, hv = children_cpu(), process_cpu(hv_pid)
    result = run()
    return result, children_cpu() - own, process_cpu(hv_pid) - hv


def rates(result):
    return result["ticks"] / result["seconds"], result["tasks"] / result["seconds"]


def read_timeline(path):
    rows = []
    with open(path) as csv:
        header = csv.readline().strip().split(",")
        for line in csv:
            fields = dict(zip(header, line.strip().split(",")))
            rows.append((float(fields["time_s"]), float(fields["ticks_per_s"]), float(fields["tasks_per_s"])))
    return rows


def pair_share(timelines, column):
    """Each tenant's share of `column` (ticks or tasks) done until the first
    of the two ended."""
    cumulative = []
    for path in timelines:
        with open(path) as csv:
            header = csv.readline().strip().split(",")
            cumulative.append([(float(f["time_s"]), float(f[column]))
                               for f in (dict(zip(header, line.strip().split(","))) for line in csv)])
    if not all(cumulative):
        return [None, None]
    end = min(rows[-1][0] for rows in cumulative)
    ticks = [max([t for time, t in rows if time <= end] or [0.0]) for rows in cumulative]
    total = sum(ticks)
    return [t / total if total else None for t in ticks]


def plot_pair(name, timelines, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    series = [read_timeline(path) for path in timelines]
    traps = any(row[2] > 0 for rows in series for row in rows)
    figure, axes = plt.subplots(2 if traps else 1, 1, figsize=(7, 5 if traps else 3), sharex=True, squeeze=False)
    for k, rows in enumerate(series):
        times = [row[0] for row in rows]
        axes[0][0].plot(times, [row[1] for row in rows], label="tenant %d" % (k + 1))
        if traps:
            axes[1][0].plot(times, [row[2] for row in rows], label="tenant %d" % (k + 1))
    axes[0][0].set_ylabel("virtual ticks/s")
    if traps:
        axes[1][0].set_ylabel("trapped tasks/s")
    axes[-1][0].set_xlabel("time (s)")
    axes[0][0].set_title("%s: two tenants of one synergy-hv" % name)
    axes[0][0].legend()
    figure.tight_layout()
    figure.savefig(png, dpi=100)
    plt.close(figure)


def bench(name, args, root, hv_address, token, cache_dir, hv_log, hv_pid):
    work = os.path.join(root, name)
    run_bench.stage(name, work)
    workload = run_bench.SCALERS[name](work, args.quick)
    env = dict(os.environ, SYNERGY_ENGINE_STATS="1", SYNERGY_CACHE_DIR=cache_dir)
    source = "file_sum.v" if name == "file_sum" else name + ".v"
    eng = os.path.join(work, name + ".eng")
    run_bench.run([os.path.join(args.bin_dir, "synergy-cc"), source, "-o", eng], work)
    solo_argv = [os.path.join(args.bin_dir, "synergy-run"), "--engine", "compiled", eng]
    tenant_argv = [os.path.join(args.bin_dir, "synergy-run"), "--hypervisor", hv_address, "--token-file", token, eng]
    collect(*timed_run(solo_argv, work, env))  # builds the engine into the cache
    solo, solo_cpu, _ = min((cpu_of(lambda: collect(*timed_run(solo_argv, work, env)), hv_pid)
                             for _ in range(args.repeat)), key=lambda r: r[0]["seconds"])
    tenant, tenant_cpu, tenant_hv_cpu = min((cpu_of(lambda: collect(*timed_run(tenant_argv, work, env)), hv_pid)
                                             for _ in range(args.repeat)), key=lambda r: r[0]["seconds"])
    timelines = [os.path.join(work, "pair-%d.csv" % k) for k in range(2)]
    pair_argv = [tenant_argv[:-1] + ["--timeline", timeline, eng] for timeline in timelines]

    def run_pair():
        # Both tenants' output is read at once: a tenant whose pipe is left
        # full blocks inside its tick, and the pair would measure the pipe.
        with concurrent.futures.ThreadPoolExecutor(len(pair_argv)) as pool:
            return list(pool.map(lambda started: collect(*started),
                                 [timed_run(argv, work, env) for argv in pair_argv]))

    run_pair()
    status_argv = [os.path.join(args.bin_dir, "synergy-hv-ctl"), "--connect", hv_address, "--token-file", token,
                   "status"]
    deadline = time.monotonic() + 900
    while b"combined compiling nothing" not in subprocess.run(status_argv, stdout=subprocess.PIPE).stdout:
        if time.monotonic() > deadline:
            raise RuntimeError("the pair's combined program is still compiling after 900 s")
        time.sleep(0.5)
    log_start = os.path.getsize(hv_log)
    pair, pair_cpu, pair_hv_cpu = cpu_of(run_pair, hv_pid)
    with open(hv_log, errors="replace") as log:
        log.seek(log_start)
        moves = re.findall(r"moved into combined program \d+ slot \d+: ([0-9.]+) ms from the interrupt, "
                           r"([0-9.]+) ms holding it \(([0-9.]+) ms of CPU", log.read())
    if args.plots:
        plot_pair(name, timelines, os.path.join(args.plots, "hypervisor-pair-%s.png" % name))
    outputs_match = all(r["output"] == solo["output"] for r in [tenant] + pair)
    solo_ticks, solo_tasks = rates(solo)
    row = {"example": name, "workload": workload, "ticks": solo["ticks"], "tasks": solo["tasks"],
           "solo_ticks_per_s": solo_ticks, "solo_tasks_per_s": solo_tasks,
           "tenant_ticks_per_s": rates(tenant)[0], "tenant_tasks_per_s": rates(tenant)[1],
           "pair_ticks_per_s": [rates(r)[0] for r in pair], "pair_tasks_per_s": [rates(r)[1] for r in pair],
           "tenant_start_seconds": tenant["wall"] - tenant["seconds"], "outputs_match": outputs_match,
           "swap_pause_ms": [float(m[0]) for m in moves], "swap_hold_ms": [float(m[1]) for m in moves],
           "swap_hold_cpu_ms": [float(m[2]) for m in moves],
           "solo_cpu_s": solo_cpu, "tenant_cpu_s": tenant_cpu, "tenant_hv_cpu_s": tenant_hv_cpu,
           "pair_cpu_s": pair_cpu, "pair_hv_cpu_s": pair_hv_cpu, "load_average": os.getloadavg()[0]}
    row["tenant_vs_solo"] = row["tenant_ticks_per_s"] / solo_ticks
    row["pair_vs_solo"] = [r / solo_ticks for r in row["pair_ticks_per_s"]]
    row["pair_share"] = pair_share(timelines, "tasks" if solo_tasks > 1000 else "ticks")
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true")
    # regex and file_sum trap a task every few ticks; through the hypervisor
    # each costs a few round trips, so give them --quick.
    parser.add_argument("--examples", default="df,bitcoin,mips32,regex,file_sum")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plots", help="draw each pair's timelines into this directory")
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)
    root = tempfile.mkdtemp(prefix="synergy-hv-bench-")
    cache_dir = os.path.join(root, "cache")
    os.makedirs(cache_dir, mode=0o700)
    token = os.path.join(root, "token")
    fd = os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, os.urandom(24).hex().encode())
    os.close(fd)
    if args.plots:
        os.makedirs(args.plots, exist_ok=True)
    hv_log = os.path.join(root, "synergy-hv.log")
    hv = subprocess.Popen([os.path.join(args.bin_dir, "synergy-hv"), "--listen", "127.0.0.1:0", "--token-file", token],
                          stdout=subprocess.PIPE, stderr=open(hv_log, "wb"),
                          env=dict(os.environ, SYNERGY_CACHE_DIR=cache_dir))
    rows = []
    print("%-9s %12s %12s %8s %15s %11s %12s %12s %8s %6s %s" % (
        "example", "solo tick/s", "tenant", "ratio", "pair ratios", "pair share", "solo task/s", "tenant", "start s",
        "match", "swap pauses ms (held ms)"),
        flush=True)
    try:
        if not select.select([hv.stdout], [], [], 30)[0]:
            raise RuntimeError("synergy-hv did not start")
        address = re.search(r"listening on (\S+)", hv.stdout.readline().decode()).group(1)
        for name in args.examples.split(","):
            run_bench.log("hypervisor bench: " + name)
            row = bench(name, args, root, address, token, cache_dir, hv_log, hv.pid)
            rows.append(row)
            print("%-9s %12.4g %12.4g %8.3f %7.3f %7.3f %11s %12.4g %12.4g %8.3f %6s %s" % (
                row["example"], row["solo_ticks_per_s"], row["tenant_ticks_per_s"], row["tenant_vs_solo"],
                row["pair_vs_solo"][0], row["pair_vs_solo"][1],
                "/".join("%.2f" % share if share is not None else "-" for share in row["pair_share"]),
                row["solo_tasks_per_s"], row["tenant_tasks_per_s"],
                row["tenant_start_seconds"], row["outputs_match"],
                " ".join("%.2f (%.2f)" % pause for pause in zip(row["swap_pause_ms"], row["swap_hold_ms"]))),
                flush=True)
            print("%-9s cpu s: solo %.3f, tenant %.3f + hypervisor %.3f, pair %.3f + hypervisor %.3f (load %.1f)" % (
                "", row["solo_cpu_s"], row["tenant_cpu_s"], row["tenant_hv_cpu_s"], row["pair_cpu_s"],
                row["pair_hv_cpu_s"], row["load_average"]), flush=True)
    finally:
        hv.send_signal(signal.SIGTERM)
        hv.wait()
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    return 0 if all(row["outputs_match"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
