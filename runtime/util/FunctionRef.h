//===- FunctionRef.h - a non-owning reference to a callable ---------------===//
//
// A callable parameter that neither copies nor allocates: it holds the
// address of a callable that outlives the call it is passed to (typically a
// lambda written at the call site) and a trampoline that invokes it. Hot
// runtime paths (every MPI collective, every blocking wait) take callbacks
// this way because std::function allocates for captures larger than two
// pointers, which costs a malloc and a free per call.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <type_traits>
#include <utility>

namespace synergy::util {

template <typename Signature>
class FunctionRef;

template <typename Result, typename... Args>
class FunctionRef<Result(Args...)> {
 public:
  template <typename Callable,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<Callable>, FunctionRef>>>
  FunctionRef(Callable&& callable)  // NOLINT: converts implicitly, like std::function
      : object_(const_cast<void*>(static_cast<const void*>(&callable))),
        invoke_([](void* object, Args... args) -> Result {
          return (*static_cast<std::remove_reference_t<Callable>*>(object))(
              std::forward<Args>(args)...);
        }) {}

  Result operator()(Args... args) const { return invoke_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  Result (*invoke_)(void*, Args...);
};

}  // namespace synergy::util
