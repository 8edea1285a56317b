#!/usr/bin/env python3
"""What `--checkpoint-every` costs a job, on one host and spread over hosts
(issue 22, part 4).

Starts its own redis-server and three synergyd daemons on 127.0.0.2-4 (two
slots each, cluster_bench.py's Cluster) with SYNERGY_CHECKPOINT_STATS=1 and
SYNERGY_MPI_STATS=1, so that each part of a job prints its checkpoint counts,
where the ranks' standing-still time went, and the CPU time its process
used. Each table is measured twice: `cluster` (the job spread over two
hosts) and `single` (plain `synergy-run -np N`, one process):

  memory   bench/checkpoint/memory_barriers.c at np 2 (cluster: --policy
           spread, one rank on each of two hosts), each rank holding 1, 16,
           64 and 256 MiB, 10 barriers: once with --checkpoint-every 0 (a
           checkpoint at every barrier), once without. Per checkpoint: how
           long the ranks stood still (the slowest part's stats seconds /
           taken) and of that, summed over the ranks, their unwinds and the
           copies of their sections; the background writes' time; the CPU
           it cost every part together (user + sys with minus without, /
           taken: the copies, the checksums, the writes in the background)
           and the file's size.
  kernels  bench/mpi/kernels.c's p2p, stencil, transpose, nstream and
           reduce at np 4 (cluster: --policy binpack, 2 + 2 ranks on two
           hosts), each repeated for about 8 s of CPU (--scale), three ways:
           plain, `agreed` (--checkpoint-every 1000000 with a directory: the
           control points' agreement is on but no checkpoint falls due) and
           checkpointed (--checkpoint-every 1, --interval), alternated
           --repeat times in the same period, and with --baseline-build a
           second build's runs alternated with them (before/after); the
           median job wall time (client start to exit) and CPU of the parts,
           the overhead ratios (whole: checkpointed against plain; split
           into the agreement's, agreed against plain, and the checkpoints'
           own, checkpointed against agreed), and per checkpoint: how long
           the ranks stood still, the CPU of their copies and of the
           background write, the file's size and what of it changed on disk
           (the last three only from builds that print them).

A job's CPU is the whole job's: on one host the synergy-run process's
(every thread: the ranks and the checkpoint writes'); over hosts the part
processes' (each one's own rusage, every thread: the ranks, the
transport's I/O thread and the checkpoint writes'), plus the client's and
what redis-server and the daemons used while the job ran.

Wall time on this shared machine mostly measures the scheduler; the load
average is recorded, and CPU time is the steadier figure. The < 5 % target
is printed against both, CPU first.

usage: bench/cluster/checkpoint.py --build build [--baseline-build other] [--json out.json]
                                   [--repeat N] [--interval S] [--scale F] [--quick]
                                   [--setups single,cluster] [--tables memory,kernels]
                                   [--kernels nstream,...] [--sizes 1,16,...]
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from cluster_bench import BenchError, Cluster  # noqa: E402

MEMORY_MIB = [1, 16, 64, 256]
# Repetitions of each kernel at --scale 1. At np 4 these take about 5 s of
# CPU for p2p and nstream, 8.5 s for transpose, 2 s for stencil and 0.9 s
# for reduce: at low load stencil and reduce end within about a second and
# may take no checkpoint at --checkpoint-every 1, which aborts the table.
# --scale 4 lets every kernel take several.
KERNELS = {"p2p": 100, "stencil": 100, "transpose": 100, "nstream": 80, "reduce": 200}
OVERHEAD_TARGET = 0.05
# synergy-run's longest interval: the agreement at every control point, and
# no checkpoint in a kernel's run.
AGREEMENT_ONLY_INTERVAL = "1000000"
RUN_TIMEOUT_SECONDS = 900


def own_cpu_seconds(pids):
    """User + sys seconds the processes `pids` have used themselves (not
    their children's: a job process is counted by its own statistics
    line)."""
    total = 0
    for pid in pids:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime stime
    return total / os.sysconf("SC_CLK_TCK")


def run_job(command, timeout=RUN_TIMEOUT_SECONDS, services=()):
    """(wall seconds, stdout, stderr) of a client run that must succeed.

    stderr gets a line with the run's own CPU seconds (user + sys of the
    process run): on one host that is the whole job's, which prints no
    per-part line; over hosts it is the client's. With `services` (the
    pids of redis-server and the daemons), a last line with what they used
    meanwhile."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    services_before = own_cpu_seconds(services)
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError("timed out after %d s: %s" % (timeout, " ".join(command)))
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise BenchError("failed (%d): %s\n%s" % (done.returncode, " ".join(command), done.stderr))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - children.ru_utime + after.ru_stime - children.ru_stime
    err = done.stderr + "bench: process cpu %.6f s\n" % cpu
    if services:
        err += "bench: services cpu %.6f s\n" % (own_cpu_seconds(services) - services_before)
    return wall, done.stdout, err


