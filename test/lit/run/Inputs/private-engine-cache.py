#!/usr/bin/env python3
"""Makes an engine cache of a test's own, holding only Verilator's runtime.

Usage: private-engine-cache.py DIR

A detached engine build waits for one of the two build slots of its cache
only while the run that started it goes on (runtime/engine/EngineBuilder.h).
A test that needs such a build to finish after its run ended therefore uses
a cache whose slots no other test takes: DIR, created empty (0700), with the
compiled Verilator runtime objects of $SYNERGY_CACHE_DIR copied in (their
index entries and the objects they name), so that its first build does not
compile those again. Without any there, the build compiles them itself.
Prints the number of entries copied.
"""
import os
import shutil
import sys

INDEX_FORMAT = "synergy-object-index-1"


def main():
    target = os.path.join(sys.argv[1], "engines")
    shutil.rmtree(sys.argv[1], ignore_errors=True)
    os.makedirs(target, mode=0o700)
    os.chmod(sys.argv[1], 0o700)
    source = os.path.join(os.environ["SYNERGY_CACHE_DIR"], "engines")
    copied = 0
    for name in sorted(os.listdir(source)) if os.path.isdir(source) else []:
        if not (name.startswith("verilated") and name.endswith(".o.index")):
            continue
        fields = open(os.path.join(source, name)).read().split()
        if len(fields) != 3 or fields[0] != INDEX_FORMAT:
            continue
        # <digest>.verified is the object's verification record, not an object.
        objects = [f for f in os.listdir(source)
                   if f.startswith(fields[2] + ".") and not f.endswith(".verified")]
        if len(objects) != 1:
            continue
        shutil.copy(os.path.join(source, objects[0]), os.path.join(target, objects[0]))
        shutil.copy(os.path.join(source, name), os.path.join(target, name))
        copied += 1
    print("copied %d runtime objects" % copied)
    return 0


if __name__ == "__main__":
    sys.exit(main())
