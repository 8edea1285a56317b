//===- RankMove.cpp - one rank's state, taken from and put into a granule --===//
//
// This file implements RankMove.h: the encoding of a departing rank and the
// one restore path of a rank, shared by --resume and a live move.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/RankMove.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "checkpoint/OpenFileRecord.h"
#include "granule/Granule.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"
#include "mpi/RequestPool.h"
#include "mpi/Window.h"
#include "mpi/World.h"
#include "snapshot/Snapshot.h"
#include "util/Crc32c.h"
#include "util/LittleEndian.h"
#include "wasm-rt.h"

namespace synergy::checkpoint {

namespace {

// Zeroes [begin, end) of a fresh instance's memory, which is zero but where
// instantiation wrote its data segments: a page that reads as zero is left
// alone, so that the pages the guest never had (most of a large memory)
// are not faulted in, as a memset of the whole memory did.
void clearGap(uint8_t* base, uint64_t begin, uint64_t end) {
  constexpr uint64_t kPage = 4096;
  while (begin < end) {
    uint64_t stop = std::min(end, (begin / kPage + 1) * kPage);
    const uint8_t* at = base + begin;
    size_t length = size_t(stop - begin);
    if (at[0] != 0 || std::memcmp(at, at + 1, length - 1) != 0) std::memset(base + begin, 0, length);
    begin = stop;
  }
}

// The progress record after the section: one entry per communicator, then
// their count and this tag (RankMove.h).
constexpr uint32_t kProgressTag = 0x31504d4c;  // "LMP1"
constexpr size_t kProgressEntryBytes = 4 + 3 * 8;

void putLittle(std::string& bytes, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) bytes.push_back(char((value >> (8 * i)) & 0xff));
}

uint64_t getLittle(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i) value |= uint64_t(uint8_t(bytes[at + size_t(i)])) << (8 * i);
  return value;
}

// The requests record between the section and the progress record: one
// entry per request the rank carries (CarriedRequestRecord), then their
// count and this tag.
// Version 2 ("LMR2") has the windows record before it; version 1 ("LMR1"),
// which had none, is refused.
constexpr uint32_t kRequestsTag = 0x32524d4c;  // "LMR2"
constexpr uint32_t kRequestsTagVersion1 = 0x31524d4c;  // "LMR1"
constexpr size_t kRequestEntryBytes = 4 + 4 + 3 * 4 + 3 * 8 + 2 * 4;
constexpr uint32_t kMaxCarriedRequestHandle = 1u << 24;

std::string encodeRequestsRecord(const std::vector<CarriedRequestRecord>& requests) {
  std::string bytes;
  for (const CarriedRequestRecord& request : requests) {
    putLittle(bytes, request.handle, 4);
    bytes.push_back(char(request.state));
    bytes.push_back(char(request.kind));
    bytes.push_back(char(request.cancelled ? 1 : 0));
    bytes.push_back(char(request.flags));
    putLittle(bytes, uint32_t(request.source), 4);
    putLittle(bytes, uint32_t(request.tag), 4);
    putLittle(bytes, uint32_t(request.error), 4);
    putLittle(bytes, uint64_t(request.bytes), 8);
    putLittle(bytes, request.buffer, 8);
    putLittle(bytes, uint64_t(request.count), 8);
    putLittle(bytes, uint32_t(request.type), 4);
    putLittle(bytes, uint32_t(request.comm), 4);
  }
  putLittle(bytes, requests.size(), 4);
  putLittle(bytes, kRequestsTag, 4);
  return bytes;
}

// The windows record between the section and the requests record: one
// entry per window the rank carries (CarriedWindowRecord: a fixed part,
// then each member's size and displacement unit, then the name), then the
// entries' bytes, their count and this tag.
constexpr uint32_t kWindowsTag = 0x31574d4c;  // "LMW1"
constexpr size_t kWindowFixedBytes = 3 * 4 + 2 + 2 + 2 * 4 + 2 * 8 + 3 * 4;
constexpr size_t kWindowMemberBytes = 2 * 8;

std::string encodeWindowsRecord(const std::vector<CarriedWindowRecord>& windows) {
  std::string bytes;
  for (const CarriedWindowRecord& window : windows) {
    putLittle(bytes, window.handle, 4);
    putLittle(bytes, uint32_t(window.comm), 4);
    putLittle(bytes, uint32_t(window.fenceComm), 4);
    bytes.push_back(char(window.flavor));
    bytes.push_back(char(window.flags));
    putLittle(bytes, window.name.size(), 2);
    putLittle(bytes, window.me, 4);
    putLittle(bytes, window.sizes.size(), 4);
    putLittle(bytes, window.spanningId, 8);
    putLittle(bytes, window.base, 8);
    putLittle(bytes, window.allocatedGuest, 4);
    putLittle(bytes, window.attributesGuest, 4);
    putLittle(bytes, uint32_t(window.errhandler), 4);
    for (size_t member = 0; member < window.sizes.size(); ++member) {
      putLittle(bytes, uint64_t(window.sizes[member]), 8);
      putLittle(bytes, uint64_t(window.dispUnits[member]), 8);
    }
    bytes += window.name;
  }
  putLittle(bytes, bytes.size(), 4);
  putLittle(bytes, windows.size(), 4);
  putLittle(bytes, kWindowsTag, 4);
  return bytes;
}

