//===- PathFunctions.cpp - WASI path_* inside the guest's preopens ---------===//
//
// Every path is relative to a directory descriptor and is resolved by
// sandbox/SandboxPath, so no path_* call can reach outside the preopened trees:
//  - calls that act on a file's contents or metadata open it with
//    openBeneath (following the last symlink when the guest asks to);
//  - calls that act on a name (mkdir, unlink, rename, ...) open the parent
//    with resolveParent and use the *at(2) call on the last component, which
//    never follows a symlink there.
// Below a read-only grant (--dir HOST:GUEST:ro) every call that would create,
// write, truncate, rename, link, unlink or set times fails with EROFS, also
// when the guest reaches it through a writable grant it is nested in: the
// directory the change lands in decides (sandbox/GrantRoots.h).
// A trailing '/' or a last component of "." or ".." never reaches those *at
// calls: with them, Linux would follow the final symlink or name a directory
// above the parent, so they are answered here with the errno POSIX gives.
//
//===----------------------------------------------------------------------===//
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "granule/Granule.h"
#include "sandbox/GrantRoots.h"
#include "sandbox/SandboxPath.h"
#include "wasi/FileMetadata.h"
#include "wasi/GuestBuffers.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiErrno.h"
#include "wasi/WasiImports.h"
#include "wasi/WasiState.h"

using synergy::granule::Granule;
using namespace synergy::wasi;
using synergy::sandbox::openBeneath;
using synergy::sandbox::OpenedBeneath;
using synergy::sandbox::PathParent;
using synergy::sandbox::resolveParent;

static uint32_t hostError() { return toGuest(errnoFromHost(errno)); }
static uint32_t success() { return toGuest(Errno::Success); }

namespace {
// A guest path and the host fd of the directory descriptor it is relative
// to; `error` says why that descriptor is no open directory.
struct GuestPath {
  std::string_view path;
  int hostDir = -1;
  int error = 0;  // a host errno, as the sandbox reports errors
};
}  // namespace

static GuestPath guestPathAt(Granule& granule, uint32_t fd, uint32_t path, uint32_t length) {
  GuestPath guest;
  guest.path = guestString(granule, path, length);
  FileDescriptor* dir = wasiState(granule).find(fd);
  if (!dir)
    guest.error = EBADF;
  else if (dir->filetype() != Filetype::Directory)
    guest.error = ENOTDIR;
  else
    guest.hostDir = dir->hostFd();
  return guest;
}

