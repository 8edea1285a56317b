//===- WasiState.cpp - one granule's WASI descriptor table -----------------===//
//
// Rights are derived from what the host fd can really do, because wasi-libc
// reads them back: fcntl(F_GETFL) turns FD_READ/FD_WRITE into the access mode,
// and isatty() is "a character device without FD_SEEK/FD_TELL", which decides
// whether stdout is line-buffered.
//
//===----------------------------------------------------------------------===//
#include "wasi/WasiState.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "wasi/FileMetadata.h"
#include "wasi/Wasi.h"

namespace synergy::wasi {

// Descriptor numbers above this are refused with EMFILE, so a leaking guest
// exhausts its own table before the host's.
static constexpr uint32_t kMaxDescriptors = 4096;

FileDescriptor::FileDescriptor(int hostFd, bool ownsHostFd)
    : hostFd_(hostFd), ownsHostFd_(ownsHostFd) {
  struct stat info;
  if (::fstat(hostFd, &info) == 0) filetype_ = filetypeOfMode(info.st_mode);

  rightsBase_ = rights::kAll;
  rightsInheriting_ = rights::kAll;
  int status = ::fcntl(hostFd, F_GETFL);
  if (status >= 0) {
    int access = status & O_ACCMODE;
    if (access == O_RDONLY) rightsBase_ &= ~rights::kWriting;
    if (access == O_WRONLY) rightsBase_ &= ~rights::kReading;
  }
  if (filetype_ == Filetype::CharacterDevice && ::isatty(hostFd))
    rightsBase_ &= ~(rights::kFdSeek | rights::kFdTell);
}

FileDescriptor::FileDescriptor(FileDescriptor&& other) noexcept
    : hostFd_(std::exchange(other.hostFd_, -1)),
      ownsHostFd_(std::exchange(other.ownsHostFd_, false)),
      filetype_(other.filetype_),
      rightsBase_(other.rightsBase_),
      rightsInheriting_(other.rightsInheriting_),
      preopenName_(std::move(other.preopenName_)),
      grant_(other.grant_),
      readOnly_(other.readOnly_),
      isHostStdio_(other.isHostStdio_),
      directory_(std::exchange(other.directory_, nullptr)) {}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    release();
    hostFd_ = std::exchange(other.hostFd_, -1);
    ownsHostFd_ = std::exchange(other.ownsHostFd_, false);
    filetype_ = other.filetype_;
    rightsBase_ = other.rightsBase_;
    rightsInheriting_ = other.rightsInheriting_;
    preopenName_ = std::move(other.preopenName_);
    grant_ = other.grant_;
    readOnly_ = other.readOnly_;
    isHostStdio_ = other.isHostStdio_;
    directory_ = std::exchange(other.directory_, nullptr);
  }
  return *this;
}

FileDescriptor::~FileDescriptor() { release(); }

void FileDescriptor::release() {
  if (directory_) ::closedir(std::exchange(directory_, nullptr));
  if (ownsHostFd_ && hostFd_ >= 0) ::close(hostFd_);
  hostFd_ = -1;
  ownsHostFd_ = false;
}

DIR* FileDescriptor::directoryStream() {
  if (directory_) return directory_;
  // A duplicate, because closedir closes the fd it was given.
  int duplicate = ::fcntl(hostFd_, F_DUPFD_CLOEXEC, 0);
  if (duplicate < 0) return nullptr;
  directory_ = ::fdopendir(duplicate);
  if (!directory_) {
    int saved = errno;
    ::close(duplicate);
    errno = saved;
  }
  return directory_;
}

// Opens a preopen's host directory, or returns -1 and says why in `error`.
static int openPreopen(const granule::Preopen& preopen, std::string& error) {
  int fd = ::open(preopen.hostPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) error = "cannot open --dir " + preopen.hostPath + ": " + std::strerror(errno);
  return fd;
}

std::optional<std::string> checkPreopens(const granule::GranuleConfig& config) {
  for (const granule::Preopen& preopen : config.preopens) {
    std::string error;
    int fd = openPreopen(preopen, error);
    if (fd < 0) return error;
    ::close(fd);
  }
  return std::nullopt;
}

