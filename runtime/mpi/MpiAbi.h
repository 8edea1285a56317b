//===- MpiAbi.h - the guest's view of MPI: handles, constants, layouts ----===//
//
// The runtime side of include/mpi.h: the handle values of predefined objects,
// the special ranks and tags, the error classes, and the byte layout of
// MPI_Status in guest memory. The two files must agree; the lit tests in
// test/lit/mpi compile real programs against the header and check results
// against OpenMPI, so a mismatch shows up there.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace synergy::mpi::abi {

// Communicators, groups and other handles.
inline constexpr int kCommNull = 0;
inline constexpr int kCommWorld = 1;
inline constexpr int kCommSelf = 2;
inline constexpr int kGroupNull = 0;
inline constexpr int kGroupEmpty = 1;
inline constexpr int kRequestNull = 0;
inline constexpr int kWinNull = 0;
inline constexpr int kInfoNull = 0;
inline constexpr int kInfoEnv = 1;
inline constexpr int kErrhandlerNull = 0;
inline constexpr int kErrorsAreFatal = 1;
inline constexpr int kErrorsReturn = 2;
inline constexpr int kMessageNull = 0;
inline constexpr int kMessageNoProc = 1;
inline constexpr int kDatatypeNull = 0;
inline constexpr int kOpNull = 0;

// Datatype handles 1..kLastPredefinedType are the predefined types, in the
// order of PredefinedType (Datatype.h).
inline constexpr int kLastPredefinedType = 62;
inline constexpr int kTypeByte = 4;
inline constexpr int kTypePacked = 32;
// Op handles 1..kLastPredefinedOp are the predefined ops.
inline constexpr int kLastPredefinedOp = 14;

// MPI_COMBINER_* (include/mpi.h): how a datatype was made, as
// MPI_Type_get_envelope reports it.
inline constexpr int kCombinerNamed = 0;
inline constexpr int kCombinerDup = 1;
inline constexpr int kCombinerContiguous = 2;
inline constexpr int kCombinerVector = 3;
inline constexpr int kCombinerHvector = 4;
inline constexpr int kCombinerIndexed = 5;
inline constexpr int kCombinerHindexed = 6;
inline constexpr int kCombinerIndexedBlock = 7;
inline constexpr int kCombinerHindexedBlock = 8;
inline constexpr int kCombinerStruct = 9;
inline constexpr int kCombinerSubarray = 10;
inline constexpr int kCombinerDarray = 11;
inline constexpr int kCombinerResized = 12;

// Special ranks, tags and values.
inline constexpr int kAnySource = -1;
inline constexpr int kProcNull = -2;
inline constexpr int kRoot = -4;
inline constexpr int kAnyTag = -1;
inline constexpr int kUndefined = -32766;
inline constexpr int kTagUpperBound = 0x7fffffff;
inline constexpr int kMaxProcessorName = 256;
inline constexpr int kMaxErrorString = 256;
inline constexpr int kMaxObjectName = 64;
inline constexpr int kMaxLibraryVersionString = 256;

inline constexpr int kIdent = 0;
inline constexpr int kCongruent = 1;
inline constexpr int kSimilar = 2;
inline constexpr int kUnequal = 3;
inline constexpr int kTopoCart = 1;
inline constexpr int kTopoGraph = 2;
inline constexpr int kTopoDistGraph = 3;
inline constexpr uint32_t kUnweighted = 2;
inline constexpr uint32_t kWeightsEmpty = 3;
inline constexpr int kThreadSingle = 0;
inline constexpr int kThreadMultiple = 3;
inline constexpr int kCommTypeShared = 0;

// Guest addresses with special meaning.
inline constexpr uint32_t kInPlace = 0xffffffffu;
inline constexpr uint32_t kStatusIgnore = 0;