// The windows record that ends at `end` of `section`, checked as hostile
// input against a job of `rankCount` ranks: where it starts, or nullopt
// with `error`. What needs the rank's memory size and communicators is
// checked by checkCarriedWindows once the section is decoded.
std::optional<size_t> decodeWindowsRecord(std::string_view section, size_t end,
                                          uint32_t rankCount,
                                          std::vector<CarriedWindowRecord>& windows,
                                          std::string& error) {
  if (end < 12 || getLittle(section, end - 4, 4) != kWindowsTag) {
    error = "the departing rank's state carries no windows record";
    return std::nullopt;
  }
  uint64_t count = getLittle(section, end - 8, 4), recordBytes = getLittle(section, end - 12, 4);
  if (recordBytes > end - 12 || count > recordBytes / kWindowFixedBytes) {
    error = "the departing rank's windows record names " + std::to_string(count) +
            " windows in " + std::to_string(recordBytes) + " bytes, more than its bytes hold";
    return std::nullopt;
  }
  const size_t start = end - 12 - size_t(recordBytes), stop = end - 12;
  size_t at = start;
  uint32_t lastHandle = 0;
  for (uint64_t i = 0; i < count; ++i) {
    auto malformed = [&](const char* why) {
      error = "the departing rank's window entry " + std::to_string(i) + " is malformed (" +
              why + ")";
      return std::nullopt;
    };
    if (stop - at < kWindowFixedBytes) return malformed("truncated");
    CarriedWindowRecord window;
    window.handle = uint32_t(getLittle(section, at, 4));
    window.comm = int32_t(uint32_t(getLittle(section, at + 4, 4)));
    window.fenceComm = int32_t(uint32_t(getLittle(section, at + 8, 4)));
    window.flavor = uint8_t(section[at + 12]);
    window.flags = uint8_t(section[at + 13]);
    uint64_t nameBytes = getLittle(section, at + 14, 2);
    window.me = uint32_t(getLittle(section, at + 16, 4));
    uint64_t members = getLittle(section, at + 20, 4);
    window.spanningId = getLittle(section, at + 24, 8);
    window.base = getLittle(section, at + 32, 8);
    window.allocatedGuest = uint32_t(getLittle(section, at + 40, 4));
    window.attributesGuest = uint32_t(getLittle(section, at + 44, 4));
    window.errhandler = int32_t(uint32_t(getLittle(section, at + 48, 4)));
    at += kWindowFixedBytes;
    if (window.handle <= lastHandle || window.handle > kMaxCarriedRequestHandle)
      return malformed("handle out of order");
    lastHandle = window.handle;
    if (window.flavor != mpi::abi::kWinFlavorCreate && window.flavor != mpi::abi::kWinFlavorAllocate)
      return malformed("flavor");
    if (window.flags & ~CarriedWindowRecord::kFenceEpoch) return malformed("flags");
    if (members == 0 || members > rankCount || window.me >= members) return malformed("members");
    if (window.base > UINT32_MAX) return malformed("base");
    if (window.errhandler != mpi::abi::kErrorsAreFatal &&
        window.errhandler != mpi::abi::kErrorsReturn)
      return malformed("error handler");
    if (window.flavor == mpi::abi::kWinFlavorCreate ? window.allocatedGuest != 0
                                                     : window.allocatedGuest != window.base)
      return malformed("allocated memory");
    if (nameBytes > uint64_t(mpi::abi::kMaxObjectName) ||
        (stop - at) / kWindowMemberBytes < members ||
        stop - at - members * kWindowMemberBytes < nameBytes)
      return malformed("truncated");
    for (uint64_t member = 0; member < members; ++member) {
      int64_t size = int64_t(getLittle(section, at, 8));
      int64_t dispUnit = int64_t(getLittle(section, at + 8, 8));
      at += kWindowMemberBytes;
      if (size < 0 || size > int64_t(UINT32_MAX) || dispUnit <= 0 || dispUnit > INT32_MAX)
        return malformed("a member's size or displacement unit");
      window.sizes.push_back(size);
      window.dispUnits.push_back(dispUnit);
    }
    window.name.assign(section.substr(at, size_t(nameBytes)));
    at += size_t(nameBytes);
    windows.push_back(std::move(window));
  }
  if (at != stop) {
    error = "the departing rank's windows record has bytes past its entries";
    return std::nullopt;
  }
  return start;
}

// The checks of the carried windows that need the decoded section: each
// lies in the rank's memory, and names a collective context of its own
// among the rank's communicators, whose members it has.
bool checkCarriedWindows(const RankImage& image, std::string& error) {
  std::set<int32_t> fenceComms;
  for (const CarriedWindowRecord& window : image.windows) {
    std::string name = "the departing rank's window " + std::to_string(window.handle);
    int64_t size = window.sizes[window.me];
    if (window.base + uint64_t(size) > image.memoryBytes ||
        window.attributesGuest >= image.memoryBytes) {
      error = name + " lies outside the rank's memory";
      return false;
    }
    auto fences = std::find_if(image.mpi.comms.begin(), image.mpi.comms.end(),
                               [&](const MpiObjects::CommRecord& comm) {
                                 return int32_t(comm.handle) == window.fenceComm;
                               });
    if (window.fenceComm <= mpi::abi::kCommSelf || fences == image.mpi.comms.end() ||
        fences->worldRanks.size() != window.sizes.size() ||
        fences->worldRanks[window.me] != image.worldRank ||
        !fenceComms.insert(window.fenceComm).second) {
      error = name + " names no collective context of its own among the rank's communicators";
      return false;
    }
  }
  return true;
}

