//===- GroupOperations.cpp - MPI group ranges and set operations ----------===//
//
// Host functions that make groups out of others without any communication:
// MPI_Group_range_incl/range_excl (rank triples first, last, stride) and
// MPI_Group_union/intersection/difference. A group is its members' world
// ranks in group order; the results keep the order MPI prescribes (the
// first group's order, then the second's for a union). An empty result is
// MPI_GROUP_EMPTY, as MPI_Group_incl gives.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// Stores a new group handle (MPI_GROUP_EMPTY when `worldRanks` is empty).
u32 storeGroup(HostCall& call, u32 newgroup, std::vector<int> worldRanks) {
  int handle = abi::kGroupEmpty;
  if (!worldRanks.empty()) {
    auto group = std::make_shared<Group>();
    group->worldRanks = std::move(worldRanks);
    handle = call.rank.addGroup(std::move(group));
  }
  if (!call.store<int32_t>(newgroup, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "newgroup pointer outside linear memory");
  return abi::kSuccess;
}

enum class RangeUse { Include, Exclude };

// MPI_Group_range_incl and range_excl: the group of the members of `group`
// that `n` (first, last, stride) triples at `ranges` name (Include, in
// triple order) or do not name (Exclude, in group order).
u32 groupFromRanges(HostCall& call, u32 group, u32 n, u32 ranges, u32 newgroup, RangeUse use) {
  auto g = call.rank.group(int(group));
  if (!g) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  int count = int(n);
  int size = int(g->worldRanks.size());
  if (count < 0) return call.fail(abi::kCommWorld, abi::kErrArg, "negative range count");
  const auto* triples =
      reinterpret_cast<const int32_t*>(call.bytes(ranges, uint64_t(count) * 12));
  if (count > 0 && !triples)
    return call.fail(abi::kCommWorld, abi::kErrArg, "ranges outside linear memory");
  std::vector<bool> named(size, false);
  std::vector<int> worldRanks;
  for (int i = 0; i < count; ++i) {
    int64_t first = triples[3 * i], last = triples[3 * i + 1], stride = triples[3 * i + 2];
    if (stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last))
      return call.fail(abi::kCommWorld, abi::kErrArg,
                       "invalid range (" + std::to_string(first) + ", " + std::to_string(last) +
                           ", " + std::to_string(stride) + ")");
    // A rank may be named once, so this loop ends after at most size + 1
    // steps whatever the stride.
    for (int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (r < 0 || r >= size || named[r])
        return call.fail(abi::kCommWorld, abi::kErrRank,
                         "invalid or repeated rank " + std::to_string(r) + " in ranges");
      named[r] = true;
      if (use == RangeUse::Include) worldRanks.push_back(g->worldRanks[r]);
    }
  }
  if (use == RangeUse::Exclude)
    for (int r = 0; r < size; ++r)
      if (!named[r]) worldRanks.push_back(g->worldRanks[r]);
  return storeGroup(call, newgroup, std::move(worldRanks));
}

bool contains(const std::vector<int>& worldRanks, int worldRank) {
  return std::find(worldRanks.begin(), worldRanks.end(), worldRank) != worldRanks.end();
}

// The members of `a` that are (`keep` true) or are not in `b`, in a's order.
std::vector<int> filterBy(const Group& a, const Group& b, bool keep) {
  std::vector<int> result;
  for (int worldRank : a.worldRanks)
    if (contains(b.worldRanks, worldRank) == keep) result.push_back(worldRank);
  return result;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Group_range_incl(void* instance, u32 group, u32 n, u32 ranges, u32 newgroup) {
  HostCall call(instance, "MPI_Group_range_incl");
  return groupFromRanges(call, group, n, ranges, newgroup, RangeUse::Include);
}

u32 Z_envZ_MPI_Group_range_excl(void* instance, u32 group, u32 n, u32 ranges, u32 newgroup) {
  HostCall call(instance, "MPI_Group_range_excl");
  return groupFromRanges(call, group, n, ranges, newgroup, RangeUse::Exclude);
}

u32 Z_envZ_MPI_Group_union(void* instance, u32 group1, u32 group2, u32 newgroup) {
  HostCall call(instance, "MPI_Group_union");
  auto a = call.rank.group(int(group1));
  auto b = call.rank.group(int(group2));
  if (!a || !b) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  std::vector<int> worldRanks = a->worldRanks;
  for (int worldRank : filterBy(*b, *a, false)) worldRanks.push_back(worldRank);
  return storeGroup(call, newgroup, std::move(worldRanks));
}

u32 Z_envZ_MPI_Group_intersection(void* instance, u32 group1, u32 group2, u32 newgroup) {
  HostCall call(instance, "MPI_Group_intersection");
  auto a = call.rank.group(int(group1));
  auto b = call.rank.group(int(group2));
  if (!a || !b) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  return storeGroup(call, newgroup, filterBy(*a, *b, true));
}

u32 Z_envZ_MPI_Group_difference(void* instance, u32 group1, u32 group2, u32 newgroup) {
  HostCall call(instance, "MPI_Group_difference");
  auto a = call.rank.group(int(group1));
  auto b = call.rank.group(int(group2));
  if (!a || !b) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  return storeGroup(call, newgroup, filterBy(*a, *b, false));
}

}  // extern "C"
