//===- CopyLink.h - keeping another host's copy of a memory current --------===//
//
// OpenMP threads placed on another host (issue 22, part 3) run on a copy of
// the main host's memory there. Shipping the whole memory at every parallel
// region would cost its full size each time, so each pair of hosts keeps a
// CopyLink on both ends:
//
//  - ship() turns the bytes the peer's copy lacks into updates: the first
//    time every non-zero byte (the peer's copy starts as zeros, so the
//    "snapshot" is just the diff against an empty memory), after that only
//    the bytes that changed since the last update, as a byte-wise
//    MemoryDiff. Because the link remembers what the peer holds (its view),
//    the main host sends the snapshot once per host and diffs after that,
//    and the peer sends back exactly what its threads wrote.
//  - accept() checks one received update and writes it into a memory and
//    into the link's view of the peer, so that it is not shipped back.
//
// An update is split into payloads of at most the transport's frame limit.
// Payload layout (little-endian), also the frames OmpCopyUpdate and
// OmpJoinUpdate (transport/FrameTypes.h):
//
//   offset  size  field
//        0     8  sequence: 1 for a link's first update, then one more each
//        8     8  the sender's memory size in wasm pages
//       16     4  chunk index, from 0
//       20     4  chunk count, at least 1
//       24     *  a serialised MemoryDiff (MemoryDiff::serialise)
//
// Every received payload is hostile: parseCopyUpdate checks its structure
// and the page count against the receiver's maximum; accept() checks the
// sequence and chunk order and that every range lies inside the memory;
// a refused payload changes nothing.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "snapshot/LinearMemory.h"
#include "snapshot/MemoryDiff.h"

namespace synergy::snapshot {

inline constexpr uint64_t kCopyUpdateHeaderBytes = 24;

// One received payload, parsed.
struct CopyUpdate {
  uint64_t sequence = 0;
  uint64_t pages = 0;
  uint32_t chunkIndex = 0;
  uint32_t chunkCount = 0;
  MemoryDiff diff;
};

// Parses one payload and checks what needs no link state: the header, the
// diff's form, `pages` against `maxPages` and every range against `pages`.
// False with a one-line `error` when malformed.
bool parseCopyUpdate(const uint8_t* payload, size_t size, uint64_t maxPages, CopyUpdate& update,
                     std::string& error);

class CopyLink {
 public:
  // Reserves the view of the peer's copy, for memories of up to `maxPages`.
  bool start(uint64_t maxPages, std::string& error);

  // Appends to `payloads` one update (one or more payloads of at most
  // `maxPayloadBytes` each) that brings the peer's copy to `memory`'s bytes
  // and size. The update is sent even when nothing changed, so that the
  // peer learns the size and every ship has its answer. Compares the whole
  // memory with the view: nothing may write `memory` meanwhile.
  bool ship(const LinearMemory& memory, uint64_t maxPayloadBytes,
            std::vector<std::vector<uint8_t>>& payloads, std::string& error);
  // The same, comparing only the host pages (kHostPageSize units) in
  // `hostPages`, ascending: the caller knows that every other page of
  // `memory` equals the peer's copy (a DsmMain's page versions say so).
  bool shipPages(const LinearMemory& memory, const std::vector<uint64_t>& hostPages,
                 uint64_t maxPayloadBytes, std::vector<std::vector<uint8_t>>& payloads,
                 std::string& error);

  // Writes one parsed payload of the peer's into `memory`, which the caller
  // has grown to update.pages first (a replica grows through its owner), and
  // into the view. False with `error`, and nothing written, when the
  // payload is out of sequence or order, or does not fit `memory`. On the
  // main host `memory` is a replica standing for the peer's threads: its
  // dirty tracking sees these writes, and its next push merges them into
  // the main copy as it merges a local thread's.
  bool accept(const CopyUpdate& update, LinearMemory& memory, std::string& error);

  // Whether the last update accepted is complete (all its chunks arrived).
  bool updateComplete() const { return receivedChunks_ == receivingChunks_; }
  // The sequence of the last update shipped, and of the last accepted.
  uint64_t sentSequence() const { return sentSequence_; }
  uint64_t receivedSequence() const { return receivedSequence_; }
  // Changed bytes shipped so far, over all updates.
  uint64_t shippedBytes() const { return shippedBytes_; }

 private:
  LinearMemory view_;
  uint64_t maxPages_ = 0;
  uint64_t sentSequence_ = 0;
  uint64_t receivedSequence_ = 0;
  uint32_t receivingChunks_ = 0;
  uint32_t receivedChunks_ = 0;
  uint64_t receivingPages_ = 0;
  uint64_t shippedBytes_ = 0;
  MemoryDiff scratch_;

  // Diffs `pages` of `pageBytes` each and appends the update.
  bool shipDiff(const LinearMemory& memory, const std::vector<uint64_t>& pages, uint64_t pageBytes,
                uint64_t maxPayloadBytes, std::vector<std::vector<uint8_t>>& payloads,
                std::string& error);
};

}  // namespace synergy::snapshot
