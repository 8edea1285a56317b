//===- FileHandles.cpp - MPI-IO: opening, closing and managing files -------===//
//
// Host functions that open, close and delete files and answer for an open
// file as a whole: its size, group, access mode, hints, atomicity and error
// handler.
//
// Paths never reach the runtime: guestlib/MpiFiles.c opens and unlinks
// them in the guest with wasi-libc's open() and unlink(), so they resolve
// against the guest's current directory and the --dir grants exactly as
// every other guest path does (a path outside every grant, or one that
// leads out of one through `..` or a symlink, is refused there and never
// opened on the host). MPI_File_open is collective, and a file created with
// MPI_MODE_CREATE | MPI_MODE_EXCL must be created once, so the runtime tells
// the guest when to open: the communicator's first member opens (and
// creates) first, the others open the existing file after it, and a final
// collective checks that every member succeeded and with the same access
// mode. The runtime then takes each member's descriptor out of its WASI
// table, so the guest cannot close or move it under the file handle.
//
// Files default to MPI_ERRORS_RETURN, as the standard says; MPI_File_open
// and MPI_File_delete raise through MPI_FILE_NULL's handler, which a newly
// opened file starts with. A user handler
// (MPI_File_create_errhandler) is called as ErrorHandlerCalls.h describes.
//
//===----------------------------------------------------------------------===//
#include "mpi/FileHandles.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mpi/CollectiveEngine.h"
#include "mpi/ErrorHandlerCalls.h"
#include "mpi/FilesAcrossHosts.h"
#include "mpi/HostCollectives.h"
#include "mpi/Intercommunicators.h"
#include "mpi/MpiAbi.h"
#include "mpi/World.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiState.h"

using namespace synergy::mpi;
using u32 = uint32_t;
using u64 = uint64_t;