// The windows of `rank` (its memory at `base`) that a live move carries;
// false with `notCarried` for the first it cannot carry.
bool captureWindows(mpi::RankState& rank, const uint8_t* base, uint64_t memoryBytes,
                    const std::vector<std::shared_ptr<mpi::Window>>& windows,
                    std::vector<CarriedWindowRecord>& records, std::string& notCarried) {
  for (const std::shared_ptr<mpi::Window>& window : windows) {
    notCarried = mpi::windowNotCarried(rank, *window);
    if (!notCarried.empty()) return false;
    const size_t me = size_t(window->me);
    const uint8_t* mine = window->bases[me];
    if (mine < base || uint64_t(mine - base) + uint64_t(window->sizes[me]) > memoryBytes) {
      notCarried = "window " + std::to_string(window->handle) + " lies outside the rank's memory";
      return false;
    }
    CarriedWindowRecord record;
    record.handle = uint32_t(window->handle);
    record.comm = window->commHandle;
    record.fenceComm = window->fenceCommHandle;
    record.flavor = uint8_t(window->flavor);
    record.flags = window->fenceEpoch ? CarriedWindowRecord::kFenceEpoch : 0;
    record.me = uint32_t(me);
    record.spanningId = window->spanningId;
    record.base = uint64_t(mine - base);
    record.allocatedGuest = window->allocatedGuest;
    record.attributesGuest = window->attributesGuest;
    record.errhandler = window->errhandler;
    record.name = window->name.substr(0, size_t(mpi::abi::kMaxObjectName));
    record.sizes = window->sizes;
    record.dispUnits = window->dispUnits;
    records.push_back(std::move(record));
  }
  return true;
}

// Posts `recv`, a receive of the rank's that no message has matched, as
// MPI_Irecv does: what has arrived already is matched first.
void postCarriedReceive(mpi::World& world, const std::shared_ptr<mpi::Request>& recv) {
  bool mustShare = false;
  if (!world.receiveNow(*recv, mustShare)) world.postUnmatched(recv, mustShare);
}

// The requests of `rank` (its memory at `base`) that a live move carries,
// and the posted receives among them, which follow the others in the order
// they match (the order they were posted in, which their handles need not
// follow: a freed handle is taken again last first), then its attached
// buffer; false with `notCarried` for the first it cannot carry.
bool captureRequests(mpi::RankState& rank, const uint8_t* base, uint64_t memoryBytes,
                     std::vector<CarriedRequestRecord>& records,
                     std::vector<std::shared_ptr<mpi::Request>>& posted,
                     std::string& notCarried) {
  struct PostedReceive {
    ptrdiff_t position;
    CarriedRequestRecord record;
    std::shared_ptr<mpi::Request> request;
  };
  std::vector<PostedReceive> postedReceives;
  // Handle 1 is the permanent one of every send that completed at once.
  for (int handle = 2; handle <= rank.requestHandles(); ++handle) {
    std::shared_ptr<mpi::Request> request = rank.request(handle);
    if (!request) continue;
    if (!rank.carriedRequest(handle, notCarried)) return false;
    CarriedRequestRecord record;
    record.handle = uint32_t(handle);
    record.kind = uint8_t(request->kind);
    if (!request->persistent && mpi::isCompleteNow(*request)) {
      record.state = CarriedRequestRecord::kCompleted;
      record.cancelled = request->cancelled;
      record.source = request->statusSource;
      record.tag = request->statusTag;
      record.error = request->statusError;
      record.bytes = request->statusBytes;
      records.push_back(record);
      continue;
    }
    std::string name = "request " + std::to_string(handle);
    if (request->kind == mpi::Request::Kind::Null) {
      // A persistent one to or from MPI_PROC_NULL: nothing but its kind.
      record.state = CarriedRequestRecord::kPersistent;
      records.push_back(record);
      continue;
    }
    for (int type = 1; type < rank.typeHandles() && !record.type; ++type)
      if (rank.type(type).get() == request->type) record.type = type;
    const mpi::CommHandle* comm = rank.comm(request->commHandle);
    if (!record.type || !comm || comm->comm.get() != request->comm) {
      notCarried = name + " uses a " + (record.type ? "communicator" : "datatype") +
                   " that was freed";
      return false;
    }
    if (request->buffer < base || uint64_t(request->buffer - base) > memoryBytes) {
      notCarried = name + " uses no memory of the rank's";
      return false;
    }
    record.source = request->peer;
    record.tag = request->tag;
    record.buffer = uint64_t(request->buffer - base);
    record.count = request->count;
    record.comm = request->commHandle;
    if (request->persistent) {
      record.state = CarriedRequestRecord::kPersistent;
      if (request->synchronous) record.flags |= CarriedRequestRecord::kSynchronous;
      if (request->buffered) record.flags |= CarriedRequestRecord::kBuffered;
      records.push_back(record);
      continue;
    }
    const ptrdiff_t position = rank.world->postedPosition(*request);
    if (position < 0) {
      notCarried = name + " is a receive that has matched and waits for its data";
      return false;
    }
    record.state = CarriedRequestRecord::kPostedReceive;
    if (request->persistentOrigin) record.flags |= CarriedRequestRecord::kStartedPersistent;
    postedReceives.push_back({position, record, std::move(request)});
  }
  std::sort(postedReceives.begin(), postedReceives.end(),
            [](const PostedReceive& a, const PostedReceive& b) { return a.position < b.position; });
  for (PostedReceive& receive : postedReceives) {
    records.push_back(receive.record);
    posted.push_back(std::move(receive.request));
  }
  if (rank.attachedBuffer) {
    CarriedRequestRecord record;
    record.state = CarriedRequestRecord::kAttachedBuffer;
    record.buffer = rank.attachedBuffer->address;
    record.count = rank.attachedBuffer->size;
    records.push_back(record);
  }
  return true;
}

