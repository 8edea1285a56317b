//===- SharedMemoryWindows.cpp - MPI_Win_allocate_shared across ranks -----===//
//
// The ranks of a job on one host are separate linear memories in one
// process, so a pointer into another rank's memory means nothing to a
// rank. A shared-memory window is made reachable by loads and stores from
// every member all the same: its parts, contiguous in rank order as MPI
// asks by default, live in one memfd, and every member maps that file
// (MAP_SHARED) at the SAME guest address of its own linear memory. The
// address is the first 64 KiB page past every member's current memory;
// each member grows its memory up to it and over the window, so the pages
// belong to the memory as wasm sees it (bulk-memory checks pass, memory.size
// covers them) while the guest's allocator never hands them out: sbrk
// only hands out pages it grew itself. MPI_Win_shared_query then returns an
// address that is valid in every member, and one member's store is the
// others' load: the same physical page.
//
// MPI_Win_free puts private zero pages back over the range; the memory
// keeps its size (wasm memories never shrink). A live window already keeps
// a job from being checkpointed (RankState::objectsNotCheckpointed), so no
// snapshot ever holds these pages. Members on different hosts cannot share
// pages: MPI makes a shared window on such a communicator erroneous, and
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups ranks by host, so
// createSpanningWindow refuses it with a message saying so.
//
// MPI_Win_shared_query answers for windows of every flavor, as MPI-4.0
// allows: of a window not made by MPI_Win_allocate_shared, only the
// caller's own part is reachable by loads and stores.
//
//===----------------------------------------------------------------------===//
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "granule/WasmRuntime.h"
#include "mpi/CollectiveEngine.h"
#include "mpi/Window.h"

using namespace synergy::mpi;
using synergy::snapshot::kWasmPageSize;
using u32 = uint32_t;

namespace {

// The file behind one window while its members map it. Member 0 makes it,
// the others copy their reference from member 0's slot; the last one to
// let go closes the file, whose pages the mappings keep alive.
struct SharedFile {
  int fd = -1;
  // Members that could not map it: then every member unmaps and fails.
  std::atomic<int> failures{0};
  ~SharedFile() {
    if (fd >= 0) close(fd);
  }
};

// Where the window lies in every member's linear memory, as the
// members agree on it.
struct SharedPlacement {
  uint64_t firstPage = 0;  // guest page of member 0's part
  uint64_t pages = 0;      // whole pages mapped; 0 when every part is empty
  int64_t myOffset = 0;    // bytes from the first page to this member's part
};

// Grows this rank's memory up to `placement` and maps `fd` over it. False
// when another thread of the rank grew the memory past the agreed page
// meanwhile, when --max-memory or the 4 GiB of wasm32 leave no room, or
// when the system refuses the mapping.
bool mapSharedPages(HostCall& call, const SharedPlacement& placement, int fd) {
  synergy::snapshot::LinearMemory* memory = call.granule.linearMemory();
  uint64_t current = memory->pages();
  if (fd < 0 || current > placement.firstPage) return false;
  uint64_t delta = placement.firstPage + placement.pages - current;
  wasm_rt_memory_t* view = call.granule.module().memory(call.granule.instance());
  if (delta > UINT32_MAX || wasm_rt_grow_memory(view, uint32_t(delta)) != current) return false;
  return memory->mapSharedFile(placement.firstPage * kWasmPageSize, fd,
                               placement.pages * kWasmPageSize);
}

// The collective part of MPI_Win_allocate_shared: agrees on the placement,
// makes the file (member 0), and maps it into every member's memory.
int placeSharedPages(HostCall& call, int comm, int64_t size, SharedPlacement& placement) {
  std::shared_ptr<SharedFile> file;
  std::shared_ptr<SharedFile> madeHere = std::make_shared<SharedFile>();
  return runCollective(
      call, comm, CollectiveKind::WinCreate,
      [&](Contribution& slot) {
        slot.recvCount = size;
        slot.key = int(call.granule.linearMemory()->pages());
        slot.send = reinterpret_cast<const uint8_t*>(&madeHere);
      },
      [&](std::vector<Contribution>& slots, int me) {
        file = *reinterpret_cast<const std::shared_ptr<SharedFile>*>(slots[0].send);
        int64_t total = 0;
        for (size_t member = 0; member < slots.size(); ++member) {
          placement.firstPage = std::max<uint64_t>(placement.firstPage, uint64_t(slots[member].key));
          if (int(member) == me) placement.myOffset = total;
          total += slots[member].recvCount;
        }
        if (total == 0) return int(abi::kSuccess);
        placement.pages = (uint64_t(total) + kWasmPageSize - 1) / kWasmPageSize;
        if (me == 0) {
          int fd = memfd_create("synergy-mpi-shared-window", MFD_CLOEXEC);
          if (fd >= 0 && ftruncate(fd, off_t(placement.pages * kWasmPageSize)) != 0) {
            close(fd);
            fd = -1;
          }
          file->fd = fd;
        }
        awaitMembers(call, comm);
        bool mapped = mapSharedPages(call, placement, file->fd);
        if (!mapped) file->failures.fetch_add(1);
        awaitMembers(call, comm);
        if (file->failures.load() == 0) return int(abi::kSuccess);
        if (mapped)
          call.granule.linearMemory()->unmapSharedFile(placement.firstPage * kWasmPageSize,
                                                       placement.pages * kWasmPageSize);
        return int(abi::kErrNoMem);
      });
}

bool hasHint(const Window& window, const std::string& key, const std::string& value) {
  return std::find(window.info.begin(), window.info.end(), std::make_pair(key, value)) !=
         window.info.end();
}

}  // namespace