def part_stats(err):
    """The parts' checkpoint lines and the whole job's CPU seconds: over
    hosts, the parts' processes (every thread: the ranks, the transport's
    I/O thread and the checkpoint writes'), the client and the cluster's
    daemons and redis-server while it ran."""
    checkpoints = [(int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4)))
                   for m in re.finditer(r"synergy-run: checkpoints: (\d+) taken, (\d+) skipped, "
                                        r"(\d+) bytes written, ([\d.]+) s", err)]
    cpu = sum(float(m.group(1)) + float(m.group(2))
              for m in re.finditer(r"synergy-run: mpi: ranks \d+-\d+ used ([\d.]+) s user, "
                                   r"([\d.]+) s system", err))
    if cpu > 0:  # over hosts
        cpu += sum(float(m.group(1)) for m in re.finditer(r"bench: services cpu ([\d.]+) s", err))
    # The process run_job ran: on one host the whole job, over hosts the
    # client.
    cpu += sum(float(m.group(1)) for m in re.finditer(r"bench: process cpu ([\d.]+) s", err))
    return checkpoints, cpu


def time_split(err):
    """Unwind, copy and background-write seconds, summed over the parts."""
    lines = re.findall(r"synergy-run: checkpoint time: ([\d.]+) s unwinding, ([\d.]+) s copying "
                       r"sections \(summed over ranks\), ([\d.]+) s writing", err)
    return [sum(float(line[i]) for line in lines) for i in range(3)]