// The progress record of `progress`, as it follows the section.
std::string encodeProgressRecord(const std::vector<CommProgressRecord>& progress) {
  std::string bytes;
  for (const CommProgressRecord& record : progress) {
    putLittle(bytes, record.context, 4);
    putLittle(bytes, record.collectives, 8);
    putLittle(bytes, record.finished, 8);
    putLittle(bytes, record.sequence, 8);
  }
  putLittle(bytes, progress.size(), 4);
  putLittle(bytes, kProgressTag, 4);
  return bytes;
}

// The rank's own progress on each communicator it holds, by context.
std::map<uint32_t, mpi::World::CommProgress> captureProgress(const mpi::RankState& rank) {
  std::map<uint32_t, mpi::World::CommProgress> progress;
  for (const auto& [handle, live] : rank.commHandles())
    if (live && live->comm)
      if (auto mine = rank.world->progressOf(*live->comm, rank.worldRank))
        progress.emplace(live->comm->context, *mine);
  return progress;
}

constexpr uint64_t kPage = 4096;
// Smaller runs are copied: each moved one adds a mapping to the process.
constexpr uint64_t kSmallestMovedRun = 1ull << 20;

// A private anonymous mapping, unmapped when it goes: where a departing
// rank's bytes are put.
class AnonymousMapping {
 public:
  static std::shared_ptr<AnonymousMapping> map(uint64_t bytes, std::string& error) {
    void* at = mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED) {
      error = std::string("cannot map it: ") + std::strerror(errno);
      return nullptr;
    }
    return std::shared_ptr<AnonymousMapping>(
        new AnonymousMapping(static_cast<uint8_t*>(at), bytes));
  }
  ~AnonymousMapping() { munmap(data_, size_t(size_)); }
  AnonymousMapping(const AnonymousMapping&) = delete;
  AnonymousMapping& operator=(const AnonymousMapping&) = delete;
  uint8_t* data() const { return data_; }

 private:
  AnonymousMapping(uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint8_t* data_;
  uint64_t size_;
};

// Puts as much of `run` as it can into the memory at `base` of
// `memoryBytes` by moving the pages its bytes lie in there (mremap) and
// then the bytes down to the run's offset within them, instead of copying
// them into the memory's fresh pages: where a fresh page costs a fault and
// its zeroing (in a virtual machine that hands free memory to its host,
// most of a 64 MiB copy's time), the moved pages are populated already.
// The run's bytes must lie in a private anonymous mapping that no one
// reads after the restore (a section that landed here). `nextRun`: where
// the next run's bytes start in that mapping (nullptr for the last run);
// the page they start in is left in place for it, as the run before left
// this run's first page. Only whole pages inside the memory are mapped, so
// nothing past `memoryBytes` becomes accessible; what the moved pages hold
// past the run is cleared as a gap by the caller. Returns how many of the
// run's bytes are in place (0: none; the rest are still where they were).
uint64_t movePagesOfRun(uint8_t* base, uint64_t memoryBytes, const MemoryRun& run,
                        const char* nextRun) {
  std::string_view bytes = run.contents();
  if (bytes.size() < kSmallestMovedRun || run.offset % kPage || run.offset >= memoryBytes)
    return 0;
  const uintptr_t from = reinterpret_cast<uintptr_t>(bytes.data());
  const uintptr_t first = from / kPage * kPage;
  const uint64_t skew = from - first;
  uintptr_t end = (from + bytes.size() + kPage - 1) / kPage * kPage;
  if (nextRun && reinterpret_cast<uintptr_t>(nextRun) < end) end -= kPage;
  uint64_t pages = std::min<uint64_t>((end - first) / kPage, (memoryBytes - run.offset) / kPage);
  if (pages * kPage <= skew) return 0;
  uint64_t moved = std::min<uint64_t>(bytes.size(), pages * kPage - skew);
  if (moved < kSmallestMovedRun / 2) return 0;
  // MREMAP_DONTUNMAP leaves the pages' old addresses mapped (empty), so
  // that no other mapping can take them before the section's is unmapped.
  if (mremap(reinterpret_cast<void*>(first), size_t(pages * kPage), size_t(pages * kPage),
             MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, base + run.offset) == MAP_FAILED)
    return 0;  // nothing moved: copied as ever
  if (skew) std::memmove(base + run.offset, base + run.offset + skew, size_t(moved));
  return moved;
}

// A live move's windows, rebuilt at their handles (a fresh rank numbers
// its windows from 1: a handle skipped was freed before the move) into
// the fresh instance's memory at `base`, and put into the windows of their
// members here (mpi::windowArrives).
bool restoreWindows(const RankImage& image, mpi::RankState& state, uint8_t* base,
                    std::string& error) {
  for (const CarriedWindowRecord& record : image.windows) {
    std::string name = "its window " + std::to_string(record.handle);
    mpi::CommHandle* fences = state.comm(record.fenceComm);
    const size_t members = record.sizes.size();
    if (!fences || fences->comm->inter || size_t(fences->comm->size()) != members ||
        fences->comm->worldRanks[record.me] != int(image.worldRank)) {
      error = name + " names no collective context of its own";
      return false;
    }
    auto window = std::make_shared<mpi::Window>();
    window->commHandle = record.comm;
    mpi::CommHandle* comm = state.comm(record.comm);
    // The communicator it was made from, unless the rank freed it since.
    window->comm = comm && comm->comm->worldRanks == fences->comm->worldRanks ? comm->comm
                                                                               : fences->comm;
    window->fenceCommHandle = record.fenceComm;
    window->fenceContext = fences->comm->context;
    window->bases.assign(members, nullptr);
    window->bases[record.me] = base + record.base;
    window->sizes = record.sizes;
    window->dispUnits = record.dispUnits;
    window->allocatedGuest = record.allocatedGuest;
    window->attributesGuest = record.attributesGuest;
    window->flavor = record.flavor;
    window->errhandler = record.errhandler;
    window->name = record.name;
    window->lockHeld.assign(members, mpi::HeldLock::None);
    window->fenceEpoch = (record.flags & CarriedWindowRecord::kFenceEpoch) != 0;
    window->me = int(record.me);
    window->spanningId = record.spanningId;
    if (window->spanningId) window->inFlight = std::make_shared<mpi::RemoteRmaCounts>(int(members));
    int handle = state.addWindow(window);
    while (handle < int(record.handle)) {
      state.freeWindow(handle);
      handle = state.addWindow(window);
    }
    if (handle != int(record.handle)) {
      error = name + " cannot take its handle";
      return false;
    }
    if (!mpi::windowArrives(*state.world, window, error)) {
      error = name + ": " + error;
      return false;
    }
  }
  mpi::rankArrived(*state.world, int(image.worldRank));
  return true;
}

}  // namespace

