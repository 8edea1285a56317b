//===- ReaderWriterLocks.cpp - pthread rwlocks, kept on the host ------------===//
#include "omp/ReaderWriterLocks.h"

namespace synergy::omp {

ReaderWriterLocks::Entry& ReaderWriterLocks::entry(uint32_t key) {
  std::unique_ptr<Entry>& slot = entries_[key];
  if (!slot) slot = std::make_unique<Entry>();
  return *slot;
}

template <typename Free>
ReaderWriterLocks::Outcome ReaderWriterLocks::await(std::unique_lock<std::mutex>& guard,
                                                    Entry& lock, Wait wait, Free free) {
  if (free()) return Outcome::Taken;
  if (!wait.blocking) return Outcome::Busy;
  ++lock.waiters;
  bool taken = true;
  if (wait.deadline)
    taken = lock.changed.wait_until(guard, *wait.deadline, free);
  else
    lock.changed.wait(guard, free);
  --lock.waiters;
  return taken ? Outcome::Taken : Outcome::TimedOut;
}

ReaderWriterLocks::Outcome ReaderWriterLocks::readLock(uint32_t key, int owner, Wait wait) {
  std::unique_lock guard(mutex_);
  Entry& lock = entry(key);
  if (lock.writer == owner) return Outcome::WouldDeadlock;
  Outcome outcome = await(guard, lock, wait, [&] { return lock.writer < 0; });
  if (outcome == Outcome::Taken) ++lock.readers[owner];
  return outcome;
}

ReaderWriterLocks::Outcome ReaderWriterLocks::writeLock(uint32_t key, int owner, Wait wait) {
  std::unique_lock guard(mutex_);
  Entry& lock = entry(key);
  if (lock.writer == owner || lock.readers.count(owner)) return Outcome::WouldDeadlock;
  Outcome outcome =
      await(guard, lock, wait, [&] { return lock.writer < 0 && lock.readers.empty(); });
  if (outcome == Outcome::Taken) lock.writer = owner;
  return outcome;
}

bool ReaderWriterLocks::unlock(uint32_t key, int owner) {
  std::lock_guard guard(mutex_);
  auto found = entries_.find(key);
  if (found == entries_.end()) return false;
  Entry& lock = *found->second;
  if (lock.writer == owner) {
    lock.writer = -1;
  } else {
    auto reader = lock.readers.find(owner);
    if (reader == lock.readers.end()) return false;
    if (--reader->second == 0) lock.readers.erase(reader);
    if (!lock.readers.empty()) return true;
  }
  lock.changed.notify_all();
  return true;
}

bool ReaderWriterLocks::forget(uint32_t key) {
  std::lock_guard guard(mutex_);
  auto found = entries_.find(key);
  if (found == entries_.end()) return true;
  const Entry& lock = *found->second;
  if (lock.writer >= 0 || !lock.readers.empty() || lock.waiters) return false;
  entries_.erase(found);
  return true;
}

}  // namespace synergy::omp
