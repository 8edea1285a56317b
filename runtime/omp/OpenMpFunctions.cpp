//===- OpenMpFunctions.cpp - the __kmpc_* and omp_* host functions --------===//
//
// What clang -fopenmp emits for parallel regions and synchronisation, and the
// OpenMP 5.0 runtime API of include/omp.h, as wasm2c imports from module
// "env". The loop schedules are in Worksharing.cpp, tasks in Tasking.cpp,
// memory allocators in Allocators.cpp and the affinity format routines in
// AffinityFormat.cpp.
//
// Reductions need no annotation: __kmpc_reduce receives the private copies
// and the combiner, and the runtime folds the copies itself (see reduce()).
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "omp/Team.h"
#include "omp/ThreadHostSync.h"

using synergy::granule::Granule;
using namespace synergy::omp;

namespace {

// The outlined region takes the two thread-id pointers and then one
// parameter per shared variable; wasm engines accept at most 1000 parameters
// per function (the embedding limits of the WebAssembly JS API), so a larger
// count can only come from a corrupted call.
constexpr uint32_t kSupportedActiveLevels = 255;
constexpr uint32_t kInitialDevice = 0;
constexpr uint32_t kPauseSoft = 1;  // omp_pause_resource_t
constexpr uint32_t kPauseHard = 2;
constexpr int32_t kControlToolNoTool = -2;  // omp_control_tool_notool

constexpr uint32_t kMaxForkArguments = 1000 - 2;

// In a team whose threads span hosts, a thread host's barriers and locks
// are decided on the main host (omp/ThreadHostSync.h); the main host's own
// threads use the same barrier and locks as always.
void barrier(Granule& granule) {
  OmpThread& me = ompThread(granule);
  if (ThreadHostSync* remote = me.at.team ? me.at.team->threadHost : nullptr)
    return remote->barrier(me);
  taskingBarrier(me);
}

// Takes lock or critical name `key` for the calling thread; with `blocking`
// false only when free. Returns the depth now held, 0 when not taken.
int lockCritical(Granule& granule, uint32_t key, bool nested, bool blocking = true) {
  OmpThread& me = ompThread(granule);
  if (ThreadHostSync* remote = threadHostSyncOf(granule))
    return blocking ? remote->lock(me, key, nested) : remote->testLock(me, key, nested);
  KeyedLocks& locks = ompRuntime(granule).locks();
  int depth = blocking ? locks.lock(key, me.globalThreadId(), nested)
                       : locks.tryLock(key, me.globalThreadId(), nested);
  if (depth) acquireMemory(granule);
  return depth;
}

void unlockCritical(Granule& granule, uint32_t name) {
  OmpThread& me = ompThread(granule);
  if (ThreadHostSync* remote = threadHostSyncOf(granule)) return remote->unlock(me, name);
  releaseMemory(granule);
  if (!ompRuntime(granule).locks().unlock(name, me.globalThreadId()))
    granule.trap("OpenMP critical section or lock released by a thread that does not hold it");
}

void forkCall(void* host, uint32_t argumentCount, uint32_t microtask, uint32_t varargs) {
  Granule& granule = Granule::fromHost(host);
  if (argumentCount > kMaxForkArguments)
    granule.trap("__kmpc_fork_call: " + std::to_string(argumentCount) +
                 " shared variables; a wasm function takes at most 1000 parameters");
  std::vector<uint32_t> arguments(argumentCount);
  if (argumentCount) {
    const uint32_t* shared = granule.guestPtr<uint32_t>(varargs, argumentCount);
    arguments.assign(shared, shared + argumentCount);
  }
  ompRuntime(granule).forkCall(ompThread(granule), microtask, std::move(arguments));
}

// `if(0)` regions: __kmpc_serialized_parallel enters a team of one, which
// still counts as a level. Kept per thread so serialized regions nest.
struct SerializedTeams : synergy::granule::HostExtension {
  explicit SerializedTeams(Granule&) {}
  std::vector<std::pair<std::unique_ptr<Team>, TeamPosition>> stack;
};

// The runtime combines the private copies itself, with the combiner clang
// generated: every thread publishes its list of pointers to its private
// copies and arrives at the team barrier; the team's reduction leader
// (thread 0) then folds every other list into its own and is told (1) to
// combine the result into the shared variables, the others (0) to skip.
// They wait until the leader is done with their copies (`nowait`) or with
// the shared variables (blocking form, where __kmpc_end_reduce releases
// them). In --dsm mode the barrier pushes every thread's copies, so the
// leader reads them from its own replica. A team that spans hosts does this
// on each host first (Team::combineAcrossHosts); a thread host's threads
// share its copy, and its leader ships their copies in one update.
uint32_t reduce(Granule& granule, uint32_t list, uint32_t combiner, bool blocking) {
  OmpThread& me = ompThread(granule);
  if (me.teamSize() <= 1) return 1;
  Team& team = *me.at.team;
  bool sharedCopy = team.threadHost != nullptr;
  uint32_t released = team.reductionsReleased.load(std::memory_order_acquire);
  team.reductionLists[size_t(me.at.threadNum)] = list;
  if (!sharedCopy) releaseMemory(granule);
  team.barrier.arriveAndWait();
  if (me.at.threadNum == team.reductionLeader) {
    if (!sharedCopy) acquireMemory(granule);
    for (int other = 0; other < team.size; ++other)
      if (other != me.at.threadNum && team.reductionLists[size_t(other)])
        callTableFunction(granule, combiner, {list, team.reductionLists[size_t(other)]});
    if (team.combineAcrossHosts) team.combineAcrossHosts(granule, list, combiner);
    // A thread host's leader leaves the shared variables to the main host,
    // so nothing there ends the blocking form either.
    if (!blocking || !team.reductionWritesShared) {
      team.reductionsReleased.fetch_add(1, std::memory_order_release);
      team.reductionsReleased.wakeAll();
    }
    return team.reductionWritesShared ? 1 : 0;
  }
  team.reductionsReleased.waitWhileEquals(released, team.spins);
  if (blocking && !sharedCopy) acquireMemory(granule);
  return 0;
}

int currentLevel(const OmpThread& me) { return me.at.team ? me.at.team->level : 0; }

}  // namespace

