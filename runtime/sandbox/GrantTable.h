//===- GrantTable.h - open guest file names under the --dir grants ---------===//
//
// The engine's view of the file system: a guest file name (what a design
// passes to $fopen, $readmemh or $save) is matched against the grants' guest
// names, longest first, and the rest of it is opened beneath that grant's
// host directory with the sandbox resolver (SandboxPath.h), so `..`, symlinks
// and absolute names cannot leave it. A grant whose guest name is "." holds
// every relative name; without one, a relative name is read against the
// host's current directory (taken when the table is opened), so a grant that
// holds that directory holds it. A name no grant holds is refused as an escape, and a
// read-only grant, or a writable one where the file lies in a read-only grant
// nested below it, refuses every writing, creating or truncating open with
// EROFS.
//
// WASI guests do this matching in wasi-libc, against the preopens; engines
// have no libc, so the runtime does it for them here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/Grant.h"
#include "sandbox/GrantRoots.h"
#include "sandbox/SandboxPath.h"

namespace synergy::sandbox {

class GrantTable {
 public:
  GrantTable() = default;
  GrantTable(GrantTable&&) = default;
  GrantTable& operator=(GrantTable&&) = default;

  // Opens every grant's host directory; nullopt with a one-line `error` when
  // one cannot be opened as a directory.
  static std::optional<GrantTable> open(const std::vector<Grant>& grants, std::string& error);

  // open(2) of the guest file `name` with host `flags` beneath the grant
  // that holds it. `error` is kEscapes when no grant holds it, EROFS when
  // `flags` would write and the file lies in a read-only grant, the one that
  // holds the name or one nested below it (GrantRoots.h).
  OpenedBeneath openGuestFile(std::string_view name, int flags, mode_t mode) const;

  // Replaces the guest file `name` with `contents` all at once: they are
  // written to a new file in the same directory, synced, and renamed over
  // `name`, so a crash leaves the old file or the new one, never a torn
  // one. Returns 0 or an error as openGuestFile's (EISDIR for a directory).
  int replaceGuestFile(std::string_view name, std::string_view contents) const;

  // A one-line reason for an openGuestFile error, for diagnostics.
  static std::string describeError(int error);

 private:
  struct OpenGrant {
    Grant grant;
    std::string guestPrefix;  // guestPath without trailing '/' (except "/")
    UniqueFd directory;
  };
  // The grant that holds `name` and the rest of `name` below it; nullptr
  // when none does.
  const OpenGrant* holderOf(std::string_view name, std::string& remainder) const;

  std::vector<OpenGrant> grants_;
  std::string currentDirectory_;  // the host's, when the table was opened
  GrantRoots roots_;
};

}  // namespace synergy::sandbox
