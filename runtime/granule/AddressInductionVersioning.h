//===- AddressInductionVersioning.h - post-pass over wasm2c output ---------===//
//
// A wasm address is a 32-bit value: a loop that walks memory steps i32
// locals with wrapping `i32.add`, and wasm2c zero-extends each address
// before the load. clang cannot widen such a counter, since a wrap is
// wasm's semantics (test/lit/run/address-induction-wraps.c), so every
// address stream of a loop costs an extra 32-bit add or `lea` and a
// zero-extension per step on top of native's pointer increment:
// bench/kernels/nussinov's split loop ran 16 instructions per two elements
// against native's 12, about 1.23x.
//
// This post-pass versions such loops. Before a loop it computes the loop's
// exact trip count and, for every address the loop derives from a counter,
// whether all the values that address takes stay in [0, 2^32), so that no
// 32-bit add behind it wraps. If they do, a copy of the loop runs whose
// addresses come from 64-bit shadows of its address streams (a counter plus
// the locals an address adds to it; constants stay in the address), which
// clang turns into pointer increments; otherwise the loop runs as wasm2c
// wrote it. The copy keeps every original statement, so locals, stores and
// traps are the original's; only the address operands differ, and those are
// equal to the 32-bit values whenever the check passed.
//
// Loops it takes (anything else is left as it is):
//  - innermost and straight-line: a `w2c_L...:` label, statements of one
//    line each, and one `if (v) {goto <label>;}` as the last line; no other
//    label, brace, goto or return in between;
//  - a counter is a local each of whose sets (wasm's unrolled loops have
//    several per iteration) adds invariants to its value so far: constants,
//    or locals the loop never sets;
//  - the loop ends when a counter whose steps are constants, plus
//    invariants, becomes equal to an invariant (`a != b`, or the value
//    itself tested against 0);
//  - an address is a counter plus invariants, read by a
//    `..._at_base(synergy_membase, (u64)(v)...)` load or store
//    (MemoryBaseHoisting.h's shape, so this pass runs after it); a local set
//    from such a value earlier in the iteration counts as one.
//
// The check is exact: the trip count is the first iteration at which the
// exit counter meets its bound modulo 2^32 (0, meaning "do not version",
// when it never does within 2^32 iterations), and each address is affine in
// the iteration, so its values at the first and last iteration bound all
// others. Both are computed in 128-bit arithmetic.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace synergy::granule {

// Rewrites `cSource` (wasm2c output after hoistMemoryBase). Returns the
// number of loops versioned; a source with none is left untouched.
int versionAddressInductionLoops(std::string& cSource);

}  // namespace synergy::granule
