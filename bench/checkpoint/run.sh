#!/bin/sh
# Checkpoint time against memory size, and the overhead of
# --checkpoint-every 1 on an MPI kernel of bench/mpi.
#   bench/checkpoint/run.sh BUILD_DIR [RANKS]
# Prints, per memory size, the seconds the 10 checkpoints of
# memory_barriers.c took with and without a checkpoint directory, then the
# nstream kernel's time (its own timer, on rank 0) without checkpoints, with
# --checkpoint-every 1 and with a checkpoint at every barrier.
set -eu
build=${1:?usage: run.sh BUILD_DIR [RANKS]}
ranks=${2:-2}
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/synergy-cc" -O2 "$here/memory_barriers.c" -o "$work/memory.wasm"
"$build/bin/synergy-cc" -O2 "$here/../mpi/kernels.c" -o "$work/kernels.wasm" -lm
mkdir "$work/ckpt"
for mib in 1 16 64; do
  for dir in none "$work/ckpt"; do
    set -- --checkpoint-every 0
    [ "$dir" = none ] || set -- "$@" --checkpoint-dir "$dir"
    stats=$(SYNERGY_CHECKPOINT_STATS=1 "$build/bin/synergy-run" -np "$ranks" "$@" \
            "$work/memory.wasm" "$mib" 2>&1 >/dev/null | grep 'checkpoints:')
    echo "memory ${mib} MiB/rank, np $ranks, dir=$([ "$dir" = none ] && echo no || echo yes): $stats"
  done
done
for kernel in nstream; do
  echo "plain:          $("$build/bin/synergy-run" -np "$ranks" "$work/kernels.wasm" "$kernel")"
  for every in 1 0; do
    echo "every $every s, dir: $(SYNERGY_CHECKPOINT_STATS=1 "$build/bin/synergy-run" -np "$ranks" \
          --checkpoint-every $every --checkpoint-dir "$work/ckpt" "$work/kernels.wasm" "$kernel" \
          2>&1 | tr '\n' ' ')"
  done
done