extern "C" {

void Z_envZ___kmpc_fork_call(void* host, uint32_t, uint32_t argumentCount, uint32_t microtask,
                             uint32_t varargs) {
  forkCall(host, argumentCount, microtask, varargs);
}

void Z_envZ___kmpc_push_num_threads(void* host, uint32_t, uint32_t, uint32_t threads) {
  ompThread(Granule::fromHost(host)).pushedNumThreads = int32_t(threads) > 0 ? int(threads) : 0;
}

void Z_envZ___kmpc_push_proc_bind(void*, uint32_t, uint32_t, uint32_t) {}
void Z_envZ___kmpc_begin(void*, uint32_t, uint32_t) {}
void Z_envZ___kmpc_end(void*, uint32_t) {}

uint32_t Z_envZ___kmpc_global_thread_num(void* host, uint32_t) {
  return uint32_t(ompThread(Granule::fromHost(host)).globalThreadId());
}

void Z_envZ___kmpc_serialized_parallel(void* host, uint32_t, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  // A num_threads clause on an if(0) region is spent on it.
  me.pushedNumThreads = 0;
  Team* parent = me.at.team;
  auto team = std::make_unique<Team>(parent, 1, parent ? parent->activeLevel : 0,
                                     me.at.threadNum, uint64_t{0});
  auto& serialized = granule.extension<SerializedTeams>().stack;
  serialized.emplace_back(std::move(team), me.at);
  me.at = TeamPosition{};
  me.at.team = serialized.back().first.get();
}

void Z_envZ___kmpc_end_serialized_parallel(void* host, uint32_t, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  auto& serialized = granule.extension<SerializedTeams>().stack;
  if (serialized.empty()) granule.trap("__kmpc_end_serialized_parallel without a region");
  ompThread(granule).at = serialized.back().second;
  serialized.pop_back();
}

void Z_envZ___kmpc_barrier(void* host, uint32_t, uint32_t) { barrier(Granule::fromHost(host)); }

uint32_t Z_envZ___kmpc_cancel_barrier(void* host, uint32_t, uint32_t) {
  barrier(Granule::fromHost(host));
  return 0;
}

void Z_envZ___kmpc_flush(void* host, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  releaseMemory(granule);
  acquireMemory(granule);
}

void Z_envZ___kmpc_critical(void* host, uint32_t, uint32_t, uint32_t name) {
  lockCritical(Granule::fromHost(host), name, false);
}

void Z_envZ___kmpc_critical_with_hint(void* host, uint32_t, uint32_t, uint32_t name, uint32_t) {
  lockCritical(Granule::fromHost(host), name, false);
}

void Z_envZ___kmpc_end_critical(void* host, uint32_t, uint32_t, uint32_t name) {
  unlockCritical(Granule::fromHost(host), name);
}

uint32_t Z_envZ___kmpc_master(void* host, uint32_t, uint32_t) {
  return ompThread(Granule::fromHost(host)).at.threadNum == 0;
}

void Z_envZ___kmpc_end_master(void*, uint32_t, uint32_t) {}

uint32_t Z_envZ___kmpc_masked(void* host, uint32_t, uint32_t, uint32_t filter) {
  return ompThread(Granule::fromHost(host)).at.threadNum == int(filter);
}

void Z_envZ___kmpc_end_masked(void*, uint32_t, uint32_t) {}

// The n-th single construct a thread meets goes to whichever thread of the
// team claims number n first.
uint32_t Z_envZ___kmpc_single(void* host, uint32_t, uint32_t) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  uint64_t mine = me.at.singlesSeen++;
  if (!me.at.team) return 1;
  if (ThreadHostSync* remote = me.at.team->threadHost) return remote->single(me, mine);
  return me.at.team->singlesTaken.compare_exchange_strong(mine, mine + 1);
}