def measure_memory(setup, base, parts, program, workdir, sizes, services=()):
    rows = []
    for mib in sizes:
        directory = os.path.join(workdir, "memory-%s-%d" % (setup, mib))
        os.makedirs(directory)
        _, out_plain, err_plain = run_job(base + [program, str(mib)], services=services)
        _, out, err = run_job(base + ["--checkpoint-every", "0", "--checkpoint-dir", directory,
                                      program, str(mib)], services=services)
        if out != out_plain:
            raise BenchError("memory_barriers %d MiB printed %r with checkpoints, %r without"
                             % (mib, out, out_plain))
        checkpoints, cpu = part_stats(err)
        _, cpu_plain = part_stats(err_plain)
        if len(checkpoints) != parts:
            raise BenchError("expected %d parts' checkpoint lines:\n%s" % (parts, err))
        # Part 0's line is the one with the bytes of the files it wrote.
        taken, _, written, _ = max(checkpoints, key=lambda line: line[2])
        if taken == 0:
            raise BenchError("no checkpoint taken at %d MiB:\n%s" % (mib, err))
        file_bytes = written / taken
        unwind, copy, write = time_split(err)
        rows.append({"setup": setup, "mib_per_rank": mib, "ranks": 2, "checkpoints": taken,
                     "skipped": max(line[1] for line in checkpoints),
                     "stand_still_ms": max(line[3] for line in checkpoints) / taken * 1e3,
                     "unwind_ms": unwind / taken * 1e3, "copy_ms": copy / taken * 1e3,
                     "background_write_ms": write / taken * 1e3,
                     "cpu_ms": (cpu - cpu_plain) / taken * 1e3,
                     "file_mib": file_bytes / (1 << 20)})
        costs = checkpoint_costs(err)
        for key, name, scale in (("copy_cpu_s", "copy_cpu_ms", 1e3),
                                 ("write_cpu_s", "write_cpu_ms", 1e3),
                                 ("changed_bytes", "changed_mib", 1 / (1 << 20))):
            rows[-1][name] = costs[key] / taken * scale if costs[key] is not None else None
        optional = lambda value: "%7.1f" % value if value is not None else "-"
        print("%-7s memory %4d MiB/rank: %3d checkpoints, ranks stand still %8.1f ms (unwinds "
              "%6.1f, copies %7.1f, their CPU %s), writes %8.1f ms (CPU %s), CPU %8.1f ms, "
              "file %7.1f MiB (changed %s)"
              % (setup, mib, taken, rows[-1]["stand_still_ms"], rows[-1]["unwind_ms"],
                 rows[-1]["copy_ms"], optional(rows[-1]["copy_cpu_ms"]),
                 rows[-1]["background_write_ms"], optional(rows[-1]["write_cpu_ms"]),
                 rows[-1]["cpu_ms"], rows[-1]["file_mib"], optional(rows[-1]["changed_mib"])),
              flush=True)
    return rows


