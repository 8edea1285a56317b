//===- Window.h - an RMA window as the files of one-sided MPI see it ------===//
//
// A window is known to each member through its own Window (its handle's
// object) and to all members together through one WindowSync, made when
// the window is created and shared by every member's Window: the lock of
// each target, the post/start/complete/wait counters and the regions that
// dynamic windows have attached. Since every rank of a job on one host
// lives in this process, an operation acts on the target's memory at once,
// so completing it (flush, unlock, complete, fence) has nothing left to do.
//
// OneSided.cpp creates and frees windows and serves fence epochs;
// PassiveTarget.cpp, RmaAtomics.cpp, GeneralActiveTarget.cpp,
// WindowFlavors.cpp, SharedMemoryWindows.cpp and WindowProperties.cpp
// serve the other families.
//
// When the members span hosts, each host has its own WindowSync for its
// own members, an operation on a member of another host travels to that
// host (RemoteWindows.cpp), and completing it means waiting for its
// acknowledgement.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mpi/RankState.h"
#include "mpi/RemoteRanks.h"

namespace synergy::mpi {

// A window's state that every member reads and writes.
struct WindowSync {
  explicit WindowSync(int members);

  // Per target (window rank): 0 unlocked, -1 locked exclusive, n > 0 held
  // by n shared lockers.
  std::unique_ptr<std::atomic<int64_t>[]> lockOf;
  // Exposure epochs target t has opened to origin o and o has not yet
  // started: grants[o * members + t].
  std::unique_ptr<std::atomic<int64_t>[]> grants;
  // Access epochs completed towards target t and not yet waited for.
  std::unique_ptr<std::atomic<int64_t>[]> completions;
  // Bumped, and every member woken, after any change above.
  std::atomic<uint64_t> changes{0};

  // MPI_Win_attach regions of each member of a dynamic window: host
  // addresses of [first, first + size) in that member's memory.
  struct Region {
    uint8_t* first;
    int64_t size;
    uint32_t guestAddress;
  };
  std::mutex attachedMutex;
  std::vector<std::vector<Region>> attached;

  // The window's own collective context, over the members of the
  // communicator it was made from: its fences and MPI_Win_free run on it.
  // Under MPI_THREAD_MULTIPLE threads of a rank fence different windows
  // made from one communicator at once, in any order; on that
  // communicator, one window's fence would complete with another's on the
  // other members. Null when no context was left (createWindow fails then).
  // A window spanning hosts leaves it null: its members on each host share
  // a communicator of a context member 0's host reserved (RemoteWindows.cpp).
  std::shared_ptr<Communicator> fences;

  // Each member's Window on this host, by window rank (expired for members
  // of other hosts and for one that departed in a live move), under the
  // World's RemoteWindowTables mutex (RemoteWindows.cpp).
  std::vector<std::weak_ptr<Window>> here;
};

// The operations one member sent to targets on other hosts that are not
// done yet, in total and by target (window rank). Decremented on the
// link's receiving thread, read by the member.
struct RemoteRmaCounts {
  explicit RemoteRmaCounts(int members);
  std::atomic<int64_t> total{0};
  std::unique_ptr<std::atomic<int64_t>[]> toTarget;
};

// A lock one member holds on a target: a real one, or one taken under
// MPI_MODE_NOCHECK, which the program asserts no one contends for, so
// nothing was acquired and nothing is released.
enum class HeldLock : uint8_t { None, Shared, Exclusive, Unchecked };

struct Window {
  int handle = 0;  // this member's handle of it
  int commHandle = 0;
  // This member's handle of the window's own collective context
  // (WindowSync::fences; MPI_ERRORS_RETURN), released by MPI_Win_free.
  int fenceCommHandle = 0;
  std::shared_ptr<Communicator> comm;
  std::shared_ptr<WindowSync> sync;
  std::vector<uint8_t*> bases;
  std::vector<int64_t> sizes;
  std::vector<int64_t> dispUnits;
  uint32_t allocatedGuest = 0;  // MPI_Win_allocate memory, freed with the window
  int flavor = abi::kWinFlavorCreate;
  // Guest memory holding this rank's attribute values (base, size, disp
  // unit, flavor, model), made by the first MPI_Win_get_attr: the guest is
  // handed pointers to them. Freed with the window.
  uint32_t attributesGuest = 0;
  // MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN or a handle of
  // RankState::windowErrorHandlers.
  int errhandler = abi::kErrorsAreFatal;
  std::string name;
  InfoEntries info;

  // This member's epochs: the lock it holds on each target by MPI_Win_lock,
  // the one MPI_Win_lock_all took on all of them, the targets of its access
  // epoch (MPI_Win_start), the number of origins of its exposure epoch
  // (MPI_Win_post), or -1 outside one, and whether its last MPI_Win_fence
  // opened an epoch that no other kind has ended since (RmaEpochs.cpp).
  std::vector<HeldLock> lockHeld;
  HeldLock lockAllHeld = HeldLock::None;
  std::vector<int> accessGroup;
  bool accessEpoch = false;
  int64_t exposureOrigins = -1;
  bool fenceEpoch = false;

