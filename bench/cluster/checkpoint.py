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
           hosts), each repeated so that it runs several seconds, with and
           without --checkpoint-every 1, alternated --repeat times in the
           same run; best job wall time (client start to exit) and CPU of
           the parts of each, and the overhead ratio of both.

Wall time on this shared machine mostly measures the scheduler; the load
average is recorded, and CPU time is the steadier figure.

usage: bench/cluster/checkpoint.py --build build [--json out.json] [--repeat N] [--quick]
                                   [--setups single,cluster] [--kernels nstream,...]
                                   [--sizes 1,16,...]
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from cluster_bench import BenchError, Cluster  # noqa: E402

MEMORY_MIB = [1, 16, 64, 256]
KERNELS = {"p2p": 20, "stencil": 20, "transpose": 20, "nstream": 10, "reduce": 40}
OVERHEAD_TARGET = 0.05
RUN_TIMEOUT_SECONDS = 900


def run_job(command, timeout=RUN_TIMEOUT_SECONDS):
    """(wall seconds, stdout, stderr) of a client run that must succeed.

    stderr gets a last line with the run's own CPU seconds (user + sys of
    the process run): on one host that is the whole job's, which prints no
    per-part line."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
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
    return wall, done.stdout, done.stderr + "bench: process cpu %.6f s\n" % cpu


def part_stats(err):
    """The parts' checkpoint lines and their processes' CPU seconds."""
    checkpoints = [(int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4)))
                   for m in re.finditer(r"synergy-run: checkpoints: (\d+) taken, (\d+) skipped, "
                                        r"(\d+) bytes written, ([\d.]+) s", err)]
    cpu = sum(float(m.group(1)) + float(m.group(2))
              for m in re.finditer(r"synergy-run: mpi: ranks \d+-\d+ used ([\d.]+) s user, "
                                   r"([\d.]+) s system", err))
    if cpu == 0:  # one host: the job is the process run_job ran
        cpu = sum(float(m.group(1)) for m in re.finditer(r"bench: process cpu ([\d.]+) s", err))
    return checkpoints, cpu


def time_split(err):
    """Unwind, copy and background-write seconds, summed over the parts."""
    lines = re.findall(r"synergy-run: checkpoint time: ([\d.]+) s unwinding, ([\d.]+) s copying "
                       r"sections \(summed over ranks\), ([\d.]+) s writing", err)
    return [sum(float(line[i]) for line in lines) for i in range(3)]


def measure_memory(setup, base, parts, program, workdir, sizes):
    rows = []
    for mib in sizes:
        directory = os.path.join(workdir, "memory-%s-%d" % (setup, mib))
        os.makedirs(directory)
        _, out_plain, err_plain = run_job(base + [program, str(mib)])
        _, out, err = run_job(base + ["--checkpoint-every", "0", "--checkpoint-dir", directory,
                                      program, str(mib)])
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
        print("%-7s memory %4d MiB/rank: %3d checkpoints, ranks stand still %8.1f ms (unwinds "
              "%6.1f, copies %7.1f), writes %8.1f ms, CPU %8.1f ms, file %7.1f MiB"
              % (setup, mib, taken, rows[-1]["stand_still_ms"], rows[-1]["unwind_ms"],
                 rows[-1]["copy_ms"], rows[-1]["background_write_ms"], rows[-1]["cpu_ms"],
                 rows[-1]["file_mib"]), flush=True)
    return rows


def measure_kernels(setup, base, program, workdir, kernels, repeat):
    rows = []
    for kernel, repeats in kernels.items():
        directory = os.path.join(workdir, "kernel-%s-%s" % (setup, kernel))
        os.makedirs(directory)
        plain, checkpointed = [], []
        taken = 0
        for _ in range(repeat):
            wall, out, err = run_job(base + [program, kernel, str(repeats)])
            plain.append((wall, part_stats(err)[1], out))
            wall, out, err = run_job(base + ["--checkpoint-every", "1", "--checkpoint-dir",
                                             directory, program, kernel, str(repeats)])
            checkpoints, cpu = part_stats(err)
            taken = max(taken, checkpoints[0][0] if checkpoints else 0)
            checkpointed.append((wall, cpu, out))
        for runs in (plain, checkpointed):
            if any(" ok" not in out for _, _, out in runs):
                raise BenchError("kernel %s failed its check: %r" % (kernel, runs))
        row = {"setup": setup, "kernel": kernel, "ranks": 4, "repeats": repeats,
               "checkpoints": taken,
               "wall_s": min(r[0] for r in plain), "wall_checkpointed_s": min(r[0] for r in checkpointed),
               "cpu_s": min(r[1] for r in plain), "cpu_checkpointed_s": min(r[1] for r in checkpointed)}
        row["wall_overhead"] = row["wall_checkpointed_s"] / row["wall_s"] - 1
        row["cpu_overhead"] = row["cpu_checkpointed_s"] / row["cpu_s"] - 1 if row["cpu_s"] else None
        rows.append(row)
        print("%-7s kernel %-9s np 4: %2d checkpoints; wall %6.2f s -> %6.2f s (%+5.1f%%), "
              "CPU %6.2f s -> %6.2f s (%+5.1f%%)"
              % (setup, kernel, taken, row["wall_s"], row["wall_checkpointed_s"],
                 100 * row["wall_overhead"], row["cpu_s"], row["cpu_checkpointed_s"],
                 100 * (row["cpu_overhead"] or 0)), flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="1 and 16 MiB, two kernels, one repetition each")
    parser.add_argument("--setups", default="single,cluster",
                        help="comma-separated: single (one process), cluster (two hosts)")
    parser.add_argument("--kernels", help="comma-separated subset of " + ",".join(KERNELS))
    parser.add_argument("--sizes", help="comma-separated MiB per rank (default %s)"
                        % ",".join(map(str, MEMORY_MIB)))
    parser.add_argument("--redis-server", default="redis-server")
    args = parser.parse_args()
    setups = args.setups.split(",")
    if not setups or any(setup not in ("single", "cluster") for setup in setups):
        parser.error("--setups takes single and/or cluster")
    if args.kernels and any(kernel not in KERNELS for kernel in args.kernels.split(",")):
        parser.error("--kernels takes a subset of " + ",".join(KERNELS))
    bin_dir = os.path.join(os.path.abspath(args.build), "bin")
    sizes = MEMORY_MIB[:2] if args.quick else MEMORY_MIB
    kernels = dict(list(KERNELS.items())[:2]) if args.quick else KERNELS
    if args.sizes:
        sizes = [int(size) for size in args.sizes.split(",")]
    if args.kernels:
        kernels = {kernel: KERNELS[kernel] for kernel in args.kernels.split(",")}
    repeat = 1 if args.quick else args.repeat
    os.environ["SYNERGY_CHECKPOINT_STATS"] = "1"
    os.environ["SYNERGY_MPI_STATS"] = "1"
    with tempfile.TemporaryDirectory(prefix="synergy-checkpoint-bench-") as workdir:
        os.environ["SYNERGY_CACHE_DIR"] = os.path.join(workdir, "cache")
        programs = {}
        for name, source in (("memory", os.path.join(BENCH, "checkpoint", "memory_barriers.c")),
                             ("kernels", os.path.join(BENCH, "mpi", "kernels.c"))):
            programs[name] = os.path.join(workdir, name + ".wasm")
            subprocess.run([os.path.join(bin_dir, "synergy-cc"), "-O2", source, "-o",
                            programs[name], "-lm"], check=True, timeout=600)
        cluster = Cluster(bin_dir, args.redis_server, workdir, ("--allow-dir", workdir))
        single = lambda ranks: [os.path.join(bin_dir, "synergy-run"), "-np", str(ranks)]
        try:
            cluster.start()
            load_before = os.getloadavg()[0]
            memory, kernel_rows = [], []
            if "single" in setups:
                memory += measure_memory("single", single(2), 1, programs["memory"], workdir,
                                         sizes)
            if "cluster" in setups:
                memory += measure_memory("cluster", cluster.client(2, "spread"), 2,
                                         programs["memory"], workdir, sizes)
            if "single" in setups:
                kernel_rows += measure_kernels("single", single(4), programs["kernels"], workdir,
                                               kernels, repeat)
            if "cluster" in setups:
                kernel_rows += measure_kernels("cluster", cluster.client(4, "binpack"),
                                               programs["kernels"], workdir, kernels, repeat)
            load_after = os.getloadavg()[0]
        except BenchError as failure:
            print("checkpoint bench: %s" % failure, file=sys.stderr)
            return 1
        finally:
            cluster.stop()
    worst = max(row["wall_overhead"] for row in kernel_rows)
    print("load average %.1f -> %.1f; overhead at --checkpoint-every 1 (target < %d%%): "
          "worst wall %+.1f%%, worst CPU %+.1f%%"
          % (load_before, load_after, OVERHEAD_TARGET * 100, 100 * worst,
             100 * max(row["cpu_overhead"] or 0 for row in kernel_rows)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_average": [load_before, load_after], "memory": memory,
                       "kernels": kernel_rows, "overhead_target": OVERHEAD_TARGET}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
