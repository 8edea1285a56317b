#!/usr/bin/env python3
"""Checkpoints of jobs spread over hosts: deadlocks and chaos.

The cases of cluster_test.py's kind (its Cluster, real redis-server and
synergyd on 127.0.0.2 ...), for `--checkpoint-every` across hosts:

  checkpoint-deadlock  a deadlock with ranks at a control point is reported
                       as on one host (same report, same status, bounded)
  checkpoint-chaos     20 checkpointing jobs, each with a random daemon
                       killed (SIGKILL) at a random time: none lost, every
                       output exact (SYNERGY_CHAOS_SEED=N repeats a run)

    checkpoint_cluster_test.py --bin-dir build/bin --client build/test/cluster/cluster-test-client \\
                               --redis-server /usr/bin/redis-server CASE
"""
import os
import random
import re
import signal
import struct
import subprocess
import sys
import time

import cluster_test
from cluster_test import (TestFailure, build_both, check, check_equal, deadlock_report,
                          run_mpirun, run_tool, start_three_hosts, wait_for)

HERE = os.path.dirname(os.path.abspath(__file__))


def run_bounded(args, seconds):
    """(status, stdout, stderr) of `args`; a run past `seconds` is a failure."""
    try:
        result = subprocess.run(args, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{' '.join(args)} did not end within {seconds} s")
    return result.returncode, result.stdout, result.stderr


def client_command(cluster, *options):
    return [os.path.join(cluster.bin_dir, "synergy-run"), "--cluster", cluster.url,
            "--token-file", cluster.token_file, *options]


def case_checkpoint_deadlock(cluster):
    """Deadlocked jobs checkpointing at every control point over three hosts
    (--policy spread, np 3: one rank a host) end with the single-host
    checkpointing run's report and exit status, then free every slot (a
    hang fails after 120 s): a rank of a part other than 0 waiting for part
    0's decision (checkpoint_deadlock.c), part 0's rank waiting for the
    other parts' votes (checkpoint_root_deadlock.c), and deadlocks no rank
    reaches a control point in, whose report is also the one without
    checkpoints."""
    os.environ["SYNERGY_CACHE_DIR"] = os.path.join(cluster.workdir, "cache")
    lit_mpi = os.path.join(HERE, "..", "lit", "mpi")
    start_three_hosts(cluster, options=("--allow-dir", cluster.workdir))
    checkpoints = os.path.join(cluster.workdir, "checkpoints")
    os.makedirs(checkpoints)
    every = ["--checkpoint-every", "0"]
    for source, unchanged in ((os.path.join(lit_mpi, "checkpoint_deadlock.c"), False),
                              (os.path.join(HERE, "checkpoint_root_deadlock.c"), False),
                              (os.path.join(HERE, "collective_deadlock.c"), True),
                              (os.path.join(lit_mpi, "deadlock.c"), True)):
        name = os.path.basename(source)[:-2]
        granule = os.path.join(cluster.workdir, name + ".wasm")
        code, _, err = run_tool([os.path.join(cluster.bin_dir, "synergy-cc"), source, "-o",
                                 granule])
        check(code == 0, f"synergy-cc {source} failed:\n{err}")
        local = [os.path.join(cluster.bin_dir, "synergy-run"), "-np", "3"]
        want_code, _, want_err = run_tool(local + every + [granule])
        want = deadlock_report(want_err)
        check(want_code == 1 and len(want[0]) == 1 and len(want[1]) == 3,
              f"the single-host run of {name} gave no deadlock report (exit {want_code}):\n"
              f"{want_err}")
        if unchanged:
            plain_code, _, plain_err = run_tool(local + [granule])
            check_equal((plain_code, deadlock_report(plain_err)), (want_code, want),
                        f"{name}'s report without checkpoints")
        code, _, err = run_bounded(client_command(cluster, "--policy", "spread", "-np", "3",
                                                  *every, "--checkpoint-dir", checkpoints,
                                                  granule), 120)
        check_equal((code, deadlock_report(err)), (want_code, want),
                    f"{name} over three hosts (stderr:\n{err})")
        wait_for(lambda: cluster.status()[1].startswith("hosts: 3, slots: 6, free: 6\n"), 30,
                 "every slot to be freed")


def chaos_programs(cluster):
    """The chaos case's jobs: (name, client options, expected stdout lines
    sorted, expected status). Two MPI programs at np 3 against OpenMPI,
    and an OpenMP program against libgomp, run as a job of one rank with
    two threads (no --threads-per-host: it takes no checkpoints yet): its
    threads share the rank's memory, so it is never suspended and a lost
    host restarts it from the beginning."""
    programs = []
    for source, arguments in ((os.path.join(HERE, "checkpoint_phases.c"), ["40", "10000000"]),
                              (os.path.join(HERE, "checkpoint_ring.c"), ["40", "6000000"])):
        name = os.path.basename(source)[:-2]
        native, granule = build_both(cluster, source, name)
        code, out, err = run_mpirun(native, 3, arguments)
        check(code == 0 and out, f"mpirun {name} failed: {err}")
        programs.append((name, ["-np", "3", granule, *arguments], sorted(out.splitlines()), code))
    source = os.path.join(HERE, "checkpoint_omp_phases.c")
    native = os.path.join(cluster.workdir, "checkpoint_omp_phases")
    arguments = ["40", "3000000"]
    code, _, err = run_tool(["gcc", "-O2", "-fopenmp", "-o", native, source])
    check(code == 0, f"gcc {source} failed:\n{err}")
    code, _, err = run_tool([os.path.join(cluster.bin_dir, "synergy-cc"), "-O2", "-fopenmp",
                             "-o", native + ".wasm", source])
    check(code == 0, f"synergy-cc {source} failed:\n{err}")
    want = subprocess.run([native, *arguments], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, OMP_NUM_THREADS="2"))
    check(want.returncode == 0 and want.stdout, f"native {source} failed: {want.stderr}")
    programs.append(("checkpoint_omp_phases",
                     ["-np", "1", "--env", "OMP_NUM_THREADS=2", native + ".wasm", *arguments],
                     sorted(want.stdout.splitlines()), 0))
    return programs


