#!/usr/bin/env python3
"""Checkpoints of jobs spread over hosts: deadlocks and chaos.

The cases of cluster_test.py's kind (its Cluster, real redis-server and
synergyd on 127.0.0.2 ...), for `--checkpoint-every` across hosts:

  checkpoint-deadlock  a deadlock with ranks at a control point is reported
                       as on one host (same report, same status, bounded)
  checkpoint-meetings  at an interval the ranks meet only where a checkpoint
                       is due: none in a job none falls due in, and as many
                       meetings as part 0's checkpoints taken and skipped
                       (SYNERGY_CHECKPOINT_STATS), not one a control point
  checkpoint-chaos     20 checkpointing jobs, each with a random daemon
                       killed (SIGKILL) at a random time: none lost, every
                       output exact (SYNERGY_CHAOS_SEED=N repeats a run)
  live-move-meetings   a move planned for the live path meets only at its
                       control point: one meeting a part, not one at every
                       control point up to the move (SYNERGY_CHECKPOINT_STATS)
  start-windows        a host lost at each step of a checkpointing job's
                       start, one step at a time: the job restarts on the
                       other hosts, its output exact; a refusal stays one

    checkpoint_cluster_test.py --bin-dir build/bin --client build/test/cluster/cluster-test-client \\
                               --redis-server /usr/bin/redis-server CASE
"""
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import cluster_test
from cluster_test import (HELLO_REFUSED, TestFailure, build_both, check, check_equal,
                          deadlock_report, frame, read_exactly, redis_command, run_mpirun,
                          run_tool, start_three_hosts, wait_for)

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


def case_checkpoint_meetings(cluster):
    """checkpoint_phases.c at np 3 over three hosts (--policy spread, one rank
    a host: three parts), 40 phases of an allreduce and a barrier, 80
    control points. Every part prints its SYNERGY_CHECKPOINT_STATS counts.
    At --checkpoint-every 3600 no checkpoint falls due: no part's ranks
    meet at any control point. At 0.2 s part 0 names a meeting each time
    one falls due, and only then: each part met exactly as often as part 0
    took or skipped a checkpoint (a meeting where none is due would be one
    more), fewer times than there are control points, and the file is the
    last checkpoint taken. The output is OpenMPI's either way."""
    os.environ["SYNERGY_CACHE_DIR"] = os.path.join(cluster.workdir, "cache")
    source = os.path.join(HERE, "checkpoint_phases.c")
    native, granule = build_both(cluster, source, "checkpoint_phases")
    # A 15 ms pause in each phase makes the job last at least 0.6 s however
    # fast the machine: on an idle one the work alone ended before the
    # first 0.2 s checkpoint fell due about half the time.
    arguments = ["40", "20000000", "15"]
    code, out, err = run_mpirun(native, 3, arguments)
    check(code == 0 and out, f"mpirun checkpoint_phases failed: {err}")
    want_lines = sorted(out.splitlines())
    start_three_hosts(cluster, env=dict(os.environ, SYNERGY_CHECKPOINT_STATS="1"),
                      options=("--allow-dir", cluster.workdir))
    meetings_line = re.compile(r"synergy-run: checkpoint meetings: the ranks met at (\d+) of "
                               r"(\d+) barrier control points")
    counts_line = re.compile(r"synergy-run: checkpoints: (\d+) taken, (\d+) skipped, "
                             r"[1-9]\d* bytes")
    for every in ("3600", "0.2"):
        checkpoints = os.path.join(cluster.workdir, "every-" + every)
        os.makedirs(checkpoints)
        code, out, err = run_bounded(client_command(cluster, "--policy", "spread", "-np", "3",
                                                    "--checkpoint-every", every,
                                                    "--checkpoint-dir", checkpoints, granule,
                                                    *arguments), 180)
        check_equal((code, sorted(out.splitlines())), (0, want_lines),
                    f"checkpoint_phases at --checkpoint-every {every} (stderr:\n{err})")
        parts = [(int(m.group(1)), int(m.group(2))) for m in meetings_line.finditer(err)]
        check(len(parts) == 3 and all(points == 80 for _, points in parts),
              f"--checkpoint-every {every}: want each of the 3 parts' meetings of 80 control "
              f"points, got {parts}; stderr:\n{err}")
        met = {meetings for meetings, _ in parts}
        if every == "3600":
            check_equal(met, {0}, f"meetings where no checkpoint fell due (stderr:\n{err})")
            continue
        counts = [(int(m.group(1)), int(m.group(2))) for m in counts_line.finditer(err)]
        check(len(counts) == 1 and counts[0][0] >= 1,
              f"want part 0's counts with a checkpoint taken, got {counts}; stderr:\n{err}")
        taken, skipped = counts[0]
        check_equal(met, {taken + skipped},
                    f"every part's meetings against part 0's {taken} checkpoints taken and "
                    f"{skipped} skipped (stderr:\n{err})")
        check(taken + skipped < 80, f"a meeting at every control point (stderr:\n{err})")
        with open(os.path.join(checkpoints, "checkpoint.syck"), "rb") as f:
            sequence = struct.unpack("<Q", f.read(24)[16:24])[0]
        check_equal(sequence, taken, "the checkpoint file's number against the checkpoints taken")


