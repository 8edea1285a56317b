#!/bin/bash
#===- wait_cost.sh - CPU and wall time of the barrier-bound kernels --------===#
#
# The barrier and loopsync kernels of this folder, built by gcc (libgomp)
# and as granules, run at 2, 4 and 8 threads with the default wait policy
# and OMP_WAIT_POLICY=passive, natively and under synergy-run in shared
# and --dsm mode, each under /usr/bin/time: one line per run with the
# kernel's µs per barrier (or step), user and system CPU seconds and wall
# seconds, and the checksum, which must agree between the three sides at
# a thread count. The load average is printed before and after, since on
# a shared machine every figure depends on it. run.py gives wall-clock
# ratios; this gives the CPU a waiting policy burns.
#
# usage: bench/omp/wait_cost.sh <build-dir> <work-dir> [barriers] [steps]
#
#===----------------------------------------------------------------------===#
set -eu
BUILD=$1
WORK=$2
BARRIERS=${3:-4000}
STEPS=${4:-2000}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK"
export SYNERGY_CACHE_DIR="$WORK/cache"
for kernel in barrier loopsync; do
  gcc -O2 -fopenmp -ffp-contract=off -I "$HERE" "$HERE/$kernel.c" -o "$WORK/$kernel.gomp"
  "$BUILD/bin/synergy-cc" -O2 -fopenmp -ffp-contract=off -I "$HERE" "$HERE/$kernel.c" \
    -o "$WORK/$kernel.wasm"
  # The first run compiles the granule to native code; it is not measured.
  OMP_NUM_THREADS=1 "$BUILD/bin/synergy-run" "$WORK/$kernel.wasm" 10 > /dev/null
done
echo "load: $(cat /proc/loadavg)"
for kernel in barrier loopsync; do
  size=$BARRIERS
  [ "$kernel" = loopsync ] && size=$STEPS
  for threads in 2 4 8; do
    for side in gomp shared dsm; do
      for policy in default passive; do
        case $side in
          gomp) command=("$WORK/$kernel.gomp" "$size") ;;
          shared) command=("$BUILD/bin/synergy-run" "$WORK/$kernel.wasm" "$size") ;;
          dsm) command=("$BUILD/bin/synergy-run" --dsm "$WORK/$kernel.wasm" "$size") ;;
        esac
        settings=(OMP_NUM_THREADS=$threads)
        [ "$policy" = passive ] && settings+=(OMP_WAIT_POLICY=passive)
        output=$(env "${settings[@]}" /usr/bin/time -f "cpu %U %S wall %e" "${command[@]}" 2>&1)
        echo "$kernel t=$threads $side $policy" \
          "us_per_op=$(awk '/^us_per_op/ {print $2}' <<< "$output")" \
          "$(awk '/^cpu/ {printf "user %s sys %s wall %s", $2, $3, $5}' <<< "$output")" \
          "$(awk '/^checksum/ {print $2}' <<< "$output")"
      done
    done
  done
done
echo "load: $(cat /proc/loadavg)"
