//===- ReaderWriterLocks.h - pthread rwlocks, kept on the host --------------===//
//
// A pthread_rwlock_t is guest memory the runtime uses only as a name, like
// the mutexes of KeyedLocks: its state lives here, keyed by guest address,
// so PTHREAD_RWLOCK_INITIALIZER (all zero) needs no runtime call and a lock
// keeps one identity across --dsm replicas. Readers are counted per owner,
// so an unlock by a thread holding nothing is refused. Like glibc's default
// kind, a reader is admitted whenever no writer holds the lock, even while
// writers wait.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace synergy::omp {

class ReaderWriterLocks {
 public:
  enum class Outcome { Taken, Busy, WouldDeadlock, TimedOut };
  // How long a lock call may wait: not at all (try), until `deadline`
  // (timed), or for ever when `deadline` is null.
  struct Wait {
    bool blocking = true;
    const std::chrono::system_clock::time_point* deadline = nullptr;
  };

  // WouldDeadlock when `owner` already holds `key` for writing.
  Outcome readLock(uint32_t key, int owner, Wait wait);
  // WouldDeadlock when `owner` already holds `key` in either mode.
  Outcome writeLock(uint32_t key, int owner, Wait wait);
  // Releases `owner`'s write hold or one of its read holds; false if it
  // holds neither.
  bool unlock(uint32_t key, int owner);
  // False (and nothing changes) while the lock is held or waited for.
  bool forget(uint32_t key);

 private:
  struct Entry {
    int writer = -1;
    std::map<int, int> readers;  // owner -> read holds
    int waiters = 0;             // threads sleeping on `changed`
    std::condition_variable changed;
  };
  Entry& entry(uint32_t key);
  // Waits on `lock` until `free()` holds or the wait runs out.
  template <typename Free>
  Outcome await(std::unique_lock<std::mutex>& guard, Entry& lock, Wait wait, Free free);

  std::mutex mutex_;
  std::map<uint32_t, std::unique_ptr<Entry>> entries_;
};

}  // namespace synergy::omp
