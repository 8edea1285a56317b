//===- CxxExceptions.cpp - the C++ exception runtime of granules -----------===//
//
// Debian's wasm32 libc++abi is built without exceptions: it has the type_info
// classes (with can_catch) but no __cxa_throw, no personality, and handlers
// that only abort. wasm2c 1.0.32 has no exception handling either, so
// synergy-c++ uses LLVM's emscripten-style lowering
// (-enable-emscripten-cxx-exceptions), as setjmp/longjmp does: every call
// that may throw into a landing pad becomes env.invoke_*(function, ...),
// which the runtime runs under a host jump target (SetjmpLongjmp.c and
// runtime/granule/SetjmpLongjmp.cpp). This file is the rest:
//
//  - a throw records the exception as the one propagating, sets __THREW__ to
//    1 (and __threwValue to 0, which tells it from a longjmp) and asks the
//    runtime to jump to the innermost invoke; with none left, nothing can
//    catch it and std::terminate is called, as libc++abi does;
//  - the lowered landing pad calls __cxa_find_matching_catch_N(types...)
//    with its clauses in order (null: catch (...)); the first that catches
//    the thrown type (libc++abi's can_catch: exact type, public unambiguous
//    base, pointer conversions) sets the selector (getTempRet0) to that
//    type_info's address, which llvm_eh_typeid_for gives each clause;
//  - __resumeException continues a propagation after a landing pad's
//    cleanups (destructors of locals), so RAII runs frame by frame;
//  - begin/end_catch keep the stack of caught exceptions that rethrow,
//    std::current_exception and the terminate handler read;
//  - exception_ptr's primitives (refcounts, rethrow_primary) and the default
//    terminate handler replace libc++abi's no-exception ones, which is why
//    every symbol of those archive members is defined here;
//  - libc++'s __libcpp_verbose_abort, so that the <stdexcept> exceptions
//    of Debian's no-exception libc++.a are thrown instead of aborting.
//
// The handle a landing pad receives (and passes to __cxa_begin_catch or
// __resumeException) is the exception header, not the thrown object; a
// rethrow of an exception_ptr gets a header of its own that refers to the
// primary one, so one object can be caught in two places.
//
//===----------------------------------------------------------------------===//
#include <__verbose_abort>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string_view>
#include <typeinfo>

// The part of libc++abi's private type_info hierarchy that matching needs;
// its layout is the Itanium ABI's and that of Debian's libc++abi.a.
namespace __cxxabiv1 {
class __shim_type_info : public std::type_info {
 public:
  ~__shim_type_info() override;
  virtual void noop1() const;
  virtual void noop2() const;
  virtual bool can_catch(const __shim_type_info* thrown, void*& adjusted) const = 0;
};
}  // namespace __cxxabiv1

using __cxxabiv1::__shim_type_info;

// In wasm a destructor returns its argument, so that is the type of the
// destructor a throw passes (libc++'s headers declare it so too).
using Destructor = void* (*)(void*);

namespace __cxxabiv1 {
struct __cxa_exception;
extern "C" {
void* __cxa_allocate_exception(size_t size) noexcept;
[[noreturn]] void __cxa_throw(void* object, std::type_info* type, Destructor destructor);
void* __cxa_begin_catch(void* handle) noexcept;
}
}  // namespace __cxxabiv1
using namespace __cxxabiv1;

#if defined(__wasm_atomics__) && defined(__wasm_bulk_memory__)
#define GUEST_THREAD_LOCAL __thread
#else
#define GUEST_THREAD_LOCAL
#endif

extern "C" {
// Defined in SetjmpLongjmp.c: what the lowered call sites read after an
// invoke, and the selector register.
extern GUEST_THREAD_LOCAL uintptr_t __THREW__;
extern GUEST_THREAD_LOCAL int __threwValue;
void setTempRet0(uint32_t value);
char* __cxa_demangle(const char* mangled, char* buffer, size_t* length, int* status);

// Served by the runtime (runtime/granule/SetjmpLongjmp.cpp): jumps to the
// innermost env.invoke_* call on this thread; returns if there is none.
__attribute__((import_module("env"), import_name("synergy_exception_unwind")))
void synergy_exception_unwind(void);
}

