//===- RequestPool.h - allocation of point-to-point requests --------------===//
//
// Every nonblocking send or receive makes a Request, and its completion
// frees it. A window of nonblocking calls holds more of them at once than
// malloc's per-thread cache keeps, so each would go through the allocator's
// shared bins. Requests (with their reference counts) come from a
// per-thread free list instead; a request freed on another thread joins
// that thread's list.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>

namespace synergy::mpi {

struct Request;

std::shared_ptr<Request> newRequest();

}  // namespace synergy::mpi
