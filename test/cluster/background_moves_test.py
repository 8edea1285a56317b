#!/usr/bin/env python3
"""synergyd's background migration decisions (issue 22, part 2).

The cases of cluster_test.py's kind (its Cluster, real redis-server and
three synergyd on 127.0.0.2-.4, deciding every 0.5 s), all with
checkpoint_phases.c, whose every line is compared with OpenMPI's:

  sched-consolidate  a --policy compact job started over two hosts because a
                     blocking job holds the one host that could take it
                     whole is gathered there by the daemons once the blocker
                     ends: status shows it there and the decision as moved
                     (the restart path: h2 runs no part of the job)
  sched-consolidate-live
                     a --policy compact job started over h2 and h3 because a
                     blocker holds half of h2 is gathered on h2 once the
                     blocker ends, live: ranks 2 and 3 join part 0 one a
                     control point, the same job runs on, no restart
  sched-no-gain      a spread job that one host could hold and a binpack job
                     that no host can hold run to their end unmoved, with no
                     decision taken; malformed decision log entries are left
                     out of status
  sched-aborted      a decision whose target fills up before the job's next
                     control point is aborted there, and is not taken again
                     (nor retried) once the target has room again
  sched-lease        one daemon at a time holds the deciding lease; it passes
                     on when its holder stops, and expires when it is killed

    background_moves_test.py --bin-dir build/bin --client build/test/cluster/cluster-test-client \\
                             --redis-server /usr/bin/redis-server CASE
"""
import os
import re
import signal
import subprocess
import sys
import time

import cluster_test
from cluster_test import build_both, check, check_equal, redis_command, run_mpirun, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = "checkpoint_phases"
# h2 alone can hold a job of four ranks.
UNEVEN_SLOTS = (4, 2, 2)


def start_cluster(cluster, slots):
    """Redis and three daemons with `slots` that decide every 0.5 s; the
    program built both ways."""
    os.environ["SYNERGY_CACHE_DIR"] = os.path.join(cluster.workdir, "cache")
    built = build_both(cluster, os.path.join(HERE, PROGRAM + ".c"), PROGRAM)
    cluster.start_redis()
    daemons = [cluster.start_daemon(f"h{i}", f"127.0.0.{i}", count,
                                    options=("--allow-dir", cluster.workdir,
                                             "--decide-every", "0.5"))
               for i, count in zip((2, 3, 4), slots)]
    return built, daemons


