//===- MpiObjectRecord.cpp - a rank's MPI objects, recorded and restored --===//
//
// This file implements MpiObjectRecord.h: it flattens the rank's datatype
// graph into nodes (old types before the types made of them, each layout
// once) and builds layouts back from them.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/MpiObjectRecord.h"

#include <map>
#include <memory>
#include <vector>

#include "mpi/RankState.h"

namespace synergy::checkpoint {

namespace {

// Numbers the derived layouts reachable from the rank's handles, old types
// first, without recursion: a guest may nest types as deep as it likes.
class NodeNumbering {
 public:
  explicit NodeNumbering(MpiObjects& objects) : objects_(objects) {}

  uint32_t number(const mpi::Layout& root) {
    std::vector<std::pair<const mpi::TypeLayout*, size_t>> pending{{root.get(), 0}};
    while (!pending.empty()) {
      auto& [layout, next] = pending.back();
      if (nodeOf_.count(layout)) {
        pending.pop_back();
        continue;
      }
      const mpi::TypeRecipe* recipe = layout->recipe.get();
      if (recipe && next < recipe->types.size()) {
        const auto& [handle, old] = recipe->types[next++];
        if (handle == 0 && old && !nodeOf_.count(old.get())) pending.emplace_back(old.get(), 0);
        continue;
      }
      nodeOf_[layout] = uint32_t(objects_.typeNodes.size());
      objects_.typeNodes.push_back(describe(*layout));
      pending.pop_back();
    }
    return nodeOf_.at(root.get());
  }

 private:
  DatatypeNode describe(const mpi::TypeLayout& layout) const {
    DatatypeNode node;
    for (const mpi::TypeSegment& segment : layout.segments)
      node.segments.push_back({segment.offset, segment.length});
    node.size = layout.size;
    node.lb = layout.lb;
    node.ub = layout.ub;
    node.trueLb = layout.trueLb;
    node.trueUb = layout.trueUb;
    node.alignment = layout.alignment;
    node.element = uint8_t(layout.element);
    node.combiner = layout.combiner;
    node.committed = layout.committed;
    if (const mpi::TypeRecipe* recipe = layout.recipe.get()) {
      node.integers = recipe->integers;
      node.addresses = recipe->addresses;
      for (const auto& [handle, old] : recipe->types)
        node.oldTypes.push_back(handle ? DatatypeNode::OldType{handle, 0}
                                       : DatatypeNode::OldType{0, nodeOf_.at(old.get())});
    }
    return node;
  }

