//===- OpenFileRecord.cpp - a rank's open files in a checkpoint -------------===//
//
// This file implements the capture of a rank's open files at a checkpoint
// and their reopening on `--resume` (see the header). The checkpoint file is
// hostile input, so a recorded file is reopened only through
// sandbox::openBeneath below its grant's preopen, with the read-only rules
// path_open applies, whatever the record says.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/OpenFileRecord.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>

#include "granule/Granule.h"
#include "sandbox/GrantRoots.h"
#include "sandbox/SandboxPath.h"
#include "sandbox/UniqueFd.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiState.h"

namespace synergy::checkpoint {

namespace {

namespace fdflags = wasi::fdflags;

std::string describe(const OpenFile& file) {
  return "open file descriptor " + std::to_string(file.guestFd) + " (" + file.path +
         " in --dir grant " + std::to_string(file.grant) + ")";
}

// The host path an open fd refers to now, or empty when it has none (a
// deleted file, a socket).
std::string currentHostPath(int hostFd) {
  std::string link = "/proc/self/fd/" + std::to_string(hostFd);
  char target[PATH_MAX];
  ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
  if (length <= 0 || target[0] != '/') return {};
  return std::string(target, size_t(length));
}

// `path` relative to `directory` ("." for the directory itself), or
// nullopt when it does not lie below it; both are canonical host paths.
std::optional<std::string> relativePathBelow(const std::string& path,
                                             const std::string& directory) {
  if (path == directory) return std::string(".");
  std::string prefix = directory == "/" ? directory : directory + "/";
  if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  return path.substr(prefix.size());
}

uint16_t fdflagsOfHost(int status) {
  uint16_t flags = 0;
  if (status & O_APPEND) flags |= fdflags::kAppend;
  if (status & O_NONBLOCK) flags |= fdflags::kNonblock;
  // O_SYNC includes O_DSYNC's bit on Linux.
  if ((status & O_SYNC) == O_SYNC)
    flags |= fdflags::kSync;
  else if (status & O_DSYNC)
    flags |= fdflags::kDsync;
  return flags;
}

int hostOpenFlags(const OpenFile& file) {
  bool reading = file.access & OpenFile::kReadable;
  bool writing = file.access & OpenFile::kWritable;
  int flags = O_NOCTTY | (writing ? (reading ? O_RDWR : O_WRONLY) : O_RDONLY);
  if (file.kind == OpenFile::Kind::Directory) flags |= O_DIRECTORY;
  if (file.fdflags & fdflags::kAppend) flags |= O_APPEND;
  if (file.fdflags & fdflags::kNonblock) flags |= O_NONBLOCK;
  if (file.fdflags & fdflags::kDsync) flags |= O_DSYNC;
  if (file.fdflags & fdflags::kSync) flags |= O_SYNC;
  if (file.fdflags & fdflags::kRsync) flags |= O_RSYNC;
  return flags;
}

struct Reopened {
  sandbox::UniqueFd fd;
  bool readOnly = false;
};

// Opens `file` below the grant directory `grantDir` as path_open would
// (never following a final symbolic link: the recorded path has none), and
// checks that it is still what was recorded and long enough to be cut back.
bool reopenBeneath(int grantDir, bool grantReadOnly, const sandbox::GrantRoots& roots,
                   const OpenFile& file, Reopened& out, std::string& error) {
  bool writing = (file.access & OpenFile::kWritable) || (file.fdflags & fdflags::kAppend);
  out.readOnly = grantReadOnly || roots.writeReachesReadOnly(grantDir, file.path, false);
  if (out.readOnly && writing) {
    error = describe(file) + " is open for writing below a read-only grant";
    return false;
  }
  sandbox::OpenedBeneath opened =
      sandbox::openBeneath(grantDir, file.path, hostOpenFlags(file), 0, false);
  if (opened.error == sandbox::kEscapes) {
    error = describe(file) + " leads out of its grant (a symbolic link?)";
    return false;
  }
  if (opened.error == ELOOP) {
    error = describe(file) + " is now a symbolic link";
    return false;
  }
  if (opened.error != 0) {
    error = describe(file) + " cannot be reopened: " + std::strerror(opened.error);
    return false;
  }
  struct stat info;
  if (::fstat(opened.fd.get(), &info) != 0) {
    error = describe(file) + " cannot be examined: " + std::strerror(errno);
    return false;
  }
  bool isDirectory = file.kind == OpenFile::Kind::Directory;
  if (isDirectory ? !S_ISDIR(info.st_mode) : !S_ISREG(info.st_mode)) {
    error = describe(file) + " is no longer a " + (isDirectory ? "directory" : "regular file");
    return false;
  }
  if (file.lengthToRestore >= 0 && info.st_size < file.lengthToRestore) {
    error = describe(file) + " holds " + std::to_string(info.st_size) + " bytes, fewer than the " +
            std::to_string(file.lengthToRestore) + " it held at the checkpoint";
    return false;
  }
  // A directory opened through a writable grant may itself be a read-only
  // grant's, or lie below one.
  if (isDirectory && !out.readOnly && roots.anyReadOnly())
    out.readOnly = roots.directoryIsReadOnly(opened.fd.get());
  out.fd = std::move(opened.fd);
  return true;
}

}  // namespace

std::string captureOpenFiles(granule::Granule& granule, size_t grantCount,
                             std::vector<OpenFile>& files) {
  wasi::WasiState& state = granule.extension<wasi::WasiState>();
  // Stdio is the host's or, in an MPI rank, the launcher's forwarding pipe,
  // which the launcher sets up again; a guest's file renumbered over it is
  // not.
  for (uint32_t fd = 0; fd < 3; ++fd) {
    wasi::FileDescriptor* stdio = state.find(fd);
    if (!stdio || stdio->grant())
      return "descriptor " + std::to_string(fd) + " (stdio) was closed or renumbered";
  }
  std::vector<std::string> grantPaths;
  for (uint32_t grant = 0; grant < grantCount; ++grant) {
    uint32_t fd = 3 + grant;
    wasi::FileDescriptor* preopen = state.find(fd);
    if (!preopen || !preopen->preopenName() || preopen->grant() != grant)
      return "descriptor " + std::to_string(fd) + " (a --dir preopen) was closed or renumbered";
    grantPaths.push_back(currentHostPath(preopen->hostFd()));
  }
  for (uint32_t fd = uint32_t(3 + grantCount); fd < state.end(); ++fd) {
    wasi::FileDescriptor* open = state.find(fd);
    if (!open) continue;
    std::string what = "file descriptor " + std::to_string(fd);
    if (open->preopenName()) return what + " is a --dir preopen the guest renumbered";
    if (!open->grant() || *open->grant() >= grantCount)
      return what + " was not opened below a --dir grant";
    struct stat info;
    if (::fstat(open->hostFd(), &info) != 0 || !(S_ISREG(info.st_mode) || S_ISDIR(info.st_mode)))
      return what + " is neither a regular file nor a directory";
    std::string hostPath = currentHostPath(open->hostFd());
    if (info.st_nlink == 0 || hostPath.empty()) return what + " names a deleted file";
    std::optional<std::string> below = relativePathBelow(hostPath, grantPaths[*open->grant()]);
    if (!below || !isPlainRelativePath(*below))
      return what + " has moved out of its --dir grant";
    int status = ::fcntl(open->hostFd(), F_GETFL);
    if (status < 0) return what + " cannot be examined";
    OpenFile file;
    file.guestFd = fd;
    file.grant = *open->grant();
    file.path = std::move(*below);
    file.kind = S_ISDIR(info.st_mode) ? OpenFile::Kind::Directory : OpenFile::Kind::RegularFile;
    int access = status & O_ACCMODE;
    file.access = access == O_RDONLY  ? OpenFile::kReadable
                  : access == O_WRONLY ? OpenFile::kWritable
                                       : OpenFile::kReadable | OpenFile::kWritable;
    file.fdflags = fdflagsOfHost(status);
    file.rightsBase = open->rightsBase();
    file.rightsInheriting = open->rightsInheriting();
    if (file.kind == OpenFile::Kind::RegularFile) {
      off_t offset = ::lseek(open->hostFd(), 0, SEEK_CUR);
      if (offset < 0) return what + " has no offset";
      file.offset = uint64_t(offset);
      if (file.access & OpenFile::kWritable) file.lengthToRestore = int64_t(info.st_size);
    }
    files.push_back(std::move(file));
  }
  return {};
}

bool checkOpenFiles(const std::vector<sandbox::Grant>& grants, const std::vector<OpenFile>& files,
                    std::string& error) {
  if (files.empty()) return true;
  std::vector<sandbox::UniqueFd> grantDirs;
  sandbox::GrantRoots roots;
  for (const sandbox::Grant& grant : grants) {
    sandbox::UniqueFd dir(::open(grant.hostPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) {
      error = "cannot open --dir " + grant.hostPath + ": " + std::strerror(errno);
      return false;
    }
    roots.add(dir.get(), grant.readOnly);
    grantDirs.push_back(std::move(dir));
  }
  for (const OpenFile& file : files) {
    // The decoder checked the grant index against the job's grants.
    Reopened reopened;
    if (!reopenBeneath(grantDirs[file.grant].get(), grants[file.grant].readOnly, roots, file,
                       reopened, error))
      return false;
  }
  return true;
}

bool restoreOpenFiles(granule::Granule& granule, const std::vector<OpenFile>& files,
                      std::string& error) {
  wasi::WasiState& state = granule.extension<wasi::WasiState>();
  if (!state.startupError().empty()) {
    error = state.startupError();
    return false;
  }
  for (const OpenFile& file : files) {
    wasi::FileDescriptor* preopen = state.find(3 + file.grant);
    if (!preopen || preopen->grant() != file.grant) {
      error = describe(file) + " names a grant this job does not have";
      return false;
    }
    Reopened reopened;
    if (!reopenBeneath(preopen->hostFd(), preopen->readOnly(), state.grantRoots(), file, reopened,
                       error))
      return false;
    int hostFd = reopened.fd.get();
    if ((file.lengthToRestore >= 0 && ::ftruncate(hostFd, off_t(file.lengthToRestore)) != 0) ||
        (file.kind == OpenFile::Kind::RegularFile &&
         ::lseek(hostFd, off_t(file.offset), SEEK_SET) < 0)) {
      error = describe(file) + " cannot be cut back or seeked: " + std::strerror(errno);
      return false;
    }
    uint64_t inheritable = preopen->rightsInheriting();
    wasi::FileDescriptor descriptor(reopened.fd.release(), /*ownsHostFd=*/true);
    descriptor.restrictRights(file.rightsBase & inheritable, file.rightsInheriting & inheritable);
    if (reopened.readOnly) descriptor.makeReadOnly();
    descriptor.setGrant(file.grant);
    if (!state.insertAt(file.guestFd, std::move(descriptor))) {
      error = describe(file) + " cannot take its descriptor number";
      return false;
    }
  }
  return true;
}

}  // namespace synergy::checkpoint
