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
  static void* take() {
    if (gone_) return ::operator new(Size, std::align_val_t(Align));
    return ofThisThread().takeBlock();
  }
  static void give(void* block) {
    if (gone_) return ::operator delete(block, std::align_val_t(Align));
    ofThisThread().giveBlock(block);
  }

 private:
  ~FreeList() {
    for (void* block : blocks_) ::operator delete(block, std::align_val_t(Align));
    gone_ = true;
  }
  static FreeList& ofThisThread() {
    thread_local FreeList list;
    return list;
  }
  void* takeBlock() {
    if (blocks_.empty()) return ::operator new(Size, std::align_val_t(Align));
    void* block = blocks_.back();
    blocks_.pop_back();
    return block;
  }
  void giveBlock(void* block) {
    if (blocks_.size() >= kMaxFreeBlocks) {
      ::operator delete(block, std::align_val_t(Align));
      return;
    }
    blocks_.push_back(block);
  }

  std::vector<void*> blocks_;
  // Set once the thread's list is destroyed: requests that static objects
  // free at exit, after the thread-locals, go straight to the allocator.
  static inline thread_local bool gone_ = false;
};

template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}
  T* allocate(size_t n) {
    if (n != 1) return std::allocator<T>().allocate(n);
    return static_cast<T*>(FreeList<sizeof(T), alignof(T)>::take());
  }
  void deallocate(T* p, size_t n) {
    if (n != 1) return std::allocator<T>().deallocate(p, n);
    FreeList<sizeof(T), alignof(T)>::give(p);
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
