#!/usr/bin/env python3
# Writes the seed corpus of the checkpoint-part-file fuzz target
# (FuzzCheckpointPartFile.cpp): part files in the current format
# (runtime/checkpoint/PartFile.h) holding a run of consecutive ranks, a set
# with gaps (a rank moved live), one rank, and none of the sections empty
# or all of them, with their sections made by the checkpoint-file seeds'
# own writer; and a few the decoder refuses (a section length past the end,
# a wrong checksum, the previous version), so that mutations start on both
# sides of the checks. Run it again after a format change:
#   python3 test/fuzz/checkpoint-part-file/make-seeds.py test/fuzz/checkpoint-part-file/corpus
import importlib.util
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "checkpoint_seeds", os.path.join(HERE, "..", "checkpoint-file", "make-seeds.py"))
checkpoint_seeds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checkpoint_seeds)

VERSION = 3


def part_file(sequence, part, sections, unresumable="", version=VERSION, checksum_flip=0,
              length_extra=0):
    """sections: (world rank, section bytes), in increasing rank order."""
    head = b"SYNCKPRT" + struct.pack("<IQII", version, sequence, part, len(sections))
    for i, (rank, section) in enumerate(sections):
        extra = length_extra if i == len(sections) - 1 else 0
        head += struct.pack("<IQ", rank, len(section) + extra)
    head += checkpoint_seeds.text(unresumable)
    body = b"".join(section for _, section in sections)
    checksum = checkpoint_seeds.crc32c(head + body) ^ checksum_flip
    return head + struct.pack("<I", checksum) + body


def main():
    directory = sys.argv[1]
    rank = checkpoint_seeds.rank
    seeds = {
        "consecutive.part": part_file(4, 1, [(2, rank(2)), (3, rank(3))]),
        "with-gap.part": part_file(4, 1, [(1, rank(1)), (4, rank(4)), (5, rank(5))]),
        "one-rank.part": part_file(9, 2, [(6, rank(6))], "rank 6: a pipe is open"),
        "empty-sections.part": part_file(1, 1, [(0, b""), (3, b"")]),
        "length-past-end.part": part_file(4, 1, [(1, rank(1)), (4, rank(4))], length_extra=1),
        "bad-checksum.part": part_file(4, 1, [(2, rank(2))], checksum_flip=1),
        "version-2.part": part_file(4, 1, [(2, rank(2))], version=2),
    }
    os.makedirs(directory, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