void Z_envZ___kmpc_end_single(void*, uint32_t, uint32_t) {}

void Z_envZ___kmpc_copyprivate(void* host, uint32_t, uint32_t, uint32_t, uint32_t data,
                               uint32_t copyFunction, uint32_t didIt) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  if (me.teamSize() <= 1) return;
  // A thread host's single tells the main host, whose barrier answers
  // every thread host with the data.
  if (didIt) {
    if (ThreadHostSync* remote = me.at.team->threadHost)
      remote->offerCopyprivate(me, data);
    else
      me.at.team->copyprivateData.store(data, std::memory_order_release);
  }
  barrier(granule);
  if (!didIt)
    callTableFunction(granule, copyFunction,
                      {data, me.at.team->copyprivateData.load(std::memory_order_acquire)});
  barrier(granule);
}

uint32_t Z_envZ___kmpc_reduce_nowait(void* host, uint32_t, uint32_t, uint32_t, uint32_t,
                                     uint32_t list, uint32_t combiner, uint32_t) {
  return reduce(Granule::fromHost(host), list, combiner, false);
}

uint32_t Z_envZ___kmpc_reduce(void* host, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t list,
                              uint32_t combiner, uint32_t) {
  return reduce(Granule::fromHost(host), list, combiner, true);
}

void Z_envZ___kmpc_end_reduce_nowait(void*, uint32_t, uint32_t, uint32_t) {}

void Z_envZ___kmpc_end_reduce(void* host, uint32_t, uint32_t, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  if (me.teamSize() <= 1) return;
  releaseMemory(granule);
  me.at.team->reductionsReleased.fetch_add(1, std::memory_order_release);
  me.at.team->reductionsReleased.wakeAll();
}

// --- The OpenMP runtime API --------------------------------------------------

void Z_envZ_omp_set_num_threads(void* host, uint32_t threads) {
  if (int32_t(threads) > 0) ompThread(Granule::fromHost(host)).icvs.nthreads = int(threads);
}

uint32_t Z_envZ_omp_get_num_threads(void* host) {
  return uint32_t(ompThread(Granule::fromHost(host)).teamSize());
}

uint32_t Z_envZ_omp_get_max_threads(void* host) {
  return uint32_t(ompThread(Granule::fromHost(host)).icvs.nthreads);
}

uint32_t Z_envZ_omp_get_thread_num(void* host) {
  return uint32_t(ompThread(Granule::fromHost(host)).at.threadNum);
}

uint32_t Z_envZ_omp_get_num_procs(void*) { return uint32_t(onlineProcessors()); }

uint32_t Z_envZ_omp_in_parallel(void* host) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  return me.at.team && me.at.team->activeLevel > 0;
}

void Z_envZ_omp_set_dynamic(void* host, uint32_t dynamic) {
  ompThread(Granule::fromHost(host)).icvs.dynamic = dynamic != 0;
}

uint32_t Z_envZ_omp_get_dynamic(void* host) {
  return ompThread(Granule::fromHost(host)).icvs.dynamic;
}

void Z_envZ_omp_set_nested(void* host, uint32_t nested) {
  ompThread(Granule::fromHost(host)).icvs.maxActiveLevels = nested ? 255 : 1;
}

uint32_t Z_envZ_omp_get_nested(void* host) {
  return ompThread(Granule::fromHost(host)).icvs.maxActiveLevels > 1;
}

uint32_t Z_envZ_omp_get_cancellation(void*) { return 0; }

