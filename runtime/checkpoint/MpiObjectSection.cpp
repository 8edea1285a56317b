//===- MpiObjectSection.cpp - a rank's MPI objects in a checkpoint file ---===//
//
// This file implements the encoder and the checking decoder of the part of
// a rank's section described in MpiObjectSection.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/MpiObjectSection.h"

#include <climits>
#include <set>

#include "checkpoint/FieldCoding.h"
#include "mpi/Datatype.h"
#include "mpi/MpiAbi.h"
#include "mpi/World.h"

namespace synergy::checkpoint {

namespace {

// The fixed part of a node, its arrays aside.
constexpr size_t kNodeFixedBytes = 4 + 6 * 8 + 1 + 4 + 1 + 4 + 4 + 4;

void encodeNode(std::string& out, const DatatypeNode& node) {
  put(out, uint32_t(node.segments.size()));
  for (const DatatypeNode::Segment& segment : node.segments) {
    put(out, segment.offset);
    put(out, segment.length);
  }
  for (int64_t field : {node.size, node.lb, node.ub, node.trueLb, node.trueUb, node.alignment})
    put(out, field);
  put(out, node.element);
  put(out, node.combiner);
  put(out, uint8_t(node.committed));
  put(out, uint32_t(node.integers.size()));
  for (int32_t integer : node.integers) put(out, integer);
  put(out, uint32_t(node.addresses.size()));
  for (int64_t address : node.addresses) put(out, address);
  put(out, uint32_t(node.oldTypes.size()));
  for (const DatatypeNode::OldType& old : node.oldTypes) {
    put(out, old.predefined);
    put(out, old.node);
  }
}

// Reads `count` entries of `T` after their u32 count, each at least
// `entryBytes` long, so that the count is bounded before anything is
// allocated.
template <typename T, typename ReadEntry>
bool readArray(FieldReader& reader, size_t entryBytes, std::vector<T>& entries,
               ReadEntry&& readEntry) {
  uint32_t count = 0;
  if (!reader.read(count) || count > reader.left() / entryBytes) return false;
  entries.resize(count);
  for (T& entry : entries)
    if (!readEntry(entry)) return false;
  return true;
}

bool decodeNode(FieldReader& reader, uint32_t index, DatatypeNode& node, const std::string& where,
                std::string& error) {
  std::string what = where + "datatype node " + std::to_string(index) + " ";
  uint8_t committed = 0;
  bool ok = readArray(reader, 16, node.segments, [&](DatatypeNode::Segment& segment) {
    return reader.read(segment.offset) && reader.read(segment.length);
  });
  ok = ok && reader.read(node.size) && reader.read(node.lb) && reader.read(node.ub) &&
       reader.read(node.trueLb) && reader.read(node.trueUb) && reader.read(node.alignment) &&
       reader.read(node.element) && reader.read(node.combiner) && reader.read(committed) &&
       readArray(reader, 4, node.integers, [&](int32_t& integer) { return reader.read(integer); }) &&
       readArray(reader, 8, node.addresses, [&](int64_t& address) { return reader.read(address); }) &&
       readArray(reader, 8, node.oldTypes, [&](DatatypeNode::OldType& old) {
         return reader.read(old.predefined) && reader.read(old.node);
       });
  if (!ok) {
    error = what + "is truncated or has more entries than the file can hold";
    return false;
  }
  if (node.segments.size() > uint64_t(mpi::kMaxTypeSegments)) {
    error = what + "has more segments than a datatype may have";
    return false;
  }
  int64_t extent = 0;
  if (node.trueLb > node.trueUb || __builtin_sub_overflow(node.ub, node.lb, &extent) ||
      node.size < 0 || node.alignment < 1 || node.alignment > 4096 ||
      (node.alignment & (node.alignment - 1))) {
    error = what + "has bounds, a size or an alignment no datatype has";
    return false;
  }
  int64_t total = 0;
  for (const DatatypeNode::Segment& segment : node.segments) {
    int64_t end = 0;
    if (segment.length <= 0 || segment.offset < node.trueLb ||
        __builtin_add_overflow(segment.offset, segment.length, &end) || end > node.trueUb ||
        __builtin_add_overflow(total, segment.length, &total)) {
      error = what + "has a segment outside its true bounds";
      return false;
    }
  }
  if (total != node.size) {
    error = what + "has segments of " + std::to_string(total) + " bytes, not its size " +
            std::to_string(node.size);
    return false;
  }
  if (node.element > uint8_t(mpi::ElementKind::None) || committed > 1 ||
      node.combiner < mpi::abi::kCombinerDup || node.combiner > mpi::abi::kCombinerResized) {
    error = what + "has an unknown element kind, combiner or commit flag";
    return false;
  }
  node.committed = committed;
  for (const DatatypeNode::OldType& old : node.oldTypes) {
    bool predefined = old.predefined >= 1 && old.predefined <= mpi::abi::kLastPredefinedType &&
                      old.node == 0;
    if (!predefined && (old.predefined != 0 || old.node >= index)) {
      error = what + "names an old type that is neither predefined nor an earlier node";
      return false;
    }
  }
  return true;
}

// Whether `handle` is above `previous` and at most `limit`; `previous`
// becomes `handle`.
bool increasingUpTo(uint32_t handle, uint32_t& previous, uint32_t limit) {
  if (handle <= previous || handle > limit) return false;
  previous = handle;
  return true;
}

void encodeComm(std::string& out, const MpiObjects::CommRecord& comm) {
  put(out, comm.handle);
  put(out, comm.context);
  put(out, uint32_t(comm.worldRanks.size()));
  for (uint32_t member : comm.worldRanks) put(out, member);
  putText(out, comm.name);
  put(out, comm.errhandler);
  put(out, uint8_t(comm.cartesian));
  put(out, uint32_t(comm.dims.size()));
  for (int32_t extent : comm.dims) put(out, extent);
  for (uint8_t periodic : comm.periods) put(out, periodic);
  put(out, uint32_t(comm.attributes.size()));
  for (const MpiObjects::AttributeRecord& attribute : comm.attributes) {
    put(out, attribute.keyval);
    put(out, attribute.value);
    put(out, attribute.setOrder);
  }
  put(out, comm.nonblockingCollectives);
  put(out, comm.windowsSpanningHosts);
}

// The fixed part of a communicator record, its arrays aside.
constexpr size_t kCommFixedBytes = 4 + 4 + 4 + 4 + 4 + 1 + 4 + 4 + 4 + 4;

// Reads one communicator record of rank `worldRank` and checks it against
// the rank's other objects (see the header); `what` names it in errors.
bool decodeComm(FieldReader& reader, uint32_t worldRank, uint32_t rankCount,
                const MpiObjects& objects, MpiObjects::CommRecord& comm, uint32_t& previous,
                const std::string& where, std::string& error) {
  uint8_t cartesian = 0;
  uint64_t nameBudget = mpi::abi::kMaxObjectName;
  std::set<uint32_t> members;
  bool ok = reader.read(comm.handle) && reader.read(comm.context) &&
            readArray(reader, 4, comm.worldRanks, [&](uint32_t& member) {
              return reader.read(member) && member < rankCount && members.insert(member).second;
            }) &&
            readText(reader, nameBudget, comm.name) && reader.read(comm.errhandler) &&
            reader.read(cartesian) &&
            readArray(reader, 5, comm.dims, [&](int32_t& extent) { return reader.read(extent); });
  if (ok) {
    comm.periods.resize(comm.dims.size());
    for (uint8_t& periodic : comm.periods) ok = ok && reader.read(periodic);
  }
  uint32_t previousKeyval = 0;
  ok = ok && readArray(reader, 16, comm.attributes, [&](MpiObjects::AttributeRecord& attribute) {
         return reader.read(attribute.keyval) && reader.read(attribute.value) &&
                reader.read(attribute.setOrder) &&
                attribute.setOrder < objects.nextAttributeOrder &&
                increasingUpTo(attribute.keyval, previousKeyval, UINT32_MAX);
       }) &&
       reader.read(comm.nonblockingCollectives) && reader.read(comm.windowsSpanningHosts);
  if (!ok) {
    error = where + "a communicator record is truncated, has a member that is not a distinct "
                    "world rank of the job, or attributes out of order or set after the next "
                    "attribute";
    return false;
  }
  std::string what = where + "communicator " + std::to_string(comm.handle) + " ";
  if (!increasingUpTo(comm.handle, previous, kMaxMpiObjectHandle)) {
    error = what + "is out of order or out of range";
    return false;
  }
  bool isMember = members.count(worldRank);
  bool contextFits =
      comm.handle == uint32_t(mpi::abi::kCommWorld)
          ? comm.context == 0 && comm.worldRanks.size() == rankCount
          : comm.handle == uint32_t(mpi::abi::kCommSelf)
                ? comm.context == 1 + worldRank && comm.worldRanks.size() == 1
                : comm.context > rankCount && comm.context < mpi::kContextsOfOneHost;
  if (!isMember || !contextFits) {
    error = what + "does not hold this rank, or its context or size is not one it can have";
    return false;
  }
  if (comm.name.size() >= size_t(mpi::abi::kMaxObjectName) ||
      comm.name.find('\0') != std::string::npos) {
    error = what + "has a name that is too long or holds NUL";
    return false;
  }
  bool knownHandler = comm.errhandler == uint32_t(mpi::abi::kErrorsAreFatal) ||
                      comm.errhandler == uint32_t(mpi::abi::kErrorsReturn);
  for (auto [handle, function] : objects.commErrorHandlers)
    knownHandler = knownHandler || handle == comm.errhandler;
  if (!knownHandler) {
    error = what + "has error handler " + std::to_string(comm.errhandler) + ", not one of the rank's";
    return false;
  }
  for (const MpiObjects::AttributeRecord& attribute : comm.attributes) {
    bool known = false;
    for (const MpiObjects::KeyvalRecord& record : objects.keyvals)
      known = known || record.handle == attribute.keyval;
    if (!known) {
      error = what + "has an attribute of keyval " + std::to_string(attribute.keyval) +
              ", not one of the rank's";
      return false;
    }
  }
  uint64_t product = 1;
  for (int32_t extent : comm.dims) {
    if (extent < 1) {
      product = 0;
      break;
    }
    product *= uint64_t(extent);
    if (product > rankCount) break;
  }
  bool periodsKnown = true;
  for (uint8_t periodic : comm.periods) periodsKnown = periodsKnown && periodic <= 1;
  if (cartesian > 1 || !periodsKnown ||
      (cartesian ? product != comm.worldRanks.size() : !comm.dims.empty())) {
    error = what + "has a cartesian topology whose dimensions do not multiply to its size";
    return false;
  }
  comm.cartesian = cartesian;
  return true;
}

}  // namespace

void encodeMpiObjects(std::string& out, const MpiObjects& objects) {
  put(out, uint32_t(objects.typeNodes.size()));
  for (const DatatypeNode& node : objects.typeNodes) encodeNode(out, node);
  put(out, uint32_t(objects.types.size()));
  for (auto [handle, node] : objects.types) {
    put(out, handle);
    put(out, node);
  }
  put(out, uint32_t(objects.typeNames.size()));
  for (const auto& [handle, name] : objects.typeNames) {
    put(out, handle);
    putText(out, name);
  }
  put(out, uint32_t(objects.groups.size()));
  for (const MpiObjects::GroupRecord& group : objects.groups) {
    put(out, group.handle);
    put(out, uint32_t(group.worldRanks.size()));
    for (uint32_t member : group.worldRanks) put(out, member);
  }
  put(out, objects.nextOp);
  put(out, uint32_t(objects.ops.size()));
  for (const MpiObjects::OpRecord& op : objects.ops) {
    put(out, op.handle);
    put(out, op.function);
    put(out, uint8_t(op.commutative));
  }
  put(out, objects.nextKeyval);
  put(out, uint32_t(objects.keyvals.size()));
  for (const MpiObjects::KeyvalRecord& keyval : objects.keyvals) {
    put(out, keyval.handle);
    put(out, keyval.copyFunction);
    put(out, keyval.deleteFunction);
    put(out, keyval.extraState);
    put(out, uint8_t(keyval.freed));
  }
  put(out, objects.nextAttributeOrder);
  put(out, objects.nextErrorHandler);
  put(out, uint32_t(objects.commErrorHandlers.size()));
  for (auto [handle, function] : objects.commErrorHandlers) {
    put(out, handle);
    put(out, function);
  }
  put(out, objects.nextContext);
  put(out, uint32_t(objects.comms.size()));
  for (const MpiObjects::CommRecord& comm : objects.comms) encodeComm(out, comm);
}

bool decodeMpiObjects(FieldReader& reader, uint32_t worldRank, uint32_t rankCount,
                      MpiObjects& objects, const std::string& where, std::string& error) {
  uint32_t index = 0;
  bool nodeFailed = false;
  bool ok = readArray(reader, kNodeFixedBytes, objects.typeNodes, [&](DatatypeNode& node) {
    nodeFailed = !decodeNode(reader, index++, node, where, error);
    return !nodeFailed;
  });
  if (nodeFailed) return false;
  if (!ok) {
    error = where + "more datatype nodes than the file can hold";
    return false;
  }
  uint32_t previous = uint32_t(mpi::abi::kLastPredefinedType);
  std::set<uint32_t> liveTypes;
  ok = readArray(reader, 8, objects.types, [&](std::pair<uint32_t, uint32_t>& type) {
    return reader.read(type.first) && reader.read(type.second) &&
           increasingUpTo(type.first, previous, kMaxMpiObjectHandle) &&
           type.second < objects.typeNodes.size() && liveTypes.insert(type.first).second;
  });
  if (!ok) {
    error = where + "a datatype handle is truncated, out of order, out of range or names no node";
    return false;
  }
  previous = 0;
  uint64_t nameBudget = uint64_t(liveTypes.size() + mpi::abi::kLastPredefinedType) *
                        uint64_t(mpi::abi::kMaxObjectName);
  ok = readArray(reader, 8, objects.typeNames, [&](std::pair<uint32_t, std::string>& name) {
    return reader.read(name.first) && readText(reader, nameBudget, name.second) &&
           increasingUpTo(name.first, previous, kMaxMpiObjectHandle) &&
           (name.first <= uint32_t(mpi::abi::kLastPredefinedType) || liveTypes.count(name.first)) &&
           name.second.size() < size_t(mpi::abi::kMaxObjectName) &&
           name.second.find('\0') == std::string::npos;
  });
  if (!ok) {
    error = where + "a datatype name is truncated, too long or names no live datatype";
    return false;
  }
  previous = uint32_t(mpi::abi::kGroupEmpty);
  ok = readArray(reader, 8, objects.groups, [&](MpiObjects::GroupRecord& group) {
    if (!reader.read(group.handle) || !increasingUpTo(group.handle, previous, kMaxMpiObjectHandle))
      return false;
    std::set<uint32_t> members;
    return readArray(reader, 4, group.worldRanks, [&](uint32_t& member) {
      return reader.read(member) && member < rankCount && members.insert(member).second;
    });
  });
  if (!ok) {
    error = where + "a group is truncated, out of order, or has a member that is not a distinct "
                    "world rank of the job";
    return false;
  }
  previous = uint32_t(mpi::abi::kLastPredefinedOp);
  ok = reader.read(objects.nextOp) && objects.nextOp > previous && objects.nextOp <= INT32_MAX &&
       readArray(reader, 9, objects.ops, [&](MpiObjects::OpRecord& op) {
         uint8_t commutative = 0;
         if (!reader.read(op.handle) || !reader.read(op.function) || !reader.read(commutative))
           return false;
         op.commutative = commutative;
         return commutative <= 1 && increasingUpTo(op.handle, previous, objects.nextOp - 1);
       });
  if (!ok) {
    error = where + "a user-defined op is truncated, out of order or past the next op handle";
    return false;
  }
  previous = uint32_t(mpi::abi::kFirstUserKeyval) - 1;
  ok = reader.read(objects.nextKeyval) && objects.nextKeyval > previous &&
       objects.nextKeyval <= INT32_MAX &&
       readArray(reader, 17, objects.keyvals, [&](MpiObjects::KeyvalRecord& keyval) {
         uint8_t freed = 0;
         if (!reader.read(keyval.handle) || !reader.read(keyval.copyFunction) ||
             !reader.read(keyval.deleteFunction) || !reader.read(keyval.extraState) ||
             !reader.read(freed))
           return false;
         keyval.freed = freed;
         return freed <= 1 && increasingUpTo(keyval.handle, previous, objects.nextKeyval - 1);
       });
  if (!ok) {
    error = where + "an attribute keyval is truncated, out of order, a predefined key's or past the "
                    "next keyval";
    return false;
  }
  if (!reader.read(objects.nextAttributeOrder)) {
    error = where + "the next attribute's set order is truncated";
    return false;
  }
  previous = uint32_t(mpi::abi::kErrorsReturn);
  ok = reader.read(objects.nextErrorHandler) && objects.nextErrorHandler > previous &&
       objects.nextErrorHandler <= INT32_MAX &&
       readArray(reader, 8, objects.commErrorHandlers, [&](std::pair<uint32_t, uint32_t>& handler) {
         return reader.read(handler.first) && reader.read(handler.second) &&
                increasingUpTo(handler.first, previous, objects.nextErrorHandler - 1);
       });
  if (!ok) {
    error = where + "an error handler is truncated, out of order, predefined or past the next "
                    "error handler";
    return false;
  }
  uint32_t commCount = 0;
  if (!reader.read(objects.nextContext) || !reader.read(commCount) ||
      commCount > reader.left() / kCommFixedBytes) {
    error = where + "the communicator count or contexts are truncated or more than the file can "
                    "hold";
    return false;
  }
  objects.comms.resize(commCount);
  previous = 0;
  for (MpiObjects::CommRecord& comm : objects.comms)
    if (!decodeComm(reader, worldRank, rankCount, objects, comm, previous, where, error))
      return false;
  return true;
}

}  // namespace synergy::checkpoint