namespace synergy::mpi {

void releaseSharedPages(HostCall& call, uint32_t guest, uint64_t bytes) {
  if (bytes) call.granule.linearMemory()->unmapSharedFile(guest, bytes);
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Win_allocate_shared(void* instance, u32 size, u32 dispUnit, u32 info, u32 comm,
                                   u32 baseptrOut, u32 winOut) {
  HostCall call(instance, "MPI_Win_allocate_shared");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  int64_t bytes = int32_t(size);
  if (bytes < 0) return call.fail(int(comm), abi::kErrArg, "negative window size");
  // It refuses a shared window whose members span hosts.
  if (call.world().spansHosts(*handle->comm))
    return createSpanningWindow(call, nullptr, bytes, int(dispUnit), int(comm), winOut, 0,
                                abi::kWinFlavorShared);
  if (!call.bytes(baseptrOut, 4) || !call.bytes(winOut, 4))
    return call.fail(int(comm), abi::kErrArg, "baseptr or win pointer outside linear memory");
  SharedPlacement placement;
  if (int error = placeSharedPages(call, int(comm), bytes, placement))
    return call.fail(int(comm), error,
                     "no room for the shared window at the same address in every member's "
                     "linear memory");
  uint32_t sharedGuest = uint32_t(placement.firstPage * kWasmPageSize);
  uint32_t mine = placement.pages ? sharedGuest + uint32_t(placement.myOffset) : 0;
  uint8_t* host = placement.pages ? call.granule.memoryBase() + mine : nullptr;
  if (int error = createWindow(call, host, bytes, int(dispUnit), int(comm), winOut, 0,
                               abi::kWinFlavorShared)) {
    releaseSharedPages(call, sharedGuest, placement.pages * kWasmPageSize);
    return error;
  }
  int32_t win = 0;
  call.load(winOut, win);
  std::shared_ptr<Window> window = call.rank.window(win);
  // Its hints become the window's (MPI_Win_get_info); shared_query reads
  // alloc_shared_noncontig.
  if (auto hints = call.rank.infos.find(int(info)); hints != call.rank.infos.end())
    window->info = hints->second;
  window->sharedGuest = sharedGuest;
  window->sharedBytes = placement.pages * kWasmPageSize;
  call.store<uint32_t>(baseptrOut, mine);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_shared_query(void* instance, u32 win, u32 rank, u32 sizeOut, u32 dispUnitOut,
                                u32 baseptrOut) {
  HostCall call(instance, "MPI_Win_shared_query");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  int member = int(rank);
  if (member == abi::kProcNull) {
    // The first member with a non-empty part, as MPI defines it.
    member = 0;
    while (member + 1 < window->comm->size() && window->sizes[member] == 0) ++member;
  } else if (member < 0 || member >= window->comm->size()) {
    return failOnWindow(call, *window, abi::kErrRank, "invalid rank " + std::to_string(member));
  }
  if (!call.bytes(sizeOut, 4) || !call.bytes(dispUnitOut, 4) || !call.bytes(baseptrOut, 4))
    return failOnWindow(call, *window, abi::kErrArg, "output outside linear memory");
  // The parts of a shared window lie one after another in rank order from
  // sharedGuest. Of a window of another flavor, only the caller's own part
  // is in its memory; any other member's is size 0 at NULL (MPI-4.0 12.2.3).
  int64_t offset = 0, size = window->sizes[member];
  for (int before = 0; before < member; ++before) offset += window->sizes[before];
  uint32_t base = window->sharedBytes ? window->sharedGuest + uint32_t(offset) : 0;
  // Parts asked for as noncontiguous have no place of their own when
  // empty: NULL, as MPICH gives (its rma/win_shared_noncontig_put checks).
  if (size == 0 && hasHint(*window, "alloc_shared_noncontig", "true")) base = 0;
  if (window->flavor != abi::kWinFlavorShared) {
    bool own = member == window->me && window->bases[member];
    base = own ? uint32_t(window->bases[member] - call.granule.memoryBase()) : 0;
    size = own ? size : 0;
  }
  call.store<int32_t>(sizeOut, int32_t(size));
  call.store<int32_t>(dispUnitOut, int32_t(window->dispUnits[member]));
  call.store<uint32_t>(baseptrOut, base);
  return abi::kSuccess;
}

}  // extern "C"
