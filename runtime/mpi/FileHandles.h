//===- FileHandles.h - MPI-IO: open files, views and their error paths ----===//
//
// What the MPI_File_* host functions share. A file is opened collectively
// by a communicator: the members share one SharedFile (the job's view of
// the open file: its communicator, shared file pointer, atomicity, name and
// access mode), and each rank holds an OpenFile of its own (its host
// descriptor, view and individual file pointer) in its FileTable, under the
// handle the guest knows it by.
//
// The guest opens the file itself, through wasi-libc's open() (guestlib/
// MpiFiles.c), so the path goes through exactly the grant rules of every
// other guest open; the runtime only takes over the descriptor. Positions
// are counted in etypes of the current view, as the standard says; the
// view's filetype tiles the file from its displacement on, and only its data
// bytes are visible.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "mpi/Datatype.h"
#include "mpi/RankState.h"
#include "sandbox/UniqueFd.h"
#include "util/FunctionRef.h"

namespace synergy::mpi {

struct SharedFile {
  std::shared_ptr<Communicator> comm;  // a duplicate of the opening one
  std::string name;                    // as the guest named it, for DELETE_ON_CLOSE
  int amode = 0;
  std::atomic<int64_t> sharedPointer{0};  // etypes of the view
  std::atomic<bool> atomic{false};
  // Held around each access in atomic mode, so that no access sees part of
  // another.
  std::mutex atomicAccess;
};

// A file view: from byte `displacement` on, the file is tiled with
// `filetype`, whose data bytes are the visible ones; positions count
// `etype`s of them. Both are laid out as they lie in the file.
struct FileView {
  int64_t displacement = 0;
  Layout etype;
  Layout filetype;
  // The etype and filetype as the guest passed them, for MPI_File_get_view.
  Layout givenEtype;
  Layout givenFiletype;
  int etypeHandle = abi::kTypeByte;
  int filetypeHandle = abi::kTypeByte;
  // The "external32" data representation: the file holds each element
  // big-endian at its external32 size (ExternalPacking.h), and the etype
  // and filetype are the given ones in the file's terms, which differ from
  // memory's only for types holding MPI_AINT (8 bytes in the file).
  bool external32 = false;
};

struct OpenFile {
  std::shared_ptr<SharedFile> shared;
  int commHandle = 0;  // this rank's handle of shared->comm
  sandbox::UniqueFd fd;
  FileView view;
  int64_t individualPointer = 0;  // etypes of the view
  int errhandler = abi::kErrorsReturn;
  int info = abi::kInfoNull;
  // The bytes a split collective (*_begin) moved, until its *_end.
  bool splitPending = false;
  int64_t splitBytes = 0;
};

// One rank's open files, on its process granule.
class FileTable : public granule::HostExtension {
 public:
  explicit FileTable(granule::Granule&) {}

  OpenFile* find(int handle) {
    auto found = files_.find(handle);
    return found == files_.end() ? nullptr : &found->second;
  }
  int add(OpenFile file) {
    int handle = nextHandle_++;
    files_.emplace(handle, std::move(file));
    return handle;
  }
  void remove(int handle) { files_.erase(handle); }
  bool empty() const { return files_.empty(); }

  // MPI_FILE_NULL's error handler, which MPI_File_open and MPI_File_delete
  // raise through; MPI_ERRORS_RETURN unless the program sets another.
  int nullErrhandler = abi::kErrorsReturn;
  // Error handlers made with MPI_File_create_errhandler: their guest
  // function-table indices, by handle (drawn from the rank's
  // nextErrorHandler, which communicators' and windows' share).
  std::map<int, uint32_t> userErrorHandlers;

  // An MPI_File_open this rank is in the middle of (guestlib/MpiFiles.c
  // calls the runtime again after each open() it was told to make).
  enum class OpenStage { None, Creating, Opening };
  OpenStage openStage = OpenStage::None;

 private:
  std::map<int, OpenFile> files_;
  int nextHandle_ = 1;
};

FileTable& fileTable(HostCall& call);

// Raises `errorClass` through the error handler of file `handle`
// (MPI_FILE_NULL's for an invalid one): returns the class under
// MPI_ERRORS_RETURN, and after calling it under a user handler; ends the
// job under MPI_ERRORS_ARE_FATAL.
int failOnFile(HostCall& call, int handle, int errorClass, const std::string& reason);
// The open file behind `handle`, or null after raising MPI_ERR_FILE.
OpenFile* fileOrFail(HostCall& call, int handle, int& error);

// The view MPI_File_open sets: displacement 0, etype and filetype MPI_BYTE.
FileView defaultView();

// Calls `run(fileOffset, length, bufferOffset)` for the file byte runs that
// hold `bytes` data bytes of `view` starting `firstDataByte` data bytes into
// it, in order, adjacent runs merged. Stops early when `run` returns false.
// False when a run would lie beyond the largest file offset, or the view
// has no data bytes.
bool forEachFileRun(const FileView& view, int64_t firstDataByte, int64_t bytes,
                    util::FunctionRef<bool(int64_t, int64_t, int64_t)> run);
// The data bytes of `view` that lie below file byte `end`.
int64_t viewBytesBelow(const FileView& view, int64_t end);

}  // namespace synergy::mpi
