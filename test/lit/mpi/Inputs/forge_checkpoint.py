#!/usr/bin/env python3
# Forges a checkpoint file the way an attacker who can write the checkpoint
# directory could: changes bytes of its payload and then recomputes its
# CRC-32C (the layout is runtime/checkpoint/CheckpointFile.h: the checksum
# is the u32 at offset 64, over the 64 bytes before it and the payload),
# so that what --resume must refuse is the forged content, not the checksum.
# test/fuzz/checkpoint-file/make-seeds.py takes crc32c() from here.
#
# A text is found as the file's fields hold it, after its u32 length (so a
# copy of it in guest memory is not taken for it).
#
#   forge_checkpoint.py FILE --replace OLD NEW      same-length texts
#   forge_checkpoint.py FILE --u32-before TEXT DISTANCE VALUE
#       writes VALUE (little-endian u32) DISTANCE bytes before the first TEXT
import argparse
import struct

HEADER = 64
CHECKSUM = 4


def crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


CRC32C_TABLE = crc32c_table()


def crc32c(data):
    """CRC-32C (Castagnoli, reflected 0x82F63B78), as runtime/util/Crc32c.h."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def find_field(data, text):
    at = data.find(struct.pack("<I", len(text)) + text)
    if at < 0:
        raise SystemExit("forge_checkpoint: no field holds %r" % text)
    return at + 4


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--replace", nargs=2)
    parser.add_argument("--u32-before", nargs=3)
    options = parser.parse_args()
    with open(options.file, "rb") as f:
        data = bytearray(f.read())
    if options.replace:
        old, new = (s.encode() for s in options.replace)
        if len(old) != len(new):
            raise SystemExit("forge_checkpoint: %r is not as long as %r" % (old, new))
        at = find_field(data, old)
        data[at:at + len(old)] = new
    if options.u32_before:
        text, distance, value = options.u32_before
        at = find_field(data, text.encode()) - int(distance)
        data[at:at + 4] = struct.pack("<I", int(value))
    checksum = crc32c(bytes(data[:HEADER]) + bytes(data[HEADER + CHECKSUM:]))
    data[HEADER:HEADER + CHECKSUM] = struct.pack("<I", checksum)
    with open(options.file, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