def case_live_move_meetings(cluster):
    """Moves a client asks for that take the live path (issue 22) meet only
    at their control point: checkpoint_phases.c (40 phases of an allreduce
    and a barrier, 80 control points) at np 2 with --fragment 2
    --consolidate-at 50% --expected-barriers 80 (rank 1 from part 1 into
    part 0 at control point 40), and at np 3 with SYNERGY_FORCE_MIGRATION
    1@30:h3 (rank 1 from part 0 to part 1 at control point 30). No
    checkpoint falls due (no --checkpoint-every), so every part that
    reports its SYNERGY_CHECKPOINT_STATS met exactly once, at the move's
    control point, where the move is taken; before, a job planned for the
    live path met at every control point up to its move (40 and 30
    meetings). The output is OpenMPI's."""
    os.environ["SYNERGY_CACHE_DIR"] = os.path.join(cluster.workdir, "cache")
    native, granule = build_both(cluster, os.path.join(HERE, "checkpoint_phases.c"),
                                 "checkpoint_phases")
    arguments = ["40", "2000000"]
    start_three_hosts(cluster, env=dict(os.environ, SYNERGY_CHECKPOINT_STATS="1"),
                      options=("--allow-dir", cluster.workdir))
    meetings_line = re.compile(r"synergy-run: checkpoint meetings: the ranks met at (\d+) of "
                               r"(\d+) barrier control points")
    runs = (("consolidate", 2, ["--fragment", "2", "--consolidate-at", "50%",
                                "--expected-barriers", "80"], None, 40),
            ("forced", 3, ["--policy", "binpack"], "1@30:h3", 30))
    for name, ranks, options, forced, at in runs:
        code, out, err = run_mpirun(native, ranks, arguments)
        check(code == 0 and out, f"mpirun checkpoint_phases failed: {err}")
        moves = os.path.join(cluster.workdir, "moves-" + name)
        os.makedirs(moves)
        env = dict(os.environ)
        env.pop("SYNERGY_FORCE_MIGRATION", None)
        if forced:
            env["SYNERGY_FORCE_MIGRATION"] = forced
        try:
            got = subprocess.run(client_command(cluster, *options, "--checkpoint-dir", moves,
                                                "-np", str(ranks), granule, *arguments),
                                 capture_output=True, text=True, timeout=180, env=env)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{name}: the job did not end within 180 s")
        check_equal((got.returncode, sorted(got.stdout.splitlines())),
                    (0, sorted(out.splitlines())), f"{name}: the job against mpirun "
                    f"(stderr:\n{got.stderr})")
        taken = re.search(r"synergy-run: note: live move of rank 1 from part \d+ to part \d+ at "
                          r"control point %d: .*routes switched in [0-9.]+ ms; rank 1 runs on "
                          r"part \d+\n" % at, got.stderr)
        check(taken and "postponed" not in got.stderr and "restart path" not in got.stderr,
              f"{name}: the move was not taken live at control point {at}:\n{got.stderr}")
        parts = [(int(m.group(1)), int(m.group(2))) for m in meetings_line.finditer(got.stderr)]
        check(len(parts) >= 2 and max(points for _, points in parts) == 80,
              f"{name}: want the parts' meetings of 80 control points, got {parts}; "
              f"stderr:\n{got.stderr}")
        check_equal({met for met, _ in parts}, {1},
                    f"{name}: every part's meetings, the move's alone (stderr:\n{got.stderr})")
        print(f"live-move-meetings: {name} ok (moved at {at}, one meeting a part: {parts})")


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