def case_checkpoint_chaos(cluster):
    """20 jobs (the two MPI programs and the OpenMP one of chaos_programs in
    turn) checkpoint every 0.1 s over three 2-slot daemons, --policy
    spread; during each, one daemon picked at random is killed with SIGKILL
    at a random time from the client's start to the end of an undisturbed
    run of the same job (timed first), then started again under its name
    so that slots remain. Every job must end with its expected output (a
    file, lines sorted) and status: no job lost, no line twice or missing.
    After each undisturbed run the checkpoint file's number must be the
    count of checkpoints part 0 took. The seed (SYNERGY_CHAOS_SEED, else
    random) is printed first; the restarts are counted and printed."""
    seed = int(os.environ.get("SYNERGY_CHAOS_SEED") or random.randrange(1 << 32))
    print(f"checkpoint-chaos: seed {seed}", flush=True)
    chooser = random.Random(seed)
    os.environ["SYNERGY_CACHE_DIR"] = os.path.join(cluster.workdir, "cache")
    programs = chaos_programs(cluster)
    options = ("--allow-dir", cluster.workdir)
    daemon_env = dict(os.environ, SYNERGY_CHECKPOINT_STATS="1")
    daemons = start_three_hosts(cluster, env=daemon_env, options=options)
    restarts, kills, failures = [], 0, []

    def run_job(label, job, want_lines, want_code, victim=None, delay=None):
        """One checkpointing job, `victim` killed after `delay` s unless it
        has ended; (seconds it took, the daemon killed or None, restarts)."""
        checkpoints = os.path.join(cluster.workdir, label)
        os.makedirs(checkpoints)
        out_path = os.path.join(checkpoints, "job.out")
        started = time.monotonic()
        with open(out_path, "wb") as out:
            client = subprocess.Popen(
                client_command(cluster, "--policy", "spread", "--checkpoint-every", "0.1",
                               "--checkpoint-dir", checkpoints, *job),
                stdout=out, stderr=subprocess.PIPE)
        killed = None
        if victim is not None:
            try:
                client.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                killed = victim
                killed.process.send_signal(signal.SIGKILL)
                killed.process.wait()
        try:
            _, err = client.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            client.kill()
            _, err = client.communicate()
            err = (err or b"") + b"\n(the client did not end within 180 s)"
        seconds = time.monotonic() - started
        err = err.decode()
        if victim is None:
            # Undisturbed: the file on disk is the last checkpoint part 0
            # took, numbered by how many it took (header: magic, version,
            # rank count, then the u64 sequence).
            taken = [int(m.group(1)) for m in re.finditer(
                r"synergy-run: checkpoints: (\d+) taken, \d+ skipped, [1-9]\d* bytes", err)]
            path = os.path.join(checkpoints, "checkpoint.syck")
            sequence = None
            if os.path.exists(path):
                with open(path, "rb") as f:
                    sequence = struct.unpack("<Q", f.read(24)[16:24])[0]
            if taken != [sequence] and not (taken == [] and sequence is None):
                failures.append(f"{label}: part 0 took {taken} checkpoints, the file is "
                                f"number {sequence}; stderr:\n{err}")
        job_restarts = re.findall(r"synergy-run: note: .*; restarting the job from "
                                  r"(its checkpoint|the beginning)", err)
        with open(out_path) as f:
            got_lines = sorted(f.read().splitlines())
        if (client.returncode, got_lines) != (want_code, want_lines):
            failures.append(f"{label}: status {client.returncode} (want {want_code}), "
                            f"{len(got_lines)} lines (want {len(want_lines)}); stderr:\n{err}")
        return seconds, killed, job_restarts

    # An undisturbed run of each sets the span the kills are drawn from:
    # the second, once the first has compiled the module on every host.
    spans = []
    for name, job, want_lines, want_code in programs:
        for attempt in range(2):
            seconds, _, _ = run_job(f"{name}-undisturbed{attempt}", job, want_lines, want_code)
        print(f"checkpoint-chaos: {name} undisturbed: {seconds:.2f} s", flush=True)
        spans.append(seconds)
    for run in range(20):
        name, job, want_lines, want_code = programs[run % len(programs)]
        victim = daemons[chooser.randrange(len(daemons))]
        delay = chooser.uniform(0, spans[run % len(programs)])
        seconds, killed, run_restarts = run_job(f"run{run}", job, want_lines, want_code, victim,
                                                delay)
        kills += killed is not None
        restarts += run_restarts
        print(f"checkpoint-chaos: run {run} ({name}, {victim.host_id} killed at {delay:.2f} s"
              f"{'' if killed else ', after the job ended'}): {seconds:.2f} s, restarts from "
              f"{', '.join(run_restarts) or 'none'}", flush=True)
        if killed:
            index = daemons.index(killed)
            daemons[index] = cluster.start_daemon(killed.host_id, killed.address, 2,
                                                  env=daemon_env, options=options)
        wait_for(lambda: cluster.status()[1].startswith("hosts: 3, slots: 6, free: 6\n"), 60,
                 "every host up with every slot free")
    from_checkpoint = restarts.count("its checkpoint")
    print(f"checkpoint-chaos: seed {seed}: 20 runs, {kills} daemons killed, {len(restarts)} "
          f"restarts ({from_checkpoint} from a checkpoint, {len(restarts) - from_checkpoint} "
          f"from the beginning), {len(failures)} lost or wrong", flush=True)
    if failures:
        raise TestFailure("\n".join(failures))


CASES = {
    "checkpoint-deadlock": case_checkpoint_deadlock,
    "checkpoint-chaos": case_checkpoint_chaos,
}


if __name__ == "__main__":
    sys.exit(cluster_test.main(CASES, __doc__))
