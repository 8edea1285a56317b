//===- InfoObjects.cpp - MPI_Info objects and communicator hints ----------===//
//
// Host functions for info objects: ordered sets of string keys and values
// that programs pass as hints. Each rank keeps its own (RankState::infos),
// in the order keys were first set, which is the order MPI_Info_get_nthkey
// reports them in. MPI_INFO_ENV is predefined and read-only: it holds the
// one key of the job's environment that the runtime knows for certain,
// "maxprocs". No hint changes what this runtime does, so MPI_Comm_set_info
// only checks its arguments and MPI_Comm_get_info reports no hints in use.
//
// Keys and values are read from the guest with their limits (MPI_MAX_INFO_KEY,
// MPI_MAX_INFO_VAL) enforced while scanning, so a string without its NUL
// never makes the runtime read past the limit or outside linear memory.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstring>

#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

constexpr int kMaxInfoKey = 36;   // MPI_MAX_INFO_KEY, the NUL included
constexpr int kMaxInfoValue = 256;  // MPI_MAX_INFO_VAL, the NUL included
constexpr int kErrInfoKey = 31;
constexpr int kErrInfoNoKey = 32;
constexpr int kErrInfoValue = 33;
constexpr int kErrInfo = 34;

// Reads the guest C string at `addr` of at most `limit` - 1 characters.
// Returns 0, or `tooLong` / MPI_ERR_ARG raised with `what` in the message.
int readString(HostCall& call, u32 addr, int limit, int tooLong, const char* what,
               std::string& out) {
  out.clear();
  for (int i = 0; i < limit; ++i) {
    const uint8_t* byte = call.bytes(uint64_t(addr) + uint64_t(i), 1);
    if (!byte) return call.fail(abi::kCommWorld, abi::kErrArg, std::string(what) + " outside linear memory");
    if (*byte == 0) return abi::kSuccess;
    out.push_back(char(*byte));
  }
  return call.fail(abi::kCommWorld, tooLong,
                   std::string(what) + " longer than " + std::to_string(limit - 1) + " characters");
}

int readKey(HostCall& call, u32 addr, std::string& key) {
  if (int error = readString(call, addr, kMaxInfoKey, kErrInfoKey, "info key", key)) return error;
  if (key.empty()) return call.fail(abi::kCommWorld, kErrInfoKey, "empty info key");
  return abi::kSuccess;
}

// The entries of info handle `handle`, or null (after raising) when it is
// not one; `forWriting` also refuses MPI_INFO_ENV.
InfoEntries* entriesOf(HostCall& call, int handle, bool forWriting) {
  if (handle == abi::kInfoEnv && !forWriting) {
    InfoEntries& environment = call.rank.infos[abi::kInfoEnv];
    environment = {{"maxprocs", std::to_string(call.world().size())}};
    return &environment;
  }
  auto found = call.rank.infos.find(handle);
  if (handle == abi::kInfoEnv || found == call.rank.infos.end()) {
    call.fail(abi::kCommWorld, kErrInfo,
              handle == abi::kInfoEnv ? "MPI_INFO_ENV cannot be changed"
                                      : "invalid info object " + std::to_string(handle));
    return nullptr;
  }
  return &found->second;
}

InfoEntries::iterator findKey(InfoEntries& entries, const std::string& key) {
  return std::find_if(entries.begin(), entries.end(),
                      [&](const auto& entry) { return entry.first == key; });
}