class FakeHost:
    """A host registered in the cluster state whose "daemon" is this test:
    it accepts one connection on `address`, reads the client's Hello and
    then, by `answer`, closes it ("close"), resets it ("reset": SO_LINGER
    0) or refuses the handshake ("refuse": HelloRefused, then close)."""

    def __init__(self, cluster, host_id, address, answer):
        self.cluster, self.host_id = cluster, host_id
        self.listener = socket.create_server((address, 0))
        self.listener.settimeout(120)
        self.port = self.listener.getsockname()[1]
        self.endpoint = f"{address}:{self.port}"
        self.accepted = 0

        def serve():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            with connection:
                header = read_exactly(connection, 16)
                if len(header) == 16:
                    read_exactly(connection, struct.unpack("<Q", header[8:])[0])
                if answer == "reset":
                    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                          struct.pack("ii", 1, 0))
                elif answer == "refuse":
                    connection.sendall(frame(HELLO_REFUSED, b"wrong cluster token"))
        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        # The record a daemon registers (ClusterState.cpp), without a lease:
        # it stays until remove().
        redis_command(cluster.redis_port, "HSET", f"synergy:host:{host_id}", "id", host_id,
                      "address", self.endpoint, "slots", "2", "free", "2", "state", "up")
        redis_command(cluster.redis_port, "SADD", "synergy:hosts", host_id)

    def remove(self):
        redis_command(self.cluster.redis_port, "SREM", "synergy:hosts", self.host_id)
        redis_command(self.cluster.redis_port, "DEL", f"synergy:host:{self.host_id}")
        self.listener.close()
        self.thread.join(timeout=30)


