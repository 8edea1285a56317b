//===- MpiObjectSection.h - a rank's MPI objects in a checkpoint file -----===//
//
// The part of a rank's checkpoint section that holds the MPI objects the
// rank made and a resumed rank must find again under the same handles:
// its derived datatypes (with their names and the recipes
// MPI_Type_get_contents reports), its groups, its user-defined ops (a
// guest function-table index each, restored as is, since the resumed
// instance is of the same module) and its attribute keyvals, with the
// counters the next handles are drawn from.
//
// A datatype is stored as its flattened layout (mpi::TypeLayout): the
// layouts of a rank form a graph through their recipes' old types, stored
// once each as nodes that name only earlier nodes or predefined handles,
// so that a layout shared by several handles or recipes stays one.
//
// Layout, after the open files of RankImage:
//   u32 nodeCount  nodeCount x { u32 segmentCount  segmentCount x { i64 offset  i64 length }
//                                i64 size  i64 lb  i64 ub  i64 trueLb  i64 trueUb
//                                i64 alignment  u8 element  i32 combiner  u8 committed
//                                u32 integerCount  i32[]  u32 addressCount  i64[]
//                                u32 oldTypeCount  oldTypeCount x { i32 predefined  u32 node } }
//   u32 typeCount  typeCount x { u32 handle  u32 node }
//   u32 nameCount  nameCount x { u32 handle  u32 bytes  u8[] }
//   u32 groupCount groupCount x { u32 handle  u32 memberCount  u32[memberCount] }
//   u32 nextOp  u32 opCount  opCount x { u32 handle  u32 function  u8 commutative }
//   u32 nextKeyval  u32 keyvalCount
//       keyvalCount x { u32 handle  u32 copyFunction  u32 deleteFunction  u32 extraState
//                       u8 freed }
//   u64 nextAttributeOrder
//   u32 nextErrorHandler  u32 errhandlerCount  errhandlerCount x { u32 handle  u32 function }
//   u32 nextContext  u32 commCount
//       commCount x { u32 handle  u32 context  u32 memberCount  u32[memberCount]
//                     u32 nameBytes  u8[]  u32 errhandler
//                     u8 cartesian  u32 ndims  i32 dims[ndims]  u8 periods[ndims]
//                     u32 attributeCount  attributeCount x { u32 keyval  u32 value  u64 setOrder }
//                     u32 nonblockingCollectives  u32 windowsSpanningHosts }
//
// The decoder checks what a layout's users rely on: every segment is
// non-empty and inside [trueLb, trueUb), the segments' lengths add up to
// size, the extent and the bounds do not overflow, the combiner is a
// derived one, an old type is predefined or an earlier node; handles are in
// range and increasing (a keyval at or above the first a program gets,
// MPI_Comm_create_keyval's), a name is a live type's and shorter than
// MPI_MAX_OBJECT_NAME, a group's members are distinct world ranks of the
// job, and so are a communicator's, this rank among them; a communicator's
// context is MPI_COMM_WORLD's (0) or this rank's MPI_COMM_SELF's (1 + rank)
// for those two handles, and for any other one above every rank's
// MPI_COMM_SELF's and below the bit that marks collectives across hosts
// (World.h: a job spread over hosts draws from each host's own range, so
// a rank's communicator may hold a context another host drew); its error handler is predefined or one of the rank's; its
// attributes' keyvals are the rank's and their set orders below the next one; a cartesian topology's dimensions are
// positive and multiply to its size. That the members agree on a shared
// communicator (its counts among it) is for the whole job's check (MpiObjectRecord.h). Whether the element kind fits the size, and whether an op's or a
// keyval's function is in the module's table, is for the restore to check
// (MpiObjectRecord.h), which knows the element sizes and the module.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mpi/MpiAbi.h"