def checkpoint_costs(err):
    """Per run: checkpoints taken, the ranks' stand-still seconds (the
    slowest part's), file bytes, and where the CPU went (None where the
    build prints no cpu line, as before this line existed)."""
    checkpoints, _ = part_stats(err)
    cpu_lines = re.findall(r"synergy-run: checkpoint cpu: ([\d.]+) s copying sections, ([\d.]+) s "
                           r"writing in the background, (\d+) bytes changed on disk", err)
    return {"taken": max((line[0] for line in checkpoints), default=0),
            "stand_still_s": max((line[3] for line in checkpoints), default=0.0),
            "file_bytes": max((line[2] for line in checkpoints), default=0),
            "copy_cpu_s": sum(float(line[0]) for line in cpu_lines) if cpu_lines else None,
            "write_cpu_s": sum(float(line[1]) for line in cpu_lines) if cpu_lines else None,
            "changed_bytes": sum(int(line[2]) for line in cpu_lines) if cpu_lines else None}


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def measure_kernels(setup, builds, workdir, kernels, repeat, interval):
    """`builds`: (label, client command, kernels program, pids of the
    cluster's redis-server and daemons: none on one host). For each kernel,
    `repeat` rounds, each running every build plain then checkpointed, so
    that all runs share the same period of the machine's load; the
    overheads are of the medians."""
    rows = []
    for kernel, repeats in kernels.items():
        runs = {label: {"plain": [], "agreed": [], "checkpointed": []} for label, _, _, _ in builds}
        for round_index in range(repeat):
            for label, base, program, services in builds:
                directory = os.path.join(workdir, "kernel-%s-%s-%s-%d"
                                         % (setup, label, kernel, round_index))
                os.makedirs(directory)
                wall, out, err = run_job(base + [program, kernel, str(repeats)], services=services)
                runs[label]["plain"].append({"wall_s": wall, "cpu_s": part_stats(err)[1],
                                             "out": out})
                wall, out, err = run_job(base + ["--checkpoint-every", AGREEMENT_ONLY_INTERVAL,
                                                 "--checkpoint-dir", directory, program, kernel,
                                                 str(repeats)], services=services)
                if checkpoint_costs(err)["taken"]:
                    raise BenchError("kernel %s took a checkpoint at --checkpoint-every %s"
                                     % (kernel, AGREEMENT_ONLY_INTERVAL))
                runs[label]["agreed"].append({"wall_s": wall, "cpu_s": part_stats(err)[1],
                                              "out": out})
                wall, out, err = run_job(base + ["--checkpoint-every", str(interval),
                                                 "--checkpoint-dir", directory, program, kernel,
                                                 str(repeats)], services=services)
                run = {"wall_s": wall, "cpu_s": part_stats(err)[1], "out": out}
                run.update(checkpoint_costs(err))
                runs[label]["checkpointed"].append(run)
                shutil.rmtree(directory)
        for label, _, _, _ in builds:
            plain, agreed = runs[label]["plain"], runs[label]["agreed"]
            checkpointed = runs[label]["checkpointed"]
            if any(" ok" not in run["out"] for run in plain + agreed + checkpointed):
                raise BenchError("kernel %s failed its check: %r" % (kernel, runs[label]))
            taken = sum(run["taken"] for run in checkpointed)
            if taken == 0:
                raise BenchError("kernel %s (%s) took no checkpoint" % (kernel, label))

            def per_checkpoint(key, scale):
                if any(run[key] is None for run in checkpointed):
                    return None
                return sum(run[key] for run in checkpointed) / taken * scale

            row = {"setup": setup, "build": label, "kernel": kernel, "ranks": 4,
                   "repeats": repeats, "interval_s": interval, "runs": len(plain),
                   "checkpoints_per_run": taken / len(checkpointed),
                   "wall_s": median(run["wall_s"] for run in plain),
                   "wall_agreed_s": median(run["wall_s"] for run in agreed),
                   "wall_checkpointed_s": median(run["wall_s"] for run in checkpointed),
                   "cpu_s": median(run["cpu_s"] for run in plain),
                   "cpu_agreed_s": median(run["cpu_s"] for run in agreed),
                   "cpu_checkpointed_s": median(run["cpu_s"] for run in checkpointed),
                   "stand_still_ms": per_checkpoint("stand_still_s", 1e3),
                   "copy_cpu_ms": per_checkpoint("copy_cpu_s", 1e3),
                   "write_cpu_ms": per_checkpoint("write_cpu_s", 1e3),
                   "file_mib": per_checkpoint("file_bytes", 1 / (1 << 20)),
                   "changed_mib": per_checkpoint("changed_bytes", 1 / (1 << 20)),
                   "plain_runs": [{k: v for k, v in run.items() if k != "out"} for run in plain],
                   "agreed_runs": [{k: v for k, v in run.items() if k != "out"} for run in agreed],
                   "checkpointed_runs": [{k: v for k, v in run.items() if k != "out"}
                                         for run in checkpointed]}
            ratio = lambda over, under: over / under - 1 if under else None
            row["wall_overhead"] = ratio(row["wall_checkpointed_s"], row["wall_s"])
            row["cpu_overhead"] = ratio(row["cpu_checkpointed_s"], row["cpu_s"])
            row["wall_agreement_overhead"] = ratio(row["wall_agreed_s"], row["wall_s"])
            row["cpu_agreement_overhead"] = ratio(row["cpu_agreed_s"], row["cpu_s"])
            row["wall_checkpoint_overhead"] = ratio(row["wall_checkpointed_s"], row["wall_agreed_s"])
            row["cpu_checkpoint_overhead"] = ratio(row["cpu_checkpointed_s"], row["cpu_agreed_s"])
            rows.append(row)
            print_kernel_row(row)
    return rows