bool checkLiveProgress(const RankImage& image, std::string& error) {
  std::map<uint32_t, const MpiObjects::CommRecord*> held;
  for (const MpiObjects::CommRecord& comm : image.mpi.comms) held.emplace(comm.context, &comm);
  std::set<uint32_t> seen;
  for (const CommProgressRecord& record : image.progress) {
    auto found = held.find(record.context);
    if (found == held.end()) {
      error = "the departing rank's progress names context " + std::to_string(record.context) +
              ", which none of its communicators has";
      return false;
    }
    if (!seen.insert(record.context).second) {
      error = "the departing rank's progress names context " + std::to_string(record.context) +
              " twice";
      return false;
    }
    const std::vector<uint32_t>& members = found->second->worldRanks;
    if (std::find(members.begin(), members.end(), image.worldRank) == members.end()) {
      error = "the departing rank is not a member of communicator " +
              std::to_string(found->second->handle) + " whose progress it carries";
      return false;
    }
    if (record.finished > record.collectives) {
      error = "the departing rank's progress on context " + std::to_string(record.context) +
              " has finished more collectives than it entered";
      return false;
    }
  }
  if (seen.size() != held.size()) {
    error = "the departing rank carries its progress on " + std::to_string(seen.size()) +
            " of its " + std::to_string(held.size()) + " communicators";
    return false;
  }
  return true;
}

DepartingBytes encodeDepartingRank(uint32_t worldRank, granule::Granule& granule,
                                   size_t grantCount, std::string& notRecorded) {
  std::vector<OpenFile> files;
  notRecorded = captureOpenFiles(granule, grantCount, files);
  if (!notRecorded.empty()) return {};
  const snapshot::LinearMemory* memory = granule.linearMemory();
  const bool anonymous = memory && memory->isAnonymous();
  const uint8_t* base = granule.memoryBase();
  // Its requests: its posted receives leave this World's mailbox now (no
  // message can match them meanwhile: nothing is in flight at the control
  // point), and are posted again where it arrives (restoreRank).
  mpi::RankState& rank = granule.extension<mpi::RankState>();
  std::vector<CarriedRequestRecord> requests;
  std::vector<std::shared_ptr<mpi::Request>> posted;
  if (!captureRequests(rank, base, granule.memorySize(), requests, posted, notRecorded))
    return {};
  // Its windows: the other members stop addressing its memory once its
  // bytes are encoded (mpi::windowDeparts), and address it again where it
  // arrives.
  std::vector<std::shared_ptr<mpi::Window>> windows = mpi::windowsOf(*rank.world, rank.worldRank);
  std::vector<CarriedWindowRecord> windowRecords;
  if (!captureWindows(rank, base, granule.memorySize(), windows, windowRecords, notRecorded))
    return {};
  size_t withdrawn = 0;
  while (withdrawn < posted.size() && rank.world->withdrawRecv(*posted[withdrawn])) ++withdrawn;
  auto postAgain = [&] {
    for (size_t i = 0; i < withdrawn; ++i) postCarriedReceive(*rank.world, posted[i]);
  };
  if (withdrawn < posted.size()) {
    postAgain();
    notRecorded = "a receive of the rank's matched as it departed";
    return {};
  }
  std::vector<SectionPiece> pieces = layoutRankSection(
      worldRank, granule.unwindBufferAddress(), granule.globalBytes(), base, granule.memorySize(),
      files, captureMpiObjects(granule.extension<mpi::RankState>()), anonymous);
  // The rank's own progress on each communicator, after the section.
  std::vector<CommProgressRecord> progress;
  for (const auto& [context, mine] : captureProgress(granule.extension<mpi::RankState>()))
    progress.push_back({context, mine.collectives, mine.finished, mine.sequence});
  pieces.push_back(SectionPiece{encodeWindowsRecord(windowRecords), 0, 0});
  pieces.push_back(SectionPiece{encodeRequestsRecord(requests), 0, 0});
  pieces.push_back(SectionPiece{encodeProgressRecord(progress), 0, 0});
  // The largest run, whose pages are moved rather than copied: the section
  // starts `shift` bytes into its mapping so that the run's bytes start on
  // a page there.
  uint64_t size = 0, largestAt = 0;
  const SectionPiece* largest = nullptr;
  for (const SectionPiece& piece : pieces) {
    if (piece.length && (!largest || piece.length > largest->length)) {
      largest = &piece;
      largestAt = size;
    }
    size += piece.length ? piece.length : piece.literal.size();
  }
  const uint64_t shift = (kPage - largestAt % kPage) % kPage;
  std::string error;
  std::shared_ptr<AnonymousMapping> mapping = AnonymousMapping::map(shift + size + 4, error);
  if (!mapping) {
    postAgain();
    notRecorded = "its state of " + std::to_string(size) + " bytes: " + error;
    return {};
  }
  uint8_t* out = mapping->data() + shift;
  uint64_t at = 0;
  for (const SectionPiece& piece : pieces) {
    if (!piece.length) {
      std::memcpy(out + at, piece.literal.data(), piece.literal.size());
      at += piece.literal.size();
      continue;
    }
    // The departing instance's memory is read no more (its rank arrives
    // in a fresh one, here or on the target), so its pages can go: its
    // private anonymous pages move, their addresses left mapped and empty.
    bool moved = &piece == largest && anonymous && piece.length >= kSmallestMovedRun &&
                 piece.memoryOffset % kPage == 0 && piece.length % kPage == 0 &&
                 mremap(const_cast<uint8_t*>(base) + piece.memoryOffset, size_t(piece.length),
                        size_t(piece.length), MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
                        out + at) != MAP_FAILED;
    if (!moved) std::memcpy(out + at, base + piece.memoryOffset, size_t(piece.length));
    at += piece.length;
  }
  util::Crc32c checksum;
  checksum.update(out, size_t(size));
  util::writeLittleEndian(out + size, checksum.value(), 4);
  DepartingBytes bytes;
  bytes.landed = std::string_view(reinterpret_cast<const char*>(out), size_t(size + 4));
  bytes.pagesMayMove = true;
  bytes.keeper = std::move(mapping);
  for (const std::shared_ptr<mpi::Window>& window : windows) mpi::windowDeparts(*rank.world, *window);
  return bytes;
}

