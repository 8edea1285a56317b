#!/usr/bin/env python3
"""The cost of fork() in a process granule against a native fork.

Builds bench/process/fork_cost.c with synergy-cc and with the host's clang,
and for each heap size runs both: each round forks, the child reads a byte of
every heap page and exits with their sum, and the parent waits. Prints the
median round of each, their ratio (granule / native) and checks that both
builds' checksums of the children's statuses agree; writes the same as JSON.

  bench/process/fork_bench.py --build BUILD [--mib 0 16 64] [--rounds 20] [--json F]

A granule's fork copies its whole memory into the child's snapshot (the
runtime's copy-on-write is for the child's own writes), where the kernel's
fork only copies page tables, so the ratio grows with the heap.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

RESULT = re.compile(r"median_us ([0-9.]+) checksum (\d+)")


def run(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600).stdout
    match = RESULT.search(out)
    if not match:
        sys.exit(f"unexpected output from {command[0]}: {out!r}")
    return float(match.group(1)), int(match.group(2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--mib", type=int, nargs="+", default=[0, 16, 64])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json")
    options = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.join(here, "fork_cost.c")
    clang = shutil.which("clang-19") or shutil.which("clang")
    if not clang:
        sys.exit("fork_bench.py: no host clang for the native peer")
    with tempfile.TemporaryDirectory() as work:
        wasm = os.path.join(work, "fork_cost.wasm")
        native = os.path.join(work, "fork_cost")
        subprocess.run([os.path.join(options.build, "bin", "synergy-cc"), "-O2", source, "-o",
                        wasm], check=True)
        subprocess.run([clang, "-O2", source, "-o", native], check=True)
        synergy_run = os.path.join(options.build, "bin", "synergy-run")
        rows = []
        print(f"{'heap MiB':>8} {'granule us':>11} {'native us':>10} {'ratio':>7}")
        for mib in options.mib:
            arguments = [str(mib), str(options.rounds)]
            granule, granule_sum = run([synergy_run, "--max-memory", "4GiB", wasm, *arguments])
            host, host_sum = run([native, *arguments])
            if granule_sum != host_sum:
                sys.exit(f"fork_bench.py: checksums differ at {mib} MiB: {granule_sum} against "
                         f"{host_sum}")
            rows.append({"heap_mib": mib, "granule_us": granule, "native_us": host,
                         "ratio": granule / host if host else None})
            print(f"{mib:>8} {granule:>11.1f} {host:>10.1f} {granule / host:>7.2f}")
    if options.json:
        with open(options.json, "w") as out:
            json.dump({"rounds": options.rounds, "rows": rows}, out, indent=2)


if __name__ == "__main__":
    main()