namespace {

// What synergy_mpi_file_open tells the guest to do next (guestlib/MpiFiles.c).
enum OpenTurn : int32_t { kTurnDone = 0, kTurnCreate = 1, kTurnOpen = 2 };

// The longest file name read from the guest, the NUL included (PATH_MAX).
constexpr int kMaxFileName = 4096;

// The MPI error class for a WASI errno from the guest's open() or unlink().
int errorClassOfErrno(int error) {
  using synergy::wasi::Errno;
  switch (Errno(error)) {
    case Errno::NoEnt: case Errno::NotDir: case Errno::Loop: return abi::kErrNoSuchFile;
    case Errno::Exist: return abi::kErrFileExists;
    case Errno::Acces: case Errno::Perm: case Errno::NotCapable: case Errno::Xdev:
      return abi::kErrAccess;
    case Errno::Rofs: return abi::kErrReadOnly;
    case Errno::IsDir: case Errno::NameTooLong: case Errno::Inval: return abi::kErrBadFile;
    case Errno::NoSpc: return abi::kErrNoSpace;
    case Errno::Dquot: return abi::kErrQuota;
    default: return abi::kErrIo;
  }
}

// Reads the guest's NUL-terminated file name at `addr`.
int readFileName(HostCall& call, u32 addr, std::string& name) {
  name.clear();
  for (int i = 0; i < kMaxFileName; ++i) {
    const uint8_t* byte = call.bytes(u64(addr) + u64(i), 1);
    if (!byte) return failOnFile(call, abi::kFileNull, abi::kErrArg,
                                 "file name outside linear memory");
    if (*byte == 0) return abi::kSuccess;
    name.push_back(char(*byte));
  }
  return failOnFile(call, abi::kFileNull, abi::kErrBadFile,
                    "file name longer than " + std::to_string(kMaxFileName - 1) + " characters");
}

int checkAmode(HostCall& call, int mode) {
  int access = mode & (abi::amode::kReadOnly | abi::amode::kWriteOnly | abi::amode::kReadWrite);
  const char* wrong = nullptr;
  if ((mode & ~abi::amode::kAll) != 0)
    wrong = "unknown bits";
  else if (access != abi::amode::kReadOnly && access != abi::amode::kWriteOnly &&
           access != abi::amode::kReadWrite)
    wrong = "not exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR";
  else if (access == abi::amode::kReadOnly &&
           (mode & (abi::amode::kCreate | abi::amode::kExclusive)))
    wrong = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  else if (access == abi::amode::kReadWrite && (mode & abi::amode::kSequential))
    wrong = "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
  if (!wrong) return abi::kSuccess;
  return failOnFile(call, abi::kFileNull, abi::kErrAmode,
                    "invalid access mode " + std::to_string(mode) + ": " + wrong);
}

// Takes the guest's descriptor `fd` out of its WASI table; returns the host
// descriptor, or an invalid one with `error` set to an MPI error class.
synergy::sandbox::UniqueFd takeGuestDescriptor(HostCall& call, int fd, int& error) {
  synergy::wasi::WasiState& state = synergy::wasi::wasiState(call.granule);
  synergy::wasi::FileDescriptor* file = fd >= 0 ? state.find(u32(fd)) : nullptr;
  error = abi::kErrIo;
  if (!file || file->isHostStdio()) return {};
  struct stat info;
  if (::fstat(file->hostFd(), &info) != 0) return {};
  if (!S_ISREG(info.st_mode)) {
    error = abi::kErrBadFile;
    state.close(u32(fd));
    return {};
  }
  synergy::sandbox::UniqueFd host(::fcntl(file->hostFd(), F_DUPFD_CLOEXEC, 0));
  state.close(u32(fd));
  if (host.valid()) error = abi::kSuccess;
  return host;
}

// What the members of MPI_File_open learn in its last collective.
struct OpenOutcome {
  std::shared_ptr<SharedFile> shared;
  int failedMember = -1;  // the first member whose open() failed
  int failedErrno = 0;
  bool modesDiffer = false;
  bool exhausted = false;  // no communicator context was left
};

// The last collective of MPI_File_open with every member on this host:
// rank 0 makes the shared state and the others take it from its slot.
int agreeOnOpenHere(HostCall& call, int comm, int mode, int openErrno, const std::string& name,
                    OpenOutcome& outcome) {
  CommHandle* handle = call.rank.comm(comm);
  int me = handle->comm->rankOfWorld[call.rank.worldRank];
  std::shared_ptr<SharedFile> made;
  if (me == 0) {
    made = std::make_shared<SharedFile>();
    made->name = name;
    made->amode = mode;
    call.world().locked([&] { made->comm = call.world().makeCommunicator(handle->comm->worldRanks); });
    outcome.exhausted = !made->comm;
  }
  return runCollective(
      call, comm, CollectiveKind::FileOperation,
      [&](Contribution& slot) {
        slot.key = openErrno;
        slot.color = mode;
        slot.recvCount = outcome.exhausted ? 1 : 0;
        slot.send = reinterpret_cast<const uint8_t*>(&made);
      },
      [&](std::vector<Contribution>& slots, int) {
        outcome.shared = *reinterpret_cast<const std::shared_ptr<SharedFile>*>(slots[0].send);
        for (size_t i = 0; i < slots.size(); ++i) {
          if (slots[i].color != mode) outcome.modesDiffer = true;
          if (slots[i].key != 0 && outcome.failedMember < 0) {
            outcome.failedMember = int(i);
            outcome.failedErrno = slots[i].key;
          }
        }
        if (slots[0].recvCount) outcome.exhausted = true;
        return int(abi::kSuccess);
      });
}

// The same over members on several hosts: rank 0's host reserves the file
// communicator's context, which one host's members share; every member
// makes its own SharedFile, as nothing in it changes while the file spans
// hosts (FilesAcrossHosts.h).
int agreeOnOpenAcrossHosts(HostCall& call, int comm, int mode, int openErrno,
                           const std::string& name, OpenOutcome& outcome) {
  World& world = call.world();
  const std::vector<int>& members = call.rank.comm(comm)->comm->worldRanks;
  int64_t mine[3] = {openErrno, mode, 0};
  if (call.rank.worldRank == members[0])
    mine[2] = int64_t(world.reserveContexts(1).value_or(0));
  std::vector<int64_t> all;
  if (int error = gatherFileValues(call, comm, mine, 3, all)) return error;
  for (size_t i = 0; i < members.size(); ++i) {
    if (all[i * 3 + 1] != mode) outcome.modesDiffer = true;
    if (all[i * 3] != 0 && outcome.failedMember < 0) {
      outcome.failedMember = int(i);
      outcome.failedErrno = int(all[i * 3]);
    }
  }
  // Rank 0's host chose the context; 0 says it had none left.
  outcome.exhausted = all[2] <= 0 || all[2] > int64_t(UINT32_MAX);
  if (outcome.exhausted) return abi::kSuccess;
  auto context = uint32_t(all[2]);
  outcome.shared = std::make_shared<SharedFile>();
  outcome.shared->name = name;
  outcome.shared->amode = mode;
  outcome.shared->comm = meetAt(world, context, -1, membersHere(world, members),
                                [&] { return world.makeCommunicator(members, context); });
  return abi::kSuccess;
}

// The last step of MPI_File_open: every member reports its open(), and
// they agree on the shared state. Stores the new handle at `fhOut`.
int finishOpen(HostCall& call, int comm, int mode, int info, int fd, int openErrno,
               const std::string& name, u32 fhOut) {
  FileTable& table = fileTable(call);
  table.openStage = FileTable::OpenStage::None;
  OpenOutcome outcome;
  int result = usesHostCollectives(call, comm)
                   ? agreeOnOpenAcrossHosts(call, comm, mode, openErrno, name, outcome)
                   : agreeOnOpenHere(call, comm, mode, openErrno, name, outcome);
  if (result) return failOnFile(call, abi::kFileNull, result, "the opening collective failed");
  int takeError = abi::kSuccess;
  synergy::sandbox::UniqueFd host;
  if (fd >= 0) host = takeGuestDescriptor(call, fd, takeError);
  if (outcome.modesDiffer)
    return failOnFile(call, abi::kFileNull, abi::kErrNotSame,
                      "the members of the communicator opened '" + name +
                          "' with different access modes");
  if (outcome.exhausted)
    return failOnFile(call, abi::kFileNull, abi::kErrIntern,
                      "no communicator context left for the file");
  if (outcome.failedMember >= 0) {
    int errorClass = errorClassOfErrno(outcome.failedErrno);
    return failOnFile(call, abi::kFileNull, errorClass,
                      "cannot open '" + name + "' (rank " + std::to_string(outcome.failedMember) +
                          " of the communicator: " + errorClassText(errorClass) + ")");
  }
  if (!host.valid())
    return failOnFile(call, abi::kFileNull, takeError, "'" + name + "' is not a regular file");
  std::shared_ptr<SharedFile> shared = outcome.shared;
  OpenFile file;
  file.shared = shared;
  file.commHandle = call.rank.addComm(shared->comm, abi::kErrorsReturn);
  file.fd = std::move(host);
  file.view = defaultView();
  // A new file takes the handler MPI_FILE_NULL has now, as in OpenMPI.
  file.errhandler = table.nullErrhandler;
  if (info != abi::kInfoNull) file.info = info;
  if (mode & abi::amode::kAppend) {
    struct stat status;
    int64_t end = ::fstat(file.fd.get(), &status) == 0 ? int64_t(status.st_size) : 0;
    file.individualPointer = end;
    shared->sharedPointer.store(end);
  }
  call.store<int32_t>(fhOut, table.add(std::move(file)));
  return abi::kSuccess;
}

}  // namespace