def print_kernel_row(row):
    optional = lambda value, form: form % value if value is not None else "-"
    percent = lambda value: "%+5.1f%%" % (100 * value) if value is not None else "-"
    print("%-7s %-6s %-9s %2d runs %4.1f ckpts: CPU plain %6.2f -> agreed %6.2f (%s) -> "
          "checkpointed %6.2f s (%s; whole %s), wall %6.2f -> %6.2f (%s) -> %6.2f s (%s; whole "
          "%s); per checkpoint: still %6.1f ms, copy CPU %s ms, write CPU %s ms, "
          "file %6.1f MiB, changed %s MiB"
          % (row["setup"], row["build"], row["kernel"], row["runs"], row["checkpoints_per_run"],
             row["cpu_s"], row["cpu_agreed_s"], percent(row["cpu_agreement_overhead"]),
             row["cpu_checkpointed_s"], percent(row["cpu_checkpoint_overhead"]),
             percent(row["cpu_overhead"]),
             row["wall_s"], row["wall_agreed_s"], percent(row["wall_agreement_overhead"]),
             row["wall_checkpointed_s"], percent(row["wall_checkpoint_overhead"]),
             percent(row["wall_overhead"]),
             row["stand_still_ms"], optional(row["copy_cpu_ms"], "%6.1f"),
             optional(row["write_cpu_ms"], "%6.1f"), row["file_mib"],
             optional(row["changed_mib"], "%6.1f")), flush=True)