int storeNewInfo(HostCall& call, u32 infoOut, InfoEntries entries) {
  if (!call.bytes(infoOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "info pointer outside linear memory");
  int handle = call.rank.nextInfo++;
  call.rank.infos[handle] = std::move(entries);
  call.store<int32_t>(infoOut, handle);
  return abi::kSuccess;
}

// Copies `text` into the guest buffer at `addr` of `capacity` characters
// plus the NUL, truncating as MPI_Info_get does.
int storeString(HostCall& call, u32 addr, int capacity, const std::string& text) {
  size_t length = std::min(text.size(), size_t(std::max(capacity, 0)));
  uint8_t* out = call.bytes(addr, length + 1);
  if (!out) return call.fail(abi::kCommWorld, abi::kErrArg, "output buffer outside linear memory");
  std::memcpy(out, text.data(), length);
  out[length] = 0;
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Info_create(void* instance, u32 infoOut) {
  HostCall call(instance, "MPI_Info_create");
  return storeNewInfo(call, infoOut, {});
}

u32 Z_envZ_MPI_Info_dup(void* instance, u32 info, u32 infoOut) {
  HostCall call(instance, "MPI_Info_dup");
  InfoEntries* entries = entriesOf(call, int(info), false);
  if (!entries) return kErrInfo;
  return storeNewInfo(call, infoOut, *entries);
}

u32 Z_envZ_MPI_Info_free(void* instance, u32 infoAddr) {
  HostCall call(instance, "MPI_Info_free");
  int32_t handle;
  if (!call.load(infoAddr, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "info pointer outside linear memory");
  if (!entriesOf(call, handle, true)) return kErrInfo;
  call.rank.infos.erase(handle);
  call.store<int32_t>(infoAddr, abi::kInfoNull);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Info_set(void* instance, u32 info, u32 keyAddr, u32 valueAddr) {
  HostCall call(instance, "MPI_Info_set");
  InfoEntries* entries = entriesOf(call, int(info), true);
  if (!entries) return kErrInfo;
  std::string key, value;
  if (int error = readKey(call, keyAddr, key)) return error;
  if (int error = readString(call, valueAddr, kMaxInfoValue, kErrInfoValue, "info value", value))
    return error;
  if (value.empty()) return call.fail(abi::kCommWorld, kErrInfoValue, "empty info value");
  auto found = findKey(*entries, key);
  if (found != entries->end())
    found->second = std::move(value);
  else
    entries->emplace_back(std::move(key), std::move(value));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Info_delete(void* instance, u32 info, u32 keyAddr) {
  HostCall call(instance, "MPI_Info_delete");
  InfoEntries* entries = entriesOf(call, int(info), true);
  if (!entries) return kErrInfo;
  std::string key;
  if (int error = readKey(call, keyAddr, key)) return error;
  auto found = findKey(*entries, key);
  if (found == entries->end())
    return call.fail(abi::kCommWorld, kErrInfoNoKey, "info key \"" + key + "\" is not set");
  entries->erase(found);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Info_get(void* instance, u32 info, u32 keyAddr, u32 valuelen, u32 valueOut,
                        u32 flagOut) {
  HostCall call(instance, "MPI_Info_get");
  InfoEntries* entries = entriesOf(call, int(info), false);
  if (!entries) return kErrInfo;
  std::string key;
  if (int error = readKey(call, keyAddr, key)) return error;
  if (int(valuelen) < 0)
    return call.fail(abi::kCommWorld, abi::kErrArg, "negative value length");
  auto found = findKey(*entries, key);
  bool present = found != entries->end();
  if (!call.store<int32_t>(flagOut, present))
    return call.fail(abi::kCommWorld, abi::kErrArg, "flag pointer outside linear memory");
  return present ? storeString(call, valueOut, int(valuelen), found->second) : abi::kSuccess;
}

// MPI-4.0's MPI_Info_get_string: the value cut to *buflen - 1 characters
// and terminated, nothing written when *buflen is 0, and *buflen set to
// the whole value's length plus one; both left alone for a missing key.
u32 Z_envZ_MPI_Info_get_string(void* instance, u32 info, u32 keyAddr, u32 buflenAddr,
                               u32 valueOut, u32 flagOut) {
  HostCall call(instance, "MPI_Info_get_string");
  InfoEntries* entries = entriesOf(call, int(info), false);
  if (!entries) return kErrInfo;
  std::string key;
  if (int error = readKey(call, keyAddr, key)) return error;
  int32_t buflen;
  if (!call.load(buflenAddr, buflen))
    return call.fail(abi::kCommWorld, abi::kErrArg, "buflen pointer outside linear memory");
  if (buflen < 0) return call.fail(abi::kCommWorld, abi::kErrArg, "negative buflen");
  auto found = findKey(*entries, key);
  bool present = found != entries->end();
  if (!call.store<int32_t>(flagOut, present))
    return call.fail(abi::kCommWorld, abi::kErrArg, "flag pointer outside linear memory");
  if (!present) return abi::kSuccess;
  if (buflen > 0)
    if (int error = storeString(call, valueOut, buflen - 1, found->second)) return error;
  call.store<int32_t>(buflenAddr, int32_t(found->second.size() + 1));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Info_get_valuelen(void* instance, u32 info, u32 keyAddr, u32 lengthOut,
                                 u32 flagOut) {
  HostCall call(instance, "MPI_Info_get_valuelen");
  InfoEntries* entries = entriesOf(call, int(info), false);
  if (!entries) return kErrInfo;
  std::string key;
  if (int error = readKey(call, keyAddr, key)) return error;
  auto found = findKey(*entries, key);
  bool present = found != entries->end();
  if (!call.store<int32_t>(flagOut, present) ||
      (present && !call.store<int32_t>(lengthOut, int32_t(found->second.size()))))
    return call.fail(abi::kCommWorld, abi::kErrArg, "output pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Info_get_nkeys(void* instance, u32 info, u32 countOut) {
  HostCall call(instance, "MPI_Info_get_nkeys");
  InfoEntries* entries = entriesOf(call, int(info), false);
  if (!entries) return kErrInfo;
  if (!call.store<int32_t>(countOut, int32_t(entries->size())))
    return call.fail(abi::kCommWorld, abi::kErrArg, "count pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Info_get_nthkey(void* instance, u32 info, u32 n, u32 keyOut) {
  HostCall call(instance, "MPI_Info_get_nthkey");
  InfoEntries* entries = entriesOf(call, int(info), false);
  if (!entries) return kErrInfo;
  if (int(n) < 0 || size_t(int(n)) >= entries->size())
    return call.fail(abi::kCommWorld, kErrInfoKey,
                     "key index " + std::to_string(int(n)) + " outside 0.." +
                         std::to_string(int(entries->size()) - 1));
  return storeString(call, keyOut, kMaxInfoKey - 1, (*entries)[size_t(n)].first);
}

// MPI_Comm_get_info reports the hints the implementation uses; this one
// uses none (as OpenMPI uses none of the keys it does not know), so the
// hints are checked and then dropped.
u32 Z_envZ_MPI_Comm_set_info(void* instance, u32 comm, u32 info) {
  HostCall call(instance, "MPI_Comm_set_info");
  if (!call.rank.comm(int(comm))) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!entriesOf(call, int(info), false)) return kErrInfo;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_get_info(void* instance, u32 comm, u32 infoOut) {
  HostCall call(instance, "MPI_Comm_get_info");
  if (!call.rank.comm(int(comm))) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  return storeNewInfo(call, infoOut, {});
}

}  // extern "C"