namespace synergy::mpi {

FileTable& fileTable(HostCall& call) { return call.rank.granule.extension<FileTable>(); }

int failOnFile(HostCall& call, int handle, int errorClass, const std::string& reason) {
  FileTable& table = fileTable(call);
  OpenFile* file = table.find(handle);
  int errhandler = file ? file->errhandler : table.nullErrhandler;
  auto user = table.userErrorHandlers.find(errhandler);
  if (user != table.userErrorHandlers.end())
    callGuestErrorHandler(call, user->second, file ? handle : abi::kFileNull, errorClass);
  if (errhandler != abi::kErrorsAreFatal) return errorClass;
  std::string message = "rank " + std::to_string(call.rank.worldRank) + ": " + call.name + ": " +
                        reason + " (" + errorClassName(errorClass) + ")";
  call.world().abort(errorClass, message);
  call.exitGranule(errorClass);
}

OpenFile* fileOrFail(HostCall& call, int handle, int& error) {
  OpenFile* file = fileTable(call).find(handle);
  error = file ? int(abi::kSuccess)
               : failOnFile(call, abi::kFileNull, abi::kErrFile,
                            "invalid file " + std::to_string(handle));
  return file;
}

}  // namespace synergy::mpi

namespace {

// Where file `fh`'s error handler is kept: MPI_FILE_NULL's in the table,
// an open file's in it; null after raising MPI_ERR_FILE for another handle.
int* errhandlerOf(HostCall& call, FileTable& table, int fh, int& error) {
  if (fh == abi::kFileNull) return &table.nullErrhandler;
  OpenFile* file = fileOrFail(call, fh, error);
  return file ? &file->errhandler : nullptr;
}

}  // namespace

