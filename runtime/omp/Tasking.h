//===- Tasking.h - OpenMP explicit tasks ------------------------------------===//
//
// `#pragma omp task` (with detach events), taskwait, taskgroup, taskyield,
// depend and taskloop (task reductions are in TaskReduction.h).
// clang allocates every task with __kmpc_omp_task_alloc as a kmp_task_t in
// guest memory (its shareds pointer, routine and part id, then the
// firstprivate copies; taskloop tasks add 64-bit bounds at offset 24) and
// hands it back to the runtime to run; the task's body is a guest function
// called through the function table with the global thread id and the task.
//
// Each team has one TaskPool: the tasks it created and not yet completed, and
// a queue of the ready ones. Any thread of the team takes tasks from the
// queue at its scheduling points (barriers, taskwait, the end of a taskgroup,
// taskyield and the end of the region), so a task may run on a thread other
// than its creator. In a team of one, in a final task, or when the queue is
// long, a task runs at once in the creating thread instead. A thread that
// waits inside a task (taskwait, the end of a taskgroup, taskyield) starts
// only tied tasks descending from the innermost tied task it suspends, as
// OpenMP's task scheduling constraint requires: a task that holds a lock
// across a taskwait must not find an unrelated task wanting that lock
// stacked above it on its own thread. Barriers may start any task.
//
// The host keeps a Task for each guest task: its parent (whose taskwait
// counts it), its taskgroup (whose end counts it and all its descendants),
// and the sibling tasks it depends on. Dependences are by address, as in
// libomp: `in` waits for the last `out`/`inout` on the address, `out` and
// `inout` also wait for the `in`s since. mutexinoutset and inoutset are
// ordered as inout, which is stricter than required and so still correct.
//
// Under --dsm a task may run on another replica than its creator's: the
// creator releases before the task is queued, the runner acquires before
// and releases after running it, and every wait for tasks acquires once the
// tasks it waited for are complete.
//
// In a team whose threads span hosts (omp/RemoteThreads.h) each process
// has its own pool, so a task runs on the host that created it (any thread
// of the team may run a task, so this is allowed), and its dependences,
// which are among siblings, stay there too. A thread host's thread that
// fulfils the event of a detached task the main host created sends it
// there with the host's writes so far (SyncOp::FulfillEvent); the event of
// a task a thread host created is fulfilled on that host only (elsewhere a
// trap, or on another thread host an error for the job). A thread host's threads share
// its copy of the memory, so tasking synchronises no memory there: a task
// reaches no other host before the host's next barrier, lock or join
// carries its writes. A barrier completes only once no host has a task
// left: a thread host's party arrives at the team barrier only once all its
// threads are at the barrier and its pool is empty (ThreadHostSync), and
// the main host's last arriver waits for the main host's pool to empty, so
// no task is created after the barrier has counted its host.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "omp/TaskReduction.h"
#include "omp/WaitWord.h"

namespace synergy::omp {

class OmpThread;
struct Task;
class TaskPool;

struct TaskGroup {
  std::shared_ptr<TaskGroup> outer;
  // Tasks created in the group, and their descendants, not yet completed.
  std::atomic<int64_t> pending{0};
  // Its task_reduction clause (or a taskloop's reduction clause).
  std::unique_ptr<TaskReduction> reduction;
};

// The sibling tasks that touched one address last.
struct Dependence {
  std::shared_ptr<Task> lastWriter;
  std::vector<std::shared_ptr<Task>> readersSinceWriter;
};

struct Task {
  uint32_t address = 0;  // the guest kmp_task_t; 0 for an implicit task
  uint32_t routine = 0;
  uint32_t bytes = 0;  // kmp_task_t, privates and shareds
  uint32_t sharedsOffset = 0;
  int32_t flags = 0;
  TaskPool* pool = nullptr;  // of the team that created it
  bool final = false;     // tasks it creates are included
  bool included = false;  // created in a final task: runs at once
  std::shared_ptr<Task> parent;
  std::shared_ptr<TaskGroup> group;  // the taskgroup it belongs to
  // The innermost taskgroup open in the task; only its running thread
  // touches it.
  std::shared_ptr<TaskGroup> openGroup;
  // What the thread ran before entering an undeferred (if(0)) task.
  std::shared_ptr<Task> resumeAfterInline;

