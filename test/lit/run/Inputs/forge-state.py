"""Forges an engine state file the way an attacker would: edits one record of
a real saved state and recomputes the checksum exactly as
runtime/engine/StateFile.cpp does (SHA-256, in hex, of everything before
the "checksum " line), so only the runtime's checks against the design and
the grants can refuse it.

usage: forge-state.py IN OUT EDIT VALUE
  EDIT: none | file-path | file-position | file-mode | tick | monitor-task |
        monitor-values; monitor-task's VALUE may be "other" for the id of a
        task next to the $monitor.
"""
import hashlib
import re
import sys

source, target, edit, value = sys.argv[1:5]
text = open(source, "rb").read().decode()
body = text[: text.rindex("checksum ")]
lines = body.splitlines()


def quoted(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def edit_line(prefix, change):
    for i, line in enumerate(lines):
        if line.startswith(prefix):
            lines[i] = change(line)
            return
    sys.exit("forge-state.py: no '%s' record to edit" % prefix.strip())


file_record = re.compile(r'^file (\d+) (\S+) "(.*?)" "(.*)"$')
monitor_record = re.compile(r'^monitor (\d+) (\d) "(.*)"$')


def file_field(index):
    def change(line):
        fields = list(file_record.match(line).groups())
        fields[index] = value
        return "file %s %s %s %s" % (fields[0], fields[1], quoted(fields[2]), quoted(fields[3]))
    return change


def monitor_field(index):
    def change(line):
        fields = list(monitor_record.match(line).groups())
        if index == 0 and value == "other":
            fields[0] = "1" if fields[0] != "1" else "2"
        else:
            fields[index] = value
        return "monitor %s %s %s" % (fields[0], fields[1], quoted(fields[2]))
    return change


if edit == "file-path":
    edit_line("file ", file_field(3))
elif edit == "file-position":
    edit_line("file ", file_field(1))
elif edit == "file-mode":
    edit_line("file ", file_field(2))
elif edit == "tick":
    edit_line("tick ", lambda line: "tick " + value)
elif edit == "monitor-task":
    edit_line("monitor ", monitor_field(0))
elif edit == "monitor-values":
    edit_line("monitor ", monitor_field(2))
elif edit != "none":
    sys.exit("forge-state.py: unknown edit " + edit)

body = "\n".join(lines) + "\n"
digest = hashlib.sha256(body.encode()).hexdigest()
open(target, "wb").write((body + "checksum " + digest + "\n").encode())