  int me = -1;  // this member's rank in the window

  // MPI_Win_allocate_shared: this member's guest pages [sharedGuest,
  // sharedGuest + sharedBytes) map the window's file, at the same address
  // in every member (SharedMemoryWindows.cpp); 0 bytes for other flavors.
  uint32_t sharedGuest = 0;
  uint64_t sharedBytes = 0;

  // Nonzero when the members span hosts: the id every host knows the
  // window by (RemoteWindows.cpp), and this member's operations on
  // members of other hosts that are not done yet. bases[] is null for
  // members of other hosts.
  uint64_t spanningId = 0;
  std::shared_ptr<RemoteRmaCounts> inFlight;
  // The context of the window's own collective context (fenceCommHandle),
  // which every host knows the window's members by: a live move finds the
  // window's WindowSync on the host a member arrives at by it.
  uint32_t fenceContext = 0;
};

// Creates a window over every member's (base, size, disp unit) and stores
// its handle at `winOut`; a collective over `comm`.
uint32_t createWindow(HostCall& call, uint8_t* base, int64_t size, int dispUnit, int comm,
                      uint32_t winOut, uint32_t allocatedGuest, int flavor);

// Allocates `size` bytes of window memory from the guest's heap, stores
// their address at `baseptrOut` and creates the window over them.
uint32_t allocateWindow(HostCall& call, int64_t size, int dispUnit, int comm,
                        uint32_t baseptrOut, uint32_t winOut, int flavor);

// Raises `errorClass` through the window's error handler: returns it
// under MPI_ERRORS_RETURN, calls a user handler and then returns it, ends
// the job under MPI_ERRORS_ARE_FATAL.
int failOnWindow(HostCall& call, const Window& window, int errorClass, const std::string& reason);

// Calls the window's user error handler (MPI_Win_create_errhandler) with
// the window's handle and `errorCode` (WindowErrorHandlers.cpp).
void callUserWindowErrorHandler(HostCall& call, const Window& window, int errorCode);

// The window behind `handle`, or null after raising MPI_ERR_WIN.
std::shared_ptr<Window> windowOrFail(HostCall& call, int handle, int& error);

// Both sides of a one-sided operation, checked against linear memory and
// the target's part of the window before a byte moves.
struct RmaTarget {
  std::shared_ptr<Window> window;
  uint8_t* origin = nullptr;
  Layout originType;
  uint8_t* target = nullptr;
  Layout targetType;
  int64_t originCount = 0;
  int64_t targetCount = 0;
  // A target on another host: `target` is null, and the operation starts
  // `targetOffset` bytes into window rank `targetRank`'s memory.
  bool remote = false;
  int targetRank = 0;
  int64_t targetOffset = 0;
  // The target is MPI_PROC_NULL: the operation moves nothing and succeeds
  // (MPI-3.1 11.3), and a request-based one completes at once.
  bool toProcNull = false;
};

// Which epochs an operation may run in: any access epoch, or only a passive
// target one (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate).
enum class RmaEpoch : uint8_t { Any, PassiveOnly };

// Resolves an operation's origin buffer and target location; returns 0 or
// the error raised. A target of MPI_PROC_NULL sets only `toProcNull`, once
// the window, datatypes and counts are checked; any other target must be
// inside an `epoch` of this member (MPI_ERR_RMA_SYNC). With `originIgnored` (the origin of
// MPI_NO_OP, which MPI ignores) the origin arguments are not looked at. A target on another host is
// refused with an error naming the call unless `acrossHosts`: the caller then hands the operation
// to rmaAcrossHosts().
int resolveRmaTarget(HostCall& call, uint32_t originAddr, int originCount, int originType,
                     int targetRank, int64_t targetDisp, int targetCount, int targetType, int win,
                     RmaTarget& out, bool originIgnored = false, bool acrossHosts = false,
                     RmaEpoch epoch = RmaEpoch::Any);

// Whether predefined `op` may accumulate `count` instances of `type`: an
// op of the type's elements, or any predefined op when no byte moves (a
// zero-size accumulate does nothing, and MPICH's rma/badrma makes one with
// MPI_SUM on a type of no elements).
bool accumulateOpFits(int op, const TypeLayout& type, int64_t count);

// Applies predefined `op` (MPI_REPLACE and MPI_NO_OP included) of the
// origin onto the target, element-wise atomic against every other
// accumulate; first copies the target's old contents, packed, to
// `fetched` unless it is null. Returns 0 or the error raised.
int accumulateAt(HostCall& call, RmaTarget& target, int op, uint8_t* fetched);

// Ends this member's mapping of a shared window's pages [guest, guest +
// bytes) when the window is freed (nothing when `bytes` is 0).
void releaseSharedPages(HostCall& call, uint32_t guest, uint64_t bytes);

// Epoch checks (RmaEpochs.cpp). Whether this member holds a lock on
// `target` (on any target when it is -1), by MPI_Win_lock or lock_all.
bool inPassiveEpoch(const Window& window, int target);
// Returns 0 when an operation on `target` may run now: inside a passive
// target epoch towards it, or, unless `passiveOnly` (the request-based
// operations), a fence epoch or an access epoch whose group holds it; else
// raises MPI_ERR_RMA_SYNC.
int checkAccessEpoch(HostCall& call, const Window& window, int target, bool passiveOnly);
// Returns 0 when this member has no lock, access or exposure epoch open
// (MPI_Win_fence, MPI_Win_free); else raises MPI_ERR_RMA_SYNC.
int checkNoEpochOpen(HostCall& call, const Window& window);

// Wakes every member of `window` after a change to its WindowSync.
void announceWindowChange(HostCall& call, Window& window);

// Windows whose members span hosts (RemoteWindows.cpp).
// createWindow() over a communicator that spans hosts.
uint32_t createSpanningWindow(HostCall& call, uint8_t* base, int64_t size, int dispUnit, int comm,
                              uint32_t winOut, uint32_t allocatedGuest, int flavor);
// Sends the operation `t` resolved to its target's host. `kind` says what
// the target does (with predefined `op` for accumulates); a fetching kind
// unpacks what the target held into `resultCount` instances of
// `resultType` at `result` when the reply comes. CompareAndSwap sends the
// origin value and then the `compared` one. Returns 0 or the error raised.
int rmaAcrossHosts(HostCall& call, RmaTarget& t, RmaKind kind, int op, uint8_t* result = nullptr,
                   const Layout& resultType = nullptr, int64_t resultCount = 0,
                   const uint8_t* compared = nullptr);
// MPI_Win_fence and MPI_Win_free of such a window: this member's
// operations on other hosts are done, then every member arrives.
int fenceAcrossHosts(HostCall& call, Window& window);
int freeAcrossHosts(HostCall& call, Window& window);
// Passive target on a member of another host: takes (`lock`) or lets go
// of an exclusive or shared lock on window rank `target` through its host,
// waiting for the answer; before letting go, waits for this member's
// operations on the target. False when the job was aborted meanwhile.
bool lockAcrossHosts(HostCall& call, Window& window, int target, bool lock, bool exclusive);
// Waits until this member's operations on window rank `target` (on every
// target: -1) are done; false when the job was aborted meanwhile.
bool awaitRmaAcrossHosts(HostCall& call, Window& window, int target);
// After a member of this host let go of a lock on a window spanning hosts:
// grants the locks that members of other hosts wait for, in their order.
void grantWaitingLocks(HostCall& call);
// General active target with a member of another host: tells window rank
// `peer`'s host that this member posted an exposure epoch to it
// (`exposure`) or completed its access epoch towards it, which first waits
// until this member's operations on it are done. False when the job was
// aborted meanwhile.
bool signalEpochAcrossHosts(HostCall& call, Window& window, int peer, bool exposure);

// Windows a live move carries (issue 22; RemoteWindows.cpp). Every window
// is listed on its members' host by its fence context from its creation
// (registerWindowHere) to its MPI_Win_free (unregisterWindowHere).
void registerWindowHere(World& world, const std::shared_ptr<Window>& window);
void unregisterWindowHere(World& world, const Window& window);
// Why a live move cannot carry `window`, a window of `rank`'s, now; empty
// when it can: a window of MPI_Win_create or MPI_Win_allocate, with no
// epoch of the member's open but a fence's, no lock held or queued on its
// memory, no exposure or completion pending towards or from it, no
// operation of its in flight, and no attribute or user error handler.
std::string windowNotCarried(const RankState& rank, const Window& window);
// The windows of world rank `worldRank` on this host, by handle.
std::vector<std::shared_ptr<Window>> windowsOf(World& world, int worldRank);
// `window`'s member departs in a live move: the other members here no
// longer address its memory (their bases[] of it go null), and it is no
// longer listed here.
void windowDeparts(World& world, const Window& window);
// A departed member's `window`, rebuilt by the rank's arrival (its base
// in the fresh instance): it shares the WindowSync of the window's
// members here, which address its memory directly as it does theirs, or
// makes one; a window with members on other hosts becomes one spanning
// hosts (RemoteWindows.cpp) if it was not. False with `error`.
bool windowArrives(World& world, const std::shared_ptr<Window>& window, std::string& error);
// After the job's rank -> part table switched from `before` (true: remote):
// every window of this host whose members now span hosts addresses the
// members of other hosts through them (bases[] null, and a spanning id
// when it had none), and the ranks that came here are awaited: an
// operation from another host on one of them waits for rankArrived.
void windowsFollowRoutes(World& world, const std::vector<bool>& before);
// Rank `worldRank` arrived here from a live move, its windows rebuilt:
// the operations other hosts sent it before are applied, in their order.
void rankArrived(World& world, int worldRank);
// Waits until member `target` of `window` has arrived here from a live
// move (its memory in place: bases[target] set); false when the job was
// aborted meanwhile. A member of this host has nothing to wait for.
bool awaitMemberArrival(HostCall& call, Window& window, int target);
// Whether `window`'s fences and MPI_Win_free go across hosts: it spans
// hosts and its members are on more than one now.
bool fencesAcrossHosts(World& world, const Window& window);

}  // namespace synergy::mpi
