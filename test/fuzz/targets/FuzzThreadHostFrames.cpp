//===- FuzzThreadHostFrames.cpp - libFuzzer target for a thread host's frames -===//
//
// This file implements the fuzz target for the frames the hosts of an
// OpenMP team spread over hosts (issue 22, part 3) take from each other:
// copy updates written into a memory (snapshot/CopyLink.h), synchronisation
// requests and replies (omp/SyncMessages.h) and region shares
// (omp/RegionShare.h). Beyond "no crash", it checks:
//
//  - a hostile copy update that CopyLink::accept refuses changes no byte of
//    the memory; one it takes writes exactly its ranges' bytes and nothing
//    else;
//  - an honest link, whose sender's memory the input writes and grows,
//    brings a second memory to the sender's bytes, update after update,
//    whatever the payload size it is cut into;
//  - every decoder's accepted payload survives its own encoding, and a
//    region share's stacks and TLS blocks lie inside the memory.
//
// Input: records of u8 op, u16 length (little-endian), and `length` bytes
// (cut at the input's end).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "omp/RegionShare.h"
#include "omp/SyncMessages.h"
#include "snapshot/CopyLink.h"
#include "snapshot/LinearMemory.h"
#include "snapshot/MemoryDiff.h"

namespace {

namespace snapshot = synergy::snapshot;
namespace omp = synergy::omp;

// Small memories keep every step's whole-memory comparison cheap.
constexpr uint64_t kMaxPages = 4;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz-thread-host-frames: %s\n", what);
  std::abort();
}

uint64_t readLe(const std::vector<uint8_t>& bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width && at + i < bytes.size(); ++i) value |= uint64_t(bytes[at + i]) << (8 * i);
  return value;
}

struct Memories {
  // The target of hostile updates.
  snapshot::CopyLink hostileLink;
  snapshot::LinearMemory hostile;
  // The honest pair: `sender` ships to `receiver` over its own two links.
  snapshot::CopyLink senderLink, receiverLink;
  snapshot::LinearMemory sender, receiver;
};

bool open(Memories& m) {
  std::string error;
  return m.hostileLink.start(kMaxPages, error) && m.hostile.create(1, kMaxPages, error) &&
         m.senderLink.start(kMaxPages, error) && m.receiverLink.start(kMaxPages, error) &&
         m.sender.create(1, kMaxPages, error) && m.receiver.create(1, kMaxPages, error);
}

void hostileUpdate(Memories& m, const std::vector<uint8_t>& body) {
  snapshot::CopyUpdate update;
  std::string error;
  if (!snapshot::parseCopyUpdate(body.data(), body.size(), kMaxPages, update, error)) {
    if (error.empty() || error.find('\n') != std::string::npos) fail("a refusal without a one-line reason");
    return;
  }
  if (update.diff.end() > update.pages * snapshot::kWasmPageSize)
    fail("a parsed update writes past the pages it announces");
  // The caller grows the memory to the update's pages first, as a
  // replica's owner does.
  if (update.pages > m.hostile.pages() && m.hostile.grow(update.pages - m.hostile.pages()) < 0)
    fail("cannot grow the memory within its maximum");
  std::vector<uint8_t> before(m.hostile.base(), m.hostile.base() + m.hostile.sizeBytes());
  bool taken = m.hostileLink.accept(update, m.hostile, error);
  std::vector<uint8_t> expected = before;
  if (taken) {
    for (const snapshot::DiffRange& range : update.diff.ranges())
      std::memcpy(expected.data() + range.offset, update.diff.dataOf(range), range.length);
  } else if (error.empty()) {
    fail("an update refused with no reason");
  }
  if (std::memcmp(expected.data(), m.hostile.base(), expected.size()) != 0)
    fail(taken ? "a taken update wrote other bytes than its ranges'"
               : "a refused update changed the memory");
}

// Writes the body into the sender's memory: u8 pages to grow by (mod 4),
// u32 offset, then the bytes.
void senderWrites(Memories& m, const std::vector<uint8_t>& body) {
  uint64_t grow = readLe(body, 0, 1) % 4;
  if (grow && m.sender.pages() + grow <= kMaxPages) m.sender.grow(grow);
  if (body.size() <= 5) return;
  uint64_t size = m.sender.sizeBytes();
  uint64_t offset = readLe(body, 1, 4) % size;
  uint64_t length = std::min<uint64_t>(body.size() - 5, size - offset);
  std::memcpy(m.sender.base() + offset, body.data() + 5, size_t(length));
}

