//===- UserErrors.cpp - error classes, codes and strings a program adds ---===//
//
// MPI_Add_error_class, MPI_Add_error_code and MPI_Add_error_string
// (MPI-3.1 §8.5): a library built on MPI gets error codes of its own, after
// MPI_ERR_LASTCODE, that MPI_Error_class and MPI_Error_string
// (Environment.cpp) answer for and that the MPI_LASTUSEDCODE attribute of
// MPI_COMM_WORLD counts up to. The codes are per rank, like the calls that
// make them; a program that calls them in the same order on every rank gets
// the same values everywhere, as the standard expects.
//
//===----------------------------------------------------------------------===//
#include <string>

#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// More than any library defines; bounds the table a guest can grow.
constexpr int kMaxAddedCodes = 1 << 16;

// A new code of class `errorClass` (or a new class when it is -1), stored
// at `codeOut`.
u32 addCode(HostCall& call, int errorClass, u32 codeOut) {
  if (!call.bytes(codeOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "output outside linear memory");
  if (call.rank.userErrorCodes.size() >= size_t(kMaxAddedCodes))
    return call.fail(abi::kCommWorld, abi::kErrOther,
                     "more than " + std::to_string(kMaxAddedCodes) + " added error codes");
  int code = ++call.rank.lastUsedErrorCode;
  call.rank.userErrorCodes[code] = {errorClass < 0 ? code : errorClass, ""};
  call.store<int32_t>(codeOut, code);
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Add_error_class(void* instance, u32 classOut) {
  HostCall call(instance, "MPI_Add_error_class");
  return addCode(call, -1, classOut);
}

u32 Z_envZ_MPI_Add_error_code(void* instance, u32 errorClass, u32 codeOut) {
  HostCall call(instance, "MPI_Add_error_code");
  int parent = int(errorClass);
  auto added = call.rank.userErrorCodes.find(parent);
  bool isAddedClass = added != call.rank.userErrorCodes.end() && added->second.errorClass == parent;
  if (!isAddedClass && (parent < 0 || parent > abi::kErrLastCode))
    return call.fail(abi::kCommWorld, abi::kErrArg, "invalid error class " + std::to_string(parent));
  return addCode(call, parent, codeOut);
}

u32 Z_envZ_MPI_Add_error_string(void* instance, u32 errorcode, u32 text) {
  HostCall call(instance, "MPI_Add_error_string");
  auto added = call.rank.userErrorCodes.find(int(errorcode));
  if (added == call.rank.userErrorCodes.end())
    return call.fail(abi::kCommWorld, abi::kErrArg,
                     "error code " + std::to_string(int(errorcode)) +
                         " was not added with MPI_Add_error_class or MPI_Add_error_code");
  std::string value;
  for (u32 at = text; value.size() < size_t(abi::kMaxErrorString - 1); ++at) {
    uint8_t* ch = call.bytes(at, 1);
    if (!ch) return call.fail(abi::kCommWorld, abi::kErrArg, "string outside linear memory");
    if (!*ch) break;
    value += char(*ch);
  }
  added->second.text = value;
  return abi::kSuccess;
}

}  // extern "C"
