#!/usr/bin/env python3
"""Writes hostile .wasm modules for the trust-boundary tests.

usage: hostile_wasm.py KIND MARKER OUT

Every module is a complete WASI program (it prints "clean run" through
fd_write) plus one hostile part chosen by KIND. The hostile part carries C
that, if it ever reached a C compiler, would create the file MARKER from a
constructor inside synergy-run:

  import-newline   an import name: a newline, then the C
  import-comment   an import name: `*/`, then the C
  export-comment   an export name: `*/`, then the C
  debug-names      function, local and global names in the "name" section,
                   plus a producers section, all holding the C (accepted:
                   those names are rewritten before wasm2c sees them)
  trap-debug-name  as debug-names, and the named function traps
"""
import sys


def leb(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def name(text):
    data = text.encode() if isinstance(text, str) else text
    return leb(len(data)) + data


def section(ident, body):
    return bytes([ident]) + leb(len(body)) + body


def vector(items):
    return leb(len(items)) + b"".join(items)


def name_map(pairs):
    return vector([leb(index) + name(text) for index, text in pairs])


def subsection(ident, body):
    return bytes([ident]) + leb(len(body)) + body


def build(kind, marker):
    payload = ('__attribute__((constructor)) static void synergy_injected(void) '
               '{ extern int creat(const char*, unsigned); creat("%s", 0600); }' % marker)
    # Guarded so that the copies wasm2c writes into the header and the C file
    # (both compiled into one object) define the constructor once.
    guarded = "\n#ifndef SYNERGY_INJECTED\n#define SYNERGY_INJECTED\n" + payload + "\n#endif\n"
    fd_write = "fd_write"
    extra_imports = []
    start_export = "_start"
    if kind == "import-newline":
        extra_imports.append(name("env") + name("f\n" + payload + "\n") + b"\x00" + leb(1))
    elif kind == "import-comment":
        extra_imports.append(name("env") + name("f */ " + payload + " /*") + b"\x00" + leb(1))
    elif kind == "export-comment":
        start_export = "_start */" + guarded + "/*"
    traps = kind == "trap-debug-name"

    # Types: 0 = fd_write (i32 i32 i32 i32) -> i32, 1 = () -> ().
    types = section(1, vector([b"\x60" + vector([b"\x7f"] * 4) + vector([b"\x7f"]),
                               b"\x60" + leb(0) + leb(0)]))
    imports = section(2, vector([name("wasi_snapshot_preview1") + name(fd_write) + b"\x00" + leb(0)]
                                + extra_imports))
    imported = 1 + len(extra_imports)
    functions = section(3, vector([leb(1)]))
    memory = section(5, vector([b"\x00" + leb(1)]))
    globals_ = section(6, vector([b"\x7f\x01\x41" + leb(0) + b"\x0b"]))
    exports = section(7, vector([name(start_export) + b"\x00" + leb(imported),
                                 name("memory") + b"\x02" + leb(0)]))
    # iovec at 0: {base 16, len 10}; "clean run\n" at 16; fd_write(1, 0, 1, 8).
    if traps:
        body = b"\x00"  # unreachable
    else:
        body = (b"\x41" + leb(1) + b"\x41" + leb(0) + b"\x41" + leb(1) + b"\x41" + leb(8)
                + b"\x10" + leb(0) + b"\x1a")
    local_decls = vector([leb(1) + b"\x7f"])
    code_body = local_decls + body + b"\x0b"
    code = section(10, vector([leb(len(code_body)) + code_body]))
    iovec = (16).to_bytes(4, "little") + (10).to_bytes(4, "little")
    data = section(11, vector([b"\x00\x41" + leb(0) + b"\x0b" + name(iovec),
                               b"\x00\x41" + leb(16) + b"\x0b" + name("clean run\n")]))
    module = b"\0asm\1\0\0\0" + types + imports + functions + memory + globals_ + exports + code + data
    if kind in ("debug-names", "trap-debug-name"):
        evil = "run */" + guarded + "/*\n#error injected\n"
        names = (name("name")
                 + subsection(0, name(evil))
                 + subsection(1, name_map([(0, evil + "import"), (imported, evil)]))
                 + subsection(2, vector([leb(imported) + name_map([(0, evil + "local")])]))
                 + subsection(7, name_map([(0, evil + "global")])))
        module += section(0, names)
        module += section(0, name("producers") + name(evil))
    return module


def main():
    kind, marker, out = sys.argv[1:4]
    with open(out, "wb") as f:
        f.write(build(kind, marker))


if __name__ == "__main__":
    main()
