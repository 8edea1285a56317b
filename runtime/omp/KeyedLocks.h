//===- KeyedLocks.h - guest lock objects, kept on the host -----------------===//
//
// OpenMP locks and critical names, and pthread mutexes and condition
// variables, are guest memory the runtime only uses as a name: their state
// lives here, keyed by guest address, so static all-zero initialisers work
// and a lock keeps one identity across --dsm replicas (same address in
// every replica). One host mutex guards all of them; waiters sleep on one
// condition variable per key.
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

class KeyedLocks {
 public:
  // Blocks until `owner` holds `key`. A recursive lock already held by
  // `owner` counts one level deeper; returns the depth now held.
  int lock(uint32_t key, int owner, bool recursive);
  // Takes `key` if free (or re-enters a recursive one); returns the new depth
  // or 0 when another owner holds it.
  int tryLock(uint32_t key, int owner, bool recursive);
  // Leaves one level; false if `owner` does not hold `key`.
  bool unlock(uint32_t key, int owner);
  bool heldBy(uint32_t key, int owner);
  void forget(uint32_t key);

  // pthread_cond_wait: releases `mutexKey` entirely, sleeps on `condKey`
  // until notified (or `deadline`), then re-takes the mutex at its old
  // depth. Returns false on timeout.
  bool wait(uint32_t condKey, uint32_t mutexKey, int owner,
            const std::chrono::system_clock::time_point* deadline);
  void notify(uint32_t condKey, bool all);

 private:
  struct Entry {
    int owner = -1;
    int depth = 0;
    uint64_t signals = 0;  // condition variables: notifications so far
    std::condition_variable released;
  };
  Entry& entry(uint32_t key);
  void acquireLocked(std::unique_lock<std::mutex>& guard, Entry& lock, int owner, int depth);

  std::mutex mutex_;
  std::map<uint32_t, std::unique_ptr<Entry>> entries_;
};

}  // namespace synergy::omp
