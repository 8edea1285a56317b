"""OpenMPI as the oracle of the MPI differential tests (lit's
mpi_differential.py and the cluster cases).

mpirun forwards each rank's stdout to its own as the pieces come, so on a
loaded machine two ranks' lines have landed inside one another ("rank 0:
rank 3: read 3 contiguous", twice in CI, line-buffered ranks included). The
oracle's output is therefore read from the per-rank files that
`--output-filename` writes, which no other rank touches: each rank's whole
lines, rank by rank, then the ranks' unterminated last pieces joined on one
line, as a terminal would show them run together.
"""
import glob
import os
import subprocess
import tempfile


def _collect(directory):
    lines, tails = [], []
    ranks = glob.glob(os.path.join(directory, "*", "rank.*"))
    for rank in sorted(ranks, key=lambda path: int(path.rsplit(".", 1)[1])):
        try:
            with open(os.path.join(rank, "stdout"), "rb") as stream:
                text = stream.read().decode(errors="replace")
        except FileNotFoundError:
            continue
        whole, _, tail = text.rpartition("\n")
        if whole or text.endswith("\n"):
            lines.extend(whole.split("\n"))
        if tail:
            tails.append(tail)
    if tails:
        lines.append("".join(tails))
    return "".join(line + "\n" for line in lines)


def run_openmpi(ranks, command, timeout, env=None):
    """Runs `mpirun -np ranks command...`; returns (exit status or None on a
    timeout, stdout as described above, mpirun's stderr). mpirun on a
    loaded, oversubscribed machine occasionally fails to start its daemons
    (non-zero exit and no output at all): that is not the program's answer,
    so it is tried again; a real failure repeats."""
    env = dict(env if env is not None else os.environ,
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for _ in range(3):
        with tempfile.TemporaryDirectory(prefix="openmpi-oracle-") as directory:
            mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks),
                      "--output-filename", directory, *command]
            try:
                done = subprocess.run(mpirun, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      timeout=timeout, env=env)
            except subprocess.TimeoutExpired:
                return None, "", "mpirun timed out after %d s" % timeout
            out = _collect(directory)
        err = done.stderr.decode(errors="replace")
        if done.returncode == 0 or out:
            break
    return done.returncode, out, err