namespace {

// Precedes every thrown object (primary) or stands alone for a rethrown
// exception_ptr (dependent, `primary` points at the object's header).
struct alignas(16) ExceptionHeader {
  const std::type_info* type;
  Destructor destructor;
  ExceptionHeader* primary;     // this header, or the one before the object
  ExceptionHeader* nextCaught;  // the caught exception below on the stack
  void* adjusted;               // what the matching handler receives
  uint32_t referenceCount;      // primary only: throws and exception_ptrs
  int handlerCount;             // negative while rethrown from a handler
};

GUEST_THREAD_LOCAL ExceptionHeader* propagating;
GUEST_THREAD_LOCAL ExceptionHeader* caughtExceptions;
GUEST_THREAD_LOCAL unsigned uncaughtExceptions;

void* objectOf(ExceptionHeader* header) { return header->primary + 1; }

ExceptionHeader* primaryOf(void* object) {
  return static_cast<ExceptionHeader*>(object) - 1;
}

void release(ExceptionHeader* primary) {
  if (--primary->referenceCount != 0) return;
  if (primary->destructor) primary->destructor(primary + 1);
  std::free(primary);
}

[[noreturn]] void terminateWith(ExceptionHeader* header);

// Starts (or continues) the propagation of `header` to the innermost
// landing pad.
[[noreturn]] void propagate(ExceptionHeader* header) {
  propagating = header;
  __threwValue = 0;
  __THREW__ = 1;
  synergy_exception_unwind();
  // No invoke is left on this thread: no handler can catch it.
  __THREW__ = 0;
  terminateWith(header);
}

[[noreturn]] void throwHeader(ExceptionHeader* header) {
  ++uncaughtExceptions;
  propagate(header);
}

void* findMatchingCatch(std::initializer_list<const std::type_info*> types) {
  ExceptionHeader* header = propagating;
  setTempRet0(0);
  if (!header) return nullptr;
  header->adjusted = objectOf(header);
  for (const std::type_info* type : types) {
    if (!type) break;  // catch (...): the selector matches no typed clause
    void* adjusted = objectOf(header);
    const auto* handlerType = static_cast<const __shim_type_info*>(type);
    if (handlerType->can_catch(static_cast<const __shim_type_info*>(header->type), adjusted)) {
      header->adjusted = adjusted;
      setTempRet0(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(type)));
      break;
    }
  }
  return header;
}

template <typename Exception, typename... Arguments>
[[noreturn]] void throwStandard(Arguments... arguments) {
  void* object = __cxa_allocate_exception(sizeof(Exception));
  new (object) Exception(arguments...);
  __cxa_throw(object, const_cast<std::type_info*>(&typeid(Exception)),
              [](void* thrown) -> void* {
                static_cast<Exception*>(thrown)->~Exception();
                return thrown;
              });
}

// Debian's operator new aborts on exhaustion; these throw std::bad_alloc
// after the new_handler (if any) has had its chances, as C++ requires.
// libc++abi's definitions are weak, and its nothrow forms do not call these.
void* allocateOrThrow(size_t size, size_t alignment) {
  if (size == 0) size = 1;
  for (;;) {
    // aligned_alloc wants a multiple of the alignment; a size that cannot
    // be rounded up to one cannot be allocated at all.
    void* block = nullptr;
    if (alignment <= alignof(std::max_align_t))
      block = std::malloc(size);
    else if (size <= SIZE_MAX - (alignment - 1))
      block = std::aligned_alloc(alignment, (size + alignment - 1) & ~(alignment - 1));
    if (block) return block;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throwStandard<std::bad_alloc>();
    handler();
  }
}

