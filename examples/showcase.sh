#!/usr/bin/env bash
# The showcase: build a C program into a granule with synergy-cc, run it with
# synergy-run twice (cold AOT compile, then the cached object), and show a trap.
set -euo pipefail
build="${1:?usage: showcase.sh <build dir>}"
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
