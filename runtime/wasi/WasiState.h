//===- WasiState.h - one granule's WASI descriptor table -------------------===//
//
// The guest's file descriptors: 0, 1 and 2 are the host's own stdio (never
// closed by us, and protected: see FileDescriptor::isHostStdio), then one descriptor per `--dir` preopen starting at 3 in the
// order given, then whatever path_open hands out (lowest free number first).
// Each entry records the host fd plus what WASI reports about it: file type
// and rights. The table hangs on the granule as a HostExtension, created on
// the first WASI call, and is used only from the granule's own thread.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <dirent.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "granule/Granule.h"
#include "sandbox/GrantRoots.h"
#include "wasi/WasiAbi.h"

namespace synergy::wasi {

class FileDescriptor {
 public:
  FileDescriptor(int hostFd, bool ownsHostFd);
  FileDescriptor(FileDescriptor&& other) noexcept;
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();

  int hostFd() const { return hostFd_; }
  Filetype filetype() const { return filetype_; }
  uint64_t rightsBase() const { return rightsBase_; }
  uint64_t rightsInheriting() const { return rightsInheriting_; }
  void restrictRights(uint64_t base, uint64_t inheriting) {
    rightsBase_ &= base;
    rightsInheriting_ &= inheriting;
  }

  // Set on a read-only grant's preopen and on everything opened beneath it:
  // every call that would change a file there fails with EROFS. Its base
  // rights lack rights::kModifying, so fd_fdstat_get tells the guest as
  // much. The inheriting rights keep them: wasi-libc masks what it asks
  // path_open for with them, and would silently open "r+" read-only instead
  // of letting path_open refuse it with EROFS.
  bool readOnly() const { return readOnly_; }
  void makeReadOnly() {
    readOnly_ = true;
    restrictRights(~rights::kModifying, rightsInheriting_);
  }

  // Set on fds 0-2, the host's own stdio, which the parent process shares:
  // the guest may read and write them but not change their flags, length,
  // times or offset (see FdFunctions.cpp).
  bool isHostStdio() const { return isHostStdio_; }
  void makeHostStdio() {
    isHostStdio_ = true;
    restrictRights(~rights::kHostStdioReserved, ~rights::kHostStdioReserved);
  }

  // Set for preopened directories: the name fd_prestat_dir_name reports.
  const std::optional<std::string>& preopenName() const { return preopenName_; }
  void setPreopenName(std::string name) { preopenName_ = std::move(name); }

  // The --dir grant (its index among the preopens) this descriptor is, or
  // was opened beneath; nullopt for stdio. A checkpoint records it so that
  // `--resume` reopens the file beneath the same grant.
  const std::optional<uint32_t>& grant() const { return grant_; }
  void setGrant(uint32_t grant) { grant_ = grant; }

  // A directory stream over a duplicate of the host fd, opened on first
  // fd_readdir. Returns nullptr with errno set when it cannot be opened.
  DIR* directoryStream();

 private:
  void release();

  int hostFd_ = -1;
  bool ownsHostFd_ = false;
  Filetype filetype_ = Filetype::Unknown;
  uint64_t rightsBase_ = 0;
  uint64_t rightsInheriting_ = 0;
  std::optional<std::string> preopenName_;
  std::optional<uint32_t> grant_;
  bool readOnly_ = false;
  bool isHostStdio_ = false;
  DIR* directory_ = nullptr;
};

class WasiState : public granule::HostExtension {
 public:
  explicit WasiState(granule::Granule& granule);

  // Non-empty when a preopen could not be opened; the guest is trapped with
  // it on its first WASI call rather than run without its directories.
  const std::string& startupError() const { return startupError_; }

  FileDescriptor* find(uint32_t fd);
  // The lowest free descriptor number, or nullopt when the table is full.
  std::optional<uint32_t> insert(FileDescriptor file);
  Errno close(uint32_t fd);
  // Puts `file` at number `fd`, which must be free and below the table's
  // limit (a resumed checkpoint's files keep their numbers); false if not.
  bool insertAt(uint32_t fd, FileDescriptor file);
  // One past the highest descriptor number in use.
  uint32_t end() const { return static_cast<uint32_t>(table_.size()); }
  Errno renumber(uint32_t from, uint32_t to);

  // The preopens' directories, for the calls that must know whether a
  // change lands in a read-only grant nested below a writable one.
  const sandbox::GrantRoots& grantRoots() const { return grantRoots_; }

  // The guest's name for the host's current directory when a grant holds
  // it (the innermost one decides), as an absolute guest path; empty when
  // no grant does. synergy-cc's startup code makes it the guest's current
  // directory, so getcwd and relative paths behave as in a native run.
  const std::string& guestWorkingDirectory() const { return guestWorkingDirectory_; }

 private:
  std::vector<std::optional<FileDescriptor>> table_;
  sandbox::GrantRoots grantRoots_;
  std::string startupError_;
  std::string guestWorkingDirectory_;
};

// The granule's WASI state, trapping the guest when its preopens failed.
WasiState& wasiState(granule::Granule& granule);

}  // namespace synergy::wasi
