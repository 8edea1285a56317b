//===- FdFunctions.cpp - WASI fd_* over host descriptors -------------------===//
//
// Each fd_* function resolves its guest buffers first (a bad pointer traps),
// then looks up the descriptor and performs the matching host call on its
// host fd. Guest stdout and stderr are the host's fds 1 and 2 written with
// writev(2) directly, with no buffering in between, so guest output and the
// runtime's own diagnostics appear in the order they happened.
//
// Fds 0-2 are shared with the parent process (a shell's pipe, a `>> log`
// file), so a guest may read and write them but not change them for others:
//  - fd_fdstat_set_flags, fd_filestat_set_size, fd_allocate and
//    fd_filestat_set_times on them fail with EPERM (their rights lack these);
//  - fd_seek on them fails with ESPIPE, as on a pipe, unless it only asks for
//    the current offset (offset 0 from the current position), and so does
//    fd_pwrite, which would overwrite a `> log` file anywhere.
// On a read-only grant, fd_filestat_set_size, fd_allocate and
// fd_filestat_set_times fail with EROFS.
//
//===----------------------------------------------------------------------===//
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>

#include "granule/Granule.h"
#include "snapshot/DirtyTracker.h"
#include "wasi/FileMetadata.h"
#include "wasi/GuestBuffers.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiErrno.h"
#include "wasi/WasiImports.h"
#include "wasi/WasiState.h"

using synergy::granule::Granule;
using namespace synergy::wasi;

static uint32_t hostError() { return toGuest(errnoFromHost(errno)); }
static uint32_t success() { return toGuest(Errno::Success); }

// Runs a host call again while a signal interrupts it.
template <typename Call>
static auto retryInterrupted(Call call) {
  decltype(call()) result;
  do {
    result = call();
  } while (result < 0 && errno == EINTR);
  return result;
}

// Why `file` may not have its flags, length, allocation or times changed,
// or Errno::Success when it may.
static Errno refusedChange(const FileDescriptor& file) {
  if (file.isHostStdio()) return Errno::Perm;
  if (file.readOnly()) return Errno::Rofs;
  return Errno::Success;
}

static bool fitsOffset(uint64_t value) {
  return value <= uint64_t(std::numeric_limits<off_t>::max());
}

static Filetype filetypeOfDirent(DIR* dir, const dirent* entry) {
  switch (entry->d_type) {
    case DT_REG: return Filetype::RegularFile;
    case DT_DIR: return Filetype::Directory;
    case DT_LNK: return Filetype::SymbolicLink;
    case DT_CHR: return Filetype::CharacterDevice;
    case DT_BLK: return Filetype::BlockDevice;
    case DT_SOCK: return Filetype::SocketStream;
    case DT_FIFO: return Filetype::Unknown;
    default: break;
  }
  // Some file systems leave d_type unknown; ask the inode.
  struct stat info;
  if (::fstatat(::dirfd(dir), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0)
    return Filetype::Unknown;
  return filetypeOfMode(info.st_mode);
}

// Whether a transfer may run on the host's stdio.
enum class OnHostStdio { Allow, RefuseAsPipe };

// fd_read, fd_write, fd_pread and fd_pwrite: resolve the guest's iovecs and
// result slot, run `transfer` on the host fd, and store the byte count.
template <typename Transfer>
static uint32_t transferIovecs(WasiInstance* instance, uint32_t fd, uint32_t iovs,
                               uint32_t iovsCount, std::optional<uint64_t> offset,
                               uint32_t countOut, OnHostStdio onHostStdio, Transfer transfer) {
  Granule& granule = Granule::fromHost(instance);
  HostIovecs buffers;
  gatherIovecs(granule, iovs, iovsCount, buffers);
  uint8_t* count = granule.guestBytes(countOut, 4);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file) return toGuest(Errno::Badf);
  if (onHostStdio == OnHostStdio::RefuseAsPipe && file->isHostStdio()) return toGuest(Errno::Spipe);
  if (offset && !fitsOffset(*offset)) return toGuest(Errno::Inval);
  // A --dsm replica's pages are write-protected until first written; the
  // kernel would fail a read into them with EFAULT instead of faulting.
  for (size_t i = 0; i < buffers.count; ++i)
    synergy::snapshot::prepareHostWrite(buffers.entries[i].iov_base, buffers.entries[i].iov_len);
  ssize_t n = retryInterrupted([&] {
    return transfer(file->hostFd(), buffers.entries.data(), int(buffers.count),
                    off_t(offset.value_or(0)));
  });
  if (n < 0) return hostError();
  storeGuest<uint32_t>(count, static_cast<uint32_t>(n));
  return success();
}