std::string sealDepartingRank(std::string section,
                              const std::vector<CommProgressRecord>& progress,
                              const std::vector<CarriedRequestRecord>& requests,
                              const std::vector<CarriedWindowRecord>& windows) {
  section += encodeWindowsRecord(windows);
  section += encodeRequestsRecord(requests);
  section += encodeProgressRecord(progress);
  util::Crc32c checksum;
  checksum.update(section);
  uint32_t value = checksum.value();
  for (int shift = 0; shift < 32; shift += 8) section.push_back(char((value >> shift) & 0xff));
  return section;
}

std::optional<RankImage> decodeDepartingRank(std::string_view bytes, uint32_t worldRank,
                                             uint32_t rankCount, uint32_t grantCount,
                                             std::string& error,
                                             std::optional<uint32_t> landedCrc) {
  if (bytes.size() < 4) {
    error = "the departing rank's state is truncated";
    return std::nullopt;
  }
  std::string_view section = bytes.substr(0, bytes.size() - 4);
  uint32_t expected = 0;
  for (int i = 0; i < 4; ++i)
    expected |= uint32_t(uint8_t(bytes[section.size() + size_t(i)])) << (8 * i);
  uint32_t computed = 0;
  if (landedCrc) {
    computed = *landedCrc;
  } else {
    util::Crc32c checksum;
    checksum.update(section);
    computed = checksum.value();
  }
  if (computed != expected) {
    error = "the departing rank's state does not match its checksum (corrupt)";
    return std::nullopt;
  }
  // The progress record, from the end: every count from the bytes is
  // checked against what is left before it is used.
  if (section.size() < 8 || getLittle(section, section.size() - 4, 4) != kProgressTag) {
    error = "the departing rank's state carries no progress record";
    return std::nullopt;
  }
  uint64_t entries = getLittle(section, section.size() - 8, 4);
  size_t room = section.size() - 8;
  if (entries > room / kProgressEntryBytes) {
    error = "the departing rank's progress record names " + std::to_string(entries) +
            " communicators, more than its bytes hold";
    return std::nullopt;
  }
  size_t recordAt = room - size_t(entries) * kProgressEntryBytes;
  std::vector<CommProgressRecord> progress(static_cast<size_t>(entries));
  for (size_t i = 0; i < progress.size(); ++i) {
    size_t at = recordAt + i * kProgressEntryBytes;
    progress[i] = {uint32_t(getLittle(section, at, 4)), getLittle(section, at + 4, 8),
                   getLittle(section, at + 12, 8), getLittle(section, at + 20, 8)};
  }
  // The requests record before it, checked the same way.
  if (recordAt >= 8 && getLittle(section, recordAt - 4, 4) == kRequestsTagVersion1) {
    error = "the departing rank's requests record is of version 1 (LMR1), with no windows "
            "record; this runtime reads version 2 (LMR2)";
    return std::nullopt;
  }
  if (recordAt < 8 || getLittle(section, recordAt - 4, 4) != kRequestsTag) {
    error = "the departing rank's state carries no requests record";
    return std::nullopt;
  }
  uint64_t carried = getLittle(section, recordAt - 8, 4);
  if (carried > (recordAt - 8) / kRequestEntryBytes) {
    error = "the departing rank's requests record names " + std::to_string(carried) +
            " requests, more than its bytes hold";
    return std::nullopt;
  }
  size_t requestsAt = recordAt - 8 - size_t(carried) * kRequestEntryBytes;
  std::vector<CarriedRequestRecord> requests(static_cast<size_t>(carried));
  std::set<uint32_t> handles;
  bool bufferSeen = false;
  for (size_t i = 0; i < requests.size(); ++i) {
    size_t at = requestsAt + i * kRequestEntryBytes;
    CarriedRequestRecord& request = requests[i];
    request.handle = uint32_t(getLittle(section, at, 4));
    request.state = uint8_t(section[at + 4]);
    request.kind = uint8_t(section[at + 5]);
    uint8_t cancelled = uint8_t(section[at + 6]);
    request.flags = uint8_t(section[at + 7]);
    request.cancelled = cancelled == 1;
    request.source = int32_t(uint32_t(getLittle(section, at + 8, 4)));
    request.tag = int32_t(uint32_t(getLittle(section, at + 12, 4)));
    request.error = int32_t(uint32_t(getLittle(section, at + 16, 4)));
    request.bytes = int64_t(getLittle(section, at + 20, 8));
    request.buffer = getLittle(section, at + 28, 8);
    request.count = int64_t(getLittle(section, at + 36, 8));
    request.type = int32_t(uint32_t(getLittle(section, at + 44, 4)));
    request.comm = int32_t(uint32_t(getLittle(section, at + 48, 4)));
    using Record = CarriedRequestRecord;
    const uint8_t send = uint8_t(mpi::Request::Kind::Send), recv = uint8_t(mpi::Request::Kind::Recv),
                  null = uint8_t(mpi::Request::Kind::Null);
    bool wellFormed = cancelled <= 1 && request.count >= 0 && request.count <= INT32_MAX &&
                      request.buffer <= UINT32_MAX;
    switch (request.state) {
      case Record::kCompleted:
        wellFormed = wellFormed && request.kind <= null && request.flags == 0;
        break;
      case Record::kPostedReceive:
        wellFormed = wellFormed && request.kind == recv && !request.cancelled &&
                     (request.flags & ~Record::kStartedPersistent) == 0;
        break;
      case Record::kPersistent:
        // Only a send has a mode, and only one.
        wellFormed = wellFormed && request.kind <= null && !request.cancelled &&
                     (request.flags & ~(Record::kSynchronous | Record::kBuffered)) == 0 &&
                     (request.kind == send || request.flags == 0) &&
                     request.flags != (Record::kSynchronous | Record::kBuffered);
        break;
      case Record::kAttachedBuffer:
        wellFormed = wellFormed && !bufferSeen && request.handle == 0 && request.kind == 0 &&
                     !request.cancelled && request.flags == 0;
        bufferSeen = true;
        break;
      default:
        wellFormed = false;
    }
    if (request.state != Record::kAttachedBuffer &&
        (request.handle < 2 || request.handle > kMaxCarriedRequestHandle ||
         !handles.insert(request.handle).second))
      wellFormed = false;
    if (!wellFormed) {
      error = "the departing rank's request entry " + std::to_string(i) + " is malformed";
      return std::nullopt;
    }
  }
  std::vector<CarriedWindowRecord> windows;
  std::optional<size_t> windowsAt =
      decodeWindowsRecord(section, requestsAt, rankCount, windows, error);
  if (!windowsAt) return std::nullopt;
  std::optional<RankImage> image = decodeRankSection(section.substr(0, *windowsAt), worldRank,
                                                     rankCount, grantCount, error,
                                                     /*viewRuns=*/true);
  if (!image) return std::nullopt;
  image->progress = std::move(progress);
  image->requests = std::move(requests);
  image->windows = std::move(windows);
  if (!checkLiveProgress(*image, error) || !checkCarriedWindows(*image, error))
    return std::nullopt;
  return image;
}

