//===- Grant.h - a host directory a guest may see (--dir) ------------------===//
//
// A grant makes one host directory visible to a granule or an engine under a
// guest name, read-write or read-only. synergy-run spells it
//
//   --dir HOST            HOST, seen under the same name, read-write
//   --dir HOST:GUEST      HOST, seen as GUEST, read-write
//   --dir HOST:GUEST:ro   HOST, seen as GUEST, read-only
//   --dir HOST::ro        HOST, seen under the same name, read-only
//
// `HOST:ro` and `HOST:rw` are refused as ambiguous (a guest directory named
// "ro", or a read-only grant?), so a forgotten colon never silently turns a
// read-only grant into a writable one. Host paths cannot contain ':'.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>

namespace synergy::sandbox {

struct Grant {
  std::string hostPath;
  std::string guestPath;
  bool readOnly = false;
};

// The grant `spec` describes, or nullopt with a one-line `error` (without
// the "--dir: " prefix) when it is malformed. Whether HOST exists is checked
// where the directory is opened.
std::optional<Grant> parseGrant(const std::string& spec, std::string& error);

}  // namespace synergy::sandbox
