#!/usr/bin/env python3
"""Synergy's cluster against OpenMPI over TCP, measured in the same run (issue 17).

Starts its own redis-server on a free port of 127.0.0.1 and three synergyd
daemons on 127.0.0.2, .3 and .4 (two slots each), runs bench/mpi's osu.c and
kernels.c there with `synergy-run --cluster`, and the same programs built by
mpicc under `mpirun --mca btl tcp,self --mca btl_tcp_if_include lo`, so that
every OpenMPI message takes TCP over loopback as every cross-host Synergy
message does. It stops every process it started, also on failure, and bounds
every run with a timeout.

Where the ranks sit:
  latency, bandwidth       np 2, --policy spread: one rank on each of two hosts
  allreduce, bcast,        np 4 and 6, --policy spread: 2+1+1 and 2+2+2 ranks
  alltoall                 on the three hosts
  kernels p2p, stencil,    np 2 (spread, 1+1) and np 4 (binpack, 2+2): two hosts
  transpose, nstream,
  reduce
  job start                np 1 and np 2 (spread) of start_probe.c, cache warm:
                           from the client's launch to the first rank's main,
                           against a local `synergy-run -np 1` and `mpirun -np 1`
  jobs per second          J clients of np 1 submitted at once to the 6 slots;
                           jobs placed, run and finished per second of wall time

Each (test, ranks) runs --repeat times, alternating OpenMPI and Synergy so
that load hits both alike, and each side's best value is kept. Ratios are
synergy/OpenMPI: below 1.0 is faster for times, above 1.0 for bandwidth. The
machine's load average is recorded with the results, since wall time on a
shared machine mostly measures the scheduler.

Job start and jobs per second also report CPU time (user + sys, in ms per
job): the client's, from its rusage, and the daemons' with the job processes
they started, from /proc. On a loaded machine these move far less than wall
time. `--only start` runs just those two sections; `--tests latency,alltoall`
runs just the named tests (and rows), without them.

usage: bench/cluster/cluster_bench.py --build build [--json out.json] [--quick] [--repeat N]
                                      [--only start | --tests NAME,...]
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MPI_BENCH = os.path.join(os.path.dirname(HERE), "mpi")
HOSTS = [("h2", "127.0.0.2"), ("h3", "127.0.0.3"), ("h4", "127.0.0.4")]
SLOTS_PER_HOST = 2
RUN_TIMEOUT_SECONDS = 600
OPENMPI_TCP = ["--oversubscribe", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"]
TARGETS = {"latency": ("<=", 1.2), "bandwidth": (">=", 0.9), "allreduce": ("<=", 1.0),
           "bcast": ("<=", 1.0), "alltoall": ("<=", 1.0), "kernel": ("<=", 1.2)}
JOB_START_TARGET_MS = 50.0


class BenchError(Exception):
    pass


def run(command, timeout=RUN_TIMEOUT_SECONDS):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError("timed out after %d s: %s" % (timeout, " ".join(command)))
    if done.returncode != 0:
        raise BenchError("failed (%d): %s\n%s" % (done.returncode, " ".join(command),
                                                  done.stderr.decode(errors="replace")))
    return done.stdout.decode()


def free_port(address):
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise BenchError("gave up after %d s waiting for %s" % (seconds, what))


class Cluster:
    """redis-server and the synergyd daemons; stop() ends every one."""

    def __init__(self, bin_dir, redis_server, workdir, daemon_options=()):
        self.bin_dir = bin_dir
        self.daemon_options = list(daemon_options)
        self.redis_server = redis_server
        self.workdir = workdir
        self.processes = []
        # A bench stopped by SIGTERM (a timeout, a user's kill) raises SystemExit
        # instead of dying at once, so that the caller's stop() still ends the
        # redis-server and daemons started here.
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        self.token_file = os.path.join(workdir, "token")
        with open(self.token_file, "w") as f:
            f.write("cluster-bench-%s\n" % os.urandom(16).hex())
        os.chmod(self.token_file, 0o600)
        self.url = None

    def start(self):
        port = free_port("127.0.0.1")
        self.url = "redis://127.0.0.1:%d" % port
        redis_dir = os.path.join(self.workdir, "redis")
        os.makedirs(redis_dir)
        self.processes.append(subprocess.Popen(
            [self.redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", redis_dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        status = [os.path.join(self.bin_dir, "synergy-cluster"), "--state", self.url, "status"]
        wait_for(lambda: subprocess.run(status, capture_output=True, timeout=30).returncode == 0,
                 20, "redis-server to accept commands")
        for host_id, address in HOSTS:
            log_path = os.path.join(self.workdir, "synergyd-%s.log" % host_id)
            with open(log_path, "w") as log:
                process = subprocess.Popen(
                    [os.path.join(self.bin_dir, "synergyd"), "--listen", address + ":0",
                     "--slots", str(SLOTS_PER_HOST), "--state", self.url,
                     "--token-file", self.token_file, "--host-id", host_id,
                     *self.daemon_options],
                    stdout=log, stderr=log)
            self.processes.append(process)
            pattern = re.compile(r"synergyd: host %s listening on " % host_id)

            def registered():
                with open(log_path) as f:
                    text = f.read()
                if process.poll() is not None:
                    raise BenchError("synergyd %s exited at start:\n%s" % (host_id, text))
                return pattern.search(text)
            wait_for(registered, 20, "synergyd %s to register" % host_id)

    def client(self, ranks, policy):
        return [os.path.join(self.bin_dir, "synergy-run"), "--cluster", self.url,
                "--token-file", self.token_file, "--policy", policy, "-np", str(ranks)]

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
            process.wait()


def parse(text):
    """Lines "<name> <key> <value> [status]" -> {(name, key): (value, status)}."""
    results = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            results[(parts[0], parts[1])] = (float(parts[2]), parts[3] if len(parts) > 3 else "")
    return results


def best_of(runs, higher_is_better):
    """Each key's best value over the runs; a status other than "ok" wins."""
    merged = {}
    for results in runs:
        for key, (value, status) in results.items():
            if key not in merged:
                merged[key] = (value, status)
                continue
            old, old_status = merged[key]
            better = value > old if higher_is_better else value < old
            merged[key] = (value if better else old, old_status if old_status != "ok" else status)
    return merged


