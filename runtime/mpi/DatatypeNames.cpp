//===- DatatypeNames.cpp - MPI_Type_set_name and MPI_Type_get_name --------===//
//
// A datatype's print name (MPI-3.1 §6.8). A predefined type is named after
// its MPI constant until the program renames it; a derived type has the
// empty name until it gets one, and loses it when it is freed. Names are
// per rank, like the handles they belong to, and cut at
// MPI_MAX_OBJECT_NAME - 1 characters as the standard allows.
//
//===----------------------------------------------------------------------===//
#include <cstring>
#include <string>

#include "mpi/Datatype.h"
#include "mpi/DatatypeConstruction.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

extern "C" {

u32 Z_envZ_MPI_Type_set_name(void* instance, u32 type, u32 name) {
  HostCall call(instance, "MPI_Type_set_name");
  Layout layout;
  if (int e = lookUpOldType(call, type, layout)) return e;
  std::string text;
  for (u32 at = name; text.size() < size_t(abi::kMaxObjectName - 1); ++at) {
    uint8_t* ch = call.bytes(at, 1);
    if (!ch) return call.fail(abi::kCommWorld, abi::kErrArg, "name outside linear memory");
    if (!*ch) break;
    text += char(*ch);
  }
  call.rank.typeNames[int(type)] = text;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_get_name(void* instance, u32 type, u32 nameOut, u32 lengthOut) {
  HostCall call(instance, "MPI_Type_get_name");
  Layout layout;
  if (int e = lookUpOldType(call, type, layout)) return e;
  std::string text;
  auto named = call.rank.typeNames.find(int(type));
  if (named != call.rank.typeNames.end())
    text = named->second;
  else if (layout->predefined)
    text = predefinedTypeName(int(type));
  uint8_t* out = call.bytes(nameOut, text.size() + 1);
  if (!out || !call.bytes(lengthOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "name buffer outside linear memory");
  std::memcpy(out, text.c_str(), text.size() + 1);
  call.store<int32_t>(lengthOut, int32_t(text.size()));
  return abi::kSuccess;
}

}  // extern "C"
