//===- Pthreads.h - POSIX threads as thread granules ------------------------===//
//
// pthread_create starts a thread granule (ThreadGroup::spawn) on a new host
// thread and calls the start routine through the guest's function table.
// pthread_t values are small integers; the main thread is 1. Mutexes,
// condition variables and barriers are KeyedLocks state named by their guest
// address, so their all-zero static initialisers need no runtime call.
//
// Under --dsm each pthread runs on its own replica of the process's DsmHub
// (the main thread on its adopted memory), and the pthread functions are the
// memory synchronisation points POSIX gives them: pthread_create releases
// the creator's writes before the new thread's replica is made; a thread's
// end releases and pthread_join acquires; mutex lock acquires and unlock
// releases; a condition wait releases, then acquires once woken; signal and
// broadcast release; a barrier releases then acquires; pthread_once
// acquires, and the thread that ran the routine releases. Outside --dsm
// every granule shares one memory and these calls cost nothing extra.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "granule/Granule.h"
#include "omp/KeyedLocks.h"
#include "omp/ReaderWriterLocks.h"
#include "omp/ThreadGroup.h"

namespace synergy::omp {

class GranuleReplica;
class RemotePthreads;
class ThreadHostSync;

struct PthreadRecord {
  PthreadRecord();
  ~PthreadRecord();
  // Under --dsm; outlives the granule running on it.
  std::unique_ptr<GranuleReplica> replica;
  ThreadGranule thread;
  pthread_t host{};
  uint32_t startRoutine = 0;
  uint32_t argument = 0;
  uint32_t result = 0;
  bool detached = false;
  bool finished = false;
  bool joining = false;
  int remoteHost = -1;  // the thread host it runs on (omp/RemotePthreads.h)
  std::string name;  // pthread_setname_np
};

struct KeySlot {
  bool used = false;
  uint32_t destructor = 0;  // function table index, 0 for none
};

class PthreadRuntime {
 public:
  explicit PthreadRuntime(ThreadGroup& group);
  ~PthreadRuntime();

  ThreadGroup& group() { return group_; }
  KeyedLocks& locks() { return locks_; }
  ReaderWriterLocks& rwlocks() { return rwlocks_; }

  // Returns the new thread's id, or 0 with errno-style `error` set.
  uint32_t create(granule::Granule& creator, uint32_t startRoutine, uint32_t argument,
                  uint32_t stackBytes, bool detached, int& error);
  // Waits for `id`; returns 0 or an errno value.
  int join(granule::Granule& joiner, uint32_t id, uint32_t& result);
  int detach(uint32_t id);
  // Whether a thread has not finished yet.
  bool anyRunning();
  // Whether a thread may still use the runtime: one that has not finished,
  // or a detached one, which nobody joins and whose host thread may still
  // be leaving run() (its proxy's on a thread host, a service's too).
  bool outliveRun();

  int createKey(uint32_t destructor, uint32_t& key);
  int deleteKey(uint32_t key);
  bool keyExists(uint32_t key);
  uint32_t keyDestructor(uint32_t key);

  // pthread_setname_np and pthread_getname_np for thread `id` (the main
  // thread is 1); 0 or an errno value. A name never set reads as empty.
  int setName(uint32_t id, std::string name);
  int getName(uint32_t id, std::string& name);

  std::mutex& onceLock() { return onceLock_; }
  std::condition_variable& onceDone() { return onceDone_; }

 private:
  void run(PthreadRecord& record, uint32_t id);
  // A thread on this host: its start routine and key destructors; returns
  // its result.
  uint32_t runHere(PthreadRecord& record);

  ThreadGroup& group_;
  KeyedLocks locks_;
  ReaderWriterLocks rwlocks_;
  std::mutex lock_;
  std::condition_variable finished_;
  uint32_t nextId_ = 2;
  std::map<uint32_t, std::unique_ptr<PthreadRecord>> threads_;
  std::vector<KeySlot> keys_;
  std::string mainName_;
  std::mutex onceLock_;
  std::condition_variable onceDone_;
  // Made by the first pthread_create of a job with thread hosts.
  std::unique_ptr<RemotePthreads> remote_;
};

// Per granule: its pthread id, thread-specific values, and pthread_exit.
class PthreadSelf : public granule::HostExtension {
 public:
  explicit PthreadSelf(granule::Granule&) {}
  uint32_t id = 1;
  std::map<uint32_t, uint32_t> specific;  // key -> value
  bool exited = false;                    // left through pthread_exit
  uint32_t exitResult = 0;
  // Set on a thread host for a pthread running there (omp/RemotePthreads.h).
  ThreadHostSync* threadHost = nullptr;
};

// The process's pthread runtime, and the lock-owner id of `granule`'s thread.
PthreadRuntime& pthreads(granule::Granule& granule);
int threadIdOf(granule::Granule& granule);

// Reads the guest's `struct timespec` at `address` as an absolute
// CLOCK_REALTIME deadline; false when its nanoseconds are out of range.
bool readDeadline(granule::Granule& granule, uint32_t address,
                  std::chrono::system_clock::time_point& deadline);

}  // namespace synergy::omp
