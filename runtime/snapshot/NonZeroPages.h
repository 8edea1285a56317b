//===- NonZeroPages.h - the host pages of a memory that hold something ----===//
//
// A snapshot and a checkpoint both keep only the host pages of a linear
// memory that are not all zeros: guest memories are mostly untouched heap
// and stack. Finding them reads every page, unless the memory is private
// anonymous memory of this process: a page the kernel has never populated
// (neither present nor swapped in /proc/self/pagemap) reads as zeros and is
// skipped unread, since reading it would map a zero page for nothing. A
// memory that is a view of a file (a restored snapshot) gets no such help.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#include "util/FunctionRef.h"

namespace synergy::snapshot {

// Whether the 4 KiB page at `page` holds only zero bytes.
bool isZeroHostPage(const uint8_t* page);

// Calls `visit(offset, length)` for each maximal run of whole host pages of
// [base, base + bytes) that are not all zeros, in increasing order; `bytes`
// is a multiple of the host page. `anonymous`: the range is private
// anonymous memory, whose never-populated pages need not be read. A false
// return from `visit` stops the walk, and is returned.
bool forEachNonZeroRun(const uint8_t* base, uint64_t bytes, bool anonymous,
                       util::FunctionRef<bool(uint64_t offset, uint64_t length)> visit);

}  // namespace synergy::snapshot
