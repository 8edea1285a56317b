//===- WasiAbi.h - wasi_snapshot_preview1 wire formats ---------------------===//
//
// The numbers and guest-memory layouts of WASI preview1, as the witx
// definition fixes them. Guest memory is little-endian and the guest gives no
// alignment guarantee, so every struct is read and written bytewise through
// loadGuest/storeGuest at the offsets below, never through a host struct.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace synergy::wasi {

static_assert(std::endian::native == std::endian::little,
              "guest memory is little-endian and is accessed with memcpy");

template <typename T>
T loadGuest(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

template <typename T>
void storeGuest(uint8_t* at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

// WASI errno values. They are not Linux's: see WasiErrno.h for the mapping.
enum class Errno : uint16_t {
  Success = 0, TooBig = 1, Acces = 2, AddrInUse = 3, AddrNotAvail = 4, AfNoSupport = 5,
  Again = 6, Already = 7, Badf = 8, BadMsg = 9, Busy = 10, Canceled = 11, Child = 12,
  ConnAborted = 13, ConnRefused = 14, ConnReset = 15, Deadlk = 16, DestAddrReq = 17,
  Dom = 18, Dquot = 19, Exist = 20, Fault = 21, Fbig = 22, HostUnreach = 23, Idrm = 24,
  Ilseq = 25, InProgress = 26, Intr = 27, Inval = 28, Io = 29, IsConn = 30, IsDir = 31,
  Loop = 32, Mfile = 33, Mlink = 34, MsgSize = 35, Multihop = 36, NameTooLong = 37,
  NetDown = 38, NetReset = 39, NetUnreach = 40, Nfile = 41, NoBufs = 42, NoDev = 43,
  NoEnt = 44, NoExec = 45, NoLck = 46, NoLink = 47, NoMem = 48, NoMsg = 49,
  NoProtoOpt = 50, NoSpc = 51, NoSys = 52, NotConn = 53, NotDir = 54, NotEmpty = 55,
  NotRecoverable = 56, NotSock = 57, NotSup = 58, NotTty = 59, Nxio = 60, Overflow = 61,
  OwnerDead = 62, Perm = 63, Pipe = 64, Proto = 65, ProtoNoSupport = 66, ProtoType = 67,
  Range = 68, Rofs = 69, Spipe = 70, Srch = 71, Stale = 72, TimedOut = 73, TxtBsy = 74,
  Xdev = 75, NotCapable = 76,
};

inline uint32_t toGuest(Errno e) { return static_cast<uint32_t>(e); }

enum class Filetype : uint8_t {
  Unknown = 0, BlockDevice = 1, CharacterDevice = 2, Directory = 3, RegularFile = 4,
  SocketDgram = 5, SocketStream = 6, SymbolicLink = 7,
};

namespace clockid {
inline constexpr uint32_t kRealtime = 0;
inline constexpr uint32_t kMonotonic = 1;
inline constexpr uint32_t kProcessCputime = 2;
inline constexpr uint32_t kThreadCputime = 3;
}  // namespace clockid

namespace whence {
inline constexpr uint32_t kSet = 0;
inline constexpr uint32_t kCur = 1;
inline constexpr uint32_t kEnd = 2;
}  // namespace whence

namespace advice {
inline constexpr uint32_t kNormal = 0;
inline constexpr uint32_t kSequential = 1;
inline constexpr uint32_t kRandom = 2;
inline constexpr uint32_t kWillNeed = 3;
inline constexpr uint32_t kDontNeed = 4;
inline constexpr uint32_t kNoReuse = 5;
}  // namespace advice

namespace rights {
inline constexpr uint64_t kFdDatasync = 1ull << 0;
inline constexpr uint64_t kFdRead = 1ull << 1;
inline constexpr uint64_t kFdSeek = 1ull << 2;
inline constexpr uint64_t kFdFdstatSetFlags = 1ull << 3;
inline constexpr uint64_t kFdSync = 1ull << 4;
inline constexpr uint64_t kFdTell = 1ull << 5;
inline constexpr uint64_t kFdWrite = 1ull << 6;
inline constexpr uint64_t kFdAdvise = 1ull << 7;
inline constexpr uint64_t kFdAllocate = 1ull << 8;
inline constexpr uint64_t kPathCreateDirectory = 1ull << 9;
inline constexpr uint64_t kPathCreateFile = 1ull << 10;
inline constexpr uint64_t kPathLinkSource = 1ull << 11;
inline constexpr uint64_t kPathLinkTarget = 1ull << 12;
inline constexpr uint64_t kFdReaddir = 1ull << 14;
inline constexpr uint64_t kPathRenameSource = 1ull << 16;
inline constexpr uint64_t kPathRenameTarget = 1ull << 17;
inline constexpr uint64_t kPathFilestatSetSize = 1ull << 19;
inline constexpr uint64_t kPathFilestatSetTimes = 1ull << 20;
inline constexpr uint64_t kFdFilestatSetSize = 1ull << 22;
inline constexpr uint64_t kFdFilestatSetTimes = 1ull << 23;
inline constexpr uint64_t kPathSymlink = 1ull << 24;
inline constexpr uint64_t kPathRemoveDirectory = 1ull << 25;
inline constexpr uint64_t kPathUnlinkFile = 1ull << 26;
// Every right preview1 defines (bits 0..29).
inline constexpr uint64_t kAll = (1ull << 30) - 1;
// Rights that only make sense on a readable or a writable descriptor.
inline constexpr uint64_t kReading = kFdRead | kFdReaddir;
inline constexpr uint64_t kWriting = kFdWrite | kFdDatasync | kFdAllocate | kFdFilestatSetSize;
// Every right that changes a file or a directory: none of them survives on a
// read-only grant (--dir HOST:GUEST:ro) or what is opened beneath it.
inline constexpr uint64_t kModifying =
    kWriting | kPathCreateDirectory | kPathCreateFile | kPathLinkSource | kPathLinkTarget |
    kPathRenameSource | kPathRenameTarget | kPathFilestatSetSize | kPathFilestatSetTimes |
    kFdFilestatSetTimes | kPathSymlink | kPathRemoveDirectory | kPathUnlinkFile;
// What a guest may not do to the host's own stdio (fds 0-2, shared with the
// parent process): change its flags, length, allocation or times.
inline constexpr uint64_t kHostStdioReserved =
    kFdFdstatSetFlags | kFdAllocate | kFdFilestatSetSize | kFdFilestatSetTimes;
}  // namespace rights

namespace fdflags {
inline constexpr uint32_t kAppend = 1u << 0;
inline constexpr uint32_t kDsync = 1u << 1;
inline constexpr uint32_t kNonblock = 1u << 2;
inline constexpr uint32_t kRsync = 1u << 3;
inline constexpr uint32_t kSync = 1u << 4;
}  // namespace fdflags

namespace oflags {
inline constexpr uint32_t kCreat = 1u << 0;
inline constexpr uint32_t kDirectory = 1u << 1;
inline constexpr uint32_t kExcl = 1u << 2;
inline constexpr uint32_t kTrunc = 1u << 3;
}  // namespace oflags

namespace lookupflags {
inline constexpr uint32_t kSymlinkFollow = 1u << 0;
}  // namespace lookupflags

namespace fstflags {
inline constexpr uint32_t kAtim = 1u << 0;
inline constexpr uint32_t kAtimNow = 1u << 1;
inline constexpr uint32_t kMtim = 1u << 2;
inline constexpr uint32_t kMtimNow = 1u << 3;
}  // namespace fstflags

namespace eventtype {
inline constexpr uint8_t kClock = 0;
inline constexpr uint8_t kFdRead = 1;
inline constexpr uint8_t kFdWrite = 2;
}  // namespace eventtype

inline constexpr uint16_t kEventFdReadWriteHangup = 1;
inline constexpr uint16_t kSubscriptionClockAbstime = 1;
inline constexpr uint8_t kPreopentypeDir = 0;

// Byte layouts in guest memory: total sizes and field offsets.
namespace layout {
inline constexpr uint32_t kIovecSize = 8;  // buf u32 @0, buf_len u32 @4

inline constexpr uint32_t kFdstatSize = 24;
inline constexpr uint32_t kFdstatFiletype = 0;  // u8
inline constexpr uint32_t kFdstatFlags = 2;     // u16
inline constexpr uint32_t kFdstatRightsBase = 8;
inline constexpr uint32_t kFdstatRightsInheriting = 16;

inline constexpr uint32_t kFilestatSize = 64;
inline constexpr uint32_t kFilestatDev = 0;
inline constexpr uint32_t kFilestatIno = 8;
inline constexpr uint32_t kFilestatFiletype = 16;  // u8
inline constexpr uint32_t kFilestatNlink = 24;
inline constexpr uint32_t kFilestatSizeField = 32;
inline constexpr uint32_t kFilestatAtim = 40;
inline constexpr uint32_t kFilestatMtim = 48;
inline constexpr uint32_t kFilestatCtim = 56;

inline constexpr uint32_t kPrestatSize = 8;  // tag u8 @0, pr_name_len u32 @4
inline constexpr uint32_t kPrestatNameLen = 4;

inline constexpr uint32_t kDirentSize = 24;
inline constexpr uint32_t kDirentNext = 0;
inline constexpr uint32_t kDirentIno = 8;
inline constexpr uint32_t kDirentNamlen = 16;  // u32
inline constexpr uint32_t kDirentType = 20;    // u8

inline constexpr uint32_t kSubscriptionSize = 48;
inline constexpr uint32_t kSubscriptionUserdata = 0;
inline constexpr uint32_t kSubscriptionTag = 8;  // u8
inline constexpr uint32_t kSubscriptionClockId = 16;
inline constexpr uint32_t kSubscriptionClockTimeout = 24;
inline constexpr uint32_t kSubscriptionClockFlags = 40;  // u16
inline constexpr uint32_t kSubscriptionFd = 16;

inline constexpr uint32_t kEventSize = 32;
inline constexpr uint32_t kEventUserdata = 0;
inline constexpr uint32_t kEventError = 8;   // u16
inline constexpr uint32_t kEventType = 10;   // u8
inline constexpr uint32_t kEventNbytes = 16;
inline constexpr uint32_t kEventFlags = 24;  // u16
}  // namespace layout

}  // namespace synergy::wasi