extern "C" {

// One step of MPI_File_open (guestlib/MpiFiles.c): stores at `turnOut`
// whether the guest must now open the file (creating it or not) and call
// again with the descriptor or its errno, or is done.
u32 Z_envZ_synergy_mpi_file_open(void* instance, u32 comm, u32 filename, u32 mode, u32 info,
                                 u32 fd, u32 openErrno, u32 fhOut, u32 turnOut) {
  HostCall call(instance, "MPI_File_open");
  FileTable& table = fileTable(call);
  if (!call.store<int32_t>(turnOut, kTurnDone))
    return failOnFile(call, abi::kFileNull, abi::kErrArg, "turn pointer outside linear memory");
  std::string name;
  if (int error = readFileName(call, filename, name)) return error;
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle || handle->comm->inter)
    return failOnFile(call, abi::kFileNull, abi::kErrComm,
                      handle ? "MPI_File_open on an intercommunicator" : "invalid communicator");
  if (int error = checkAmode(call, int(mode))) return error;
  if (int(info) != abi::kInfoNull && !call.rank.infos.count(int(info)) && int(info) != abi::kInfoEnv)
    return failOnFile(call, abi::kFileNull, abi::kErrInfo,
                      "invalid info object " + std::to_string(info));
  if (!call.bytes(fhOut, 4))
    return failOnFile(call, abi::kFileNull, abi::kErrArg,
                      "file handle pointer outside linear memory");
  int me = handle->comm->rankOfWorld[call.rank.worldRank];

  if (table.openStage == FileTable::OpenStage::Opening)
    return finishOpen(call, int(comm), int(mode), int(info), int32_t(fd), int(openErrno), name, fhOut);
  if (table.openStage == FileTable::OpenStage::None && me == 0) {
    table.openStage = FileTable::OpenStage::Creating;
    call.store<int32_t>(turnOut, kTurnCreate);
    return abi::kSuccess;
  }
  // The first member has tried to open (and create) the file; the others
  // learn how that went before they open it themselves.
  int firstErrno = 0;
  int result;
  if (usesHostCollectives(call, int(comm))) {
    int64_t mine = me == 0 ? int64_t(int32_t(openErrno)) : 0;
    std::vector<int64_t> all;
    result = gatherFileValues(call, int(comm), &mine, 1, all);
    if (!result) firstErrno = int(all[0]);
  } else {
    result = runCollective(
        call, int(comm), CollectiveKind::FileOperation,
        [&](Contribution& slot) { slot.key = me == 0 ? int(openErrno) : 0; },
        [&](std::vector<Contribution>& slots, int) {
          firstErrno = slots[0].key;
          return int(abi::kSuccess);
        },
        CollectiveReads::SlotsOnly, 0);
  }
  if (result) {
    table.openStage = FileTable::OpenStage::None;
    return failOnFile(call, abi::kFileNull, result, "the opening collective failed");
  }
  if (firstErrno != 0) {
    table.openStage = FileTable::OpenStage::None;
    return failOnFile(call, abi::kFileNull, errorClassOfErrno(firstErrno),
                      "cannot open '" + name + "': " + errorClassText(errorClassOfErrno(firstErrno)));
  }
  if (me == 0)
    return finishOpen(call, int(comm), int(mode), int(info), int32_t(fd), 0, name, fhOut);
  table.openStage = FileTable::OpenStage::Opening;
  call.store<int32_t>(turnOut, kTurnOpen);
  return abi::kSuccess;
}

