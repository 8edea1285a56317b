//===- ProcessEnd.cpp - what a process writes before a guest thread ends it
#include "granule/ProcessEnd.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace synergy::granule {
namespace {

// Held from the hook's start to the process's end, so that a second thread
// ending the process, or the registrant clearing the hook, waits for it.
std::mutex hookLock;
std::function<void()> processEndHook;

}  // namespace

void setProcessEndHook(std::function<void()> hook) {
  std::lock_guard<std::mutex> guard(hookLock);
  processEndHook = std::move(hook);
}

void endProcess(int status) {
  hookLock.lock();
  std::fflush(stdout);
  if (processEndHook) processEndHook();
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace synergy::granule