def compile_programs(bin_dir, directory):
    os.makedirs(directory)
    programs = {}
    for name, source in (("memory", os.path.join(BENCH, "checkpoint", "memory_barriers.c")),
                         ("kernels", os.path.join(BENCH, "mpi", "kernels.c"))):
        programs[name] = os.path.join(directory, name + ".wasm")
        subprocess.run([os.path.join(bin_dir, "synergy-cc"), "-O2", source, "-o",
                        programs[name], "-lm"], check=True, timeout=600)
    return programs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--baseline-build",
                        help="a second build (e.g. main's) whose runs alternate with --build's in "
                             "the kernels table: before/after in the same period")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds of plain and checkpointed runs per kernel (medians)")
    parser.add_argument("--interval", type=float, default=1.0,
                        help="--checkpoint-every of the kernels' runs (seconds)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiplies the kernels' repetitions (default: about 8 s of CPU)")
    parser.add_argument("--quick", action="store_true",
                        help="1 and 16 MiB, two kernels at a tenth of their length, one round")
    parser.add_argument("--setups", default="single,cluster",
                        help="comma-separated: single (one process), cluster (two hosts)")
    parser.add_argument("--tables", default="memory,kernels",
                        help="comma-separated: memory, kernels")
    parser.add_argument("--kernels", help="comma-separated subset of " + ",".join(KERNELS))
    parser.add_argument("--sizes", help="comma-separated MiB per rank (default %s)"
                        % ",".join(map(str, MEMORY_MIB)))
    parser.add_argument("--redis-server", default="redis-server")
    args = parser.parse_args()
    setups = args.setups.split(",")
    if not setups or any(setup not in ("single", "cluster") for setup in setups):
        parser.error("--setups takes single and/or cluster")
    tables = args.tables.split(",")
    if any(table not in ("memory", "kernels") for table in tables):
        parser.error("--tables takes memory and/or kernels")
    if args.kernels and any(kernel not in KERNELS for kernel in args.kernels.split(",")):
        parser.error("--kernels takes a subset of " + ",".join(KERNELS))
    if args.repeat < 1 or args.scale <= 0 or args.interval < 0:
        parser.error("--repeat, --scale and --interval must be positive")
    sizes = MEMORY_MIB[:2] if args.quick else MEMORY_MIB
    kernels = dict(list(KERNELS.items())[:2]) if args.quick else KERNELS
    if args.sizes:
        sizes = [int(size) for size in args.sizes.split(",")]
    if args.kernels:
        kernels = {kernel: KERNELS[kernel] for kernel in args.kernels.split(",")}
    scale = args.scale / 10 if args.quick else args.scale
    kernels = {kernel: max(1, round(repeats * scale)) for kernel, repeats in kernels.items()}
    repeat = 1 if args.quick else args.repeat
    labels = [("this", args.build)] + ([("base", args.baseline_build)]
                                       if args.baseline_build else [])
    os.environ["SYNERGY_CHECKPOINT_STATS"] = "1"
    os.environ["SYNERGY_MPI_STATS"] = "1"
    with tempfile.TemporaryDirectory(prefix="synergy-checkpoint-bench-") as workdir:
        os.environ["SYNERGY_CACHE_DIR"] = os.path.join(workdir, "cache")
        builds = []  # (label, bin dir, programs, cluster)
        for label, build in labels:
            bin_dir = os.path.join(os.path.abspath(build), "bin")
            build_dir = os.path.join(workdir, label)
            programs = compile_programs(bin_dir, build_dir)
            builds.append((label, bin_dir, programs,
                           Cluster(bin_dir, args.redis_server, build_dir, ("--allow-dir", workdir))))
        single = lambda bin_dir, ranks: [os.path.join(bin_dir, "synergy-run"), "-np", str(ranks)]
        try:
            if "cluster" in setups:
                for _, _, _, cluster in builds:
                    cluster.start()
            # The first run of a program compiles it into the cache: not
            # measured.
            for label, bin_dir, programs, cluster in builds:
                run_job(single(bin_dir, 2) + [programs["kernels"], "reduce", "1"])
                run_job(single(bin_dir, 2) + [programs["memory"], "1"])
                if "cluster" in setups:
                    run_job(cluster.client(4, "binpack") + [programs["kernels"], "reduce", "1"])
            load_before = os.getloadavg()[0]
            memory, kernel_rows = [], []
            _, this_bin, this_programs, this_cluster = builds[0]
            if "memory" in tables and "single" in setups:
                memory += measure_memory("single", single(this_bin, 2), 1,
                                         this_programs["memory"], workdir, sizes)
            if "memory" in tables and "cluster" in setups:
                memory += measure_memory("cluster", this_cluster.client(2, "spread"), 2,
                                         this_programs["memory"], workdir, sizes,
                                         [process.pid for process in this_cluster.processes])
            if "kernels" in tables and "single" in setups:
                kernel_rows += measure_kernels(
                    "single", [(label, single(bin_dir, 4), programs["kernels"], ())
                               for label, bin_dir, programs, _ in builds],
                    workdir, kernels, repeat, args.interval)
            if "kernels" in tables and "cluster" in setups:
                kernel_rows += measure_kernels(
                    "cluster", [(label, cluster.client(4, "binpack"), programs["kernels"],
                                 [process.pid for process in cluster.processes])
                                for label, _, programs, cluster in builds],
                    workdir, kernels, repeat, args.interval)
            load_after = os.getloadavg()[0]
        except BenchError as failure:
            print("checkpoint bench: %s" % failure, file=sys.stderr)
            return 1
        finally:
            for _, _, _, cluster in builds:
                cluster.stop()
    summary = "load average %.1f -> %.1f" % (load_before, load_after)
    if kernel_rows:
        for label, _ in labels:
            mine = [row for row in kernel_rows if row["build"] == label]
            summary += ("; %s: overhead at --checkpoint-every %g (target < %d%%): worst CPU "
                        "%+.1f%% (agreement %+.1f%%, checkpoints %+.1f%%), worst wall %+.1f%%"
                        % (label, args.interval, OVERHEAD_TARGET * 100,
                           100 * max(row["cpu_overhead"] or 0 for row in mine),
                           100 * max(row["cpu_agreement_overhead"] or 0 for row in mine),
                           100 * max(row["cpu_checkpoint_overhead"] or 0 for row in mine),
                           100 * max(row["wall_overhead"] or 0 for row in mine)))
    print(summary)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_average": [load_before, load_after], "memory": memory,
                       "kernels": kernel_rows, "overhead_target": OVERHEAD_TARGET,
                       "builds": dict(labels), "interval_s": args.interval}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