extern "C" {

uint32_t Z_wasi_snapshot_preview1Z_fd_write(WasiInstance* instance, uint32_t fd, uint32_t iovs,
                                            uint32_t iovsCount, uint32_t writtenOut) {
  return transferIovecs(instance, fd, iovs, iovsCount, std::nullopt, writtenOut, OnHostStdio::Allow,
                        [](int hostFd, const iovec* v, int n, off_t) {
                          return ::writev(hostFd, v, n);
                        });
}

uint32_t Z_wasi_snapshot_preview1Z_fd_read(WasiInstance* instance, uint32_t fd, uint32_t iovs,
                                           uint32_t iovsCount, uint32_t readOut) {
  return transferIovecs(instance, fd, iovs, iovsCount, std::nullopt, readOut, OnHostStdio::Allow,
                        [](int hostFd, const iovec* v, int n, off_t) {
                          return ::readv(hostFd, v, n);
                        });
}

uint32_t Z_wasi_snapshot_preview1Z_fd_pwrite(WasiInstance* instance, uint32_t fd, uint32_t iovs,
                                             uint32_t iovsCount, uint64_t offset,
                                             uint32_t writtenOut) {
  return transferIovecs(instance, fd, iovs, iovsCount, offset, writtenOut, OnHostStdio::RefuseAsPipe,
                        ::pwritev);
}

uint32_t Z_wasi_snapshot_preview1Z_fd_pread(WasiInstance* instance, uint32_t fd, uint32_t iovs,
                                            uint32_t iovsCount, uint64_t offset,
                                            uint32_t readOut) {
  return transferIovecs(instance, fd, iovs, iovsCount, offset, readOut, OnHostStdio::Allow, ::preadv);
}

uint32_t Z_wasi_snapshot_preview1Z_fd_seek(WasiInstance* instance, uint32_t fd, uint64_t offset,
                                           uint32_t whenceKind, uint32_t newOffsetOut) {
  Granule& granule = Granule::fromHost(instance);
  uint8_t* newOffset = granule.guestBytes(newOffsetOut, 8);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file) return toGuest(Errno::Badf);
  int hostWhence;
  switch (whenceKind) {
    case whence::kSet: hostWhence = SEEK_SET; break;
    case whence::kCur: hostWhence = SEEK_CUR; break;
    case whence::kEnd: hostWhence = SEEK_END; break;
    default: return toGuest(Errno::Inval);
  }
  if (file->isHostStdio() && !(hostWhence == SEEK_CUR && offset == 0))
    return toGuest(Errno::Spipe);
  // The filedelta is signed; wasm2c hands it over as its two's complement.
  off_t result = ::lseek(file->hostFd(), static_cast<off_t>(offset), hostWhence);
  if (result < 0) return hostError();
  storeGuest<uint64_t>(newOffset, uint64_t(result));
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_tell(WasiInstance* instance, uint32_t fd,
                                           uint32_t offsetOut) {
  Granule& granule = Granule::fromHost(instance);
  uint8_t* offset = granule.guestBytes(offsetOut, 8);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file) return toGuest(Errno::Badf);
  off_t result = ::lseek(file->hostFd(), 0, SEEK_CUR);
  if (result < 0) return hostError();
  storeGuest<uint64_t>(offset, uint64_t(result));
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_close(WasiInstance* instance, uint32_t fd) {
  return toGuest(wasiState(Granule::fromHost(instance)).close(fd));
}

uint32_t Z_wasi_snapshot_preview1Z_fd_renumber(WasiInstance* instance, uint32_t from,
                                               uint32_t to) {
  return toGuest(wasiState(Granule::fromHost(instance)).renumber(from, to));
}

uint32_t Z_wasi_snapshot_preview1Z_fd_sync(WasiInstance* instance, uint32_t fd) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  return ::fsync(file->hostFd()) == 0 ? success() : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_datasync(WasiInstance* instance, uint32_t fd) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  return ::fdatasync(file->hostFd()) == 0 ? success() : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_advise(WasiInstance* instance, uint32_t fd,
                                             uint64_t offset, uint64_t length, uint32_t adviceKind) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  // WASI and Linux number SEQUENTIAL and RANDOM the other way round.
  int hostAdvice;
  switch (adviceKind) {
    case advice::kNormal: hostAdvice = POSIX_FADV_NORMAL; break;
    case advice::kSequential: hostAdvice = POSIX_FADV_SEQUENTIAL; break;
    case advice::kRandom: hostAdvice = POSIX_FADV_RANDOM; break;
    case advice::kWillNeed: hostAdvice = POSIX_FADV_WILLNEED; break;
    case advice::kDontNeed: hostAdvice = POSIX_FADV_DONTNEED; break;
    case advice::kNoReuse: hostAdvice = POSIX_FADV_NOREUSE; break;
    default: return toGuest(Errno::Inval);
  }
  if (!fitsOffset(offset) || !fitsOffset(length)) return toGuest(Errno::Inval);
  int error = ::posix_fadvise(file->hostFd(), off_t(offset), off_t(length), hostAdvice);
  return toGuest(errnoFromHost(error));
}