  std::atomic<int64_t> children{0};  // not yet completed
  // Runs queued or in progress, plus one for an unfulfilled detach event:
  // an untied task re-queues itself from its own routine, and a task
  // completes only when the count drops to zero.
  std::atomic<int> runs{0};
  std::atomic<bool> completed{false};
  // A detached task whose event is not yet fulfilled.
  std::atomic<bool> eventPending{false};

  // Under the pool's lock.
  int pendingPredecessors = 0;
  std::vector<std::shared_ptr<Task>> successors;
  std::unordered_map<uint32_t, Dependence> childDependences;
};

class TaskPool {
 public:
  std::mutex lock;
  std::unordered_map<uint32_t, std::shared_ptr<Task>> live;  // by guest address
  std::deque<std::shared_ptr<Task>> ready;
  std::atomic<int64_t> unfinished{0};  // allocated, not yet completed
  // Taskgroups with a task reduction, by the handle their tasks use.
  std::unordered_map<uint32_t, std::shared_ptr<TaskGroup>> reductions;
  uint32_t lastReductionHandle = 0;
  // The team's latest reduction(task, ...) construct; members join it in
  // turn under teamReductionLock, and the first to arrive at a construct
  // the team has fully joined starts the next one.
  std::mutex teamReductionLock;
  std::shared_ptr<TaskGroup> teamReduction;
  // Bumped whenever a waiting thread may have something to do: a task was
  // queued or completed, or a barrier opened.
  WaitWord events;
  // Detached tasks whose event another host fulfilled after their routine
  // had returned (fulfilEventFromAnotherHost): the team's threads complete
  // them at their next scheduling point, as they need a guest to run on.
  std::deque<std::shared_ptr<Task>> fulfilledElsewhere;  // under lock
  std::atomic<int> fulfilledElsewhereCount{0};

  void signal() {
    events.fetch_add(1, std::memory_order_acq_rel);
    events.wakeAll();
  }
};

// The memory synchronisation of tasking's points (a task's start and end,
// a wait for tasks): none on a thread host, whose threads share one copy.
void acquireForTasks(OmpThread& me);
void releaseForTasks(OmpThread& me);

// The task the thread is running (its implicit task, created on first use).
const std::shared_ptr<Task>& currentTask(OmpThread& me);
// The task pool of the thread's team (or of the thread outside any region).
TaskPool& taskPoolOf(OmpThread& me);

// The barrier of the thread's team, running queued tasks while it waits; the
// last thread to arrive waits for every task of the team.
void taskingBarrier(OmpThread& me);

// Runs queued tasks of the thread's team, as at a barrier, until `done`
// holds.
void runTasksAsAtBarrier(OmpThread& me, const std::function<bool()>& done);

// omp_fulfill_event on a thread host for a task `pool`'s host created (a
// thread host's SyncOp::FulfillEvent, served by HostSyncService): the
// event counts as fulfilled, the fulfilling host's writes having reached
// this host's memory first; a task whose routine has returned is completed
// by one of the team's threads at its next scheduling point. False when
// `event` names no task of the pool with a pending event (unknown, not
// detached, or already fulfilled).
bool fulfilEventFromAnotherHost(TaskPool& pool, uint32_t event);

// The end of a thread's implicit task: every member helps with queued tasks
// until none is unfinished. The join after it (OmpRuntime::forkCall) waits
// for every worker to get past this point, so once thread 0 has joined,
// every task of the region is complete.
void finishImplicitTask(OmpThread& me);

}  // namespace synergy::omp
