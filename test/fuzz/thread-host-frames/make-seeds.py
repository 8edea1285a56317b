#!/usr/bin/env python3
# Writes the seed corpus of the thread-host-frames fuzz target
# (FuzzThreadHostFrames.cpp), in the harness's record form: a copy update of
# one chunk, then one of two chunks that grows the memory; an honest link
# shipping writes that grow the sender's memory; and one accepted payload of
# each decoder (a MemoryDiff, a SyncRequest, a SyncReply, a RegionShare), so
# that mutations start past the checks a random input never passes. Run it
# again after a format change:
#   python3 test/fuzz/thread-host-frames/make-seeds.py test/fuzz/thread-host-frames/corpus
import os
import struct
import sys

HOSTILE_UPDATE, SENDER_WRITES, HONEST_SHIP = 0, 2, 3
MEMORY_DIFF, SYNC_REQUEST, SYNC_REPLY, REGION_SHARE = 4, 5, 6, 7


def record(op, body):
    return struct.pack("<BH", op, len(body)) + body


def leb128(value):
    out = bytearray()
    while True:
        byte = value & 0x7f
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def memory_diff(ranges):
    """ranges: (offset, bytes), ascending and apart."""
    out, end = leb128(len(ranges)), 0
    for offset, data in ranges:
        out += leb128(offset - end) + leb128(len(data))
        end = offset + len(data)
    return out + b"".join(data for _, data in ranges)


def copy_update(sequence, pages, chunk, chunks, ranges):
    return struct.pack("<QQII", sequence, pages, chunk, chunks) + memory_diff(ranges)


def region_share():
    head = struct.pack("<Q", 1) + struct.pack("<12I", 5, 4, 1, 1, 4, 1, 0, 2, 1, 1, 2, 1)
    threads = struct.pack("<4I", 1, 1, 4096, 8192) + struct.pack("<4I", 2, 2, 8192, 12288)
    return head + threads + struct.pack("<I", 77)


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    seeds = {
        "copy-updates.bin":
            record(HOSTILE_UPDATE, copy_update(1, 1, 0, 1, [(16, b"abcd"), (120, b"xyz")]))
            + record(HOSTILE_UPDATE, copy_update(2, 2, 0, 2, [(65536 + 8, b"grown")]))
            + record(HOSTILE_UPDATE, copy_update(2, 2, 1, 2, [(70000, b"second chunk")])),
        "honest-link.bin":
            record(SENDER_WRITES, struct.pack("<BI", 0, 100) + b"first bytes")
            + record(HONEST_SHIP, struct.pack("<H", 0))
            + record(SENDER_WRITES, struct.pack("<BI", 1, 70000) + bytes(range(200)))
            + record(HONEST_SHIP, struct.pack("<H", 300)),
        "decoders.bin":
            record(MEMORY_DIFF, memory_diff([(0, b"a"), (10, b"bc")]))
            + record(SYNC_REQUEST, struct.pack("<II5QI", 2, 1, 0, 0, 0, 0, 0, 0))
            + record(SYNC_REPLY, struct.pack("<II2QI", 1, 1, 5, 6, 0))
            + record(REGION_SHARE, region_share()),
    }
    for name, content in seeds.items():
        with open(os.path.join(directory, name), "wb") as out:
            out.write(content)


if __name__ == "__main__":
    main()