// MPI_File_close (guestlib/MpiFiles.c): collective; for a file opened with
// MPI_MODE_DELETE_ON_CLOSE, stores 1 at `deleteOut` of the communicator's
// first member and the file's name in `nameOut`, for the guest to unlink.
u32 Z_envZ_synergy_mpi_file_close(void* instance, u32 fhAddr, u32 nameOut, u32 nameCapacity,
                                  u32 deleteOut) {
  HostCall call(instance, "MPI_File_close");
  int32_t handle;
  if (!call.load(fhAddr, handle) || !call.store<int32_t>(deleteOut, 0))
    return failOnFile(call, abi::kFileNull, abi::kErrArg,
                      "file handle pointer outside linear memory");
  int error;
  OpenFile* file = fileOrFail(call, handle, error);
  if (!file) return error;
  int commHandle = file->commHandle;
  int result = fileBarrier(call, commHandle);
  if (result) return failOnFile(call, handle, result, "the closing collective failed");
  std::shared_ptr<SharedFile> shared = file->shared;
  int me = shared->comm->rankOfWorld[call.rank.worldRank];
  fileTable(call).remove(handle);
  call.rank.freeComm(commHandle);
  call.store<int32_t>(fhAddr, abi::kFileNull);
  if (me == 0 && (shared->amode & abi::amode::kDeleteOnClose)) {
    uint8_t* out = call.bytes(nameOut, u64(shared->name.size()) + 1);
    if (!out || shared->name.size() >= nameCapacity)
      return failOnFile(call, abi::kFileNull, abi::kErrArg,
                        "name buffer too small or outside memory");
    std::memcpy(out, shared->name.c_str(), shared->name.size() + 1);
    call.store<int32_t>(deleteOut, 1);
  }
  return abi::kSuccess;
}

// MPI_File_delete's report of the guest's unlink(): raises the error
// class of `unlinkErrno`, when not 0, through MPI_FILE_NULL's handler.
u32 Z_envZ_synergy_mpi_file_deleted(void* instance, u32 filename, u32 unlinkErrno) {
  HostCall call(instance, "MPI_File_delete");
  std::string name;
  if (int error = readFileName(call, filename, name)) return error;
  if (unlinkErrno == 0) return abi::kSuccess;
  int errorClass = errorClassOfErrno(int(unlinkErrno));
  return failOnFile(call, abi::kFileNull, errorClass,
                    "cannot delete '" + name + "': " + errorClassText(errorClass));
}

u32 Z_envZ_MPI_File_get_size(void* instance, u32 fh, u32 sizeOut) {
  HostCall call(instance, "MPI_File_get_size");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  struct stat status;
  if (::fstat(file->fd.get(), &status) != 0)
    return failOnFile(call, int(fh), abi::kErrIo, "cannot read the file's size");
  if (!call.store<int64_t>(sizeOut, status.st_size))
    return failOnFile(call, int(fh), abi::kErrArg, "size pointer outside linear memory");
  return abi::kSuccess;
}