namespace synergy::checkpoint {

class FieldReader;

// Handles of datatypes and groups index tables a restore grows to them.
inline constexpr uint32_t kMaxMpiObjectHandle = 1u << 20;

struct DatatypeNode {
  struct Segment {
    int64_t offset = 0;
    int64_t length = 0;
  };
  // A recipe's old type: a predefined handle, or (predefined 0) a node.
  struct OldType {
    int32_t predefined = 0;
    uint32_t node = 0;
  };
  std::vector<Segment> segments;
  int64_t size = 0, lb = 0, ub = 0, trueLb = 0, trueUb = 0, alignment = 1;
  uint8_t element = 0;  // mpi::ElementKind
  int32_t combiner = 0;
  bool committed = false;
  std::vector<int32_t> integers;
  std::vector<int64_t> addresses;
  std::vector<OldType> oldTypes;
};

struct MpiObjects {
  std::vector<DatatypeNode> typeNodes;
  std::vector<std::pair<uint32_t, uint32_t>> types;       // handle, node
  std::vector<std::pair<uint32_t, std::string>> typeNames;  // handle, name
  struct GroupRecord {
    uint32_t handle = 0;
    std::vector<uint32_t> worldRanks;
  };
  std::vector<GroupRecord> groups;
  struct OpRecord {
    uint32_t handle = 0;
    uint32_t function = 0;
    bool commutative = false;
  };
  uint32_t nextOp = mpi::abi::kLastPredefinedOp + 1;
  std::vector<OpRecord> ops;
  struct KeyvalRecord {
    uint32_t handle = 0;
    uint32_t copyFunction = 0, deleteFunction = 0, extraState = 0;
    bool freed = false;
  };
  uint32_t nextKeyval = mpi::abi::kFirstUserKeyval;
  std::vector<KeyvalRecord> keyvals;
  // When each attribute was set, as mpi::Attribute::setOrder counts it:
  // attributes are deleted newest first, so a resumed run must delete them
  // in the order an undisturbed one would.
  uint64_t nextAttributeOrder = 0;
  struct AttributeRecord {
    uint32_t keyval = 0;
    uint32_t value = 0;
    uint64_t setOrder = 0;
    bool operator==(const AttributeRecord&) const = default;
  };
  // MPI_Comm_create_errhandler's handlers: handle, guest function index.
  uint32_t nextErrorHandler = mpi::abi::kErrorsReturn + 1;
  std::vector<std::pair<uint32_t, uint32_t>> commErrorHandlers;
  // The context the rank's World would have drawn next (World::nextContext:
  // on one host every rank records the same; spread over hosts, each
  // host's ranks that of their host's range), so that a job resumed where it
  // ran gives the next communicator the context, and the default name, an
  // undisturbed run would give it.
  uint32_t nextContext = 0;
  // Every communicator handle of the rank, MPI_COMM_WORLD's and
  // MPI_COMM_SELF's (1 and 2) among them: the communicator they name (its
  // context, members, name and cartesian topology, the same in every
  // member's record) and the handle's own error handler and attributes.
  struct CommRecord {
    uint32_t handle = 0;
    uint32_t context = 0;
    std::vector<uint32_t> worldRanks;  // by rank in the communicator
    std::string name;
    uint32_t errhandler = mpi::abi::kErrorsAreFatal;
    bool cartesian = false;
    std::vector<int32_t> dims;
    std::vector<uint8_t> periods;
    std::vector<AttributeRecord> attributes;  // by increasing keyval
    // The rank's counts on this communicator that its members must agree
    // on (RankState::nonblockingCollectivesOn, windowsSpanningHostsOn): the
    // nonblocking collectives it started, whose count tags their messages
    // and matches them up, and the windows spanning hosts it made, whose
    // count names them on every host. A rank restored with 0 while the
    // other members go on with theirs would match another collective's
    // messages (a live move) or reuse a window's id.
    uint32_t nonblockingCollectives = 0;
    uint32_t windowsSpanningHosts = 0;
  };
  std::vector<CommRecord> comms;
};

void encodeMpiObjects(std::string& out, const MpiObjects& objects);
// Reads and checks the objects of rank `worldRank` in a job of `rankCount`
// ranks; false with a one-line `error` that starts with `where`.
bool decodeMpiObjects(FieldReader& reader, uint32_t worldRank, uint32_t rankCount,
                      MpiObjects& objects, const std::string& where, std::string& error);

}  // namespace synergy::checkpoint
