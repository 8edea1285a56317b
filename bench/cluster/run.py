#!/usr/bin/env python3
"""Loopback ping-pong latency and bandwidth of the candidate transport libraries.

Runs build/bench/synergy-transport-pingpong for asio (TCP with our own framing),
ZeroMQ (PAIR) and NNG (pair1) at message sizes 8 B .. 4 MiB, prints a table of
median round-trip times, one-way bandwidth and the ratio of each library to
asio, and writes the same as JSON. This is the measurement behind the choice
of asio for runtime/transport (see README.md, "Running on several machines").

    cmake --build build --target synergy-transport-pingpong
    bench/cluster/run.py --build build --json transport.json
"""
import argparse
import json
import subprocess
import sys

LIBRARIES = ["asio", "zmq", "nng"]
SIZES = [8, 64, 512, 4096, 32768, 262144, 1048576, 4194304]


def iterations_for(size):
    # Enough rounds for a stable median without minutes of runtime at 4 MiB.
    return max(20, min(2000, (64 << 20) // (size * 4)))


def measure(binary, library, size):
    out = subprocess.run([binary, library, str(size), str(iterations_for(size))],
                         check=True, capture_output=True, text=True, timeout=300).stdout.split()
    return float(out[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    binary = f"{args.build}/bench/synergy-transport-pingpong"

    rows = []
    for size in SIZES:
        row = {"size": size}
        for library in LIBRARIES:
            micros = measure(binary, library, size)
            row[library] = {"round_trip_us": micros,
                            "bandwidth_MBps": size / (micros / 2) if micros > 0 else 0.0}
        rows.append(row)

    header = f"{'size':>9}" + "".join(f"{lib + ' rtt us':>14}{lib + ' MB/s':>12}" for lib in LIBRARIES)
    header += "".join(f"{lib + '/asio':>10}" for lib in LIBRARIES[1:])
    print(header)
    for row in rows:
        line = f"{row['size']:>9}"
        for lib in LIBRARIES:
            line += f"{row[lib]['round_trip_us']:>14.1f}{row[lib]['bandwidth_MBps']:>12.1f}"
        for lib in LIBRARIES[1:]:
            line += f"{row[lib]['round_trip_us'] / row['asio']['round_trip_us']:>10.2f}"
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "transport-pingpong", "unit": "microseconds per round trip",
                       "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