uint32_t Z_wasi_snapshot_preview1Z_fd_allocate(WasiInstance* instance, uint32_t fd,
                                               uint64_t offset, uint64_t length) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  if (Errno refused = refusedChange(*file); refused != Errno::Success) return toGuest(refused);
  if (!fitsOffset(offset) || !fitsOffset(length)) return toGuest(Errno::Inval);
  int error = ::posix_fallocate(file->hostFd(), off_t(offset), off_t(length));
  return toGuest(errnoFromHost(error));
}

uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(WasiInstance* instance, uint32_t fd,
                                                 uint32_t statOut) {
  Granule& granule = Granule::fromHost(instance);
  uint8_t* out = granule.guestBytes(statOut, layout::kFdstatSize);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file) return toGuest(Errno::Badf);
  int status = ::fcntl(file->hostFd(), F_GETFL);
  if (status < 0) return hostError();
  uint16_t flags = 0;
  if (status & O_APPEND) flags |= fdflags::kAppend;
  if (status & O_NONBLOCK) flags |= fdflags::kNonblock;
  // Linux's O_SYNC includes the O_DSYNC bit, and O_RSYNC equals O_SYNC.
  if ((status & O_SYNC) == O_SYNC) flags |= fdflags::kSync | fdflags::kRsync;
  else if (status & O_DSYNC) flags |= fdflags::kDsync;
  std::memset(out, 0, layout::kFdstatSize);
  storeGuest<uint8_t>(out + layout::kFdstatFiletype, static_cast<uint8_t>(file->filetype()));
  storeGuest<uint16_t>(out + layout::kFdstatFlags, flags);
  storeGuest<uint64_t>(out + layout::kFdstatRightsBase, file->rightsBase());
  storeGuest<uint64_t>(out + layout::kFdstatRightsInheriting, file->rightsInheriting());
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(WasiInstance* instance, uint32_t fd,
                                                       uint32_t flags) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  if (file->isHostStdio()) return toGuest(Errno::Perm);
  // Linux's F_SETFL silently ignores the synchronisation flags; say so.
  if (flags & (fdflags::kDsync | fdflags::kRsync | fdflags::kSync)) return toGuest(Errno::NotSup);
  int status = ::fcntl(file->hostFd(), F_GETFL);
  if (status < 0) return hostError();
  status &= ~(O_APPEND | O_NONBLOCK);
  if (flags & fdflags::kAppend) status |= O_APPEND;
  if (flags & fdflags::kNonblock) status |= O_NONBLOCK;
  return ::fcntl(file->hostFd(), F_SETFL, status) == 0 ? success() : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(WasiInstance* instance, uint32_t fd,
                                                        uint64_t base, uint64_t inheriting) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  // Rights can only shrink.
  if ((base & ~file->rightsBase()) || (inheriting & ~file->rightsInheriting()))
    return toGuest(Errno::NotCapable);
  file->restrictRights(base, inheriting);
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_get(WasiInstance* instance, uint32_t fd,
                                                   uint32_t statOut) {
  Granule& granule = Granule::fromHost(instance);
  uint8_t* out = granule.guestBytes(statOut, layout::kFilestatSize);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file) return toGuest(Errno::Badf);
  struct stat info;
  if (::fstat(file->hostFd(), &info) != 0) return hostError();
  storeFilestat(out, info);
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_size(WasiInstance* instance, uint32_t fd,
                                                        uint64_t size) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  if (Errno refused = refusedChange(*file); refused != Errno::Success) return toGuest(refused);
  if (!fitsOffset(size)) return toGuest(Errno::Inval);
  return retryInterrupted([&] { return ::ftruncate(file->hostFd(), off_t(size)); }) == 0
             ? success()
             : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_times(WasiInstance* instance, uint32_t fd,
                                                         uint64_t accessTime,
                                                         uint64_t modifyTime, uint32_t flags) {
  FileDescriptor* file = wasiState(Granule::fromHost(instance)).find(fd);
  if (!file) return toGuest(Errno::Badf);
  if (Errno refused = refusedChange(*file); refused != Errno::Success) return toGuest(refused);
  struct timespec times[2];
  if (Errno e = timesFromWasi(accessTime, modifyTime, flags, times); e != Errno::Success)
    return toGuest(e);
  return ::futimens(file->hostFd(), times) == 0 ? success() : hostError();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_get(WasiInstance* instance, uint32_t fd,
                                                  uint32_t prestatOut) {
  Granule& granule = Granule::fromHost(instance);
  uint8_t* out = granule.guestBytes(prestatOut, layout::kPrestatSize);
  FileDescriptor* file = wasiState(granule).find(fd);
  // wasi-libc scans fds from 3 upwards and stops at the first EBADF, so every
  // descriptor that is not a preopen must answer exactly that.
  if (!file || !file->preopenName()) return toGuest(Errno::Badf);
  std::memset(out, 0, layout::kPrestatSize);
  storeGuest<uint8_t>(out, kPreopentypeDir);
  storeGuest<uint32_t>(out + layout::kPrestatNameLen,
                       static_cast<uint32_t>(file->preopenName()->size()));
  return success();
}

uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(WasiInstance* instance, uint32_t fd,
                                                       uint32_t path, uint32_t length) {
  Granule& granule = Granule::fromHost(instance);
  uint8_t* out = granule.guestBytes(path, length);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file || !file->preopenName()) return toGuest(Errno::Badf);
  const std::string& name = *file->preopenName();
  if (length < name.size()) return toGuest(Errno::NameTooLong);
  std::copy(name.begin(), name.end(), out);
  return success();
}

