//===- FileAccess.cpp - MPI-IO: reading and writing data ------------------===//
//
// Host functions that move data between memory and a file: every
// MPI_File_read* and MPI_File_write* form, by explicit offset (_at), by the
// rank's individual pointer, by the shared pointer (_shared, _ordered),
// blocking, nonblocking (i*) and split collective (*_begin/*_end).
//
// Every form comes down to transfer(): the memory side is packed into (or
// unpacked from) the datatype's data bytes, and the file side is the view's
// data bytes from a position on, which forEachFileRun turns into file byte
// runs for pread/pwrite. In an "external32" view the packed data is
// converted to and from big-endian elements at their external32 sizes by
// the memory datatype, so the file side holds the data's external32 size
// (more than memory's where it holds MPI_AINT), laid out by the view's types
// in the file's terms (FileViews.cpp). A read stops at the end of the file
// and reports how many bytes it moved, in memory's terms. Every count,
// datatype, buffer and position is checked before a byte moves.
//
// The file lives on this host and each access completes when it is made,
// so the collective forms (_all) move the same data as the independent
// ones without waiting for the other members, and a nonblocking one
// returns a request that is already complete. _ordered is a real
// collective: each member's part starts where the lower ranks' parts end.
// In atomic mode (MPI_File_set_atomicity) accesses to one file exclude
// each other.
//
//===----------------------------------------------------------------------===//
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "mpi/CollectiveEngine.h"
#include "mpi/ExternalPacking.h"
#include "mpi/FileHandles.h"
#include "mpi/FilesAcrossHosts.h"
#include "mpi/MpiAbi.h"
#include "mpi/RequestPool.h"

using namespace synergy::mpi;
using u32 = uint32_t;
using u64 = uint64_t;