def case_start_windows(cluster):
    """A checkpointing job (checkpoint_phases.c, np 3, --policy spread: one
    rank on each of h2, h3 and a third host) loses its third host at each
    step of its start in turn, one job a step: the client must restart it
    from the beginning on h2 and h3 (one note naming the host, restart 1)
    and end with mpirun's output and status. The steps, each made exact:
      - the host closes, or resets, the connection before the handshake
        without refusing it (a FakeHost);
      - the host's synergyd dies (SIGKILL, SYNERGY_TEST_HOST_DIES_AT, see
        runtime/cluster/HostDeathHook.h) once the RunJob has come, once the
        module's head has come with its bytes unread (the client's
        connection is reset), and once the part's process has started;
      - the host's synergyd is killed once every part has published its
        endpoint in the cluster state (polled), while the parts connect.
    A host that refuses the handshake (HelloRefused) is not lost: the job
    fails at once with status 2 and the refusal, and restarts nowhere."""
    os.environ["SYNERGY_CACHE_DIR"] = os.path.join(cluster.workdir, "cache")
    source = os.path.join(HERE, "checkpoint_phases.c")
    arguments = ["40", "10000000"]
    native, granule = build_both(cluster, source, "checkpoint_phases")
    code, out, err = run_mpirun(native, 3, arguments)
    check(code == 0 and out, f"mpirun checkpoint_phases failed: {err}")
    want_lines = sorted(out.splitlines())
    options = ("--allow-dir", cluster.workdir)
    cluster.start_redis()
    for i in (2, 3):
        cluster.start_daemon(f"h{i}", f"127.0.0.{i}", 2, options=options)

    def run_job(label, during=None):
        """The job, with `during(client)` called once it has started; its
        (status, sorted stdout lines, stderr)."""
        checkpoints = os.path.join(cluster.workdir, label)
        os.makedirs(checkpoints)
        out_path = os.path.join(checkpoints, "job.out")
        with open(out_path, "wb") as out:
            client = subprocess.Popen(
                client_command(cluster, "--policy", "spread", "--checkpoint-every", "0.1",
                               "--checkpoint-dir", checkpoints, "-np", "3", granule,
                               *arguments), stdout=out, stderr=subprocess.PIPE)
        if during:
            during(client)
        try:
            _, err = client.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            client.kill()
            raise TestFailure(f"{label}: the client did not end within 180 s")
        with open(out_path) as f:
            lines = sorted(f.read().splitlines())
        wait_for(lambda: "running jobs: 0\n" in cluster.status()[1], 60,
                 f"{label}: every job to end")
        return client.returncode, lines, err.decode()

    def expect_restart(label, result, lost, start=r"the beginning \(no checkpoint yet\)"):
        code, lines, err = result
        notes = re.findall(r"synergy-run: note: (.*); restarting the job from (.*) on the other "
                           r"hosts \(restart (\d+)\)\n", err)
        check(len(notes) == 1 and notes[0][2] == "1" and re.fullmatch(start, notes[0][1]) and
              re.fullmatch(lost, notes[0][0]),
              f"{label}: not one restart from the beginning after losing {lost!r}:\n{err}")
        check_equal((code, lines), (0, want_lines), f"{label}: the restarted job (stderr {err!r})")
        print(f"start-windows: {label}: restarted ({notes[0][0]})", flush=True)

    for answer, lost in (("close", r"cannot reach {}: closed before the handshake"),
                         ("reset", r"cannot reach {}: read failed: .*")):
        fake = FakeHost(cluster, "h9", "127.0.0.9", answer)
        result = run_job(f"fake-{answer}")
        fake.remove()
        check_equal(fake.accepted, 1, f"fake-{answer}: connections to the fake host")
        expect_restart(f"fake-{answer}", result, lost.format(re.escape(fake.endpoint)))

    fake = FakeHost(cluster, "h9", "127.0.0.9", "refuse")
    code, _, err = run_job("fake-refuse")
    fake.remove()
    check_equal((code, err.splitlines()[-1:]),
                (2, [f"synergy-run: error: {fake.endpoint} refused the handshake: wrong cluster "
                     "token"]), f"a refused handshake (stderr {err!r})")
    check("restarting the job" not in err, f"a refused handshake restarted the job:\n{err}")

    for step in ("run-job", "module", "part-started"):
        # Its own module store, so that it asks for the module.
        env = dict(os.environ, SYNERGY_TEST_HOST_DIES_AT=step,
                   SYNERGY_CACHE_DIR=os.path.join(cluster.workdir, f"cache-{step}"))
        doomed = cluster.start_daemon("h4", "127.0.0.4", 2, env=env, options=options)
        result = run_job(f"dies-at-{step}")
        check_equal(doomed.process.wait(timeout=60), -signal.SIGKILL,
                    f"{step}: the doomed daemon's end (log:\n{doomed.log()})")
        started = re.search(r"job \d+: running", doomed.log())
        check(bool(started) == (step == "part-started") and
              ("stored module" in doomed.log()) == (step == "part-started"),
              f"{step}: the daemon did not die at its step:\n{doomed.log()}")
        expect_restart(f"dies-at-{step}", result, r"lost the connection to host h4 \(rank \d\)")

    victim = cluster.start_daemon("h4", "127.0.0.4", 2, options=options)

    def kill_once_parts_published(client):
        job = wait_for(lambda: re.search(r"job (\d+): running", victim.log()), 120,
                       "h4's part to start")
        endpoints = f"synergy:job:{job.group(1)}:endpoints"
        wait_for(lambda: client.poll() is not None or
                 redis_command(cluster.redis_port, "HLEN", endpoints) == 3, 120,
                 "every part's endpoint")
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait()

    # The parts may have taken a checkpoint by then.
    expect_restart("killed-once-parts-published",
                   run_job("parts-published", kill_once_parts_published),
                   r"lost the connection to host h4 \(rank \d\)",
                   r"the beginning \(no checkpoint yet\)|its checkpoint \d+")


CASES = {
    "checkpoint-deadlock": case_checkpoint_deadlock,
    "checkpoint-meetings": case_checkpoint_meetings,
    "checkpoint-chaos": case_checkpoint_chaos,
    "live-move-meetings": case_live_move_meetings,
    "start-windows": case_start_windows,
}


if __name__ == "__main__":
    sys.exit(cluster_test.main(CASES, __doc__))
