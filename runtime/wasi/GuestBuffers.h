//===- GuestBuffers.h - guest strings and iovec arrays as host views -------===//
//
// Host functions resolve every guest pointer they will touch before doing any
// host work: a bad pointer traps the guest, which unwinds straight to the
// granule's entry and skips the destructors of whatever the host function
// holds. These helpers therefore return plain views into guest memory and
// fill fixed-size, trivially destructible iovec arrays.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/uio.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "granule/Granule.h"
#include "wasi/WasiAbi.h"

namespace synergy::wasi {

// Bytes [addr, addr+length) of guest memory; traps the guest when out of bounds.
inline std::string_view guestString(granule::Granule& granule, uint32_t addr, uint32_t length) {
  return {reinterpret_cast<const char*>(granule.guestBytes(addr, length)), length};
}

// More iovecs than this in one call are left for the guest's next call, as a
// short read or write (which every caller of readv/writev must handle).
inline constexpr size_t kMaxIovecs = 256;

struct HostIovecs {
  std::array<iovec, kMaxIovecs> entries;
  size_t count = 0;
};

// Resolves the guest's (c)iovec array at `iovsAddr` into host iovecs.
inline void gatherIovecs(granule::Granule& granule, uint32_t iovsAddr, uint32_t iovsCount,
                         HostIovecs& out) {
  const uint8_t* array =
      granule.guestBytes(iovsAddr, uint64_t(iovsCount) * layout::kIovecSize);
  out.count = iovsCount < kMaxIovecs ? iovsCount : kMaxIovecs;
  for (size_t i = 0; i < out.count; ++i) {
    uint32_t buf = loadGuest<uint32_t>(array + i * layout::kIovecSize);
    uint32_t length = loadGuest<uint32_t>(array + i * layout::kIovecSize + 4);
    out.entries[i].iov_base = granule.guestBytes(buf, length);
    out.entries[i].iov_len = length;
  }
}

}  // namespace synergy::wasi