bool restoreRank(const RankImage& image, granule::Granule& granule,
                 ResumedCommunicators& communicators, std::string& error, bool takeRunPages) {
  std::string where = "cannot restore rank " + std::to_string(image.worldRank) + ": ";
  granule::Module& module = granule.module();
  size_t globalsBytes = 0;
  for (const auto& slot : module.globals()) globalsBytes += slot.size;
  if (globalsBytes != image.globals.size()) {
    error = where + "the checkpoint's globals do not match this module";
    return false;
  }
  // The unwind buffer is host-grown pages right past the memory the guest
  // had then: grow to there, let prepareUnwind take the same pages, then
  // grow to the checkpoint's size.
  wasm_rt_memory_t* memory = module.memory(granule.instance());
  const uint64_t page = 65536;
  uint64_t bufferPage = image.unwindBuffer / page;
  if (image.unwindBuffer % page || bufferPage < memory->pages || image.memoryBytes / page < bufferPage) {
    error = where + "the checkpoint's unwind buffer does not fit this module's memory";
    return false;
  }
  auto growTo = [&](uint64_t pages) {
    return pages <= memory->pages ||
           wasm_rt_grow_memory(memory, uint32_t(pages - memory->pages)) != UINT32_MAX;
  };
  std::string why;
  if (!growTo(bufferPage) || !granule.prepareUnwind(why) || !growTo(image.memoryBytes / page)) {
    error = where + (why.empty() ? "its memory of " + std::to_string(image.memoryBytes) +
                                       " bytes cannot be allocated (see --max-memory)"
                                 : why);
    return false;
  }
  if (granule.unwindBufferAddress() != image.unwindBuffer ||
      uint64_t(memory->pages) * page != image.memoryBytes) {
    error = where + "the checkpoint's unwind buffer does not fit its memory size";
    return false;
  }
  uint8_t* base = granule.memoryBase();
  uint64_t end = 0;
  // A fresh instance's own memory, whose pages may be replaced.
  const snapshot::LinearMemory* linear = granule.linearMemory();
  takeRunPages = takeRunPages && linear && linear->isAnonymous();
  for (size_t i = 0; i < image.runs.size(); ++i) {  // increasing, inside memoryBytes: the decoder checked
    const MemoryRun& run = image.runs[i];
    std::string_view bytes = run.contents();
    clearGap(base, end, run.offset);
    uint64_t placed = 0;
    if (takeRunPages)
      placed = movePagesOfRun(base, image.memoryBytes, run,
                              i + 1 < image.runs.size() ? image.runs[i + 1].contents().data()
                                                        : nullptr);
    std::memcpy(base + run.offset + placed, bytes.data() + placed, bytes.size() - placed);
    end = run.offset + bytes.size();
  }
  clearGap(base, end, image.memoryBytes);
  auto* instance = static_cast<uint8_t*>(granule.instance());
  size_t at = 0;
  for (const auto& slot : module.globals()) {
    std::memcpy(instance + slot.offset, image.globals.data() + at, slot.size);
    at += slot.size;
  }
  if (!restoreOpenFiles(granule, image.files, error) ||
      !restoreMpiObjects(image.mpi, granule.extension<mpi::RankState>(), communicators, error)) {
    error = where + error;
    return false;
  }
  // A live move's: the rank goes on from its own progress on each
  // communicator (checkLiveProgress matched them to its handles).
  mpi::RankState& state = granule.extension<mpi::RankState>();
  for (const CommProgressRecord& record : image.progress)
    for (const auto& [handle, live] : state.commHandles())
      if (live && live->comm && live->comm->context == record.context) {
        if (!state.world->restoreProgress(
                *live->comm, state.worldRank,
                {record.collectives, record.finished, record.sequence}, error)) {
          error = where + error;
          return false;
        }
        break;
      }
  // A live move's requests, at their handles; its posted receives are
  // posted again, matching what has arrived for the rank here meanwhile.
  std::vector<std::shared_ptr<mpi::Request>> posted;
  for (const CarriedRequestRecord& record : image.requests) {
    using Record = CarriedRequestRecord;
    if (record.state == Record::kAttachedBuffer) {
      if (record.buffer + uint64_t(record.count) > image.memoryBytes) {
        error = where + "its attached buffer lies outside the rank's memory";
        return false;
      }
      state.attachedBuffer =
          mpi::RankState::AttachedBuffer{uint32_t(record.buffer), int32_t(record.count)};
      continue;
    }
    std::string name = where + "its request " + std::to_string(record.handle);
    std::shared_ptr<mpi::Request> request = mpi::newRequest();
    request->owner = int(image.worldRank);
    request->kind = mpi::Request::Kind(record.kind);
    if (record.state == Record::kCompleted) {
      request->complete = true;
      request->cancelled = record.cancelled;
      request->statusSource = record.source;
      request->statusTag = record.tag;
      request->statusError = record.error;
      request->statusBytes = record.bytes;
      state.restoreRequest(int(record.handle), std::move(request));
      continue;
    }
    if (record.state == Record::kPersistent && request->kind == mpi::Request::Kind::Null) {
      request->persistent = true;
      request->active = false;
      request->complete = true;
      state.restoreRequest(int(record.handle), std::move(request));
      continue;
    }
    const mpi::Layout& layout = state.type(record.type);
    mpi::CommHandle* comm = state.comm(record.comm);
    if (!layout || !comm || comm->comm->inter) {
      error = name + " names no datatype or communicator of the rank's";
      return false;
    }
    const bool sends = request->kind == mpi::Request::Kind::Send;
    const int rankInComm = comm->comm->rankOfWorld.size() > image.worldRank
                               ? comm->comm->rankOfWorld[image.worldRank]
                               : -1;
    if (rankInComm < 0 ||
        (!(record.source == mpi::abi::kAnySource && !sends) &&
         (record.source < 0 || record.source >= comm->comm->size())) ||
        (!(record.tag == mpi::abi::kAnyTag && !sends) &&
         record.tag < 0)) {
      error = name + " names no rank or tag of its communicator";
      return false;
    }
    mpi::ByteSpan span = mpi::touchedSpan(*layout, record.count);
    if (!span.empty() && (int64_t(record.buffer) + span.first < 0 ||
                          uint64_t(int64_t(record.buffer) + span.last) > image.memoryBytes)) {
      error = name + " uses memory outside the rank's";
      return false;
    }
    request->buffer = base + record.buffer;
    mpi::setType(*request, layout);
    request->count = record.count;
    request->bytes = layout->size * record.count;
    request->context = comm->comm->context;
    request->comm = comm->comm.get();
    if (record.comm != mpi::abi::kCommWorld && record.comm != mpi::abi::kCommSelf)
      request->freeableComm = comm->comm;
    request->commHandle = record.comm;
    request->peer = record.source;
    request->tag = record.tag;
    if (record.state == Record::kPersistent) {
      request->senderRank = rankInComm;
      request->synchronous = (record.flags & Record::kSynchronous) != 0;
      request->buffered = (record.flags & Record::kBuffered) != 0;
      request->persistent = true;
      request->active = false;
      request->complete = true;
      state.restoreRequest(int(record.handle), std::move(request));
      continue;
    }
    if (record.flags & Record::kStartedPersistent) {
      // MPI_Start's copy of its template, which the handle turns back into
      // once it completes.
      auto origin = std::make_shared<mpi::Request>(*request);
      origin->persistent = true;
      origin->active = false;
      origin->complete = true;
      request->persistentOrigin = std::move(origin);
    }
    state.restoreRequest(int(record.handle), request);
    posted.push_back(std::move(request));
  }
  for (const std::shared_ptr<mpi::Request>& recv : posted) postCarriedReceive(*state.world, recv);
  if (!restoreWindows(image, state, base, error)) {
    error = where + error;
    return false;
  }
  // MPI_Init ran before the suspension; the rank rewinds into its barrier.
  granule.extension<mpi::RankState>().initialized = true;
  auto startRewind = reinterpret_cast<void (*)(void*, uint32_t)>(
      module.exportedFunction("asyncify_start_rewind"));
  startRewind(granule.instance(), image.unwindBuffer);
  return true;
}

void addLiveCommunicators(const mpi::RankState& rank, ResumedCommunicators& communicators) {
  for (const auto& [handle, live] : rank.commHandles())
    if (live && live->comm) communicators.emplace(live->comm->context, live->comm);
}

}  // namespace synergy::checkpoint
