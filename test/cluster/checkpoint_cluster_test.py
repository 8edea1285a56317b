#!/usr/bin/env python3
"""Checkpoints of jobs spread over hosts: deadlocks, chaos, copies, grants.

The cases of cluster_test.py's kind (its Cluster, real redis-server and
synergyd on 127.0.0.2 ...), for `--checkpoint-every` across hosts:

  checkpoint-deadlock  a deadlock with ranks at a control point is reported
                       as on one host (same report, same status, bounded)

    checkpoint_cluster_test.py --bin-dir build/bin --client build/test/cluster/cluster-test-client \\
                               --redis-server /usr/bin/redis-server CASE
"""
import argparse
import os
import subprocess
import sys
import tempfile

from cluster_test import (Cluster, check, check_equal, deadlock_report, run_tool,
                          start_three_hosts, wait_for)

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
    checkpointing run's report and exit status, then free
    every slot (a hang fails after 120 s): a rank of a part other than 0 waiting for part 0's decision
    (checkpoint_deadlock.c), part 0's rank waiting for the other parts'
    votes (checkpoint_root_deadlock.c), and deadlocks no rank reaches a
    control point in, whose report is also the one without checkpoints."""
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


CASES = {
    "checkpoint-deadlock": case_checkpoint_deadlock,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--client", required=True)
    parser.add_argument("--redis-server", default="redis-server")
    parser.add_argument("case", choices=sorted(CASES))
    args = parser.parse_args()
    args.only = []
    with tempfile.TemporaryDirectory(prefix="synergy-checkpoint-test-") as workdir:
        cluster = Cluster(args, workdir)
        try:
            CASES[args.case](cluster)
        except Exception as failure:
            print(f"FAIL: {args.case}: {type(failure).__name__}: {failure}", file=sys.stderr)
            for name in sorted(os.listdir(workdir)):
                if name.endswith(".log"):
                    with open(os.path.join(workdir, name)) as f:
                        print(f"--- {name}\n{f.read()}", file=sys.stderr)
            return 1
        finally:
            cluster.stop()
    print(f"PASS: {args.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
