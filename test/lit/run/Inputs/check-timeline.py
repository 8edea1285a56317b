#!/usr/bin/env python3
"""Checks a `synergy-run --timeline` CSV against the run's own totals.

Usage: check-timeline.py TIMELINE.csv STATS.txt

STATS.txt holds the run's stderr with SYNERGY_ENGINE_STATS=1. The timeline
must have the documented header, at least one row, time, ticks and tasks
that never decrease, rates that are not negative, engines in the order
none, software, compiled (none may be skipped, none may come back), and a
last row whose totals are the stats line's. Prints one line per finding;
no check depends on how fast the machine is.
"""
import re
import sys

ENGINES = ["none", "software", "compiled"]


def main():
    lines = open(sys.argv[1]).read().splitlines()
    stats = re.search(r"synergy-engine-stats ticks=(\d+) tasks=(\d+) .*engine=(\S+)", open(sys.argv[2]).read())
    if not stats:
        print("no stats line")
        return 1
    print("header: " + lines[0])
    rows = [line.split(",") for line in lines[1:]]
    if not rows:
        print("no rows")
        return 1
    previous = None
    for row in rows:
        if len(row) != 6 or row[5] not in ENGINES:
            print("malformed row: " + ",".join(row))
            return 1
        time, ticks, tick_rate, tasks, task_rate = float(row[0]), int(row[1]), float(row[2]), int(row[3]), float(row[4])
        if tick_rate < 0 or task_rate < 0:
            print("negative rate: " + ",".join(row))
            return 1
        if previous:
            if time < previous[0] or ticks < previous[1] or tasks < previous[3]:
                print("decreasing: " + ",".join(row))
                return 1
            if ENGINES.index(row[5]) < ENGINES.index(previous[5]):
                print("engine went back: " + ",".join(row))
                return 1
        previous = (time, ticks, tick_rate, tasks, task_rate, row[5])
    print("rows: monotone")
    last = rows[-1]
    print("last row: ticks=%s tasks=%s engine=%s" % (last[1], last[3], last[5]))
    print("stats: ticks=%s tasks=%s engine=%s" % (stats.group(1), stats.group(2), stats.group(3)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