void Z_envZ_omp_set_schedule(void* host, uint32_t kind, uint32_t chunk) {
  Icvs& icvs = ompThread(Granule::fromHost(host)).icvs;
  icvs.runScheduleKind = int(kind);
  icvs.runScheduleChunk = int32_t(chunk) > 0 ? int(chunk) : (int(kind) == 1 ? 0 : 1);
}

void Z_envZ_omp_get_schedule(void* host, uint32_t kindAddress, uint32_t chunkAddress) {
  Granule& granule = Granule::fromHost(host);
  const Icvs& icvs = ompThread(granule).icvs;
  *granule.guestPtr<int32_t>(kindAddress) = icvs.runScheduleKind;
  *granule.guestPtr<int32_t>(chunkAddress) = icvs.runScheduleChunk;
}

uint32_t Z_envZ_omp_get_thread_limit(void*) { return uint32_t(INT_MAX); }

void Z_envZ_omp_set_max_active_levels(void* host, uint32_t levels) {
  if (int32_t(levels) >= 0)
    ompThread(Granule::fromHost(host)).icvs.maxActiveLevels =
        std::min(int(levels), int(kSupportedActiveLevels));
}

uint32_t Z_envZ_omp_get_max_active_levels(void* host) {
  return uint32_t(ompThread(Granule::fromHost(host)).icvs.maxActiveLevels);
}

uint32_t Z_envZ_omp_get_level(void* host) {
  return uint32_t(currentLevel(ompThread(Granule::fromHost(host))));
}

uint32_t Z_envZ_omp_get_active_level(void* host) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  return uint32_t(me.at.team ? me.at.team->activeLevel : 0);
}

uint32_t Z_envZ_omp_get_ancestor_thread_num(void* host, uint32_t level) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  int wanted = int32_t(level);
  if (wanted < 0 || wanted > currentLevel(me)) return uint32_t(-1);
  Team* team = me.at.team;
  int number = me.at.threadNum;
  while (team && team->level > wanted) {
    number = team->parentThreadNum;
    team = team->parent;
  }
  return uint32_t(number);
}

uint32_t Z_envZ_omp_get_team_size(void* host, uint32_t level) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  int wanted = int32_t(level);
  if (wanted < 0 || wanted > currentLevel(me)) return uint32_t(-1);
  Team* team = me.at.team;
  while (team && team->level > wanted) team = team->parent;
  return uint32_t(team ? team->size : 1);
}

uint32_t Z_envZ_omp_get_supported_active_levels(void*) { return kSupportedActiveLevels; }

// Threads are not bound to places: there is no place list (OMP_PLACES is not
// read), so a thread is in no place and every place query is empty.
uint32_t Z_envZ_omp_get_proc_bind(void*) { return 0; }
uint32_t Z_envZ_omp_get_num_places(void*) { return 0; }
uint32_t Z_envZ_omp_get_place_num_procs(void*, uint32_t) { return 0; }
void Z_envZ_omp_get_place_proc_ids(void*, uint32_t, uint32_t) {}
uint32_t Z_envZ_omp_get_place_num(void*) { return uint32_t(-1); }
uint32_t Z_envZ_omp_get_partition_num_places(void*) { return 0; }
void Z_envZ_omp_get_partition_place_nums(void*, uint32_t) {}

// The host is the only device. As in OpenMP 5.1 (and libgomp), its number is
// omp_get_num_devices(), so 0.
uint32_t Z_envZ_omp_get_default_device(void*) { return kInitialDevice; }
void Z_envZ_omp_set_default_device(void*, uint32_t) {}
uint32_t Z_envZ_omp_get_num_devices(void*) { return 0; }
uint32_t Z_envZ_omp_get_device_num(void*) { return kInitialDevice; }
uint32_t Z_envZ_omp_is_initial_device(void*) { return 1; }
uint32_t Z_envZ_omp_get_initial_device(void*) { return kInitialDevice; }
uint32_t Z_envZ_omp_get_max_task_priority(void*) { return 0; }

// A pause has nothing to wait for: idle workers already sleep, and the next
// region wakes them. It is refused inside a parallel region, where the
// threads it would release are in use.
uint32_t Z_envZ_omp_pause_resource_all(void* host, uint32_t kind) {
  if (kind != kPauseSoft && kind != kPauseHard) return uint32_t(-1);
  return currentLevel(ompThread(Granule::fromHost(host))) > 0 ? uint32_t(-1) : 0;
}

uint32_t Z_envZ_omp_pause_resource(void* host, uint32_t kind, uint32_t device) {
  if (device != kInitialDevice) return uint32_t(-1);
  return Z_envZ_omp_pause_resource_all(host, kind);
}

