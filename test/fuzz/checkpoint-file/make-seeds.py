#!/usr/bin/env python3
# Writes the seed corpus of the checkpoint-file fuzz target: small
# checkpoints in the current format (runtime/checkpoint/CheckpointFile.h),
# valid ones with and without grants, variables, open files, MPI objects and
# host parts' output counts,
# and a few that the decoder refuses near the open-file checks ("..", a
# grant out of range, a descriptor among the preopens) and the MPI object
# checks (a segment past the true bounds, a group member past the job, an
# old type that is a later node, a cartesian topology larger than its
# communicator), so that mutations start on both sides of
# them. Run it again after a format change:
#   python3 test/fuzz/checkpoint-file/make-seeds.py test/fuzz/checkpoint-file/corpus
import os
import struct
import sys

# The checksum's function, shared with the lit tests' forger.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lit",
                                "mpi", "Inputs"))
from forge_checkpoint import crc32c  # noqa: E402

VERSION = 8
PAGE = 65536


def text(value):
    data = value.encode()
    return struct.pack("<I", len(data)) + data


def job(grants=(), env=(), program="/tmp/prog.wasm", args=("prog.wasm",), parts=()):
    """parts: (job id, part, stdout bytes) of a job spread over hosts."""
    out = struct.pack("<qq", 12, -1) + text(program)
    out += struct.pack("<I", len(args)) + b"".join(text(a) for a in args)
    out += struct.pack("<I", len(grants))
    for host, guest, read_only in grants:
        out += text(host) + text(guest) + struct.pack("<B", read_only)
    out += struct.pack("<I", len(env)) + b"".join(text(v) for v in env)
    out += text("") + struct.pack("<I", len(parts))
    return out + b"".join(struct.pack("<QIQ", *part) for part in parts)


def open_file(fd, grant, path, kind=0, access=3, fdflags=0, offset=0, length=-1):
    return (struct.pack("<II", fd, grant) + text(path) +
            struct.pack("<BBHQQQq", kind, access, fdflags, 0x1fffffff, 0x1fffffff, offset, length))


def datatype_node(segments, size, bounds, alignment=4, element=4, combiner=3, committed=1,
                  integers=(), addresses=(), old_types=()):
    """bounds: lb, ub, trueLb, trueUb; element 4 is Int32, combiner 3 vector."""
    out = struct.pack("<I", len(segments))
    out += b"".join(struct.pack("<qq", offset, length) for offset, length in segments)
    lb, ub, true_lb, true_ub = bounds
    out += struct.pack("<qqqqqqBiB", size, lb, ub, true_lb, true_ub, alignment, element, combiner,
                       committed)
    out += struct.pack("<I", len(integers)) + b"".join(struct.pack("<i", i) for i in integers)
    out += struct.pack("<I", len(addresses)) + b"".join(struct.pack("<q", a) for a in addresses)
    out += struct.pack("<I", len(old_types))
    return out + b"".join(struct.pack("<iI", predefined, node) for predefined, node in old_types)


def comm_record(handle, context, members, name, errhandler=1, dims=None, periods=(),
                attributes=(), nonblocking_collectives=0, windows_spanning_hosts=0):
    out = struct.pack("<III", handle, context, len(members))
    out += b"".join(struct.pack("<I", m) for m in members) + text(name)
    out += struct.pack("<IBI", errhandler, dims is not None, len(dims or ()))
    out += b"".join(struct.pack("<i", d) for d in dims or ()) + bytes(periods)
    out += struct.pack("<I", len(attributes))
    out += b"".join(struct.pack("<IIQ", k, v, order) for k, v, order in attributes)
    return out + struct.pack("<II", nonblocking_collectives, windows_spanning_hosts)