// The default terminate handler: libc++abi's message, then abort (status
// 134, as natively). The exception it names is the one being handled, or
// else the one propagating: clang's terminate landing pad for a noexcept
// function calls std::terminate on wasm without catching it first.
[[noreturn]] void reportAndAbort() {
  ExceptionHeader* header = caughtExceptions ? caughtExceptions : propagating;
  if (!header) {
    std::fputs("libc++abi: terminating\n", stderr);
    std::abort();
  }
  const char* mangled = header->primary->type->name();
  int status = -1;
  char* demangled = __cxa_demangle(mangled, nullptr, nullptr, &status);
  const char* name = status == 0 && demangled ? demangled : mangled;
  void* object = objectOf(header);
  const auto* exceptionType = static_cast<const __shim_type_info*>(&typeid(std::exception));
  if (exceptionType->can_catch(static_cast<const __shim_type_info*>(header->primary->type),
                               object))
    std::fprintf(stderr, "libc++abi: terminating due to uncaught exception of type %s: %s\n",
                 name, static_cast<std::exception*>(object)->what());
  else
    std::fprintf(stderr, "libc++abi: terminating due to uncaught exception of type %s\n", name);
  std::abort();
}

[[noreturn]] void terminateWith(ExceptionHeader* header) {
  __cxa_begin_catch(header);
  std::terminate();
}

}  // namespace

extern "C" {

// Replaces libc++abi's cxa_default_handlers member (handlers that abort
// without a word).
std::terminate_handler __cxa_terminate_handler = reportAndAbort;
void (*__cxa_unexpected_handler)() = std::terminate;
std::new_handler __cxa_new_handler = nullptr;

void* __cxa_allocate_exception(size_t size) noexcept {
  void* block = std::aligned_alloc(alignof(ExceptionHeader),
                                   (sizeof(ExceptionHeader) + size + 15) & ~size_t{15});
  if (!block) std::terminate();
  auto* header = new (block) ExceptionHeader{};
  header->primary = header;
  return header + 1;
}

void __cxa_free_exception(void* object) noexcept { std::free(primaryOf(object)); }

__cxa_exception* __cxa_init_primary_exception(void* object, std::type_info* type,
                                              Destructor destructor) noexcept {
  ExceptionHeader* header = primaryOf(object);
  header->type = type;
  header->destructor = destructor;
  header->referenceCount = 0;
  return reinterpret_cast<__cxa_exception*>(header);
}

void __cxa_throw(void* object, std::type_info* type, Destructor destructor) {
  ExceptionHeader* header = primaryOf(object);
  header->type = type;
  header->destructor = destructor;
  header->referenceCount = 1;
  throwHeader(header);
}

void* __cxa_get_exception_ptr(void* handle) noexcept {
  return static_cast<ExceptionHeader*>(handle)->adjusted;
}

void* __cxa_begin_catch(void* handle) noexcept {
  auto* header = static_cast<ExceptionHeader*>(handle);
  if (!header) return nullptr;
  if (propagating == header) propagating = nullptr;
  header->handlerCount =
      header->handlerCount < 0 ? -header->handlerCount + 1 : header->handlerCount + 1;
  if (header != caughtExceptions) {
    header->nextCaught = caughtExceptions;
    caughtExceptions = header;
  }
  if (uncaughtExceptions) --uncaughtExceptions;
  return header->adjusted;
}

void __cxa_end_catch() {
  ExceptionHeader* header = caughtExceptions;
  if (!header) return;
  if (header->handlerCount < 0) {
    // Rethrown: it leaves the stack, but lives on in its propagation.
    if (++header->handlerCount == 0) caughtExceptions = header->nextCaught;
    return;
  }
  if (--header->handlerCount != 0) return;
  caughtExceptions = header->nextCaught;
  ExceptionHeader* primary = header->primary;
  if (header != primary) std::free(header);
  release(primary);
}

void __cxa_rethrow() {
  ExceptionHeader* header = caughtExceptions;
  if (!header) std::terminate();
  header->handlerCount = -header->handlerCount;
  throwHeader(header);
}

std::type_info* __cxa_current_exception_type() noexcept {
  ExceptionHeader* header = caughtExceptions;
  return header ? const_cast<std::type_info*>(header->primary->type) : nullptr;
}

unsigned __cxa_uncaught_exceptions() noexcept { return uncaughtExceptions; }

bool __cxa_uncaught_exception() noexcept { return uncaughtExceptions != 0; }

void* __cxa_current_primary_exception() noexcept {
  ExceptionHeader* header = caughtExceptions;
  if (!header) return nullptr;
  ++header->primary->referenceCount;
  return objectOf(header);
}

void __cxa_increment_exception_refcount(void* object) noexcept {
  if (object) ++primaryOf(object)->referenceCount;
}

void __cxa_decrement_exception_refcount(void* object) noexcept {
  if (object) release(primaryOf(object));
}

void __cxa_rethrow_primary_exception(void* object) {
  if (!object) return;
  ExceptionHeader* primary = primaryOf(object);
  void* block = std::aligned_alloc(alignof(ExceptionHeader), sizeof(ExceptionHeader));
  if (!block) std::terminate();
  auto* dependent = new (block) ExceptionHeader{};
  dependent->type = primary->type;
  dependent->primary = primary;
  ++primary->referenceCount;
  throwHeader(dependent);
}

void __resumeException(void* handle) { propagate(static_cast<ExceptionHeader*>(handle)); }

uint32_t llvm_eh_typeid_for(const std::type_info* type) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(type));
}

