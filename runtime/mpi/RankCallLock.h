//===- RankCallLock.h - one rank's MPI calls from several threads ----------===//
//
// Under MPI_THREAD_MULTIPLE the pthreads of a rank may call MPI at the same
// time, and they all act as that rank (HostCall finds the rank of a thread
// granule through its parent). The rank's state was built for one caller:
// its handle tables, the single-producer rings it sends through and the
// mailbox it alone drains. So every call of such a rank holds the rank's
// call lock, as MPICH's global critical section does, and releases it only
// while it waits (World::waitUntilReady), so that another thread of the
// rank can post the message or join the collective it waits for. Calls of
// one thread thus reach the rank's rings in program order, which is all
// the ordering MPI promises between threads.
//
// A rank that did not ask for MPI_THREAD_MULTIPLE never takes the lock: its
// calls, blocking ones included, run exactly as before.
//
// The lock is reentrant, because a call may run guest code (an attribute
// copy callback, a user-defined op) that calls MPI again on the same thread.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <mutex>
#include <thread>

namespace synergy::mpi {

class RankCallLock {
 public:
  // Set once, by MPI_Init_thread with MPI_THREAD_MULTIPLE, before any other
  // thread of the rank may call MPI.
  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  void enable() { enabled_.store(true, std::memory_order_release); }

  void lock() {
    if (heldHere()) {
      ++depth_;
      return;
    }
    mutex_.lock();
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    depth_ = 1;
  }
  void unlock() {
    if (--depth_ > 0) return;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    mutex_.unlock();
  }
  // Whether the calling thread holds the lock. Only the holder stores its
  // own id, so a thread that reads its id here really holds it.
  bool heldHere() const {
    return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id();
  }
  // Lets go of every level the calling thread holds, for a wait; returns
  // them for reacquire().
  int releaseAll() {
    int depth = depth_;
    depth_ = 1;
    unlock();
    return depth;
  }
  void reacquire(int depth) {
    lock();
    depth_ = depth;
  }

 private:
  std::atomic<bool> enabled_{false};
  std::mutex mutex_;
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;  // written by the holder only
};

}  // namespace synergy::mpi
