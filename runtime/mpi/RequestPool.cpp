//===- RequestPool.cpp - allocation of point-to-point requests ------------===//
#include "mpi/RequestPool.h"

#include <new>
#include <vector>

#include "mpi/World.h"

namespace synergy::mpi {

namespace {

// Blocks kept for reuse per thread; a thread that frees more (a receiver
// finishing many rendezvous sends) returns the rest to the allocator.
constexpr size_t kMaxFreeBlocks = 4096;

template <size_t Size, size_t Align>
class FreeList {
 public:
  ~FreeList() {
    for (void* block : blocks_) ::operator delete(block, std::align_val_t(Align));
  }
  void* take() {
    if (blocks_.empty()) return ::operator new(Size, std::align_val_t(Align));
    void* block = blocks_.back();
    blocks_.pop_back();
    return block;
  }
  void give(void* block) {
    if (blocks_.size() >= kMaxFreeBlocks) {
      ::operator delete(block, std::align_val_t(Align));
      return;
    }
    blocks_.push_back(block);
  }
  static FreeList& ofThisThread() {
    thread_local FreeList list;
    return list;
  }

 private:
  std::vector<void*> blocks_;
};

template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}
  T* allocate(size_t n) {
    if (n != 1) return std::allocator<T>().allocate(n);
    return static_cast<T*>(FreeList<sizeof(T), alignof(T)>::ofThisThread().take());
  }
  void deallocate(T* p, size_t n) {
    if (n != 1) return std::allocator<T>().deallocate(p, n);
    FreeList<sizeof(T), alignof(T)>::ofThisThread().give(p);
  }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const PoolAllocator<U>&) const {
    return false;
  }
};

}  // namespace

std::shared_ptr<Request> newRequest() { return std::allocate_shared<Request>(PoolAllocator<Request>()); }

}  // namespace synergy::mpi