// A handler that violates a dynamic exception specification.
void __cxa_call_unexpected(void* handle) {
  __cxa_begin_catch(handle);
  std::terminate();
}

// libc++abi's aux runtime (dynamic_cast to a reference, typeid of a null
// pointer, new T[n] with a bad n), which aborts in Debian's build, throws.
void __cxa_bad_cast() { throwStandard<std::bad_cast>(); }
void __cxa_bad_typeid() { throwStandard<std::bad_typeid>(); }
void __cxa_throw_bad_array_new_length() { throwStandard<std::bad_array_new_length>(); }

}  // extern "C"

// Debian's libc++.a is built without exceptions too: where its own members
// (those of the std::string it instantiates, std::stoi and its kin) would
// throw one of <stdexcept>'s exceptions, they call
// _LIBCPP_VERBOSE_ABORT("out_of_range was thrown in -fno-exceptions mode
// with message \"%s\"", what). libc++ lets a program replace
// __libcpp_verbose_abort (its own definition is weak), and this one throws
// that exception instead. The libc++.a frames the throw leaves are those
// members', which hold nothing that needs a destructor at that point. Any
// other message (a hardening assertion, or an exception such as
// system_error or ios_base::failure whose state the message has lost or
// whose frames may hold a lock) still aborts with it, as libc++ does.
namespace {

struct StandardException {
  std::string_view name;
  void (*raise)(const char* what);  // throws, never returns
};

template <typename Exception>
[[noreturn]] void raiseWith(const char* what) {
  throwStandard<Exception>(what);
}

constexpr StandardException kStandardExceptions[] = {
    {"logic_error", raiseWith<std::logic_error>},
    {"domain_error", raiseWith<std::domain_error>},
    {"invalid_argument", raiseWith<std::invalid_argument>},
    {"length_error", raiseWith<std::length_error>},
    {"out_of_range", raiseWith<std::out_of_range>},
    {"runtime_error", raiseWith<std::runtime_error>},
    {"range_error", raiseWith<std::range_error>},
    {"overflow_error", raiseWith<std::overflow_error>},
    {"underflow_error", raiseWith<std::underflow_error>},
};

}  // namespace

void std::__libcpp_verbose_abort(const char* format, ...) {
  static constexpr std::string_view kThrown =
      " was thrown in -fno-exceptions mode with message \"%s\"";
  std::va_list arguments;
  va_start(arguments, format);
  std::string_view text(format);
  for (const StandardException& exception : kStandardExceptions) {
    if (text.size() == exception.name.size() + kThrown.size() &&
        text.starts_with(exception.name) && text.ends_with(kThrown)) {
      const char* what = va_arg(arguments, const char*);
      va_end(arguments);
      exception.raise(what ? what : "");
      std::abort();
    }
  }
  std::vfprintf(stderr, format, arguments);
  va_end(arguments);
  std::abort();
}

