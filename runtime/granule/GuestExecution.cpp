//===- GuestExecution.cpp - per-thread trap and exit unwinding -------------===//
#include "granule/GuestExecution.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "snapshot/DirtyTracker.h"
#include "snapshot/LinearMemory.h"

namespace synergy::granule {
namespace {

constexpr size_t kAltStackBytes = 256 * 1024;

thread_local GuestExecution* tCurrent = nullptr;
thread_local uintptr_t tStackLow = 0;
thread_local uintptr_t tStackHigh = 0;
thread_local bool tPrepared = false;

struct sigaction gPreviousSegv, gPreviousBus;

std::atomic<bool> gTimeLimitExpired{false};
std::atomic<bool> gTimeLimitTrapTaken{false};

// A real-time signal: nothing else in the process uses it, and unlike
// SIGALRM it cannot come from a guest's own timer.
int timeLimitSignal() { return SIGRTMIN + 2; }

// The threads that may run guest code. Allocated once and never freed: the
// time-limit watchdog may still walk it while the process exits.
struct GuestThreadRegistry {
  std::mutex lock;
  std::vector<pthread_t> threads;
};

GuestThreadRegistry& guestThreads() {
  static auto* registry = new GuestThreadRegistry;
  return *registry;
}

// Lives as long as its thread: a thread leaves the registry before it ends,
// under the lock the watchdog signals under, so it is never signalled after.
struct GuestThreadRegistration {
  GuestThreadRegistration() {
    std::lock_guard guard(guestThreads().lock);
    guestThreads().threads.push_back(pthread_self());
  }
  ~GuestThreadRegistration() {
    GuestThreadRegistry& registry = guestThreads();
    std::lock_guard guard(registry.lock);
    for (size_t i = 0; i < registry.threads.size(); ++i)
      if (pthread_equal(registry.threads[i], pthread_self())) {
        registry.threads[i] = registry.threads.back();
        registry.threads.pop_back();
        break;
      }
  }
};

void restoreAndReturn(int signal) {
  // Not a guest fault: let the default action produce a normal crash report.
  sigaction(signal, signal == SIGSEGV ? &gPreviousSegv : &gPreviousBus, nullptr);
}

void onFault(int signal, siginfo_t* info, void* context) {
  // A first write to a page that --dsm tracks is not a fault of the guest.
  if (signal == SIGSEGV && snapshot::handleDirtyTrackingFault(info->si_addr)) return;
  GuestExecution* execution = tCurrent;
  if (!execution) return restoreAndReturn(signal);
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const char* reason = nullptr;
  if (execution->memory && execution->memory->reservationContains(info->si_addr))
    reason = "out of bounds memory access";
  else if (tStackLow && address + kStackGuardBytes >= tStackLow && address < tStackHigh)
    reason = "call stack exhausted";
  if (!reason) return restoreAndReturn(signal);
  execution->trapReason = reason;
  execution->trapPc = uintptr_t(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  siglongjmp(execution->jumpBuffer, GuestExecution::Trapped);
}

// Async-signal-safe: reads only this thread's innermost execution and the
// interrupted context. Outside the module's code (a host function, libc, the
// kernel) the thread may hold locks; it is signalled again and caught once it
// is back in guest code, or ended by the watchdog if it never returns.
void onTimeLimitSignal(int, siginfo_t*, void* context) {
  if (!gTimeLimitExpired.load(std::memory_order_relaxed)) return;
  GuestExecution* execution = tCurrent;
  if (!execution) return;
  auto pc = uintptr_t(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  if (pc < execution->codeBegin || pc >= execution->codeEnd) return;
  // Only the first thread caught traps: it reports for the whole process,
  // which it then ends, so the report is printed once. The others run on.
  bool alreadyTaken = false;
  if (!gTimeLimitTrapTaken.compare_exchange_strong(alreadyTaken, true)) return;
  execution->trapReason = kTimeLimitTrapReason;
  execution->trapPc = pc;
  siglongjmp(execution->jumpBuffer, GuestExecution::Trapped);
}

void installTimeLimitHandler() {
  struct sigaction action = {};
  action.sa_sigaction = onTimeLimitSignal;
  // SA_RESTART: host code interrupted in a system call carries on as if
  // nothing happened; it is not prepared for EINTR.
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(timeLimitSignal(), &action, nullptr);
}

void installFaultHandlers() {
  struct sigaction action = {};
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &gPreviousSegv);
  sigaction(SIGBUS, &action, &gPreviousBus);
}

}  // namespace

void prepareThreadForGuestCode() {
  static std::once_flag handlersInstalled;
  std::call_once(handlersInstalled, installFaultHandlers);
  if (!tPrepared) {
    tPrepared = true;
    static thread_local GuestThreadRegistration registration;
    void* altStack = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (altStack != MAP_FAILED) {
      stack_t ss = {};
      ss.ss_sp = altStack;
      ss.ss_size = kAltStackBytes;
      sigaltstack(&ss, nullptr);
    }
  }
  // On the main thread this reads /proc/self/maps: skipped on a stack of
  // runOnFreshHostStack's, whose range is known.
  if (tStackHigh) return;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* low = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &low, &size);
    tStackLow = reinterpret_cast<uintptr_t>(low);
    tStackHigh = tStackLow + size;
    pthread_attr_destroy(&attr);
  }
}

NativeStackRange useNativeStackRange(NativeStackRange range) {
  NativeStackRange previous{tStackLow, tStackHigh};
  tStackLow = range.low;
  tStackHigh = range.high;
  return previous;
}

GuestExecution* enterGuestExecution(GuestExecution* execution) {
  execution->outer = tCurrent;
  tCurrent = execution;
  return execution->outer;
}

void leaveGuestExecution(GuestExecution* previous) { tCurrent = previous; }

GuestExecution* currentGuestExecution() { return tCurrent; }

void unwindGuestTrap(const char* reason, uintptr_t pc) {
  GuestExecution* execution = tCurrent;
  if (!execution) {
    std::fprintf(stderr, "synergy: internal error: trap '%s' outside guest code\n", reason);
    std::abort();
  }
  execution->trapReason = reason;
  execution->trapPc = pc;
  siglongjmp(execution->jumpBuffer, GuestExecution::Trapped);
}

void expireGuestTimeLimit() {
  static std::once_flag handlerInstalled;
  std::call_once(handlerInstalled, installTimeLimitHandler);
  gTimeLimitExpired.store(true, std::memory_order_relaxed);
}

void interruptGuestThreads() {
  GuestThreadRegistry& registry = guestThreads();
  std::lock_guard guard(registry.lock);
  for (pthread_t thread : registry.threads) pthread_kill(thread, timeLimitSignal());
}

bool timeLimitTrapTaken() { return gTimeLimitTrapTaken.load(std::memory_order_relaxed); }

void unwindGuestExit(int code) {
  GuestExecution* execution = tCurrent;
  if (!execution) {
    std::fprintf(stderr, "synergy: internal error: exit outside guest code\n");
    std::abort();
  }
  execution->exitCode = code;
  siglongjmp(execution->jumpBuffer, GuestExecution::Exited);
}

}  // namespace synergy::granule