// MPI_File_set_size and MPI_File_preallocate: collective, and the same
// size everywhere; `growOnly` keeps a larger file as it is.
static u32 resizeFile(HostCall& call, int fh, int64_t size, bool growOnly) {
  int error;
  OpenFile* file = fileOrFail(call, fh, error);
  if (!file) return error;
  if (size < 0) return failOnFile(call, fh, abi::kErrArg, "negative size " + std::to_string(size));
  if ((file->shared->amode & abi::amode::kReadOnly))
    return failOnFile(call, fh, abi::kErrReadOnly, "the file was opened MPI_MODE_RDONLY");
  if (file->shared->amode & abi::amode::kSequential)
    return failOnFile(call, fh, abi::kErrUnsupportedOperation,
                      "the file was opened MPI_MODE_SEQUENTIAL");
  bool sizesDiffer = false;
  int result = agreeOnFileValue(call, *file, size, sizesDiffer);
  if (result) return failOnFile(call, fh, result, "the collective failed");
  if (sizesDiffer)
    return failOnFile(call, fh, abi::kErrNotSame, "the members passed different sizes");
  struct stat status;
  if (::fstat(file->fd.get(), &status) != 0)
    return failOnFile(call, fh, abi::kErrIo, "cannot read the file's size");
  if (growOnly && status.st_size >= size) return abi::kSuccess;
  if (::ftruncate(file->fd.get(), size) != 0)
    return failOnFile(call, fh, errno == EFBIG || errno == ENOSPC ? abi::kErrNoSpace : abi::kErrIo,
                      "cannot set the file's size to " + std::to_string(size));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_set_size(void* instance, u32 fh, u64 size) {
  HostCall call(instance, "MPI_File_set_size");
  return resizeFile(call, int(fh), int64_t(size), false);
}

u32 Z_envZ_MPI_File_preallocate(void* instance, u32 fh, u64 size) {
  HostCall call(instance, "MPI_File_preallocate");
  return resizeFile(call, int(fh), int64_t(size), true);
}

u32 Z_envZ_MPI_File_get_group(void* instance, u32 fh, u32 groupOut) {
  HostCall call(instance, "MPI_File_get_group");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (!call.bytes(groupOut, 4))
    return failOnFile(call, int(fh), abi::kErrArg, "group pointer outside linear memory");
  auto group = std::make_shared<Group>();
  group->worldRanks = file->shared->comm->worldRanks;
  call.store<int32_t>(groupOut, call.rank.addGroup(std::move(group)));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_amode(void* instance, u32 fh, u32 amodeOut) {
  HostCall call(instance, "MPI_File_get_amode");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (!call.store<int32_t>(amodeOut, file->shared->amode))
    return failOnFile(call, int(fh), abi::kErrArg, "amode pointer outside linear memory");
  return abi::kSuccess;
}

// No hint changes what this runtime does: MPI_File_set_info checks its
// argument, and MPI_File_get_info reports no hints in use.
u32 Z_envZ_MPI_File_set_info(void* instance, u32 fh, u32 info) {
  HostCall call(instance, "MPI_File_set_info");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (int(info) != abi::kInfoNull && int(info) != abi::kInfoEnv && !call.rank.infos.count(int(info)))
    return failOnFile(call, int(fh), abi::kErrInfo, "invalid info object " + std::to_string(info));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_info(void* instance, u32 fh, u32 infoOut) {
  HostCall call(instance, "MPI_File_get_info");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (!call.bytes(infoOut, 4))
    return failOnFile(call, int(fh), abi::kErrArg, "info pointer outside linear memory");
  int handle = call.rank.nextInfo++;
  call.rank.infos[handle] = {};
  call.store<int32_t>(infoOut, handle);
  return abi::kSuccess;
}

// Each member fsyncs its own descriptor, after the collective: on one host
// any of them makes what every member wrote durable, and across hosts each
// host's do for what that host's members wrote.
u32 Z_envZ_MPI_File_sync(void* instance, u32 fh) {
  HostCall call(instance, "MPI_File_sync");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (file->shared->amode & abi::amode::kReadOnly)
    return failOnFile(call, int(fh), abi::kErrAccess, "the file was opened MPI_MODE_RDONLY");
  int result = fileBarrier(call, file->commHandle);
  if (result) return failOnFile(call, int(fh), result, "the collective failed");
  if (::fsync(file->fd.get()) != 0)
    return failOnFile(call, int(fh), abi::kErrIo, "fsync failed");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_set_atomicity(void* instance, u32 fh, u32 flag) {
  HostCall call(instance, "MPI_File_set_atomicity");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (flag != 0)
    if (int refused = refuseSharedStateAcrossHosts(call, int(fh), *file)) return refused;
  bool differ = false;
  int result = agreeOnFileValue(call, *file, flag != 0 ? 1 : 0, differ);
  if (result) return failOnFile(call, int(fh), result, "the collective failed");
  if (differ) return failOnFile(call, int(fh), abi::kErrNotSame, "the members passed different flags");
  file->shared->atomic.store(flag != 0);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_atomicity(void* instance, u32 fh, u32 flagOut) {
  HostCall call(instance, "MPI_File_get_atomicity");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (!call.store<int32_t>(flagOut, file->shared->atomic.load() ? 1 : 0))
    return failOnFile(call, int(fh), abi::kErrArg, "flag pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_create_errhandler(void* instance, u32 function, u32 errhandlerOut) {
  HostCall call(instance, "MPI_File_create_errhandler");
  if (!call.bytes(errhandlerOut, 4))
    return failOnFile(call, abi::kFileNull, abi::kErrArg,
                      "errhandler pointer outside linear memory");
  checkErrorHandlerFunction(call, function);
  int handle = call.rank.nextErrorHandler++;
  fileTable(call).userErrorHandlers[handle] = function;
  call.store<int32_t>(errhandlerOut, handle);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_set_errhandler(void* instance, u32 fh, u32 errhandler) {
  HostCall call(instance, "MPI_File_set_errhandler");
  int handler = int(errhandler);
  FileTable& table = fileTable(call);
  if (handler != abi::kErrorsAreFatal && handler != abi::kErrorsReturn &&
      !table.userErrorHandlers.count(handler))
    return failOnFile(call, int(fh), abi::kErrArg,
                      "invalid error handler " + std::to_string(handler) + " for a file");
  int error;
  int* slot = errhandlerOf(call, table, int(fh), error);
  if (!slot) return error;
  *slot = handler;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_errhandler(void* instance, u32 fh, u32 errhandlerOut) {
  HostCall call(instance, "MPI_File_get_errhandler");
  int error;
  int* slot = errhandlerOf(call, fileTable(call), int(fh), error);
  if (!slot) return error;
  if (!call.store<int32_t>(errhandlerOut, *slot))
    return failOnFile(call, int(fh), abi::kErrArg, "errhandler pointer outside linear memory");
  return abi::kSuccess;
}

// Under MPI_ERRORS_RETURN the handler does nothing and the call succeeds,
// a user handler is called and the call succeeds, and under
// MPI_ERRORS_ARE_FATAL the job ends, naming the error code. MPI_FILE_NULL's
// handler is raised for MPI_FILE_NULL.
u32 Z_envZ_MPI_File_call_errhandler(void* instance, u32 fh, u32 errorCode) {
  HostCall call(instance, "MPI_File_call_errhandler");
  FileTable& table = fileTable(call);
  int error;
  int* slot = errhandlerOf(call, table, int(fh), error);
  if (!slot) return error;
  int handler = *slot;
  int code = int(errorCode);
  if (handler == abi::kErrorsReturn) return abi::kSuccess;
  if (handler != abi::kErrorsAreFatal) {
    callGuestErrorHandler(call, table.userErrorHandlers.at(handler), int(fh), code);
    return abi::kSuccess;
  }
  return failOnFile(call, int(fh), code > 0 && code <= abi::kErrLastCode ? code : abi::kErrOther,
                    "the program raised error code " + std::to_string(code) + " on the file");
}

// A file handle is a small integer in C and in Fortran alike.
u32 Z_envZ_MPI_File_c2f(void*, u32 fh) { return fh; }
u32 Z_envZ_MPI_File_f2c(void*, u32 fh) { return fh; }

}  // extern "C"