def mpi_objects(nodes=(), types=(), names=(), groups=(), next_op=15, ops=(), next_keyval=32,
                keyvals=(), next_attribute_order=0, next_errhandler=3, errhandlers=(), contexts_drawn=0, comms=()):
    out = struct.pack("<I", len(nodes)) + b"".join(nodes)
    out += struct.pack("<I", len(types)) + b"".join(struct.pack("<II", h, n) for h, n in types)
    out += struct.pack("<I", len(names)) + b"".join(struct.pack("<I", h) + text(n)
                                                     for h, n in names)
    out += struct.pack("<I", len(groups))
    for handle, members in groups:
        out += struct.pack("<II", handle, len(members))
        out += b"".join(struct.pack("<I", m) for m in members)
    out += struct.pack("<II", next_op, len(ops))
    out += b"".join(struct.pack("<IIB", h, f, c) for h, f, c in ops)
    out += struct.pack("<II", next_keyval, len(keyvals))
    out += b"".join(struct.pack("<IIIIB", *k) for k in keyvals)
    out += struct.pack("<Q", next_attribute_order)
    out += struct.pack("<II", next_errhandler, len(errhandlers))
    out += b"".join(struct.pack("<II", h, f) for h, f in errhandlers)
    return out + struct.pack("<II", contexts_drawn, len(comms)) + b"".join(comms)


def sample_mpi_objects(segments=((0, 8),), members=(1, 0), old_node=0, ring_dims=(2,)):
    contiguous = datatype_node([(0, 8)], 8, (0, 8, 0, 8), combiner=2, integers=[2],
                               old_types=[(6, 0)])
    vector = datatype_node(list(segments), 8 * len(segments), (0, 24, 0, 24), committed=0,
                           integers=[2, 1, 2], old_types=[(0, old_node)])
    return mpi_objects([contiguous, vector], [(63, 0), (65, 1)], [(6, "my int"), (65, "vec")],
                       [(2, list(members))], 17, [(16, 5, 1)], 34,
                       [(32, 0, 7, 99, 1), (33, 3, 0, 0, 0)], 5, 4, [(3, 11)], 7,
                       [comm_record(1, 0, [0, 1], "MPI_COMM_WORLD", 2, attributes=[(33, 1234, 4)]),
                        comm_record(2, 1, [0], "MPI_COMM_SELF"),
                        comm_record(3, 4, [1, 0], "ring", 3, list(ring_dims),
                                    [1] * len(ring_dims), nonblocking_collectives=3)])


def rank(number, files=(), objects=None):
    globals_ = bytes(range(8))
    out = struct.pack("<III", number, PAGE, len(globals_)) + globals_
    out += struct.pack("<QI", 2 * PAGE, 1)
    run = b"abc" + bytes([number])
    out += struct.pack("<QQ", 0x100, len(run)) + run
    out += struct.pack("<I", len(files)) + b"".join(files)
    return out + (objects if objects is not None else mpi_objects())


def checkpoint(ranks, job_record):
    payload = job_record + b"".join(ranks)
    header = b"SYNCKPT\0" + struct.pack("<IIQ", VERSION, len(ranks), 7) + bytes(32)
    header += struct.pack("<Q", len(payload))
    return header + struct.pack("<I", crc32c(header + payload)) + payload


def main():
    directory = sys.argv[1]
    grants = [("/srv/data", "/data", 0), ("/srv/ref", "/ref", 1)]
    log = open_file(5, 0, "logs/rank0.log", access=3, fdflags=1, offset=40, length=40)
    ref = open_file(6, 1, "in.txt", access=1, offset=6)
    listing = open_file(7, 0, ".", kind=1, access=1)
    seeds = {
        "one-rank.syck": checkpoint([rank(0)], job(grants[1:], ["K=V"])),
        "two-ranks.syck": checkpoint([rank(0), rank(1)], job()),
        "host-parts.syck": checkpoint([rank(0), rank(1)], job(parts=[(9, 0, 120), (9, 1, 64)])),
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
        "mpi-objects.syck": checkpoint(
            [rank(0, objects=sample_mpi_objects([(0, 8), (16, 8)])), rank(1)], job()),
        "mpi-segment-past-bounds.syck": checkpoint(
            [rank(0, objects=sample_mpi_objects([(0, 8), (20, 8)])), rank(1)], job()),
        "mpi-group-member-past-job.syck": checkpoint(
            [rank(0, objects=sample_mpi_objects(members=(2, 0))), rank(1)], job()),
        "mpi-cart-dims-past-size.syck": checkpoint(
            [rank(0, objects=sample_mpi_objects(ring_dims=(2, 2))), rank(1)], job()),
        "mpi-later-old-type.syck": checkpoint(
            [rank(0, objects=sample_mpi_objects(old_node=1)), rank(1)], job()),
    }
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