// Fills the guest buffer with (dirent header, name) records starting after
// `cookie`. The last record may be cut short at the end of the buffer; a
// buffer filled to the last byte tells the guest to call again from the last
// complete record's d_next.
uint32_t Z_wasi_snapshot_preview1Z_fd_readdir(WasiInstance* instance, uint32_t fd, uint32_t buf,
                                              uint32_t length, uint64_t cookie,
                                              uint32_t usedOut) {
  Granule& granule = Granule::fromHost(instance);
  uint8_t* out = granule.guestBytes(buf, length);
  uint8_t* used = granule.guestBytes(usedOut, 4);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file) return toGuest(Errno::Badf);
  DIR* dir = file->directoryStream();
  if (!dir) return hostError();
  // Cookies are telldir() positions; 0 is the start.
  if (cookie == 0) ::rewinddir(dir);
  else ::seekdir(dir, static_cast<long>(cookie));

  uint32_t filled = 0;
  while (filled < length) {
    errno = 0;
    const dirent* entry = ::readdir(dir);
    if (!entry) {
      if (errno != 0) return hostError();
      break;
    }
    uint32_t nameLength = static_cast<uint32_t>(std::strlen(entry->d_name));
    uint8_t header[layout::kDirentSize] = {};
    storeGuest<uint64_t>(header + layout::kDirentNext, uint64_t(::telldir(dir)));
    storeGuest<uint64_t>(header + layout::kDirentIno, uint64_t(entry->d_ino));
    storeGuest<uint32_t>(header + layout::kDirentNamlen, nameLength);
    storeGuest<uint8_t>(header + layout::kDirentType,
                        static_cast<uint8_t>(filetypeOfDirent(dir, entry)));
    uint32_t headerBytes = std::min<uint32_t>(layout::kDirentSize, length - filled);
    std::memcpy(out + filled, header, headerBytes);
    filled += headerBytes;
    uint32_t nameBytes = std::min<uint32_t>(nameLength, length - filled);
    std::memcpy(out + filled, entry->d_name, nameBytes);
    filled += nameBytes;
  }
  storeGuest<uint32_t>(used, filled);
  return success();
}

}  // extern "C"
