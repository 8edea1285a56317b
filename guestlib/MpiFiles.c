//===- MpiFiles.c - the guest half of MPI_File_open, close and delete -----===//
//
// This file implements the three MPI-IO calls that name a file by its path.
// The path is opened and unlinked here, in the guest, with wasi-libc's
// open() and unlink(): it then resolves against the guest's current
// directory and the --dir grants through exactly the rules (and the
// runtime's sandboxed path_open) every other guest file access goes
// through, and the runtime never sees a path it would have to check again.
//
// MPI_File_open is collective and must create a file once: the runtime
// (runtime/mpi/FileHandles.cpp) answers each call with the next turn, to
// open the file (creating it, for the communicator's first member) or to
// stop, and takes over the descriptor once every member has opened it.
// MPI_File_close hands back the name of a MPI_MODE_DELETE_ON_CLOSE file to
// the one member that unlinks it.
//
// Each is defined as its profiling name PMPI_File_* (MPI-4.0 §15.2), with
// MPI_File_* a weak alias, so a tool's own MPI_File_* takes its place and
// still reaches this one through PMPI_File_*.
//
//===----------------------------------------------------------------------===//
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <unistd.h>

enum { kTurnDone = 0, kTurnCreate = 1, kTurnOpen = 2 };

__attribute__((import_module("env"), import_name("synergy_mpi_file_open")))
int synergy_mpi_file_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, int fd,
                          int openErrno, MPI_File* fh, int* turn);
__attribute__((import_module("env"), import_name("synergy_mpi_file_close")))
int synergy_mpi_file_close(MPI_File* fh, char* name, size_t capacity, int* deleteIt);
__attribute__((import_module("env"), import_name("synergy_mpi_file_deleted")))
int synergy_mpi_file_deleted(const char* filename, int unlinkErrno);

// The open(2) flags for `amode`; only the creating member creates.
static int openFlags(int amode, int creating) {
  int flags = (amode & MPI_MODE_RDWR)     ? O_RDWR
              : (amode & MPI_MODE_WRONLY) ? O_WRONLY
                                          : O_RDONLY;
  if (creating && (amode & MPI_MODE_CREATE)) flags |= O_CREAT;
  if (creating && (amode & MPI_MODE_EXCL)) flags |= O_EXCL;
  return flags;
}

int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  int fd = -1;
  int openErrno = 0;
  for (;;) {
    int turn = kTurnDone;
    int result = synergy_mpi_file_open(comm, filename, amode, info, fd, openErrno, fh, &turn);
    if (turn == kTurnDone) return result;
    fd = open(filename, openFlags(amode, turn == kTurnCreate), 0666);
    openErrno = fd < 0 ? errno : 0;
  }
}

int PMPI_File_close(MPI_File* fh) {
  char name[PATH_MAX];
  int deleteIt = 0;
  int result = synergy_mpi_file_close(fh, name, sizeof name, &deleteIt);
  if (result == MPI_SUCCESS && deleteIt) unlink(name);
  return result;
}

int PMPI_File_delete(const char* filename, MPI_Info info) {
  (void)info;
  int unlinkErrno = unlink(filename) == 0 ? 0 : errno;
  return synergy_mpi_file_deleted(filename, unlinkErrno);
}

__attribute__((weak, alias("PMPI_File_open"))) int MPI_File_open(MPI_Comm comm,
                                                                  const char* filename, int amode,
                                                                  MPI_Info info, MPI_File* fh);
__attribute__((weak, alias("PMPI_File_close"))) int MPI_File_close(MPI_File* fh);
__attribute__((weak, alias("PMPI_File_delete"))) int MPI_File_delete(const char* filename,
                                                                      MPI_Info info);
