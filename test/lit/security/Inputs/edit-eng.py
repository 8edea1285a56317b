#!/usr/bin/env python3
# Crafts a hostile .eng from a real one: replaces the first occurrence of OLD
# by NEW (both with Python backslash escapes, so a RUN line can write \n and
# \") and, when the edit falls inside the Verilog text, rewrites the
# `verilog <byteCount>` record, so the result is valid in every other respect.
# Usage: edit-eng.py IN OUT OLD NEW [--keep-count]
import sys


def unescape(text):
    return text.encode("latin-1").decode("unicode_escape").encode("latin-1")


def main():
    source, target, old, new = sys.argv[1:5]
    keep_count = "--keep-count" in sys.argv[5:]
    data = open(source, "rb").read()
    old, new = unescape(old), unescape(new)
    at = data.find(old)
    if at < 0:
        sys.exit("edit-eng.py: %r does not occur in %s" % (old, source))
    data = data[:at] + new + data[at + len(old):]
    record = data.find(b"\nverilog ") + 1
    start = data.find(b"\n", record) + 1
    if not keep_count and at >= start:
        size = int(data[record + len(b"verilog "):start - 1]) + len(new) - len(old)
        data = data[:record] + b"verilog %d\n" % size + data[start:]
    open(target, "wb").write(data)


main()