// MPI_Status: int source, int tag, int error, int cancelled, i64 byte count.
inline constexpr uint32_t kStatusSize = 24;
inline constexpr uint32_t kStatusSourceOffset = 0;
inline constexpr uint32_t kStatusTagOffset = 4;
inline constexpr uint32_t kStatusErrorOffset = 8;
inline constexpr uint32_t kStatusCancelledOffset = 12;
inline constexpr uint32_t kStatusCountOffset = 16;

// Attribute keys on MPI_COMM_WORLD.
inline constexpr int kAttrTagUb = 1;
inline constexpr int kAttrHost = 2;
inline constexpr int kAttrIo = 3;
inline constexpr int kAttrWtimeIsGlobal = 4;
inline constexpr int kAttrAppnum = 5;
inline constexpr int kAttrUniverseSize = 6;
inline constexpr int kAttrLastUsedCode = 7;

// Attribute keys on windows, and the values of the last two.
inline constexpr int kWinAttrBase = 8;
inline constexpr int kWinAttrSize = 9;
inline constexpr int kWinAttrDispUnit = 10;
inline constexpr int kWinAttrCreateFlavor = 11;
inline constexpr int kWinAttrModel = 12;
inline constexpr int kWinFlavorCreate = 1;
inline constexpr int kWinFlavorAllocate = 2;
inline constexpr int kWinFlavorDynamic = 3;
inline constexpr int kWinFlavorShared = 4;
inline constexpr int kWinUnified = 2;
// Keyvals the program creates are numbered from here, past every
// predefined attribute key.
inline constexpr int kFirstUserKeyval = 32;

// MPI-IO: the null file, access modes (MPI_MODE_*) and MPI_File_seek's
// whence values (MPI_SEEK_*).
inline constexpr int kFileNull = 0;
namespace amode {
inline constexpr int kCreate = 1;
inline constexpr int kReadOnly = 2;
inline constexpr int kWriteOnly = 4;
inline constexpr int kReadWrite = 8;
inline constexpr int kDeleteOnClose = 16;
inline constexpr int kUniqueOpen = 32;
inline constexpr int kExclusive = 64;
inline constexpr int kAppend = 128;
inline constexpr int kSequential = 256;
inline constexpr int kAll = 511;
}  // namespace amode
inline constexpr int kSeekSet = 600;
inline constexpr int kSeekCur = 602;
inline constexpr int kSeekEnd = 604;

// One-sided synchronisation: assertions and lock types.
inline constexpr int kModeNocheck = 1;
inline constexpr int kModeNosucceed = 16;
inline constexpr int kLockExclusive = 1;
inline constexpr int kLockShared = 2;

// Error classes.
enum ErrorClass : int {
  kSuccess = 0,
  kErrBuffer = 1,
  kErrCount = 2,
  kErrType = 3,
  kErrTag = 4,
  kErrComm = 5,
  kErrRank = 6,
  kErrRequest = 7,
  kErrRoot = 8,
  kErrGroup = 9,
  kErrOp = 10,
  kErrTopology = 11,
  kErrDims = 12,
  kErrArg = 13,
  kErrUnknown = 14,
  kErrTruncate = 15,
  kErrOther = 16,
  kErrIntern = 17,
  kErrInStatus = 18,
  kErrPending = 19,
  kErrAccess = 20,
  kErrAmode = 21,
  kErrBadFile = 23,
  kErrBase = 24,
  kErrFileExists = 28,
  kErrFile = 30,
  kErrInfo = 34,
  kErrIo = 35,
  kErrKeyval = 36,
  kErrNoMem = 39,
  kErrNotSame = 40,
  kErrNoSpace = 41,
  kErrNoSuchFile = 42,
  kErrQuota = 44,
  kErrReadOnly = 45,
  kErrUnsupportedDatarep = 51,
  kErrUnsupportedOperation = 52,
  kErrRmaConflict = 46,
  kErrRmaSync = 47,
  kErrWin = 53,
  kErrRmaRange = 68,
  kErrRmaAttach = 69,
  kErrRmaFlavor = 70,
  kErrRmaShared = 71,
  kErrLastCode = 92,
};

}  // namespace synergy::mpi::abi
