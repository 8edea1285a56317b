//===- AdaptiveMutex.h - a mutex that spins briefly before sleeping -------===//
//
// glibc's adaptive mutex: a thread that finds it locked spins for a short,
// self-tuning while before it sleeps in the kernel. For state that threads
// on different CPUs lock very often for a few hundred nanoseconds (the MPI
// world's mailboxes), sleeping on every collision costs two futex calls and
// a context switch, which is most of a small message's latency. It is
// BasicLockable, so std::lock_guard, std::unique_lock and
// std::condition_variable_any work with it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <pthread.h>

namespace synergy::util {

class AdaptiveMutex {
 public:
  AdaptiveMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&mutex_, &attr);
    pthread_mutexattr_destroy(&attr);
  }
  ~AdaptiveMutex() { pthread_mutex_destroy(&mutex_); }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;

  void lock() { pthread_mutex_lock(&mutex_); }
  bool try_lock() { return pthread_mutex_trylock(&mutex_) == 0; }
  void unlock() { pthread_mutex_unlock(&mutex_); }

 private:
  pthread_mutex_t mutex_;
};

}  // namespace synergy::util
