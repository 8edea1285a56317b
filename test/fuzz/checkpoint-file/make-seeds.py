#!/usr/bin/env python3
# Writes the seed corpus of the checkpoint-file fuzz target: small
# checkpoints in the current format (runtime/checkpoint/CheckpointFile.h),
# valid ones with and without grants, variables and open files, and a few
# that the decoder refuses near the open-file checks ("..", a grant out of
# range, a descriptor among the preopens), so that mutations start on both
# sides of them. Run it again after a format change:
#   python3 test/fuzz/checkpoint-file/make-seeds.py test/fuzz/checkpoint-file/corpus
import hashlib
import os
import struct
import sys

VERSION = 4
PAGE = 65536


def text(value):
    data = value.encode()
    return struct.pack("<I", len(data)) + data


def job(grants=(), env=(), program="/tmp/prog.wasm", args=("prog.wasm",)):
    out = struct.pack("<qq", 12, -1) + text(program)
    out += struct.pack("<I", len(args)) + b"".join(text(a) for a in args)
    out += struct.pack("<I", len(grants))
    for host, guest, read_only in grants:
        out += text(host) + text(guest) + struct.pack("<B", read_only)
    out += struct.pack("<I", len(env)) + b"".join(text(v) for v in env)
    return out + text("")


def open_file(fd, grant, path, kind=0, access=3, fdflags=0, offset=0, length=-1):
    return (struct.pack("<II", fd, grant) + text(path) +
            struct.pack("<BBHQQQq", kind, access, fdflags, 0x1fffffff, 0x1fffffff, offset, length))


def rank(number, files=()):
    globals_ = bytes(range(8))
    out = struct.pack("<III", number, PAGE, len(globals_)) + globals_
    out += struct.pack("<QI", 2 * PAGE, 1)
    run = b"abc" + bytes([number])
    out += struct.pack("<QQ", 0x100, len(run)) + run
    return out + struct.pack("<I", len(files)) + b"".join(files)


def checkpoint(ranks, job_record):
    payload = job_record + b"".join(ranks)
    header = b"SYNCKPT\0" + struct.pack("<IIQ", VERSION, len(ranks), 7) + bytes(32)
    header += struct.pack("<Q", len(payload))
    return header + hashlib.sha256(header + payload).digest() + payload


def main():
    directory = sys.argv[1]
    grants = [("/srv/data", "/data", 0), ("/srv/ref", "/ref", 1)]
    log = open_file(5, 0, "logs/rank0.log", access=3, fdflags=1, offset=40, length=40)
    ref = open_file(6, 1, "in.txt", access=1, offset=6)
    listing = open_file(7, 0, ".", kind=1, access=1)
    seeds = {
        "one-rank.syck": checkpoint([rank(0)], job(grants[1:], ["K=V"])),
        "two-ranks.syck": checkpoint([rank(0), rank(1)], job()),
        "open-files.syck": checkpoint([rank(0, [log, ref, listing])], job(grants)),
        "open-files-two-ranks.syck": checkpoint(
            [rank(0, [log]), rank(1, [open_file(5, 0, "logs/rank1.log", access=2, length=0)])],
            job(grants)),
        "open-file-dotdot.syck": checkpoint([rank(0, [open_file(5, 0, "../etc/passwd", access=1)])],
                                            job(grants)),
        "open-file-bad-grant.syck": checkpoint([rank(0, [open_file(5, 9, "in.txt", access=1)])],
                                               job(grants)),
        "open-file-preopen-fd.syck": checkpoint([rank(0, [open_file(4, 0, "in.txt", access=1)])],
                                                job(grants)),
    }
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