namespace {

// A host path with symbolic links, "." and ".." resolved, or empty.
std::string canonicalHostPath(const char* path) {
  char* resolved = ::realpath(path, nullptr);
  if (!resolved) return {};
  std::string canonical(resolved);
  std::free(resolved);
  return canonical;
}

// The part of `path` below `directory` ("" for the directory itself, else
// starting with '/'), or nullopt when `path` is not inside it. Both are
// canonical.
std::optional<std::string> pathBelow(const std::string& path, const std::string& directory) {
  if (directory == "/") return path == "/" ? std::string() : path;
  if (path.compare(0, directory.size(), directory) != 0) return std::nullopt;
  if (path.size() == directory.size()) return std::string();
  if (path[directory.size()] != '/') return std::nullopt;
  return path.substr(directory.size());
}

// wasi-libc matches paths against preopen names without their leading "/"
// and "./", so every guest name is absolute to it: "data" is "/data".
std::string absoluteGuestName(const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    if (name[start] == '/') {
      ++start;
    } else if (name.compare(start, 2, "./") == 0) {
      start += 2;
    } else if (name.compare(start, std::string::npos, ".") == 0) {
      ++start;
    } else {
      break;
    }
  }
  size_t end = name.size();
  while (end > start && name[end - 1] == '/') --end;
  return "/" + name.substr(start, end - start);
}

}  // namespace

WasiState::WasiState(granule::Granule& granule) {
  for (int stdioFd = 0; stdioFd <= 2; ++stdioFd) {
    FileDescriptor stdio(stdioFd, /*ownsHostFd=*/false);
    stdio.makeHostStdio();
    table_.emplace_back(std::move(stdio));
  }

  std::string hostWorkingDirectory = canonicalHostPath(".");
  size_t innermostGrant = 0;
  for (const granule::Preopen& preopen : granule.config().preopens) {
    int fd = openPreopen(preopen, startupError_);
    if (fd < 0) return;
    grantRoots_.add(fd, preopen.readOnly);
    std::string hostPath = canonicalHostPath(preopen.hostPath.c_str());
    std::optional<std::string> below;
    if (!hostWorkingDirectory.empty() && !hostPath.empty())
      below = pathBelow(hostWorkingDirectory, hostPath);
    // `--dir .` (or `--dir ..`) grants a directory holding the current one
    // under a relative name; it is seen under its host path instead, as
    // `--dir $PWD` is, so that getcwd can name the current directory and
    // absolute paths into it work as on the host. An explicit guest name
    // (`--dir .:/work`) is kept.
    std::string guestName = preopen.guestPath;
    if (below && preopen.guestPath == preopen.hostPath && preopen.guestPath.front() != '/')
      guestName = hostPath;
    if (below && hostPath.size() >= innermostGrant) {
      std::string guestPath = absoluteGuestName(guestName);
      guestWorkingDirectory_ = guestPath == "/" && !below->empty() ? *below : guestPath + *below;
      innermostGrant = hostPath.size();
    }
    FileDescriptor directory(fd, /*ownsHostFd=*/true);
    directory.setPreopenName(guestName);
    directory.setGrant(static_cast<uint32_t>(table_.size() - 3));
    if (preopen.readOnly) directory.makeReadOnly();
    table_.emplace_back(std::move(directory));
  }
}

FileDescriptor* WasiState::find(uint32_t fd) {
  if (fd >= table_.size() || !table_[fd]) return nullptr;
  return &*table_[fd];
}

std::optional<uint32_t> WasiState::insert(FileDescriptor file) {
  for (uint32_t fd = 0; fd < table_.size(); ++fd) {
    if (!table_[fd]) {
      table_[fd] = std::move(file);
      return fd;
    }
  }
  if (table_.size() >= kMaxDescriptors) return std::nullopt;
  table_.emplace_back(std::move(file));
  return static_cast<uint32_t>(table_.size() - 1);
}

bool WasiState::insertAt(uint32_t fd, FileDescriptor file) {
  if (fd >= kMaxDescriptors || find(fd)) return false;
  if (fd >= table_.size()) table_.resize(fd + 1);
  table_[fd] = std::move(file);
  return true;
}

Errno WasiState::close(uint32_t fd) {
  if (!find(fd)) return Errno::Badf;
  table_[fd].reset();
  while (!table_.empty() && !table_.back()) table_.pop_back();
  return Errno::Success;
}

Errno WasiState::renumber(uint32_t from, uint32_t to) {
  if (!find(from) || !find(to)) return Errno::Badf;
  if (from == to) return Errno::Success;
  table_[to] = std::move(table_[from]);
  return close(from);
}

WasiState& wasiState(granule::Granule& granule) {
  WasiState& state = granule.extension<WasiState>();
  if (!state.startupError().empty()) granule.trap(state.startupError());
  return state;
}

}  // namespace synergy::wasi