// OMPT is not implemented, so there is no tool to control.
uint32_t Z_envZ_omp_control_tool(void*, uint32_t, uint32_t, uint32_t) {
  return uint32_t(kControlToolNoTool);
}

// Teams run on the host as one team (there is no `teams` construct support
// beyond that), but the teams ICVs are kept and read back.
uint32_t Z_envZ_omp_get_num_teams(void*) { return 1; }
uint32_t Z_envZ_omp_get_team_num(void*) { return 0; }

void Z_envZ_omp_set_num_teams(void* host, uint32_t teams) {
  if (int32_t(teams) <= 0) return;
  DeviceIcvs& device = ompRuntime(Granule::fromHost(host)).device();
  std::lock_guard guard(device.lock);
  device.teams = int(teams);
}

uint32_t Z_envZ_omp_get_max_teams(void* host) {
  DeviceIcvs& device = ompRuntime(Granule::fromHost(host)).device();
  std::lock_guard guard(device.lock);
  return uint32_t(device.teams);
}

void Z_envZ_omp_set_teams_thread_limit(void* host, uint32_t limit) {
  if (int32_t(limit) <= 0) return;
  DeviceIcvs& device = ompRuntime(Granule::fromHost(host)).device();
  std::lock_guard guard(device.lock);
  device.teamsThreadLimit = int(limit);
}

uint32_t Z_envZ_omp_get_teams_thread_limit(void* host) {
  DeviceIcvs& device = ompRuntime(Granule::fromHost(host)).device();
  std::lock_guard guard(device.lock);
  return uint32_t(device.teamsThreadLimit);
}

// To stderr, in the OPENMP DISPLAY ENVIRONMENT layout of the spec.
void Z_envZ_omp_display_env(void* host, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  const Icvs& icvs = ompThread(granule).icvs;
  std::fprintf(stderr,
               "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP = '201811'\n"
               "  OMP_DYNAMIC = '%s'\n  OMP_NUM_THREADS = '%d'\n"
               "  OMP_MAX_ACTIVE_LEVELS = '%d'\n  OMP_PROC_BIND = 'FALSE'\n"
               "OPENMP DISPLAY ENVIRONMENT END\n",
               icvs.dynamic ? "TRUE" : "FALSE", icvs.nthreads, icvs.maxActiveLevels);
}

double Z_envZ_omp_get_wtime(void*) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double Z_envZ_omp_get_wtick(void*) { return 1e-9; }

// --- Locks ---------------------------------------------------------------------

void Z_envZ_omp_init_lock(void* host, uint32_t lock) {
  Granule& granule = Granule::fromHost(host);
  granule.guestPtr<uint32_t>(lock);
  ompRuntime(granule).locks().forget(lock);
}

void Z_envZ_omp_init_lock_with_hint(void* host, uint32_t lock, uint32_t) {
  Z_envZ_omp_init_lock(host, lock);
}

void Z_envZ_omp_destroy_lock(void* host, uint32_t lock) {
  ompRuntime(Granule::fromHost(host)).locks().forget(lock);
}

void Z_envZ_omp_set_lock(void* host, uint32_t lock) {
  lockCritical(Granule::fromHost(host), lock, false);
}

void Z_envZ_omp_unset_lock(void* host, uint32_t lock) {
  unlockCritical(Granule::fromHost(host), lock);
}

uint32_t Z_envZ_omp_test_lock(void* host, uint32_t lock) {
  return lockCritical(Granule::fromHost(host), lock, false, false) ? 1 : 0;
}

void Z_envZ_omp_init_nest_lock(void* host, uint32_t lock) { Z_envZ_omp_init_lock(host, lock); }

void Z_envZ_omp_init_nest_lock_with_hint(void* host, uint32_t lock, uint32_t) {
  Z_envZ_omp_init_lock(host, lock);
}

void Z_envZ_omp_destroy_nest_lock(void* host, uint32_t lock) {
  Z_envZ_omp_destroy_lock(host, lock);
}

void Z_envZ_omp_set_nest_lock(void* host, uint32_t lock) {
  lockCritical(Granule::fromHost(host), lock, true);
}

void Z_envZ_omp_unset_nest_lock(void* host, uint32_t lock) {
  unlockCritical(Granule::fromHost(host), lock);
}

uint32_t Z_envZ_omp_test_nest_lock(void* host, uint32_t lock) {
  return uint32_t(lockCritical(Granule::fromHost(host), lock, true, false));
}

}  // extern "C"