namespace {

enum class Direction { Read, Write };
// Where an access starts: an explicit offset, the individual pointer, the
// shared pointer, or (for _ordered) an offset the collective computed.
enum class Position { Explicit, Individual, Shared, Ordered };

struct Access {
  int fh;
  Direction direction;
  Position position;
  int64_t offset = 0;  // Explicit and Ordered, in etypes
  u32 buffer;
  int count;
  int type;
};

// Writes all of `bytes` at file offset `at`; returns 0 or an errno.
int writeFully(int fd, const uint8_t* data, int64_t bytes, int64_t at) {
  while (bytes > 0) {
    ssize_t wrote = ::pwrite(fd, data, size_t(bytes), at);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return wrote < 0 ? errno : ENOSPC;
    data += wrote;
    bytes -= wrote;
    at += wrote;
  }
  return 0;
}

// Reads up to `bytes` at file offset `at`, fewer at the end of the file;
// returns the count read, or -1 with errno set.
int64_t readFully(int fd, uint8_t* data, int64_t bytes, int64_t at) {
  int64_t done = 0;
  while (done < bytes) {
    ssize_t got = ::pread(fd, data + done, size_t(bytes - done), at + done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;
    done += got;
  }
  return done;
}

// Checks everything about `access` that does not need the position, and
// finds its file, datatype and memory, the packed size of its data
// (`bytes`) and the size the data has in the file (`fileBytes`). Returns 0
// or the raised error.
int prepare(HostCall& call, const Access& access, OpenFile*& file, Layout& type,
            uint8_t*& memory, int64_t& bytes, int64_t& fileBytes) {
  int error;
  file = fileOrFail(call, access.fh, error);
  if (!file) return error;
  int mode = file->shared->amode;
  if (access.direction == Direction::Read && (mode & abi::amode::kWriteOnly))
    return failOnFile(call, access.fh, abi::kErrAccess, "the file was opened MPI_MODE_WRONLY");
  if (access.direction == Direction::Write && (mode & abi::amode::kReadOnly))
    return failOnFile(call, access.fh, abi::kErrReadOnly, "the file was opened MPI_MODE_RDONLY");
  if (access.position == Position::Explicit && (mode & abi::amode::kSequential))
    return failOnFile(call, access.fh, abi::kErrUnsupportedOperation,
                      "explicit offsets on a file opened MPI_MODE_SEQUENTIAL");
  if (access.count < 0)
    return failOnFile(call, access.fh, abi::kErrCount, "negative count " + std::to_string(access.count));
  type = call.rank.type(access.type);
  if (!type) return failOnFile(call, access.fh, abi::kErrType, "invalid datatype " + std::to_string(access.type));
  if (!type->committed) return failOnFile(call, access.fh, abi::kErrType, "datatype is not committed");
  bool ok;
  memory = call.typedBuffer(access.buffer, *type, access.count, ok);
  if (!ok) return failOnFile(call, access.fh, abi::kErrBuffer, "buffer outside linear memory");
  bytes = type->size * int64_t(access.count);
  fileBytes = file->view.external32 ? external32Size(*type, access.type, access.count) : bytes;
  if (fileBytes < 0)
    return failOnFile(call, access.fh, abi::kErrType,
                      "the datatype nests too deeply, or its external32 size leaves 64 bits");
  if (fileBytes > 0 && file->view.filetype->size == 0)
    return failOnFile(call, access.fh, abi::kErrArg, "the view's filetype holds no data");
  if (fileBytes % file->view.etype->size != 0)
    return failOnFile(call, access.fh, abi::kErrType,
                      std::to_string(fileBytes) + " bytes are not a whole number of etypes of " +
                          std::to_string(file->view.etype->size) + " bytes");
  return abi::kSuccess;
}

// Moves the data of `access`; sets `moved` to the bytes moved. Returns 0 or
// the raised error.
int transfer(HostCall& call, const Access& access, int64_t& moved) {
  moved = 0;
  OpenFile* file;
  Layout type;
  uint8_t* memory;
  int64_t bytes, fileBytes;
  if (int error = prepare(call, access, file, type, memory, bytes, fileBytes)) return error;
  if (access.position == Position::Shared)
    if (int refused = refuseSharedStateAcrossHosts(call, access.fh, *file)) return refused;
  const bool external32 = file->view.external32;
  int64_t etypeSize = file->view.etype->size;
  int64_t etypes = fileBytes / etypeSize;
  int64_t start = 0;
  switch (access.position) {
    case Position::Explicit:
    case Position::Ordered: start = access.offset; break;
    case Position::Individual: start = file->individualPointer; break;
    case Position::Shared: start = file->shared->sharedPointer.fetch_add(etypes); break;
  }
  int64_t firstDataByte;
  if (start < 0 || !scaledOffset(start, etypeSize, firstDataByte))
    return failOnFile(call, access.fh, abi::kErrArg, "invalid offset " + std::to_string(start));

  std::unique_lock<std::mutex> atomicAccess(file->shared->atomicAccess, std::defer_lock);
  if (file->shared->atomic.load()) atomicAccess.lock();
  int fd = file->fd.get();
  int failure = 0;
  bool inRange;
  // The file bytes moved; `moved` is the same data in memory's terms.
  int64_t movedInFile = 0;
  auto inMemoryTerms = [&](int64_t inFile) {
    if (inFile == fileBytes) return bytes;
    return external32 ? packedBytesOfExternal32Prefix(*type, access.type, access.count, inFile)
                      : inFile;
  };
  if (access.direction == Direction::Write) {
    std::vector<uint8_t> packed, external;
    const uint8_t* data = memory;
    if (!type->isContiguous() || external32) {
      packed.resize(size_t(bytes));
      packTyped(memory, *type, access.count, packed.data());
      data = packed.data();
      if (external32) {
        // In place unless MPI_AINTs widen.
        uint8_t* out = packed.data();
        if (fileBytes != bytes) {
          external.resize(size_t(fileBytes));
          out = external.data();
        }
        convertExternal32(*type, access.type, access.count, packed.data(), out, true);
        data = out;
      }
    } else {
      data = memory + type->lb;
    }
    inRange = forEachFileRun(file->view, firstDataByte, fileBytes,
                             [&](int64_t at, int64_t length, int64_t from) {
                               failure = writeFully(fd, data + from, length, at);
                               if (failure == 0) movedInFile = from + length;
                               return failure == 0;
                             });
  } else {
    std::vector<uint8_t> inFile(static_cast<size_t>(fileBytes));
    inRange = forEachFileRun(file->view, firstDataByte, fileBytes,
                             [&](int64_t at, int64_t length, int64_t from) {
                               int64_t got = readFully(fd, inFile.data() + from, length, at);
                               if (got < 0) failure = errno;
                               else movedInFile = from + got;
                               return got == length;
                             });
    movedInFile -= movedInFile % etypeSize;
    // Bytes past the end of the file stay zero and are not copied out.
    std::vector<uint8_t> packed;
    uint8_t* data = inFile.data();
    if (external32) {
      if (fileBytes != bytes) {
        packed.resize(size_t(bytes));
        data = packed.data();
      }
      convertExternal32(*type, access.type, access.count, inFile.data(), data, false);
    }
    int64_t copied = inMemoryTerms(movedInFile);
    copyTyped(data, *predefinedLayout(abi::kTypeByte), copied, memory, *type, access.count,
              copied);
  }
  moved = inMemoryTerms(movedInFile);
  if (atomicAccess.owns_lock()) atomicAccess.unlock();
  if (!inRange)
    return failOnFile(call, access.fh, abi::kErrArg, "the access runs past the largest file offset");
  if (access.position == Position::Individual)
    file->individualPointer = start + movedInFile / etypeSize;
  if (failure != 0)
    return failOnFile(call, access.fh,
                      failure == ENOSPC || failure == EFBIG ? abi::kErrNoSpace
                      : failure == EDQUOT                   ? abi::kErrQuota
                                                            : abi::kErrIo,
                      std::string(access.direction == Direction::Write ? "write" : "read") +
                          " failed: " + std::strerror(failure));
  return abi::kSuccess;
}

// A blocking access: moves the data and fills the status.
u32 blocking(HostCall& call, const Access& access, u32 status) {
  int64_t moved;
  if (int error = transfer(call, access, moved)) return error;
  call.storeStatus(status, abi::kAnySource, abi::kAnyTag, abi::kSuccess, moved);
  return abi::kSuccess;
}

// A nonblocking access: moves the data and hands back a request that is
// complete, whose status holds the count.
u32 nonblocking(HostCall& call, const Access& access, u32 requestOut) {
  if (!call.bytes(requestOut, 4))
    return failOnFile(call, access.fh, abi::kErrArg, "request pointer outside linear memory");
  int64_t moved;
  if (int error = transfer(call, access, moved)) return error;
  auto request = newRequest();
  request->kind = Request::Kind::Recv;
  request->owner = call.rank.worldRank;
  request->complete = true;
  request->commHandle = abi::kCommWorld;
  request->statusSource = abi::kAnySource;
  request->statusTag = abi::kAnyTag;
  request->statusBytes = moved;
  call.store<int32_t>(requestOut, call.rank.addRequest(std::move(request)));
  return abi::kSuccess;
}

// _ordered: every member's part follows the parts of the members below it,
// from the shared pointer on, which then moves past all of them.
u32 ordered(HostCall& call, Access access, int64_t& moved) {
  moved = 0;
  OpenFile* file;
  Layout type;
  uint8_t* memory;
  int64_t bytes, fileBytes;
  if (int error = prepare(call, access, file, type, memory, bytes, fileBytes)) return error;
  if (int refused = refuseSharedStateAcrossHosts(call, access.fh, *file)) return refused;
  int64_t etypes = fileBytes / file->view.etype->size;
  SharedFile& shared = *file->shared;
  int64_t start = 0;
  int result = runCollective(
      call, file->commHandle, CollectiveKind::FileOperation,
      [&](Contribution& slot) {
        slot.sendCount = etypes;
        slot.recvCount = shared.sharedPointer.load();
      },
      [&](std::vector<Contribution>& slots, int me) {
        int64_t total = 0;
        start = slots[0].recvCount;
        for (size_t i = 0; i < slots.size(); ++i) {
          if (int(i) < me) start += slots[i].sendCount;
          total += slots[i].sendCount;
        }
        if (me == 0) shared.sharedPointer.store(slots[0].recvCount + total);
        return int(abi::kSuccess);
      });
  if (result) return failOnFile(call, access.fh, result, "the collective failed");
  access.position = Position::Ordered;
  access.offset = start;
  return transfer(call, access, moved);
}

// *_begin: makes the access and keeps its count for *_end.
u32 beginSplit(HostCall& call, const Access& access, bool isOrdered) {
  int error;
  OpenFile* file = fileOrFail(call, access.fh, error);
  if (!file) return error;
  if (file->splitPending)
    return failOnFile(call, access.fh, abi::kErrOther,
                      "a split collective is already active on the file");
  int64_t moved;
  if (int e = isOrdered ? ordered(call, access, moved) : transfer(call, access, moved)) return e;
  file->splitPending = true;
  file->splitBytes = moved;
  return abi::kSuccess;
}

u32 endSplit(HostCall& call, int fh, u32 status) {
  int error;
  OpenFile* file = fileOrFail(call, fh, error);
  if (!file) return error;
  if (!file->splitPending)
    return failOnFile(call, fh, abi::kErrOther, "no split collective is active on the file");
  file->splitPending = false;
  call.storeStatus(status, abi::kAnySource, abi::kAnyTag, abi::kSuccess, file->splitBytes);
  return abi::kSuccess;
}

constexpr Direction kRead = Direction::Read;
constexpr Direction kWrite = Direction::Write;

}  // namespace

extern "C" {

// Each access is one entry point per position and completion: COMPLETE is
// `blocking` (the last argument is the status) or `nonblocking` (the
// request handle's address).
#define SYNERGY_FILE_POINTER_FORMS(NAME, DIRECTION, POSITION, COMPLETE)                       \
  u32 Z_envZ_MPI_File_##NAME(void* instance, u32 fh, u32 buf, u32 count, u32 type,            \
                             u32 completion) {                                                \
    HostCall call(instance, "MPI_File_" #NAME);                                               \
    return COMPLETE(call, {int(fh), DIRECTION, POSITION, 0, buf, int(count), int(type)},      \
                    completion);                                                              \
  }

#define SYNERGY_FILE_OFFSET_FORMS(NAME, DIRECTION, COMPLETE)                                  \
  u32 Z_envZ_MPI_File_##NAME(void* instance, u32 fh, u64 offset, u32 buf, u32 count,          \
                             u32 type, u32 completion) {                                      \
    HostCall call(instance, "MPI_File_" #NAME);                                               \
    return COMPLETE(call,                                                                     \
                    {int(fh), DIRECTION, Position::Explicit, int64_t(offset), buf,            \
                     int(count), int(type)},                                                  \
                    completion);                                                              \
  }

SYNERGY_FILE_POINTER_FORMS(read, kRead, Position::Individual, blocking)
SYNERGY_FILE_POINTER_FORMS(write, kWrite, Position::Individual, blocking)
SYNERGY_FILE_POINTER_FORMS(read_all, kRead, Position::Individual, blocking)
SYNERGY_FILE_POINTER_FORMS(write_all, kWrite, Position::Individual, blocking)
SYNERGY_FILE_POINTER_FORMS(read_shared, kRead, Position::Shared, blocking)
SYNERGY_FILE_POINTER_FORMS(write_shared, kWrite, Position::Shared, blocking)
SYNERGY_FILE_OFFSET_FORMS(read_at, kRead, blocking)
SYNERGY_FILE_OFFSET_FORMS(write_at, kWrite, blocking)
SYNERGY_FILE_OFFSET_FORMS(read_at_all, kRead, blocking)
SYNERGY_FILE_OFFSET_FORMS(write_at_all, kWrite, blocking)
SYNERGY_FILE_POINTER_FORMS(iread, kRead, Position::Individual, nonblocking)
SYNERGY_FILE_POINTER_FORMS(iwrite, kWrite, Position::Individual, nonblocking)
SYNERGY_FILE_POINTER_FORMS(iread_all, kRead, Position::Individual, nonblocking)
SYNERGY_FILE_POINTER_FORMS(iwrite_all, kWrite, Position::Individual, nonblocking)
SYNERGY_FILE_POINTER_FORMS(iread_shared, kRead, Position::Shared, nonblocking)
SYNERGY_FILE_POINTER_FORMS(iwrite_shared, kWrite, Position::Shared, nonblocking)
SYNERGY_FILE_OFFSET_FORMS(iread_at, kRead, nonblocking)
SYNERGY_FILE_OFFSET_FORMS(iwrite_at, kWrite, nonblocking)
SYNERGY_FILE_OFFSET_FORMS(iread_at_all, kRead, nonblocking)
SYNERGY_FILE_OFFSET_FORMS(iwrite_at_all, kWrite, nonblocking)

u32 Z_envZ_MPI_File_read_ordered(void* instance, u32 fh, u32 buf, u32 count, u32 type,
                                 u32 status) {
  HostCall call(instance, "MPI_File_read_ordered");
  int64_t moved;
  if (int e = ordered(call, {int(fh), kRead, Position::Ordered, 0, buf, int(count), int(type)}, moved))
    return e;
  call.storeStatus(status, abi::kAnySource, abi::kAnyTag, abi::kSuccess, moved);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_write_ordered(void* instance, u32 fh, u32 buf, u32 count, u32 type,
                                  u32 status) {
  HostCall call(instance, "MPI_File_write_ordered");
  int64_t moved;
  if (int e = ordered(call, {int(fh), kWrite, Position::Ordered, 0, buf, int(count), int(type)}, moved))
    return e;
  call.storeStatus(status, abi::kAnySource, abi::kAnyTag, abi::kSuccess, moved);
  return abi::kSuccess;
}

#define SYNERGY_FILE_SPLIT_POINTER_FORMS(NAME, DIRECTION, ORDERED)                            \
  u32 Z_envZ_MPI_File_##NAME##_begin(void* instance, u32 fh, u32 buf, u32 count, u32 type) { \
    HostCall call(instance, "MPI_File_" #NAME "_begin");                                      \
    return beginSplit(                                                                        \
        call, {int(fh), DIRECTION, Position::Individual, 0, buf, int(count), int(type)},      \
        ORDERED);                                                                             \
  }                                                                                           \
  u32 Z_envZ_MPI_File_##NAME##_end(void* instance, u32 fh, u32, u32 status) {                \
    HostCall call(instance, "MPI_File_" #NAME "_end");                                        \
    return endSplit(call, int(fh), status);                                                   \
  }

#define SYNERGY_FILE_SPLIT_OFFSET_FORMS(NAME, DIRECTION)                                      \
  u32 Z_envZ_MPI_File_##NAME##_begin(void* instance, u32 fh, u64 offset, u32 buf, u32 count, \
                                     u32 type) {                                              \
    HostCall call(instance, "MPI_File_" #NAME "_begin");                                      \
    return beginSplit(call,                                                                   \
                      {int(fh), DIRECTION, Position::Explicit, int64_t(offset), buf,           \
                       int(count), int(type)},                                                \
                      false);                                                                 \
  }                                                                                           \
  u32 Z_envZ_MPI_File_##NAME##_end(void* instance, u32 fh, u32, u32 status) {                \
    HostCall call(instance, "MPI_File_" #NAME "_end");                                        \
    return endSplit(call, int(fh), status);                                                   \
  }

SYNERGY_FILE_SPLIT_POINTER_FORMS(read_all, kRead, false)
SYNERGY_FILE_SPLIT_POINTER_FORMS(write_all, kWrite, false)
SYNERGY_FILE_SPLIT_POINTER_FORMS(read_ordered, kRead, true)
SYNERGY_FILE_SPLIT_POINTER_FORMS(write_ordered, kWrite, true)
SYNERGY_FILE_SPLIT_OFFSET_FORMS(read_at_all, kRead)
SYNERGY_FILE_SPLIT_OFFSET_FORMS(write_at_all, kWrite)

}  // extern "C"
