//===- KeyedLocks.cpp - guest lock objects, kept on the host ---------------===//
#include "omp/KeyedLocks.h"

namespace synergy::omp {

KeyedLocks::Entry& KeyedLocks::entry(uint32_t key) {
  auto& slot = entries_[key];
  if (!slot) slot = std::make_unique<Entry>();
  return *slot;
}

void KeyedLocks::acquireLocked(std::unique_lock<std::mutex>& guard, Entry& lock, int owner,
                               int depth) {
  lock.released.wait(guard, [&] { return lock.owner < 0; });
  lock.owner = owner;
  lock.depth = depth;
}

int KeyedLocks::lock(uint32_t key, int owner, bool recursive) {
  std::unique_lock guard(mutex_);
  Entry& lock = entry(key);
  if (recursive && lock.owner == owner) return ++lock.depth;
  acquireLocked(guard, lock, owner, 1);
  return 1;
}

int KeyedLocks::tryLock(uint32_t key, int owner, bool recursive) {
  std::lock_guard guard(mutex_);
  Entry& lock = entry(key);
  if (recursive && lock.owner == owner) return ++lock.depth;
  if (lock.owner >= 0) return 0;
  lock.owner = owner;
  lock.depth = 1;
  return 1;
}

bool KeyedLocks::unlock(uint32_t key, int owner) {
  std::lock_guard guard(mutex_);
  Entry& lock = entry(key);
  if (lock.owner != owner) return false;
  if (--lock.depth == 0) {
    lock.owner = -1;
    lock.released.notify_one();
  }
  return true;
}

bool KeyedLocks::heldBy(uint32_t key, int owner) {
  std::lock_guard guard(mutex_);
  return entry(key).owner == owner;
}

void KeyedLocks::forget(uint32_t key) {
  std::lock_guard guard(mutex_);
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second->owner < 0) entries_.erase(it);
}

bool KeyedLocks::wait(uint32_t condKey, uint32_t mutexKey, int owner,
                      const std::chrono::system_clock::time_point* deadline) {
  std::unique_lock guard(mutex_);
  Entry& mutex = entry(mutexKey);
  Entry& cond = entry(condKey);
  int depth = mutex.owner == owner ? mutex.depth : 1;
  mutex.owner = -1;
  mutex.depth = 0;
  mutex.released.notify_one();
  uint64_t seen = cond.signals;
  bool signalled = true;
  if (deadline)
    signalled = cond.released.wait_until(guard, *deadline, [&] { return cond.signals != seen; });
  else
    cond.released.wait(guard, [&] { return cond.signals != seen; });
  acquireLocked(guard, mutex, owner, depth);
  return signalled;
}

void KeyedLocks::notify(uint32_t condKey, bool all) {
  std::lock_guard guard(mutex_);
  Entry& cond = entry(condKey);
  ++cond.signals;
  if (all)
    cond.released.notify_all();
  else
    cond.released.notify_one();
}

}  // namespace synergy::omp