class Job:
    """A synergy-run --cluster client running in the background."""

    def __init__(self, cluster, program, ranks, policy, arguments, movable):
        options = []
        if movable:
            directory = os.path.join(cluster.workdir, f"moves-{len(cluster.processes)}")
            os.makedirs(directory)
            options = ["--checkpoint-dir", directory]
        self.process = subprocess.Popen(
            [os.path.join(cluster.bin_dir, "synergy-run"), "--cluster", cluster.url,
             "--token-file", cluster.token_file, "--policy", policy, *options, "-np", str(ranks),
             program, *map(str, arguments)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cluster.processes.append(self.process)

    def finish(self, seconds=300):
        """(status, stdout, stderr) once the client has ended."""
        out, err = self.process.communicate(timeout=seconds)
        return self.process.returncode, out, err

    def kill(self):
        self.process.kill()
        self.process.communicate()


def wait_for_status(cluster, pattern, what, seconds=120):
    """synergy-cluster status once it matches `pattern`."""
    return wait_for(lambda: re.search(pattern, cluster.status()[1]), seconds, what)


def job_line(job, ranks, placement):
    return rf"  job {job}  {PROGRAM}\.wasm  ranks {ranks}  on {re.escape(placement)}\n"


def check_like_mpirun(native, ranks, arguments, got, what):
    """`got` (status, stdout, stderr) against OpenMPI's run of `native`:
    the same status and the same lines. The pause (arguments[2]) changes
    nothing printed, so OpenMPI runs without it."""
    want = run_mpirun(native, ranks, [str(a) for a in arguments[:2]])
    check(want[0] == 0 and want[1], f"mpirun failed: {want!r}")
    check_equal((got[0], sorted(got[1].splitlines())), (0, sorted(want[1].splitlines())),
                f"{what} against mpirun (stderr {got[2]!r})")


def decisions_asked(daemons):
    return sum(daemon.log().count("asked to move") for daemon in daemons)


def start_blocked_compact_job(cluster, program, arguments):
    """On hosts of 4, 2 and 2 slots, a blocker of three ranks on h2 (the one
    host that can hold four), then a --policy compact job of four, which
    goes over h3 and h4; both clients."""
    blocker = Job(cluster, program, 3, "binpack", [100000, 1000, 100], movable=False)
    wait_for_status(cluster, job_line(1, 3, "h2"), "the blocker to run")
    job = Job(cluster, program, 4, "compact", arguments, movable=True)
    wait_for_status(cluster, job_line(2, 4, "h3 (ranks 0-1), h4 (ranks 2-3)"),
                    "the compact job to run over two hosts")
    return blocker, job


def wait_for_line_or_end(cluster, job, pattern, what):
    """The status once it matches `pattern` or once `job`'s client ended,
    within 120 s."""
    def line_or_ended():
        status = cluster.status()[1]
        if re.search(pattern, status) or job.process.poll() is not None:
            return status
        return None

    return wait_for(line_or_ended, 120, what)


def case_sched_consolidate(cluster):
    """A --policy compact job of four runs over h3 and h4 while a blocker
    holds h2. Once the blocker's client is killed, the daemon holding the
    scheduler lease asks for every rank on h2; the job moves at a control
    point and goes on as job 3 on h2 alone, the decision shows as moved, no
    other decision is taken, and the output is OpenMPI's."""
    (native, program), daemons = start_cluster(cluster, UNEVEN_SLOTS)
    arguments = [200, 100000, 50]
    blocker, job = start_blocked_compact_job(cluster, program, arguments)
    try:
        blocker.kill()
        # A move restarts the job: between job 2's end and job 3's start no
        # job runs, so only the client's end says the job ended unmoved.
        status = wait_for_line_or_end(cluster, job, job_line(3, 4, "h2"),
                                      "the compact job to be gathered on h2 (or its client to end)")
        check(re.search(job_line(3, 4, "h2"), status),
              f"the job ended before it was moved:\n{status}")
        check(re.search(r"migration decisions: 1, newest first \(decided by h[234]\)\n"
                        r"  job 2  compact  2 hosts -> h2:4  \d+ s ago  (moving|moved)\n", status),
              f"status does not show the decision:\n{status}")
        got = job.finish()
    finally:
        if job.process.poll() is None:
            job.kill()
    check(re.search(r"synergy-run: note: job 2 stopped at a barrier control point to move every "
                    r"rank to host h2; it goes on on h2:4\n", got[2]), f"no move in {got[2]!r}")
    check_like_mpirun(native, 4, arguments, got, "the consolidated job")
    check_equal(decisions_asked(daemons), 1, "decisions taken")


def case_sched_consolidate_live(cluster):
    """Hosts of 4, 2 and 2 slots; a spread blocker of two ranks takes two of
    h2's, so a --policy compact job of four goes over h2 (ranks 0-1, part
    0) and h3 (ranks 2-3, part 1). Once the blocker's client is killed, the
    deciding daemon asks for every rank on h2; part 0 learns of it at a
    control point and takes it live (issue 22): rank 2 and then rank 3 move
    into part 0, one a control point, and part 1 ends. Status shows the same
    job (job 2) on h2 alone and the decision as moved; the client's notes
    say the live path and give both rounds; no job stopped; the output is
    OpenMPI's; the migration record carries the move's time (moved-at), from
    which the scheduler's no-move window runs. Fails on 29e35d3, where the
    job restarts as job 3, and on be81228, which left no moved-at."""
    (native, program), daemons = start_cluster(cluster, UNEVEN_SLOTS)
    arguments = [200, 100000, 50]
    blocker = Job(cluster, program, 2, "spread", [100000, 1000, 100], movable=False)
    wait_for_status(cluster, job_line(1, 2, "h2"), "the blocker to run")
    started_ms = time.time() * 1000
    job = Job(cluster, program, 4, "compact", arguments, movable=True)
    try:
        wait_for_status(cluster, job_line(2, 4, "h2 (ranks 0-1), h3 (ranks 2-3)"),
                        "the compact job to run over h2 and h3")
        blocker.kill()
        # The same job, its parts' ranks all on h2's.
        gathered = job_line(2, 4, "h2 (ranks 0-3)")

        status = wait_for_line_or_end(cluster, job, gathered,
                                      "the compact job to be gathered on h2 (or its client to end)")
        check(re.search(gathered, status),
              f"the job ended before it was moved live:\n{status}\n{job.finish()[2]}")
        check(re.search(r"  job 2  compact  2 hosts -> h2:4  \d+ s ago  (moving|moved)\n", status),
              f"status does not show the decision:\n{status}")
        got = job.finish()
    finally:
        if job.process.poll() is None:
            job.kill()
    check(re.search(r"synergy-run: note: job 2's move of every rank to host h2 takes the live "
                    r"path: rank 2 from part 1 to part 0, then rank 3 from part 1 to part 0 from "
                    r"control point \d+, one rank a live round\n", got[2]),
          f"no live path note in {got[2]!r}")
    for rank in (2, 3):
        check(re.search(rf"synergy-run: note: live move of rank {rank} from part 1 to part 0 at "
                        rf"control point \d+: .*; rank {rank} runs on part 0\n", got[2]),
              f"no live round of rank {rank} in {got[2]!r}")
    check("stopped at a barrier control point" not in got[2] and "restart path" not in got[2],
          f"the job restarted: {got[2]!r}")
    check_like_mpirun(native, 4, arguments, got, "the consolidated job")
    check_equal(decisions_asked(daemons), 1, "decisions taken")
    # The live move left the time it ended in the job's migration record,
    # from which the scheduler's no-move window runs (the client's
    # scheduling record still says it never moved).
    moved_at = redis_command(cluster.redis_port, "HGET", "synergy:job:2:migration", "moved-at")
    check(moved_at is not None and moved_at.isdigit() and
          started_ms <= int(moved_at) <= time.time() * 1000,
          f"the migration record's moved-at is {moved_at!r}, not a time during the job")


def case_sched_no_gain(cluster):
    """A spread job of three (one rank a host) and then a binpack job of six
    (h2: 3, h3: 3, as no host holds six) run side by side, both movable.
    h4 could hold the spread job whole, but spread never asks for that, and
    no host can hold the binpack job: neither is moved, no decision is
    taken, and both outputs are OpenMPI's. A hostile scheduling record and
    hostile decision log entries are refused without harm."""
    (native, program), daemons = start_cluster(cluster, (4, 4, 4))
    arguments = [60, 100000, 50]
    spread = Job(cluster, program, 3, "spread", arguments, movable=True)
    wait_for_status(cluster, job_line(1, 3, "h2 (rank 0), h3 (rank 1), h4 (rank 2)"),
                    "the spread job to run")
    binpack = Job(cluster, program, 6, "binpack", arguments, movable=True)
    try:
        wait_for_status(cluster, job_line(2, 6, "h2 (ranks 0-2), h3 (ranks 3-5)"),
                        "the binpack job to run over two hosts")
        # A daemon holds the lease, so the jobs are weighed while they run.
        check(redis_command(cluster.redis_port, "GET", "synergy:scheduler:leader")
              in ("h2", "h3", "h4"), "no daemon holds the scheduler lease")
        # A hostile scheduling record (the spread job's) is refused: that
        # job is not movable, and the deciding daemon goes on.
        redis_command(cluster.redis_port, "HSET", "synergy:job:1:scheduling", "policy",
                      "compact\x1b[2J", "movable", "2", "moved-at", "99999999999999999999")
        results = [spread.finish(), binpack.finish()]
    finally:
        for job in (spread, binpack):
            if job.process.poll() is None:
                job.kill()
    for ranks, got, what in ((3, results[0], "the spread job"), (6, results[1], "the binpack job")):
        check("stopped at a barrier control point" not in got[2], f"{what} moved: {got[2]!r}")
        check_like_mpirun(native, ranks, arguments, got, what)
    check_equal(decisions_asked(daemons), 0, "decisions taken")
    check_equal([d.process.poll() for d in daemons], [None] * 3, "daemons still running")
    check("migration decisions" not in cluster.status()[1], "status shows a decision")
    # Malformed entries in the decision log are left out of status.
    for entry in ("1 2 compact 2", "x 2 compact 2 h2:4", "1 2 \x1b[2J 2 h2:4",
                  "1 2 compact 2 h2:4 extra", "1 2 compact 2 h2:0"):
        redis_command(cluster.redis_port, "LPUSH", "synergy:scheduler:decisions", entry)
    code, out, err = cluster.status()
    check_equal((code, "migration decisions" in out, err), (0, False, ""),
                "status over a malformed decision log")


def case_sched_aborted(cluster):
    """The compact job of sched-consolidate, pausing 8 s before each of its
    three control points. The blocker is killed in its first pause; the
    daemon asks for every rank on h2, and a one-rank binpack job takes one
    of h2's slots before the job gets there: the move is aborted with a
    note and the job goes on where it is. The filler then ends, so h2 has
    room again, yet the aborted decision is not taken again while the job
    runs (the scheduler waits 60 s after an abort): one decision in all,
    shown as aborted, and the output is OpenMPI's."""
    (native, program), daemons = start_cluster(cluster, UNEVEN_SLOTS)
    arguments = [3, 1000, 8000]
    blocker, job = start_blocked_compact_job(cluster, program, arguments)
    filler = None
    try:
        blocker.kill()
        wait_for_status(cluster, r"  job 2  compact  2 hosts -> h2:4  \d+ s ago  pending\n",
                        "the decision to move the compact job", 30)
        filler = Job(cluster, program, 1, "binpack", [100000, 1000, 100], movable=False)
        wait_for_status(cluster, job_line(3, 1, "h2"), "the filler to take a slot of h2", 30)
        status = wait_for_status(cluster, r"  job 2  compact  2 hosts -> h2:4  \d+ s ago  "
                                          r"aborted \(host h2 has 3 free slots, not the 4 the move "
                                          r"needs\)\n|  job 2  compact .* moving\n",
                                 "the move to be aborted").string
        check("moving" not in status, f"the move was taken:\n{status}")
        filler.kill()
        got = job.finish()
    finally:
        for running in (job, filler):
            if running and running.process.poll() is None:
                running.kill()
    check_equal(re.findall(r"synergy-run: note: .*\n", got[2]),
                ["synergy-run: note: migration of every rank to host h2 aborted at control point "
                 "1: host h2 has 3 free slots, not the 4 the move needs; the job goes on where it "
                 "is\n"], "the job's notes")
    check_like_mpirun(native, 4, arguments, got, "the job whose move was aborted")
    check_equal(decisions_asked(daemons), 1, "decisions taken")
    check(re.search(r"migration decisions: 1, newest first", cluster.status()[1]),
          f"status does not show one decision:\n{cluster.status()[1]}")


def case_sched_lease(cluster):
    """Two daemons: one holds synergy:scheduler:leader. Stopped with
    SIGTERM, it gives the lease up and the other takes it; that one killed
    with SIGKILL, the lease expires (at most 2 s here) and a daemon started
    afterwards takes it."""
    cluster.start_redis()
    options = ("--decide-every", "0.5")
    daemons = {host: cluster.start_daemon(host, address, 2, options=options)
               for host, address in (("h2", "127.0.0.2"), ("h3", "127.0.0.3"))}

    def holder():
        return redis_command(cluster.redis_port, "GET", "synergy:scheduler:leader")

    first = wait_for(lambda: holder() in daemons and holder(), 30, "a daemon to take the lease")
    other = "h3" if first == "h2" else "h2"
    daemons[first].process.send_signal(signal.SIGTERM)
    check_equal(daemons[first].process.wait(timeout=30), 0, f"{first}'s exit status")
    # Given up on the way out, not left to expire.
    check(holder() != first, f"{first} still holds the lease after it stopped")
    wait_for(lambda: holder() == other, 30, f"{other} to take the lease from {first}")
    daemons[other].process.kill()
    daemons[other].process.wait(timeout=30)
    wait_for(lambda: holder() is None, 30, f"the lease of the killed {other} to expire")
    cluster.start_daemon("h4", "127.0.0.4", 2, options=options)
    wait_for(lambda: holder() == "h4", 30, "h4 to take the lease")


CASES = {
    "sched-consolidate": case_sched_consolidate,
    "sched-consolidate-live": case_sched_consolidate_live,
    "sched-no-gain": case_sched_no_gain,
    "sched-aborted": case_sched_aborted,
    "sched-lease": case_sched_lease,
}


if __name__ == "__main__":
    sys.exit(cluster_test.main(CASES, __doc__))
