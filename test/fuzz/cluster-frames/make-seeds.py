#!/usr/bin/env python3
# Writes the seed corpus of the cluster-frames fuzz target
# (FuzzClusterFrames.cpp): whole live-move sessions, each in the harness's
# record form, that end with the section landed (CRC-32C right), from the
# target's side, from part 0 as the source and from part 0 as the target;
# and one accepted payload of each decoder (RunJob with grants, a checkpoint
# section and a rank -> part table; RouteSwitch; its answer; a frame
# header), so that mutations start past the checks a random input never
# passes. Run it again after a format change:
#   python3 test/fuzz/cluster-frames/make-seeds.py test/fuzz/cluster-frames/corpus
import importlib.util
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "checkpoint_seeds", os.path.join(HERE, "..", "checkpoint-file", "make-seeds.py"))
checkpoint_seeds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checkpoint_seeds)

# The harness's frame types, in its kTransferTypes order.
ANNOUNCE, ACCEPT, HEAD, DATA, LANDED, ABORT = range(6)
PARTS = 3
# Byte 0: this part, in a job of three parts.
def session_head(self_part):
    return bytes([(1 << 4) | self_part])


def record(op, part, body):
    return struct.pack("<BBH", op, part, len(body)) + body


def frame(type_index, from_part, body):
    # The harness takes part % 4 as the sender and part / 8 as the type.
    return record(0, type_index * 8 + from_part, body)


def announcement(move, rank, source, target, size):
    return struct.pack("<QIIIIQ", move, rank, source, target, 0, size)


def section(size):
    body = bytes((i * 7 + 3) & 0xff for i in range(size - 4))
    return body + struct.pack("<I", checkpoint_seeds.crc32c(body))


def chunks(move, from_part, data, chunk):
    out = b""
    for offset in range(0, len(data), chunk):
        piece = data[offset:offset + chunk]
        out += frame(HEAD, from_part, struct.pack("<QQQ", move, offset, len(piece)))
        out += frame(DATA, from_part, piece)
    return out


def string(text):
    return struct.pack("<I", len(text)) + text


def strings(items):
    return struct.pack("<I", len(items)) + b"".join(string(item) for item in items)


def run_job():
    out = struct.pack("<QIB", 42, 2, 1 | 2 | 4 | 8) + bytes(range(32))
    out += strings([b"app.wasm", b"-n", b"3"]) + strings([b"OMP_NUM_THREADS=2"])
    out += struct.pack("<II", 2, 1) + struct.pack("<II", 1, 2)   # parts 1 and 2 ranks, this is 1
    out += struct.pack("<III", 1, 0, 1)                          # rank -> part
    out += struct.pack("<I", 1) + string(b"/srv/data") + string(b"/data") + b"\x01"
    out += string(b"/srv/work")
    out += struct.pack("<Q", 5000000) + string(b"/srv/ckpt") + string(b"app.wasm") + b"\x01"
    out += struct.pack("<Q", 3)
    return out


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    data = section(3000)
    seeds = {
        # Part 1 is the target of part 2's rank; part 0 announces.
        "target-lands.bin": session_head(1) + frame(ANNOUNCE, 0, announcement(7, 3, 2, 1, len(data)))
        + chunks(7, 2, data, 1024),
        # Part 0 is the source: it announces, part 1 accepts, part 0 ships, part 1 landed.
        "source-ships.bin": session_head(0)
        + record(2, 0, struct.pack("<QHBBI", 9, 1, 0, 1, 64))
        + frame(ACCEPT, 1, struct.pack("<Q", 9)) + record(3, 0, struct.pack("<Q", 9) + (64).to_bytes(3, "little"))
        + frame(LANDED, 1, struct.pack("<QI", 9, 0)),
        # Part 0 is the target of part 2's rank, and a second move aborts.
        "part0-target.bin": session_head(0)
        + record(2, 0, struct.pack("<QHBBI", 11, 4, 2, 0, len(data)))
        + chunks(11, 2, data, 2048)
        + record(2, 0, struct.pack("<QHBBI", 12, 5, 1, 2, 100))
        + frame(ABORT, 1, struct.pack("<QI", 12, 4) + b"full"),
        "decoders.bin": session_head(2)
        + record(6, 0, run_job())
        + record(8, 16 * 2 + 3, struct.pack("<QQBII", 5, 2, 1, 4, 3) + struct.pack("<IIII", 0, 1, 2, 1))
        + record(9, 0, struct.pack("<QBBI", 5, 1, 0, 4) + b"busy")
        + record(10, 0, b"SYN1" + struct.pack("<HHQ", 12, 0, 40)),
    }
    for name, content in seeds.items():
        with open(os.path.join(directory, name), "wb") as out:
            out.write(content)


if __name__ == "__main__":
    main()
