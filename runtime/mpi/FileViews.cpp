//===- FileViews.cpp - MPI-IO: views, file pointers and offsets -----------===//
//
// Host functions for a file's view (MPI_File_set_view, get_view,
// get_type_extent, get_byte_offset) and its pointers: the rank's individual
// one (seek, get_position) and the communicator's shared one (seek_shared,
// get_position_shared), both counted in etypes of the view.
//
// A view tiles the file with its filetype from the displacement on; the
// layout the runtime already keeps for each datatype (Datatype.h) lists the
// filetype's data bytes as segments, and forEachFileRun walks them to turn
// a range of the view's data into file byte runs. Two data
// representations are served: "native", where the file holds the bytes of
// memory, and "external32", where it holds each element big-endian at its
// external32 size (FileAccess.cpp converts). An external32 view keeps its
// etype and filetype in the file's terms (External32Layouts.cpp): memory's
// layout, except that a type holding MPI_AINT (4 bytes here, 8 in
// external32) is wider, and so are the offsets and extents built on it.
// MPI_File_get_type_extent gives a type's extent in the view's terms.
//
//===----------------------------------------------------------------------===//
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "mpi/CollectiveEngine.h"
#include "mpi/ExternalPacking.h"
#include "mpi/FileHandles.h"
#include "mpi/FilesAcrossHosts.h"
#include "mpi/MpiAbi.h"

using namespace synergy::mpi;
using u32 = uint32_t;
using u64 = uint64_t;

namespace {

constexpr int kMaxDatarepString = 128;  // MPI_MAX_DATAREP_STRING, the NUL included
constexpr char kNative[] = "native";
constexpr char kExternal32[] = "external32";
constexpr int64_t kDisplacementCurrent = -54278278;  // MPI_DISPLACEMENT_CURRENT

int readDatarep(HostCall& call, int fh, u32 addr, std::string& datarep) {
  datarep.clear();
  for (int i = 0; i < kMaxDatarepString; ++i) {
    const uint8_t* byte = call.bytes(u64(addr) + u64(i), 1);
    if (!byte) return failOnFile(call, fh, abi::kErrArg, "data representation outside linear memory");
    if (*byte == 0) return abi::kSuccess;
    datarep.push_back(char(*byte));
  }
  return failOnFile(call, fh, abi::kErrUnsupportedDatarep, "data representation name too long");
}

// Whether `type`'s data bytes lie at non-negative, nondecreasing offsets,
// and without overlapping unless `mayOverlap` (a file opened read-only).
bool ascendsFromZero(const TypeLayout& type, bool mayOverlap) {
  int64_t start = 0, end = 0;
  for (const TypeSegment& piece : type.segments) {
    if (piece.offset < start || (!mayOverlap && piece.offset < end)) return false;
    start = piece.offset;
    end = piece.offset + piece.length;
  }
  return true;
}

// A handle for `layout` to give the guest: a predefined type's own, or a
// new handle for a derived one, which the guest frees.
int handleForGuest(HostCall& call, int handle, const Layout& layout) {
  return layout->predefined ? handle : call.rank.addType(layout);
}

// The position in etypes `offset` from `whence`, for the seeks; -1 after
// raising when it is negative or `whence` is not an MPI_SEEK_* value.
int64_t seekTarget(HostCall& call, int fh, OpenFile& file, int64_t current, int64_t offset,
                   int whence) {
  int64_t base;
  if (whence == abi::kSeekSet) {
    base = 0;
  } else if (whence == abi::kSeekCur) {
    base = current;
  } else if (whence == abi::kSeekEnd) {
    struct stat status;
    if (::fstat(file.fd.get(), &status) != 0) {
      failOnFile(call, fh, abi::kErrIo, "cannot read the file's size");
      return -1;
    }
    base = viewBytesBelow(file.view, status.st_size) / file.view.etype->size;
  } else {
    failOnFile(call, fh, abi::kErrArg, "invalid whence " + std::to_string(whence));
    return -1;
  }
  int64_t target;
  if (__builtin_add_overflow(base, offset, &target) || target < 0) {
    failOnFile(call, fh, abi::kErrArg, "seek to a negative or overflowing position");
    return -1;
  }
  return target;
}

}  // namespace