// Ships the sender's memory in payloads of a size the body picks (CopyLink
// takes limits from 118 bytes: a header, a range and 64 bytes of data), and
// takes them in at the receiver.
constexpr uint64_t kSmallestPayloadLimit = 128;

void honestShip(Memories& m, const std::vector<uint8_t>& body) {
  uint64_t maxPayload = kSmallestPayloadLimit + readLe(body, 0, 2);
  std::vector<std::vector<uint8_t>> payloads;
  std::string error;
  if (!m.senderLink.ship(m.sender, maxPayload, payloads, error)) fail("an honest ship failed");
  for (const auto& payload : payloads) {
    if (payload.size() > maxPayload) fail("a payload over the size asked for");
    snapshot::CopyUpdate update;
    if (!snapshot::parseCopyUpdate(payload.data(), payload.size(), kMaxPages, update, error))
      fail("an honest payload does not parse");
    if (update.pages > m.receiver.pages()) m.receiver.grow(update.pages - m.receiver.pages());
    if (!m.receiverLink.accept(update, m.receiver, error)) fail("an honest payload is refused");
  }
  if (!m.receiverLink.updateComplete() || m.receiver.pages() != m.sender.pages() ||
      std::memcmp(m.receiver.base(), m.sender.base(), size_t(m.sender.sizeBytes())) != 0)
    fail("the receiver's memory is not the sender's after an update");
}

void decoders(uint8_t op, const std::vector<uint8_t>& body, const snapshot::LinearMemory& memory) {
  std::string error;
  switch (op % 4) {
    case 0: {
      snapshot::MemoryDiff diff;
      if (!snapshot::MemoryDiff::deserialise(body.data(), body.size(), diff, error)) return;
      std::vector<uint8_t> once = diff.serialise();
      snapshot::MemoryDiff again;
      if (!snapshot::MemoryDiff::deserialise(once.data(), once.size(), again, error) ||
          again.serialise() != once)
        fail("an accepted MemoryDiff does not survive its own encoding");
      uint64_t end = 0;
      for (const snapshot::DiffRange& range : diff.ranges()) {
        if (range.length == 0 || range.offset < end) fail("a MemoryDiff with empty or unordered ranges");
        end = range.offset + range.length;
      }
      break;
    }
    case 1: {
      omp::SyncRequest request;
      if (!omp::decodeSyncRequest(body.data(), body.size(), request, error)) return;
      std::vector<uint8_t> once = omp::encodeSyncRequest(request);
      omp::SyncRequest again;
      if (!omp::decodeSyncRequest(once.data(), once.size(), again, error) ||
          omp::encodeSyncRequest(again) != once)
        fail("an accepted SyncRequest does not survive its own encoding");
      break;
    }
    case 2: {
      omp::SyncReply reply;
      if (!omp::decodeSyncReply(body.data(), body.size(), reply, error)) return;
      std::vector<uint8_t> once = omp::encodeSyncReply(reply);
      omp::SyncReply again;
      if (!omp::decodeSyncReply(once.data(), once.size(), again, error) ||
          omp::encodeSyncReply(again) != once)
        fail("an accepted SyncReply does not survive its own encoding");
      break;
    }
    case 3: {
      omp::RegionShare share;
      uint64_t memoryBytes = memory.sizeBytes();
      if (!omp::decodeRegionShare(body.data(), body.size(), memoryBytes, share, error)) return;
      for (const omp::SharedThread& thread : share.threads)
        if (thread.stackTop > memoryBytes || thread.tlsBlock >= memoryBytes)
          fail("a region share whose stack or TLS block lies outside the memory");
      std::vector<uint8_t> once = omp::encodeRegionShare(share);
      omp::RegionShare again;
      if (!omp::decodeRegionShare(once.data(), once.size(), memoryBytes, again, error) ||
          omp::encodeRegionShare(again) != once)
        fail("an accepted RegionShare does not survive its own encoding");
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Memories memories;
  if (!open(memories)) fail("cannot reserve the memories");
  size_t at = 0;
  while (size - at >= 3) {
    uint8_t op = data[at];
    size_t length = size_t(data[at + 1]) | size_t(data[at + 2]) << 8;
    at += 3;
    length = std::min(length, size - at);
    std::vector<uint8_t> body(data + at, data + at + length);
    at += length;
    switch (op % 8) {
      case 0:
      case 1:
        hostileUpdate(memories, body);
        break;
      case 2:
        senderWrites(memories, body);
        break;
      case 3:
        honestShip(memories, body);
        break;
      default:
        decoders(uint8_t(op % 8 - 4), body, memories.hostile);
        break;
    }
  }
  return 0;
}
