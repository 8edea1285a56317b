#!/usr/bin/env python3
"""Times C++ exceptions in granules against native (issue 18).

Builds bench/setjmp/exception_cost.cpp natively (clang++-19) and as a granule
(synergy-c++), with exceptions and with -fno-exceptions, runs each mode in
native/granule pairs and reports the median CPU time (user+sys of the child,
so the machine's load does not count) and the ratio granule / native. The
first granule run of each build is not timed: it fills the AOT cache.

  bench/setjmp/run-exceptions.py --build build [--repeat 5] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# (row, mode, count, extra compile flags): one row per measured shape.
ROWS = [
    ("throw+catch, 3 frames", "throw", 2000000, []),
    ("calls in try, none throws", "call", 50000000, []),
    ("same calls, -fno-exceptions", "call", 50000000, ["-fno-exceptions", "-DNO_EXCEPTIONS"]),
    ("strings, vector, map + RAII", "containers", 300000, []),
    ("same, -fno-exceptions", "containers", 300000, ["-fno-exceptions", "-DNO_EXCEPTIONS"]),
    ("virtual calls + RAII", "virtual", 50000000, []),
    ("same, -fno-exceptions", "virtual", 50000000, ["-fno-exceptions", "-DNO_EXCEPTIONS"]),
]


def cpu_seconds(argv):
    """Runs argv to completion; returns its user+sys CPU seconds and stdout."""
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(argv, stdout=out)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            sys.exit("%s exited with %d" % (" ".join(argv), process.returncode))
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, out.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="the Synergy build directory")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", help="also write the results here")
    options = parser.parse_args()
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exception_cost.cpp")
    bin_dir = os.path.join(os.path.abspath(options.build), "bin")
    results = []
    with tempfile.TemporaryDirectory() as work:
        for index, (row, mode, count, flags) in enumerate(ROWS):
            native = os.path.join(work, "native%d" % index)
            granule = os.path.join(work, "granule%d.wasm" % index)
            subprocess.check_call(["clang++-19", "-O2"] + flags + [source, "-o", native])
            subprocess.check_call([os.path.join(bin_dir, "synergy-c++"), "-O2"] + flags +
                                  [source, "-o", granule])
            run_granule = [os.path.join(bin_dir, "synergy-run"), granule, mode, str(count)]
            run_native = [native, mode, str(count)]
            cpu_seconds(run_granule)  # AOT compile, not timed
            native_times, granule_times = [], []
            for _ in range(options.repeat):
                native_time, native_out = cpu_seconds(run_native)
                granule_time, granule_out = cpu_seconds(run_granule)
                if native_out != granule_out:
                    sys.exit("%s: outputs differ: %r vs %r" % (row, native_out, granule_out))
                native_times.append(native_time)
                granule_times.append(granule_time)
            native_median = statistics.median(native_times)
            granule_median = statistics.median(granule_times)
            results.append({
                "row": row, "mode": mode, "count": count, "flags": flags,
                "native_cpu_s": native_median, "granule_cpu_s": granule_median,
                "ratio": granule_median / native_median if native_median > 0 else None,
                "granule_ns_per_op": granule_median / count * 1e9,
                "native_ns_per_op": native_median / count * 1e9,
            })
    print("%-30s %12s %12s %8s %12s %12s" %
          ("shape", "native cpu", "granule cpu", "ratio", "native ns/op", "granule ns/op"))
    for r in results:
        ratio = "%.2fx" % r["ratio"] if r["ratio"] else "-"
        print("%-30s %11.3fs %11.3fs %8s %12.1f %12.1f" %
              (r["row"], r["native_cpu_s"], r["granule_cpu_s"], ratio,
               r["native_ns_per_op"], r["granule_ns_per_op"]))
    if options.json:
        with open(options.json, "w") as out:
            json.dump({"benchmark": "cxx-exceptions", "repeat": options.repeat,
                       "results": results}, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