def started_ns(text):
    stamps = [int(m.group(1)) for m in re.finditer(r"^started \d+ (\d+)$", text, re.M)]
    if not stamps:
        raise BenchError("the start probe printed no stamp:\n" + text)
    return min(stamps)


def children_cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1e3


def processes_cpu_ms(pids):
    """User + sys time of the processes and of their waited-for children."""
    total = 0
    for pid in pids:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total * 1e3 / os.sysconf("SC_CLK_TCK")


def redis_commands(url):
    """Commands the cluster's Redis has processed so far (INFO stats)."""
    host, port = url[len("redis://"):].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n")
        reply = b""
        while b"total_commands_processed:" not in reply or not reply.endswith(b"\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    match = re.search(rb"total_commands_processed:(\d+)", reply)
    if not match:
        raise BenchError("redis INFO stats has no total_commands_processed")
    return int(match.group(1))


def job_start(command, samples, daemons=()):
    """Milliseconds from launch to the first rank's main and to the job's
    end, and CPU milliseconds per job of the client and of the daemons."""
    starts, totals = [], []
    client_cpu, daemon_cpu = children_cpu_ms(), processes_cpu_ms(daemons)
    for _ in range(samples):
        launched = time.time_ns()
        text = run(command)
        ended = time.time_ns()
        starts.append((started_ns(text) - launched) / 1e6)
        totals.append((ended - launched) / 1e6)
    return {"samples": samples, "start_ms_median": statistics.median(starts),
            "start_ms_min": min(starts), "total_ms_median": statistics.median(totals),
            "client_cpu_ms": (children_cpu_ms() - client_cpu) / samples,
            "daemon_cpu_ms": (processes_cpu_ms(daemons) - daemon_cpu) / samples}


def jobs_per_second(command, jobs, cluster):
    """Submits `jobs` clients at once; all must succeed. Also counts the
    Redis commands and the CPU time of clients, daemons and Redis per job."""
    commands = redis_commands(cluster.url)
    pids = [process.pid for process in cluster.processes]
    client_cpu, daemon_cpu = children_cpu_ms(), processes_cpu_ms(pids)
    launched = time.monotonic()
    clients = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for _ in range(jobs)]
    failures = []
    for client in clients:
        try:
            out, err = client.communicate(timeout=RUN_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            client.kill()
            out, err = client.communicate()
            failures.append("timed out")
            continue
        if client.returncode != 0:
            failures.append("status %d: %s" % (client.returncode, err.decode(errors="replace")))
    elapsed = time.monotonic() - launched
    if failures:
        raise BenchError("%d of %d concurrent jobs failed, first: %s" % (len(failures), jobs,
                                                                        failures[0]))
    return {"jobs": jobs, "slots": SLOTS_PER_HOST * len(HOSTS), "seconds": elapsed,
            "jobs_per_second": jobs / elapsed,
            "redis_commands_per_job": (redis_commands(cluster.url) - commands - 1) / jobs,
            "client_cpu_ms": (children_cpu_ms() - client_cpu) / jobs,
            "daemon_cpu_ms": (processes_cpu_ms(pids) - daemon_cpu) / jobs}


def meets(row):
    kind = "kernel" if row["unit"] == "s" else row["test"]
    sense, bound = TARGETS[kind]
    return row["ratio"] is not None and (row["ratio"] >= bound if sense == ">=" else
                                         row["ratio"] <= bound)


def measure_start(cluster, binaries, bin_dir, quick):
    """Job start (np 1, np 2 spread, local, OpenMPI) and jobs per second."""
    probe_native, probe = binaries["start_probe"]
    samples = 3 if quick else 10
    # One unmeasured run per path fills the AOT cache and OpenMPI's page cache.
    run(cluster.client(1, "binpack") + [probe])
    run([os.path.join(bin_dir, "synergy-run"), "-np", "1", probe])
    run(["mpirun"] + OPENMPI_TCP + ["-np", "1", probe_native])
    daemons = [process.pid for process in cluster.processes]
    start = {
        "cluster_np1": job_start(cluster.client(1, "binpack") + [probe], samples, daemons),
        "cluster_np2_spread": job_start(cluster.client(2, "spread") + [probe], samples,
                                        daemons),
        "local_np1": job_start([os.path.join(bin_dir, "synergy-run"), "-np", "1", probe],
                               samples),
        "openmpi_np1": job_start(["mpirun"] + OPENMPI_TCP + ["-np", "1", probe_native],
                                 samples)}
    throughput = jobs_per_second(cluster.client(1, "binpack") + [probe],
                                 6 if quick else 24, cluster)
    return start, throughput


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="Synergy build directory")
    parser.add_argument("--json", default="cluster-bench.json")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: small messages, few rank counts, one repeat")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per test and rank count; the best is kept (default 3)")
    parser.add_argument("--redis-server", default=shutil.which("redis-server"))
    parser.add_argument("--only", choices=["start"],
                        help="start: only the job start and jobs per second sections")
    parser.add_argument("--tests", type=lambda text: text.split(","),
                        help="comma-separated tests to run (latency, bandwidth, allreduce, "
                             "bcast, alltoall, p2p, stencil, transpose, nstream, reduce), "
                             "without the job start sections")
    options = parser.parse_args()
    if not options.redis_server:
        sys.stderr.write("cluster_bench: error: redis-server not found (--redis-server)\n")
        return 2
    bin_dir = os.path.join(os.path.abspath(options.build), "bin")
    repeat = 1 if options.quick else max(1, options.repeat)
    max_bytes = ["65536"] if options.quick else []

    work = tempfile.mkdtemp(prefix="synergy-cluster-bench-")
    cluster = Cluster(bin_dir, options.redis_server, work)
    try:
        binaries = {}
        programs = [("start_probe", os.path.join(HERE, "start_probe.c"))]
        if not options.only:
            programs += [("osu", os.path.join(MPI_BENCH, "osu.c")),
                         ("kernels", os.path.join(MPI_BENCH, "kernels.c"))]
        for program, source in programs:
            native = os.path.join(work, program)
            granule = native + ".wasm"
            run(["mpicc", "-O2", source, "-o", native, "-lm"])
            run([os.path.join(bin_dir, "synergy-cc"), "-O2", source, "-o", granule, "-lm"])
            binaries[program] = (native, granule)
        cluster.start()

        # (program, test, [(ranks, policy)], extra arguments)
        if options.only:
            plan = []
        elif options.quick:
            plan = [("osu", "latency", [(2, "spread")]), ("osu", "bandwidth", [(2, "spread")]),
                    ("osu", "allreduce", [(4, "spread")]), ("kernels", "p2p", [(2, "spread")])]
        else:
            collective = [(4, "spread"), (6, "spread")]
            kernel = [(2, "spread"), (4, "binpack")]
            plan = [("osu", "latency", [(2, "spread")]), ("osu", "bandwidth", [(2, "spread")])]
            plan += [("osu", test, collective) for test in ("allreduce", "bcast", "alltoall")]
            plan += [("kernels", name, kernel) for name in
                     ("p2p", "stencil", "transpose", "nstream", "reduce")]
        if options.tests:
            plan = [entry for entry in plan if entry[1] in options.tests]

        rows = []
        for program, test, placements in plan:
            native, granule = binaries[program]
            arguments = [test] + (max_bytes if program == "osu" else [])
            for ranks, policy in placements:
                openmpi_runs, synergy_runs = [], []
                for _ in range(repeat):
                    openmpi_runs.append(parse(run(["mpirun"] + OPENMPI_TCP +
                                                  ["-np", str(ranks), native] + arguments)))
                    synergy_runs.append(parse(run(cluster.client(ranks, policy) +
                                                  [granule] + arguments)))
                higher = test == "bandwidth"
                openmpi, synergy = best_of(openmpi_runs, higher), best_of(synergy_runs, higher)
                sys.stderr.write("[cluster-bench] %s -np %d (%s) done\n" % (test, ranks, policy))
                for key in sorted(openmpi, key=lambda k: float(k[1])):
                    if key not in synergy:
                        continue
                    o, ostatus = openmpi[key]
                    s, sstatus = synergy[key]
                    sys.stderr.write("[cluster-bench]   %s %s: openmpi %.3f synergy %.3f\n"
                                     % (key[0], key[1], o, s))
                    rows.append({"test": key[0], "ranks": ranks, "policy": policy,
                                 "size": key[1] if program == "osu" else "-",
                                 "unit": "MB/s" if test == "bandwidth" else (
                                     "s" if program == "kernels" else "us"),
                                 "openmpi": o, "synergy": s, "ratio": s / o if o else None,
                                 "check": "" if program == "osu" else (
                                     "ok" if ostatus == sstatus == "ok" else "FAILED")})

        start, throughput = None, None
        if not options.tests:
            start, throughput = measure_start(cluster, binaries, bin_dir, options.quick)
    except BenchError as e:
        sys.stderr.write("cluster_bench: error: %s\n" % e)
        return 1
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)

    load = os.getloadavg()
    print("%-10s %5s %8s %9s %5s %12s %12s %7s %s" % ("test", "ranks", "policy", "bytes", "unit",
                                                     "openmpi-tcp", "synergy", "ratio", "check"))
    for row in rows:
        print("%-10s %5d %8s %9s %5s %12.3f %12.3f %7.2f %s" % (
            row["test"], row["ranks"], row["policy"], row["size"], row["unit"], row["openmpi"],
            row["synergy"], row["ratio"] or 0, row["check"]))
    if start:
        print("job start (ms from launch to the first rank's main: median, min; whole job median;")
        print("           CPU ms per job, user + sys: client, daemons + redis with their job processes):")
        for name, figures in start.items():
            print("  %-20s %8.1f %8.1f %8.1f %8.1f %8.1f" % (
                name, figures["start_ms_median"], figures["start_ms_min"],
                figures["total_ms_median"], figures["client_cpu_ms"], figures["daemon_cpu_ms"]))
        print("jobs per second: %d jobs of np 1 on %d slots in %.2f s: %.1f jobs/s; per job %.0f "
              "Redis commands, CPU ms %.1f client + %.1f daemons and Redis" % (
                  throughput["jobs"], throughput["slots"], throughput["seconds"],
                  throughput["jobs_per_second"], throughput["redis_commands_per_job"],
                  throughput["client_cpu_ms"], throughput["daemon_cpu_ms"]))
    met = [row for row in rows if meets(row)]
    print("targets (latency <= 1.2x, bandwidth >= 0.9x, collectives <= 1.0x, kernels <= 1.2x): "
          "%d of %d rows met" % (len(met), len(rows)) +
          ("; job start %.1f ms (target < %.0f ms)" % (start["cluster_np1"]["start_ms_median"],
                                                      JOB_START_TARGET_MS) if start else ""))
    for name in ("latency", "bandwidth", "allreduce", "bcast", "alltoall"):
        missed = [row for row in rows if row["test"] == name and row not in met]
        if missed:
            print("  %s missed at: %s" % (name, ", ".join(
                "%s B @%d (%.2fx)" % (row["size"], row["ranks"], row["ratio"] or 0)
                for row in missed)))
    missed = [row for row in rows if row["unit"] == "s" and row not in met]
    if missed:
        print("  kernels missed: %s" % ", ".join(
            "%s @%d (%.2fx)" % (row["test"], row["ranks"], row["ratio"] or 0) for row in missed))
    print("load average at the end: %.2f %.2f %.2f" % load)
    with open(options.json, "w") as out:
        json.dump({"benchmark": "cluster-vs-openmpi-tcp", "quick": options.quick,
                   "repeat": repeat, "hosts": len(HOSTS), "slots_per_host": SLOTS_PER_HOST,
                   "load_average": list(load), "results": rows, "job_start": start,
                   "job_start_target_ms": JOB_START_TARGET_MS, "throughput": throughput},
                  out, indent=1)
    print("wrote %s" % options.json)
    return 1 if any(row["check"] == "FAILED" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
