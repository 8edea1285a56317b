#!/usr/bin/env bash
# The showcase: build a C program into a granule with synergy-cc, run it with
# synergy-run twice (cold AOT compile, then the cached object), show a trap, run
# an MPI ring on four ranks, run an OpenMP program with threads sharing memory
# and again with threads on replicas that meet through byte-wise diffs, and run a Verilog design as an engine with a
# save in one process and a restart in another.
set -euo pipefail
build="$(cd "${1:?usage: showcase.sh <build dir>}" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export SYNERGY_CACHE_DIR="$work/cache"

echo "== synergy-cc examples/c/showcase.c -o showcase.wasm"
"$build/bin/synergy-cc" -O2 "$here/c/showcase.c" -o "$work/showcase.wasm" -lm
echo "== synergy-run showcase.wasm alpha beta   (cold: compiles ahead of time)"
time "$build/bin/synergy-run" "$work/showcase.wasm" alpha beta
echo "== again (warm: loads the cached native object)"
time "$build/bin/synergy-run" "$work/showcase.wasm" alpha beta

echo "== a guest that divides by zero traps; the host reports it and survives"
printf 'int main(int c, char** v) { return 10 / (c - 1); }\n' > "$work/trap.c"
"$build/bin/synergy-cc" "$work/trap.c" -o "$work/trap.wasm"
"$build/bin/synergy-run" "$work/trap.wasm" || echo "(exit status $?)"

echo "== an MPI ring: synergy-run -np 4"
cat > "$work/ring.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, token;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    token = 1;
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("token went round %d ranks and came back as %d\n", size, token);
  } else {
    MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token *= 2;
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
C
"$build/bin/synergy-cc" -O2 "$work/ring.c" -o "$work/ring.wasm"
"$build/bin/synergy-run" -np 4 "$work/ring.wasm"

echo "== OpenMP: SGD on 4 threads sharing memory, then with --dsm (replicas and diffs)"
"$build/bin/synergy-cc" -O2 -fopenmp "$here/c/sgd.c" -o "$work/sgd.wasm"
OMP_NUM_THREADS=4 "$build/bin/synergy-run" "$work/sgd.wasm"
OMP_NUM_THREADS=4 "$build/bin/synergy-run" --dsm "$work/sgd.wasm"

echo "== Verilog as an engine: the streaming regex matcher, then saved at tick 40 and restarted"
cd "$here/verilog/regex"
"$build/bin/synergy-cc" regex.v -o "$work/regex.eng"
"$build/bin/synergy-run" "$work/regex.eng"
"$build/bin/synergy-run" --save-at-tick 40 "$work/regex.state" "$work/regex.eng" > /dev/null
echo "-- restarted from $work/regex.state in a new process:"
"$build/bin/synergy-run" --restart "$work/regex.state" "$work/regex.eng"
