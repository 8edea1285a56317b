#!/usr/bin/env bash
#===- run-long.sh - long (nightly) fuzzing runs ---------------------------===#
#
# Runs the libFuzzer targets that ctest runs for a minute each, but for hours
# and on several cores: each target in turn gets DURATION with libFuzzer's
# parallel jobs (-jobs/-workers). The corpus of each target grows across runs
# in a work directory outside the source tree, seeded from
# test/fuzz/<target>/corpus and regressions; crashing inputs are collected
# there and a summary is printed at the end. Nothing is fetched.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_root="$(cd "$here/../.." && pwd)"

usage() {
  cat <<USAGE
usage: $0 [--build DIR] [--work DIR] [--workers N] [--no-regressions] DURATION [TARGET...]

Fuzzes each TARGET (default: every fuzz target built in DIR) for DURATION,
one target after the other, with N parallel libFuzzer jobs.

  DURATION       seconds, or a number with s, m or h (for example 8h)
  TARGET         engine-manifest, emitted-verilog, saved-state, wasm-module
  --build DIR    the Synergy build tree (default: $source_root/build)
  --work DIR     where corpora, logs and crashing inputs accumulate between
                 runs (default: \${TMPDIR:-/tmp}/synergy-fuzz)
  --workers N    parallel jobs per target (default: number of CPUs)
  --no-regressions
                 seed only from test/fuzz/<target>/corpus: a regression input
                 whose fix is not merged yet stops every job at once
  --help         print this message

Example, every target for two hours on 8 cores:
  $0 --workers 8 2h

Exit status: 0 if no target crashed in this run, 1 if some did, 2 on a usage
error.
Crashing inputs are left in WORK/<target>/artifacts/; a fixed crash belongs in
test/fuzz/<target>/regressions/ so that ctest replays it.
USAGE
}

build="$source_root/build"
work="${TMPDIR:-/tmp}/synergy-fuzz"
workers="$(nproc)"
seed_dirs=(corpus regressions)
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --no-regressions) seed_dirs=(corpus); shift ;;
    --help|-h) usage; exit 0 ;;
    -*) echo "run-long.sh: error: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ]; then
  usage >&2
  exit 2
fi

if ! [[ "$1" =~ ^([0-9]+)([smh]?)$ ]] || [ "${BASH_REMATCH[1]}" -eq 0 ]; then
  echo "run-long.sh: error: bad duration '$1' (seconds, or a number with s, m or h)" >&2
  exit 2
fi
case "${BASH_REMATCH[2]}" in
  h) seconds=$(( BASH_REMATCH[1] * 3600 )) ;;
  m) seconds=$(( BASH_REMATCH[1] * 60 )) ;;
  *) seconds=${BASH_REMATCH[1]} ;;
esac
shift
if ! [[ "$workers" =~ ^[1-9][0-9]*$ ]]; then
  echo "run-long.sh: error: --workers needs a positive number" >&2
  exit 2
fi

binaries="$build/test/fuzz/targets"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for binary in "$binaries"/fuzz-*; do
    [ -x "$binary" ] && targets+=("${binary##*/fuzz-}")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "run-long.sh: error: no fuzz targets in $binaries (build with -DSYNERGY_FUZZ=ON)" >&2
  exit 2
fi
for target in "${targets[@]}"; do
  if [ ! -x "$binaries/fuzz-$target" ]; then
    echo "run-long.sh: error: no fuzz target '$target' in $binaries" >&2
    exit 2
  fi
done

summary=()
status=0
for target in "${targets[@]}"; do
  dir="$work/$target"
  mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/logs"
  for seeds in "${seed_dirs[@]}"; do
    for input in "$here/$target/$seeds"/*; do
      if [ -f "$input" ] && [ ! -e "$dir/corpus/${input##*/}" ]; then
        cp "$input" "$dir/corpus/"
      fi
    done
  done
  before=$(find "$dir/corpus" -type f | wc -l)
  known_crashes=$(find "$dir/artifacts" -type f | wc -l)
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
           -jobs="$workers" -workers="$workers" -print_final_stats=1
           -artifact_prefix="$dir/artifacts/")
  [ -f "$here/$target/$target.dict" ] && options+=(-dict="$here/$target/$target.dict")
  echo "run-long.sh: fuzzing $target for ${seconds}s with $workers jobs (logs in $dir/logs)"
  rm -f "$dir"/logs/fuzz-*.log
  (cd "$dir/logs" && "$binaries/fuzz-$target" "${options[@]}" "$dir/corpus") || true
  after=$(find "$dir/corpus" -type f | wc -l)
  crashes=$(( $(find "$dir/artifacts" -type f | wc -l) - known_crashes ))
  executions=$(cat "$dir"/logs/fuzz-*.log 2>/dev/null |
               awk '/stat::number_of_executed_units/ { n += $2 } END { print n + 0 }')
  [ "$crashes" -eq 0 ] || status=1
  summary+=("$(printf '%-18s %14s %9s -> %-9s %s' "$target" "$executions" "$before" "$after" \
                 "$crashes")")
done

echo
printf '%-18s %14s %22s %s\n' target executions "corpus before -> after" "new crashing inputs"
for line in "${summary[@]}"; do
  echo "$line"
done
echo "work directory: $work"
exit $status