  MpiObjects& objects_;
  std::map<const mpi::TypeLayout*, uint32_t> nodeOf_;
};

// The layouts of every node, in node order; false with `error` when one
// cannot be a datatype's.
bool buildLayouts(const MpiObjects& objects, std::vector<mpi::Layout>& layouts,
                  std::string& error) {
  layouts.reserve(objects.typeNodes.size());
  for (const DatatypeNode& node : objects.typeNodes) {
    auto layout = std::make_shared<mpi::TypeLayout>();
    for (const DatatypeNode::Segment& segment : node.segments)
      layout->segments.push_back({segment.offset, segment.length});
    layout->size = node.size;
    layout->lb = node.lb;
    layout->ub = node.ub;
    layout->trueLb = node.trueLb;
    layout->trueUb = node.trueUb;
    layout->alignment = node.alignment;
    layout->element = mpi::ElementKind(node.element);
    layout->combiner = node.combiner;
    layout->committed = node.committed;
    // A reduction walks the packed data element by element.
    if (layout->element < mpi::ElementKind::Mixed &&
        node.size % mpi::packedElementSize(layout->element) != 0) {
      error = "datatype node " + std::to_string(layouts.size()) + " has a size of " +
              std::to_string(node.size) + " bytes, not a whole number of its elements";
      return false;
    }
    auto recipe = std::make_shared<mpi::TypeRecipe>();
    recipe->integers = node.integers;
    recipe->addresses = node.addresses;
    // The decoder checked that a node names only earlier nodes.
    for (const DatatypeNode::OldType& old : node.oldTypes)
      recipe->types.emplace_back(old.predefined, old.predefined
                                                     ? mpi::predefinedLayout(old.predefined)
                                                     : layouts[old.node]);
    layout->recipe = std::move(recipe);
    layouts.push_back(std::move(layout));
  }
  return true;
}

}  // namespace

MpiObjects captureMpiObjects(const mpi::RankState& rank) {
  MpiObjects objects;
  NodeNumbering numbering(objects);
  for (const auto& [handle, layout] : rank.derivedTypes())
    objects.types.emplace_back(uint32_t(handle), numbering.number(layout));
  for (const auto& [handle, name] : rank.typeNames) objects.typeNames.emplace_back(uint32_t(handle), name);
  for (const auto& [handle, group] : rank.madeGroups())
    objects.groups.push_back({uint32_t(handle),
                              std::vector<uint32_t>(group->worldRanks.begin(), group->worldRanks.end())});
  objects.nextOp = uint32_t(rank.nextOpHandle());
  for (const auto& [handle, op] : rank.userOps())
    objects.ops.push_back({uint32_t(handle), op.function, op.commutative});
  objects.nextKeyval = uint32_t(rank.nextKeyval);
  objects.nextAttributeOrder = rank.nextAttributeOrder;
  for (const auto& [handle, keyval] : rank.keyvals)
    objects.keyvals.push_back({uint32_t(handle), keyval.copyFunction, keyval.deleteFunction,
                               keyval.extraState, keyval.freed});
  objects.nextErrorHandler = uint32_t(rank.nextErrorHandler);
  for (const auto& [handle, function] : rank.commErrorHandlers)
    objects.commErrorHandlers.emplace_back(uint32_t(handle), function);
  objects.nextContext = rank.world->nextContext();
  for (const auto& [handle, live] : rank.commHandles()) {
    MpiObjects::CommRecord comm;
    comm.handle = uint32_t(handle);
    const mpi::Communicator& shared = *live->comm;
    comm.context = shared.context;
    comm.worldRanks.assign(shared.worldRanks.begin(), shared.worldRanks.end());
    rank.world->locked([&] { comm.name = shared.name; });
    comm.errhandler = uint32_t(live->errhandler);
    if (shared.cart) {
      comm.cartesian = true;
      comm.dims.assign(shared.cart->dims.begin(), shared.cart->dims.end());
      comm.periods.assign(shared.cart->periods.begin(), shared.cart->periods.end());
    }
    for (const auto& [keyval, attribute] : live->attributes)
      comm.attributes.push_back({uint32_t(keyval), attribute.value, attribute.setOrder});
    auto countOn = [&](const std::map<uint32_t, uint32_t>& counts) {
      auto found = counts.find(shared.context);
      return found == counts.end() ? 0u : found->second;
    };
    comm.nonblockingCollectives = countOn(rank.nonblockingCollectivesOn);
    comm.windowsSpanningHosts = countOn(rank.windowsSpanningHostsOn);
    objects.comms.push_back(std::move(comm));
  }
  return objects;
}

bool checkMpiObjects(const MpiObjects& objects, std::string& error) {
  std::vector<mpi::Layout> layouts;
  return buildLayouts(objects, layouts, error);
}

bool checkSharedCommunicators(const std::vector<RankImage>& ranks, std::string& error) {
  std::map<uint32_t, std::pair<uint32_t, const MpiObjects::CommRecord*>> first;  // by context
  for (const RankImage& rank : ranks) {
    // MPI_COMM_WORLD's and every rank's MPI_COMM_SELF's are drawn first.
    if (rank.mpi.nextContext <= ranks.size()) {
      error = "rank " + std::to_string(rank.worldRank) +
              " records a next communicator context among the predefined communicators'";
      return false;
    }
    for (const MpiObjects::CommRecord& comm : rank.mpi.comms) {
      auto [found, isFirst] = first.try_emplace(comm.context, rank.worldRank, &comm);
      const MpiObjects::CommRecord& other = *found->second.second;
      // At a control point every member has started the same nonblocking
      // collectives and made the same windows on it (none is under way).
      if (isFirst || (comm.worldRanks == other.worldRanks && comm.name == other.name &&
                      comm.cartesian == other.cartesian && comm.dims == other.dims &&
                      comm.periods == other.periods &&
                      comm.nonblockingCollectives == other.nonblockingCollectives &&
                      comm.windowsSpanningHosts == other.windowsSpanningHosts))
        continue;
      error = "rank " + std::to_string(rank.worldRank) + "'s communicator " +
              std::to_string(comm.handle) + " and rank " + std::to_string(found->second.first) +
              "'s communicator " + std::to_string(other.handle) +
              " share a context but not their members, name, topology or counts of nonblocking "
              "collectives and windows";
      return false;
    }
  }
  return true;
}

namespace {

// The communicator behind `record`: the predefined one it must be, or the
// one rebuilt for its context.
std::shared_ptr<mpi::Communicator> communicatorOf(const MpiObjects::CommRecord& record,
                                                  mpi::RankState& rank,
                                                  ResumedCommunicators& communicators,
                                                  std::string& error) {
  mpi::World& world = *rank.world;
  if (record.handle == uint32_t(mpi::abi::kCommWorld) ||
      record.handle == uint32_t(mpi::abi::kCommSelf)) {
    const std::shared_ptr<mpi::Communicator>& predefined =
        record.handle == uint32_t(mpi::abi::kCommWorld) ? world.worldComm()
                                                        : world.selfComm(rank.worldRank);
    if (predefined->context != record.context) {
      error = "communicator " + std::to_string(record.handle) + " has context " +
              std::to_string(record.context) + ", not this job's " +
              std::to_string(predefined->context);
      return nullptr;
    }
    return predefined;
  }
  std::shared_ptr<mpi::Communicator>& comm = communicators[record.context];
  // A rank arriving from a live move shares the communicator this host's
  // members hold (none does in a resumed job), which must be the same.
  if (!comm) {
    comm = world.liveCommunicator(record.context);
    if (comm && (std::vector<uint32_t>(comm->worldRanks.begin(), comm->worldRanks.end()) !=
                     record.worldRanks ||
                 comm->inter || comm->cart.has_value() != record.cartesian ||
                 (comm->cart && (std::vector<int32_t>(comm->cart->dims.begin(),
                                                      comm->cart->dims.end()) != record.dims ||
                                 std::vector<uint8_t>(comm->cart->periods.begin(),
                                                      comm->cart->periods.end()) !=
                                     record.periods)))) {
      comm.reset();
      communicators.erase(record.context);
      error = "communicator " + std::to_string(record.handle) + " (context " +
              std::to_string(record.context) +
              ") differs from this host's communicator of that context";
      return nullptr;
    }
  }
  if (!comm) {
    comm = world.makeCommunicator(
        std::vector<int>(record.worldRanks.begin(), record.worldRanks.end()), record.context);
    if (record.cartesian)
      comm->cart = mpi::CartTopology{std::vector<int>(record.dims.begin(), record.dims.end()),
                                     std::vector<int>(record.periods.begin(), record.periods.end())};
  }
  return comm;
}

}  // namespace

void resumeContextDraws(const std::vector<RankImage>& ranks, mpi::World& world) {
  for (const RankImage& rank : ranks) {
    world.resumeContextsBelow(rank.mpi.nextContext);
    for (const MpiObjects::CommRecord& comm : rank.mpi.comms)
      world.resumeContextsBelow(comm.context + 1);  // below 2^31: the decoder checked
  }
}

bool restoreMpiObjects(const MpiObjects& objects, mpi::RankState& rank,
                       ResumedCommunicators& communicators, std::string& error) {
  std::vector<mpi::Layout> layouts;
  if (!buildLayouts(objects, layouts, error)) return false;
  for (const MpiObjects::CommRecord& record : objects.comms) {
    std::shared_ptr<mpi::Communicator> comm = communicatorOf(record, rank, communicators, error);
    if (!comm) return false;
    rank.world->locked([&] { comm->name = record.name; });
    mpi::CommHandle handle;
    handle.comm = std::move(comm);
    handle.errhandler = int(record.errhandler);
    for (const MpiObjects::AttributeRecord& attribute : record.attributes)
      handle.attributes[int(attribute.keyval)] = {attribute.value, attribute.setOrder};
    if (record.nonblockingCollectives)
      rank.nonblockingCollectivesOn[record.context] = record.nonblockingCollectives;
    if (record.windowsSpanningHosts)
      rank.windowsSpanningHostsOn[record.context] = record.windowsSpanningHosts;
    rank.restoreComm(int(record.handle), std::move(handle));
  }
  for (auto [handle, function] : objects.commErrorHandlers) rank.commErrorHandlers[int(handle)] = function;
  rank.nextErrorHandler = int(objects.nextErrorHandler);
  for (auto [handle, node] : objects.types) rank.restoreType(int(handle), layouts[node]);
  for (const auto& [handle, name] : objects.typeNames) rank.typeNames[int(handle)] = name;
  for (const MpiObjects::GroupRecord& group : objects.groups)
    rank.restoreGroup(int(group.handle),
                      std::make_shared<const mpi::Group>(mpi::Group{
                          std::vector<int>(group.worldRanks.begin(), group.worldRanks.end())}));
  std::map<int, mpi::UserOp> ops;
  for (const MpiObjects::OpRecord& op : objects.ops)
    ops[int(op.handle)] = mpi::UserOp{op.function, op.commutative};
  rank.restoreOps(std::move(ops), int(objects.nextOp));
  for (const MpiObjects::KeyvalRecord& keyval : objects.keyvals)
    rank.keyvals[int(keyval.handle)] = mpi::RankState::Keyval{
        keyval.copyFunction, keyval.deleteFunction, keyval.extraState, keyval.freed};
  rank.nextKeyval = int(objects.nextKeyval);
  rank.nextAttributeOrder = objects.nextAttributeOrder;
  return true;
}

}  // namespace synergy::checkpoint
