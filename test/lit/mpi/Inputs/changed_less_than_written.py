"""Exits non-zero unless the SYNERGY_CHECKPOINT_STATS lines in the file named
by argv[1] say that fewer bytes changed on disk than the checkpoint files
held, and more than none (checkpoint-files.test)."""
import re
import sys

text = open(sys.argv[1]).read()
written = int(re.search(r"checkpoints: \d+ taken, \d+ skipped, (\d+) bytes written", text).group(1))
changed = int(re.search(r"(\d+) bytes changed on disk", text).group(1))
if not 0 < changed < written:
    sys.exit("expected 0 < changed < written bytes, got %d changed of %d" % (changed, written))