extern "C" {

// One per landing-pad size the lowering emits: N - 2 clauses (those of
// every try around the call, after inlining too). A larger landing pad
// is a link error naming the missing __cxa_find_matching_catch_N.
using Type = const std::type_info*;
void* __cxa_find_matching_catch_2() { return findMatchingCatch({}); }
void* __cxa_find_matching_catch_3(Type a) { return findMatchingCatch({a}); }
void* __cxa_find_matching_catch_4(Type a, Type b) { return findMatchingCatch({a, b}); }
void* __cxa_find_matching_catch_5(Type a, Type b, Type c) { return findMatchingCatch({a, b, c}); }
void* __cxa_find_matching_catch_6(Type a, Type b, Type c, Type d) {
  return findMatchingCatch({a, b, c, d});
}
void* __cxa_find_matching_catch_7(Type a, Type b, Type c, Type d, Type e) {
  return findMatchingCatch({a, b, c, d, e});
}
void* __cxa_find_matching_catch_8(Type a, Type b, Type c, Type d, Type e, Type f) {
  return findMatchingCatch({a, b, c, d, e, f});
}
void* __cxa_find_matching_catch_9(Type a, Type b, Type c, Type d, Type e, Type f, Type g) {
  return findMatchingCatch({a, b, c, d, e, f, g});
}
void* __cxa_find_matching_catch_10(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h) {
  return findMatchingCatch({a, b, c, d, e, f, g, h});
}
void* __cxa_find_matching_catch_11(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i});
}
void* __cxa_find_matching_catch_12(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j});
}
void* __cxa_find_matching_catch_13(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k});
}
void* __cxa_find_matching_catch_14(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l});
}
void* __cxa_find_matching_catch_15(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m});
}
void* __cxa_find_matching_catch_16(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m, Type n) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m, n});
}
void* __cxa_find_matching_catch_17(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m, Type n, Type o) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m, n, o});
}
void* __cxa_find_matching_catch_18(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m, Type n, Type o, Type p) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p});
}
void* __cxa_find_matching_catch_19(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m, Type n, Type o, Type p,
                                   Type q) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q});
}
void* __cxa_find_matching_catch_20(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m, Type n, Type o, Type p,
                                   Type q, Type r) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r});
}
void* __cxa_find_matching_catch_21(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m, Type n, Type o, Type p,
                                   Type q, Type r, Type s) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s});
}
void* __cxa_find_matching_catch_22(Type a, Type b, Type c, Type d, Type e, Type f, Type g, Type h,
                                   Type i, Type j, Type k, Type l, Type m, Type n, Type o, Type p,
                                   Type q, Type r, Type s, Type t) {
  return findMatchingCatch({a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t});
}

}  // extern "C"

void* operator new(size_t size) { return allocateOrThrow(size, 0); }
void* operator new[](size_t size) { return allocateOrThrow(size, 0); }
void* operator new(size_t size, std::align_val_t alignment) {
  return allocateOrThrow(size, static_cast<size_t>(alignment));
}
void* operator new[](size_t size, std::align_val_t alignment) {
  return allocateOrThrow(size, static_cast<size_t>(alignment));
}

namespace std {
// Atomic, as libc++abi's: thread granules share these.
terminate_handler set_terminate(terminate_handler handler) noexcept {
  return __atomic_exchange_n(&__cxa_terminate_handler, handler ? handler : reportAndAbort,
                             __ATOMIC_ACQ_REL);
}
// std::unexpected_handler left the headers with C++17; the ABI keeps it.
using unexpected_handler = void (*)();
unexpected_handler set_unexpected(unexpected_handler handler) noexcept {
  return __atomic_exchange_n(&__cxa_unexpected_handler, handler ? handler : std::terminate,
                             __ATOMIC_ACQ_REL);
}
new_handler set_new_handler(new_handler handler) noexcept {
  return __atomic_exchange_n(&__cxa_new_handler, handler, __ATOMIC_ACQ_REL);
}
}  // namespace std