static std::string procPathOf(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// The parent directory and last component of the guest's path at
// `path`/`length`, resolved below directory descriptor `fd`; `error` says why
// there is none (a bad descriptor first, then the path).
static PathParent resolveGuestParent(Granule& granule, uint32_t fd, uint32_t path,
                                     uint32_t length) {
  GuestPath guest = guestPathAt(granule, fd, path, length);
  if (guest.error != 0) {
    PathParent failed;
    failed.error = guest.error;
    return failed;
  }
  return resolveParent(guest.hostDir, guest.path);
}

// Whether directory descriptor `fd` lies in a read-only grant, where every
// call that would change a file fails with EROFS, as on a read-only mount.
static bool inReadOnlyGrant(Granule& granule, uint32_t fd) {
  FileDescriptor* dir = wasiState(granule).find(fd);
  return dir && dir->readOnly();
}

// Whether a change in host directory `hostDir` lands in a read-only grant,
// whichever descriptor the guest went through.
static bool landsInReadOnlyGrant(Granule& granule, int hostDir) {
  return wasiState(granule).grantRoots().directoryIsReadOnly(hostDir);
}

// Whether `name` in `dirFd` is a directory (not following a final symlink);
// -1 with errno set when it cannot be examined.
static int isDirectory(int dirFd, const std::string& name) {
  struct stat info;
  if (::fstatat(dirFd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return -1;
  return S_ISDIR(info.st_mode) ? 1 : 0;
}

extern "C" {

uint32_t Z_wasi_snapshot_preview1Z_path_open(WasiInstance* instance, uint32_t dirFd,
                                             uint32_t lookupFlags, uint32_t path, uint32_t length,
                                             uint32_t openFlags, uint64_t rightsBase,
                                             uint64_t rightsInheriting, uint32_t fdFlags,
                                             uint32_t fdOut) {
  Granule& granule = Granule::fromHost(instance);
  GuestPath guest = guestPathAt(granule, dirFd, path, length);
  uint8_t* out = granule.guestBytes(fdOut, 4);
  if (guest.error != 0) return toGuest(errnoFromSandbox(guest.error));
  WasiState& state = wasiState(granule);
  uint64_t inheritable = state.find(dirFd)->rightsInheriting();

  // wasi-libc states the access mode through the rights it asks for.
  bool reading = rightsBase & rights::kReading;
  bool writing = rightsBase & rights::kFdWrite;
  int flags = O_NOCTTY | (writing ? (reading ? O_RDWR : O_WRONLY) : O_RDONLY);
  if (openFlags & oflags::kCreat) flags |= O_CREAT;
  if (openFlags & oflags::kDirectory) flags |= O_DIRECTORY;
  if (openFlags & oflags::kExcl) flags |= O_EXCL;
  if (openFlags & oflags::kTrunc) flags |= O_TRUNC;
  if (fdFlags & fdflags::kAppend) flags |= O_APPEND;
  if (fdFlags & fdflags::kNonblock) flags |= O_NONBLOCK;
  if (fdFlags & fdflags::kDsync) flags |= O_DSYNC;
  if (fdFlags & fdflags::kSync) flags |= O_SYNC;
  if (fdFlags & fdflags::kRsync) flags |= O_RSYNC;
  bool follow = lookupFlags & lookupflags::kSymlinkFollow;
  const synergy::sandbox::GrantRoots& roots = state.grantRoots();
  bool readOnlyGrant = state.find(dirFd)->readOnly() ||
                       roots.writeReachesReadOnly(guest.hostDir, guest.path, follow);
  if (readOnlyGrant && (writing || (flags & (O_CREAT | O_TRUNC | O_APPEND))))
    return toGuest(Errno::Rofs);

  OpenedBeneath opened = openBeneath(guest.hostDir, guest.path, flags, 0666, follow);
  if (opened.error != 0) return toGuest(errnoFromSandbox(opened.error));
  // A directory opened through a writable grant may itself be a read-only
  // grant's, or lie below one.
  struct stat openedInfo;
  if (!readOnlyGrant && roots.anyReadOnly() && ::fstat(opened.fd.get(), &openedInfo) == 0 &&
      S_ISDIR(openedInfo.st_mode))
    readOnlyGrant = roots.directoryIsReadOnly(opened.fd.get());

  FileDescriptor file(opened.fd.release(), /*ownsHostFd=*/true);
  file.restrictRights(rightsBase & inheritable, rightsInheriting & inheritable);
  if (readOnlyGrant) file.makeReadOnly();
  if (const std::optional<uint32_t>& grant = state.find(dirFd)->grant()) file.setGrant(*grant);
  std::optional<uint32_t> fd = state.insert(std::move(file));
  if (!fd) return toGuest(Errno::Mfile);
  storeGuest<uint32_t>(out, *fd);
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_path_filestat_get(WasiInstance* instance, uint32_t fd,
                                                     uint32_t lookupFlags, uint32_t path,
                                                     uint32_t length, uint32_t statOut) {
  Granule& granule = Granule::fromHost(instance);
  GuestPath guest = guestPathAt(granule, fd, path, length);
  uint8_t* out = granule.guestBytes(statOut, layout::kFilestatSize);
  if (guest.error != 0) return toGuest(errnoFromSandbox(guest.error));

  OpenedBeneath opened = openBeneath(guest.hostDir, guest.path, O_PATH, 0,
                                     lookupFlags & lookupflags::kSymlinkFollow);
  if (opened.error != 0) return toGuest(errnoFromSandbox(opened.error));
  struct stat info;
  if (::fstat(opened.fd.get(), &info) != 0) return hostError();
  storeFilestat(out, info);
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_path_filestat_set_times(WasiInstance* instance, uint32_t fd,
                                                           uint32_t lookupFlags, uint32_t path,
                                                           uint32_t length, uint64_t accessTime,
                                                           uint64_t modifyTime, uint32_t flags) {
  Granule& granule = Granule::fromHost(instance);
  GuestPath guest = guestPathAt(granule, fd, path, length);
  if (guest.error != 0) return toGuest(errnoFromSandbox(guest.error));
  if (inReadOnlyGrant(granule, fd)) return toGuest(Errno::Rofs);
  struct timespec times[2];
  if (Errno e = timesFromWasi(accessTime, modifyTime, flags, times); e != Errno::Success)
    return toGuest(e);

  if (wasiState(granule).grantRoots().writeReachesReadOnly(guest.hostDir, guest.path,
                                                          lookupFlags & lookupflags::kSymlinkFollow))
    return toGuest(Errno::Rofs);
  if (lookupFlags & lookupflags::kSymlinkFollow) {
    // The file the link leads to, opened beneath; /proc names it without
    // needing read or write access to it.
    OpenedBeneath target = openBeneath(guest.hostDir, guest.path, O_PATH, 0, true);
    if (target.error != 0) return toGuest(errnoFromSandbox(target.error));
    return ::utimensat(AT_FDCWD, procPathOf(target.fd.get()).c_str(), times, 0) == 0
               ? success()
               : hostError();
  }
  PathParent parent = resolveParent(guest.hostDir, guest.path);
  if (parent.error != 0) return toGuest(errnoFromSandbox(parent.error));
  return ::utimensat(parent.dirFd, parent.name.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0
             ? success()
             : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_path_create_directory(WasiInstance* instance, uint32_t fd,
                                                         uint32_t path, uint32_t length) {
  Granule& granule = Granule::fromHost(instance);
  PathParent parent = resolveGuestParent(granule, fd, path, length);
  if (parent.error != 0) return toGuest(errnoFromSandbox(parent.error));
  if (inReadOnlyGrant(granule, fd) || landsInReadOnlyGrant(granule, parent.dirFd))
    return toGuest(Errno::Rofs);
  if (parent.nameIsDotOrDotDot()) return toGuest(Errno::Exist);
  return ::mkdirat(parent.dirFd, parent.name.c_str(), 0777) == 0 ? success() : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_path_remove_directory(WasiInstance* instance, uint32_t fd,
                                                         uint32_t path, uint32_t length) {
  Granule& granule = Granule::fromHost(instance);
  PathParent parent = resolveGuestParent(granule, fd, path, length);
  if (parent.error != 0) return toGuest(errnoFromSandbox(parent.error));
  if (inReadOnlyGrant(granule, fd) || landsInReadOnlyGrant(granule, parent.dirFd))
    return toGuest(Errno::Rofs);
  if (parent.name == ".") return toGuest(Errno::Inval);
  if (parent.name == "..") return toGuest(Errno::NotEmpty);
  return ::unlinkat(parent.dirFd, parent.name.c_str(), AT_REMOVEDIR) == 0 ? success()
                                                                          : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_path_unlink_file(WasiInstance* instance, uint32_t fd,
                                                    uint32_t path, uint32_t length) {
  Granule& granule = Granule::fromHost(instance);
  PathParent parent = resolveGuestParent(granule, fd, path, length);
  if (parent.error != 0) return toGuest(errnoFromSandbox(parent.error));
  if (inReadOnlyGrant(granule, fd) || landsInReadOnlyGrant(granule, parent.dirFd))
    return toGuest(Errno::Rofs);
  if (parent.nameIsDotOrDotDot()) return toGuest(Errno::IsDir);
  if (parent.trailingSlash) {
    // "file/" names a directory that a file cannot be.
    int directory = isDirectory(parent.dirFd, parent.name);
    if (directory < 0) return hostError();
    return toGuest(directory ? Errno::IsDir : Errno::NotDir);
  }
  return ::unlinkat(parent.dirFd, parent.name.c_str(), 0) == 0 ? success() : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_path_rename(WasiInstance* instance, uint32_t oldFd,
                                               uint32_t oldPath, uint32_t oldLength,
                                               uint32_t newFd, uint32_t newPath,
                                               uint32_t newLength) {
  Granule& granule = Granule::fromHost(instance);
  GuestPath fromPath = guestPathAt(granule, oldFd, oldPath, oldLength);
  GuestPath toPath = guestPathAt(granule, newFd, newPath, newLength);
  if (fromPath.error != 0) return toGuest(errnoFromSandbox(fromPath.error));
  if (toPath.error != 0) return toGuest(errnoFromSandbox(toPath.error));
  // Both sides: a rename changes both directories, and a link out of a
  // read-only grant would make its file writable under another name.
  if (inReadOnlyGrant(granule, oldFd) || inReadOnlyGrant(granule, newFd))
    return toGuest(Errno::Rofs);

  PathParent from = resolveParent(fromPath.hostDir, fromPath.path);
  if (from.error != 0) return toGuest(errnoFromSandbox(from.error));
  PathParent to = resolveParent(toPath.hostDir, toPath.path);
  if (to.error != 0) return toGuest(errnoFromSandbox(to.error));
  if (landsInReadOnlyGrant(granule, from.dirFd) || landsInReadOnlyGrant(granule, to.dirFd))
    return toGuest(Errno::Rofs);
  if (from.nameIsDotOrDotDot() || to.nameIsDotOrDotDot()) return toGuest(Errno::Busy);
  if (from.trailingSlash || to.trailingSlash) {
    int directory = isDirectory(from.dirFd, from.name);
    if (directory < 0) return hostError();
    if (!directory) return toGuest(Errno::NotDir);
  }
  return ::renameat(from.dirFd, from.name.c_str(), to.dirFd, to.name.c_str()) == 0
             ? success()
             : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_path_readlink(WasiInstance* instance, uint32_t fd,
                                                 uint32_t path, uint32_t length, uint32_t buf,
                                                 uint32_t bufLength, uint32_t usedOut) {
  Granule& granule = Granule::fromHost(instance);
  // Bounds first: a trap unwinds with siglongjmp and would leak the parent
  // directory that resolving opens.
  uint8_t* out = granule.guestBytes(buf, bufLength);
  uint8_t* used = granule.guestBytes(usedOut, 4);
  PathParent parent = resolveGuestParent(granule, fd, path, length);
  if (parent.error != 0) return toGuest(errnoFromSandbox(parent.error));
  // "link/" would make Linux follow the link first; it is never a link itself.
  if (parent.nameIsDotOrDotDot() || parent.trailingSlash) return toGuest(Errno::Inval);
  ssize_t n = ::readlinkat(parent.dirFd, parent.name.c_str(), reinterpret_cast<char*>(out),
                           bufLength);
  if (n < 0) return hostError();
  storeGuest<uint32_t>(used, static_cast<uint32_t>(n));
  return success();
}

// Links are created as given, relative targets included: resolution checks
// every link it follows, so a link pointing outside leads nowhere. Absolute
// targets are refused because no guest path can ever resolve through them.
uint32_t Z_wasi_snapshot_preview1Z_path_symlink(WasiInstance* instance, uint32_t target,
                                                uint32_t targetLength, uint32_t fd,
                                                uint32_t path, uint32_t length) {
  Granule& granule = Granule::fromHost(instance);
  std::string_view linkTarget = guestString(granule, target, targetLength);
  GuestPath guest = guestPathAt(granule, fd, path, length);
  if (guest.error != 0) return toGuest(errnoFromSandbox(guest.error));

  if (linkTarget.empty()) return toGuest(Errno::NoEnt);
  if (linkTarget.find('\0') != std::string_view::npos) return toGuest(Errno::Inval);
  if (linkTarget.front() == '/') return toGuest(Errno::Perm);
  if (inReadOnlyGrant(granule, fd)) return toGuest(Errno::Rofs);
  PathParent parent = resolveParent(guest.hostDir, guest.path);
  if (parent.error != 0) return toGuest(errnoFromSandbox(parent.error));
  if (landsInReadOnlyGrant(granule, parent.dirFd)) return toGuest(Errno::Rofs);
  if (parent.nameIsDotOrDotDot()) return toGuest(Errno::Exist);
  if (parent.trailingSlash) return toGuest(Errno::NoEnt);
  return ::symlinkat(std::string(linkTarget).c_str(), parent.dirFd, parent.name.c_str()) == 0
             ? success()
             : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_path_link(WasiInstance* instance, uint32_t oldFd,
                                             uint32_t oldLookupFlags, uint32_t oldPath,
                                             uint32_t oldLength, uint32_t newFd,
                                             uint32_t newPath, uint32_t newLength) {
  Granule& granule = Granule::fromHost(instance);
  GuestPath fromPath = guestPathAt(granule, oldFd, oldPath, oldLength);
  GuestPath toPath = guestPathAt(granule, newFd, newPath, newLength);
  if (fromPath.error != 0) return toGuest(errnoFromSandbox(fromPath.error));
  if (toPath.error != 0) return toGuest(errnoFromSandbox(toPath.error));
  // Both sides: a rename changes both directories, and a link out of a
  // read-only grant would make its file writable under another name.
  if (inReadOnlyGrant(granule, oldFd) || inReadOnlyGrant(granule, newFd))
    return toGuest(Errno::Rofs);

  PathParent to = resolveParent(toPath.hostDir, toPath.path);
  if (to.error != 0) return toGuest(errnoFromSandbox(to.error));
  // The source side too: a second name outside would make the file writable.
  if (landsInReadOnlyGrant(granule, to.dirFd) ||
      wasiState(granule).grantRoots().writeReachesReadOnly(fromPath.hostDir, fromPath.path,
                                                          oldLookupFlags & lookupflags::kSymlinkFollow))
    return toGuest(Errno::Rofs);
  if (to.nameIsDotOrDotDot()) return toGuest(Errno::Exist);
  if (to.trailingSlash) return toGuest(Errno::NoEnt);

  if (oldLookupFlags & lookupflags::kSymlinkFollow) {
    // Link the file the source leads to, found beneath its directory.
    OpenedBeneath source = openBeneath(fromPath.hostDir, fromPath.path, O_PATH, 0, true);
    if (source.error != 0) return toGuest(errnoFromSandbox(source.error));
    return ::linkat(AT_FDCWD, procPathOf(source.fd.get()).c_str(), to.dirFd, to.name.c_str(),
                    AT_SYMLINK_FOLLOW) == 0
               ? success()
               : hostError();
  }
  PathParent from = resolveParent(fromPath.hostDir, fromPath.path);
  if (from.error != 0) return toGuest(errnoFromSandbox(from.error));
  if (from.nameIsDotOrDotDot() || from.trailingSlash) return toGuest(Errno::Perm);
  return ::linkat(from.dirFd, from.name.c_str(), to.dirFd, to.name.c_str(), 0) == 0
             ? success()
             : hostError();
}

}  // extern "C"
