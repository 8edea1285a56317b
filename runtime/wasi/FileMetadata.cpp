//===- FileMetadata.cpp - host file metadata in WASI form ------------------===//
//
// WASI has no FIFO file type, so pipes report Filetype::Unknown. Times are
// nanoseconds since the epoch, as the host keeps them.
//
//===----------------------------------------------------------------------===//
#include "wasi/FileMetadata.h"

#include <fcntl.h>

#include <cstring>

namespace synergy::wasi {

Filetype filetypeOfMode(mode_t mode) {
  if (S_ISREG(mode)) return Filetype::RegularFile;
  if (S_ISDIR(mode)) return Filetype::Directory;
  if (S_ISCHR(mode)) return Filetype::CharacterDevice;
  if (S_ISBLK(mode)) return Filetype::BlockDevice;
  if (S_ISLNK(mode)) return Filetype::SymbolicLink;
  if (S_ISSOCK(mode)) return Filetype::SocketStream;
  return Filetype::Unknown;
}

static uint64_t nanoseconds(const struct timespec& t) {
  return uint64_t(t.tv_sec) * 1'000'000'000ull + uint64_t(t.tv_nsec);
}

void storeFilestat(uint8_t* out, const struct stat& info) {
  std::memset(out, 0, layout::kFilestatSize);
  storeGuest<uint64_t>(out + layout::kFilestatDev, uint64_t(info.st_dev));
  storeGuest<uint64_t>(out + layout::kFilestatIno, uint64_t(info.st_ino));
  storeGuest<uint8_t>(out + layout::kFilestatFiletype,
                      static_cast<uint8_t>(filetypeOfMode(info.st_mode)));
  storeGuest<uint64_t>(out + layout::kFilestatNlink, uint64_t(info.st_nlink));
  storeGuest<uint64_t>(out + layout::kFilestatSizeField, uint64_t(info.st_size));
  storeGuest<uint64_t>(out + layout::kFilestatAtim, nanoseconds(info.st_atim));
  storeGuest<uint64_t>(out + layout::kFilestatMtim, nanoseconds(info.st_mtim));
  storeGuest<uint64_t>(out + layout::kFilestatCtim, nanoseconds(info.st_ctim));
}

static Errno oneTime(uint64_t value, bool given, bool useNow, struct timespec& out) {
  if (given && useNow) return Errno::Inval;
  if (useNow) {
    out = {0, UTIME_NOW};
  } else if (given) {
    out.tv_sec = static_cast<time_t>(value / 1'000'000'000ull);
    out.tv_nsec = static_cast<long>(value % 1'000'000'000ull);
  } else {
    out = {0, UTIME_OMIT};
  }
  return Errno::Success;
}

Errno timesFromWasi(uint64_t accessTime, uint64_t modifyTime, uint32_t flags,
                    struct timespec times[2]) {
  if (Errno e = oneTime(accessTime, flags & fstflags::kAtim, flags & fstflags::kAtimNow, times[0]);
      e != Errno::Success)
    return e;
  return oneTime(modifyTime, flags & fstflags::kMtim, flags & fstflags::kMtimNow, times[1]);
}

}  // namespace synergy::wasi