namespace synergy::mpi {

FileView defaultView() {
  FileView view;
  view.etype = predefinedLayout(abi::kTypeByte);
  view.filetype = view.etype;
  view.givenEtype = view.etype;
  view.givenFiletype = view.etype;
  return view;
}

bool forEachFileRun(const FileView& view, int64_t firstDataByte, int64_t bytes,
                    util::FunctionRef<bool(int64_t, int64_t, int64_t)> run) {
  if (bytes <= 0) return true;
  const TypeLayout& filetype = *view.filetype;
  if (filetype.size == 0) return false;
  int64_t start;
  if (filetype.isContiguous()) {
    if (__builtin_add_overflow(view.displacement + filetype.lb, firstDataByte, &start) ||
        start > INT64_MAX - bytes)
      return false;
    run(start, bytes, 0);
    return true;
  }
  int64_t tile = firstDataByte / filetype.size;
  int64_t within = firstDataByte % filetype.size;
  size_t segment = 0;
  while (within >= filetype.segments[segment].length) within -= filetype.segments[segment++].length;
  int64_t done = 0, runStart = 0, runLength = 0, runBufferOffset = 0;
  while (done < bytes) {
    const TypeSegment& piece = filetype.segments[segment];
    int64_t length = std::min(piece.length - within, bytes - done);
    int64_t tileStart, at;
    if (!scaledOffset(tile, filetype.extent(), tileStart) ||
        __builtin_add_overflow(view.displacement, tileStart, &at) ||
        __builtin_add_overflow(at, piece.offset + within, &at) || at < 0 || at > INT64_MAX - length)
      return false;
    if (runLength > 0 && runStart + runLength == at) {
      runLength += length;
    } else {
      if (runLength > 0 && !run(runStart, runLength, runBufferOffset)) return true;
      runStart = at;
      runLength = length;
      runBufferOffset = done;
    }
    done += length;
    within = 0;
    if (++segment == filetype.segments.size()) {
      segment = 0;
      ++tile;
    }
  }
  run(runStart, runLength, runBufferOffset);
  return true;
}

int64_t viewBytesBelow(const FileView& view, int64_t end) {
  const TypeLayout& filetype = *view.filetype;
  int64_t relative = end - view.displacement;
  if (relative <= 0 || filetype.size == 0) return 0;
  if (filetype.isContiguous()) return std::max<int64_t>(0, relative - filetype.lb);
  int64_t tiles = relative / filetype.extent();
  int64_t rest = relative % filetype.extent();
  int64_t data = tiles * filetype.size;
  for (const TypeSegment& piece : filetype.segments)
    data += std::clamp<int64_t>(rest - piece.offset, 0, piece.length);
  return data;
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_File_set_view(void* instance, u32 fh, u64 disp, u32 etype, u32 filetype,
                             u32 datarepAddr, u32 info) {
  HostCall call(instance, "MPI_File_set_view");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  int64_t displacement = int64_t(disp);
  if (displacement == kDisplacementCurrent) {
    // Only a sequential file has one current position, the shared pointer.
    if (!(file->shared->amode & abi::amode::kSequential))
      return failOnFile(call, int(fh), abi::kErrArg,
                        "MPI_DISPLACEMENT_CURRENT on a file not opened MPI_MODE_SEQUENTIAL");
    if (int refused = refuseSharedStateAcrossHosts(call, int(fh), *file)) return refused;
    int64_t dataByte;
    if (!scaledOffset(file->shared->sharedPointer.load(), file->view.etype->size, dataByte))
      return failOnFile(call, int(fh), abi::kErrArg, "shared pointer beyond any file position");
    displacement = file->view.displacement + dataByte;
    forEachFileRun(file->view, dataByte, 1, [&](int64_t at, int64_t, int64_t) {
      displacement = at;
      return false;
    });
  }
  if (displacement < 0)
    return failOnFile(call, int(fh), abi::kErrArg,
                      "negative displacement " + std::to_string(displacement));
  Layout givenEtype = call.rank.type(int(etype));
  Layout givenFiletype = call.rank.type(int(filetype));
  if (!givenEtype || !givenFiletype)
    return failOnFile(call, int(fh), abi::kErrType, "invalid etype or filetype");
  if (!givenEtype->committed || !givenFiletype->committed)
    return failOnFile(call, int(fh), abi::kErrType, "etype or filetype is not committed");
  std::string datarep;
  if (int e = readDatarep(call, int(fh), datarepAddr, datarep)) return e;
  const bool external32 = datarep == kExternal32;
  if (datarep != kNative && !external32)
    return failOnFile(call, int(fh), abi::kErrUnsupportedDatarep,
                      "data representation '" + datarep +
                          "' (\"native\" and \"external32\" are supported)");
  Layout etypeLayout = external32 ? external32FileLayout(givenEtype, int(etype)) : givenEtype;
  Layout filetypeLayout =
      external32 ? external32FileLayout(givenFiletype, int(filetype)) : givenFiletype;
  if (!etypeLayout || !filetypeLayout)
    return failOnFile(call, int(fh), abi::kErrType,
                      "the etype or filetype cannot be laid out in external32: it nests more "
                      "than 64 constructors deep, or its bounds leave 64 bits");
  bool readOnly = file->shared->amode & abi::amode::kReadOnly;
  // A filetype without data (a member that takes no part) is allowed; an
  // access through it that moves data is refused (FileAccess.cpp). MPI
  // requires non-negative, nondecreasing displacements that do not overlap;
  // the class for a view that breaks that is MPICH's.
  if (etypeLayout->size <= 0 || filetypeLayout->size < 0 ||
      (filetypeLayout->size > 0 && filetypeLayout->extent() <= 0) ||
      filetypeLayout->size % etypeLayout->size != 0 || !ascendsFromZero(*etypeLayout, readOnly) ||
      !ascendsFromZero(*filetypeLayout, readOnly))
    return failOnFile(call, int(fh), abi::kErrIo,
                      "the etype or filetype has negative, decreasing or overlapping "
                      "displacements, or the filetype is not made of whole etypes");
  if (int(info) != abi::kInfoNull && int(info) != abi::kInfoEnv && !call.rank.infos.count(int(info)))
    return failOnFile(call, int(fh), abi::kErrInfo, "invalid info object " + std::to_string(info));
  // Displacements and filetypes may differ between members; etypes must
  // have one extent.
  bool differ;
  if (int e = agreeOnFileValue(call, *file, etypeLayout->extent(), differ))
    return failOnFile(call, int(fh), e, "the collective failed");
  if (differ)
    return failOnFile(call, int(fh), abi::kErrNotSame, "the members passed etypes of different extents");
  file->view.displacement = displacement;
  file->view.etype = etypeLayout;
  file->view.filetype = filetypeLayout;
  file->view.givenEtype = givenEtype;
  file->view.givenFiletype = givenFiletype;
  file->view.etypeHandle = int(etype);
  file->view.filetypeHandle = int(filetype);
  file->view.external32 = external32;
  file->individualPointer = 0;
  file->shared->sharedPointer.store(0);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_view(void* instance, u32 fh, u32 dispOut, u32 etypeOut, u32 filetypeOut,
                             u32 datarepOut) {
  HostCall call(instance, "MPI_File_get_view");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  const char* name = file->view.external32 ? kExternal32 : kNative;
  uint8_t* datarep = call.bytes(datarepOut, std::strlen(name) + 1);
  if (!call.bytes(dispOut, 8) || !call.bytes(etypeOut, 4) || !call.bytes(filetypeOut, 4) || !datarep)
    return failOnFile(call, int(fh), abi::kErrArg, "an output pointer lies outside linear memory");
  call.store<int64_t>(dispOut, file->view.displacement);
  call.store<int32_t>(etypeOut,
                      handleForGuest(call, file->view.etypeHandle, file->view.givenEtype));
  call.store<int32_t>(filetypeOut,
                      handleForGuest(call, file->view.filetypeHandle, file->view.givenFiletype));
  std::memcpy(datarep, name, std::strlen(name) + 1);
  return abi::kSuccess;
}

// The extent `type` has in the file through the current view: its memory
// extent, or in an external32 view its extent in the file's terms.
u32 Z_envZ_MPI_File_get_type_extent(void* instance, u32 fh, u32 type, u32 extentOut) {
  HostCall call(instance, "MPI_File_get_type_extent");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  Layout layout = call.rank.type(int(type));
  if (!layout) return failOnFile(call, int(fh), abi::kErrType, "invalid datatype");
  if (file->view.external32) layout = external32FileLayout(layout, int(type));
  if (!layout)
    return failOnFile(call, int(fh), abi::kErrType,
                      "the datatype cannot be laid out in external32: it nests more than 64 "
                      "constructors deep, or its bounds leave 64 bits");
  if (!call.store<int32_t>(extentOut, int32_t(layout->extent())))
    return failOnFile(call, int(fh), abi::kErrArg, "extent pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_byte_offset(void* instance, u32 fh, u64 offset, u32 dispOut) {
  HostCall call(instance, "MPI_File_get_byte_offset");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  int64_t dataByte;
  if (int64_t(offset) < 0 || !scaledOffset(int64_t(offset), file->view.etype->size, dataByte))
    return failOnFile(call, int(fh), abi::kErrArg, "invalid offset " + std::to_string(int64_t(offset)));
  int64_t byte = -1;
  bool inRange = forEachFileRun(file->view, dataByte, 1, [&](int64_t at, int64_t, int64_t) {
    byte = at;
    return false;
  });
  if (!inRange) return failOnFile(call, int(fh), abi::kErrArg, "offset beyond any file position");
  if (!call.store<int64_t>(dispOut, byte))
    return failOnFile(call, int(fh), abi::kErrArg, "offset pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_seek(void* instance, u32 fh, u64 offset, u32 whence) {
  HostCall call(instance, "MPI_File_seek");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (file->shared->amode & abi::amode::kSequential)
    return failOnFile(call, int(fh), abi::kErrUnsupportedOperation,
                      "the file was opened MPI_MODE_SEQUENTIAL");
  int64_t target = seekTarget(call, int(fh), *file, file->individualPointer, int64_t(offset),
                              int(whence));
  if (target < 0) return abi::kErrArg;
  file->individualPointer = target;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_position(void* instance, u32 fh, u32 offsetOut) {
  HostCall call(instance, "MPI_File_get_position");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (!call.store<int64_t>(offsetOut, file->individualPointer))
    return failOnFile(call, int(fh), abi::kErrArg, "offset pointer outside linear memory");
  return abi::kSuccess;
}

// Collective: every member passes the same offset and whence.
u32 Z_envZ_MPI_File_seek_shared(void* instance, u32 fh, u64 offset, u32 whence) {
  HostCall call(instance, "MPI_File_seek_shared");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (int refused = refuseSharedStateAcrossHosts(call, int(fh), *file)) return refused;
  SharedFile& shared = *file->shared;
  int64_t target = seekTarget(call, int(fh), *file, shared.sharedPointer.load(), int64_t(offset),
                              int(whence));
  if (target < 0) return abi::kErrArg;
  bool differ;
  if (int e = agreeOnFileValue(call, *file, target, differ))
    return failOnFile(call, int(fh), e, "the collective failed");
  if (differ)
    return failOnFile(call, int(fh), abi::kErrNotSame, "the members seek to different positions");
  shared.sharedPointer.store(target);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_File_get_position_shared(void* instance, u32 fh, u32 offsetOut) {
  HostCall call(instance, "MPI_File_get_position_shared");
  int error;
  OpenFile* file = fileOrFail(call, int(fh), error);
  if (!file) return error;
  if (int refused = refuseSharedStateAcrossHosts(call, int(fh), *file)) return refused;
  if (!call.store<int64_t>(offsetOut, file->shared->sharedPointer.load()))
    return failOnFile(call, int(fh), abi::kErrArg, "offset pointer outside linear memory");
  return abi::kSuccess;
}

}  // extern "C"
