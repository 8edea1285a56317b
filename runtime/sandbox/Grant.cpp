//===- Grant.cpp - a host directory a guest may see (--dir) ----------------===//
//
// Parses the --dir syntax documented in Grant.h. The split is on every ':',
// so a spec has one, two or three fields and never more.
//
//===----------------------------------------------------------------------===//
#include "sandbox/Grant.h"

#include <vector>

namespace synergy::sandbox {

static std::vector<std::string> splitOnColons(const std::string& spec) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t colon = spec.find(':', start);
    fields.push_back(spec.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) return fields;
    start = colon + 1;
  }
}

std::optional<Grant> parseGrant(const std::string& spec, std::string& error) {
  std::vector<std::string> fields = splitOnColons(spec);
  if (fields.size() > 3) {
    error = "expected HOST[:GUEST][:ro], got '" + spec + "' (host paths cannot contain ':')";
    return std::nullopt;
  }
  Grant grant;
  grant.hostPath = fields[0];
  if (grant.hostPath.empty()) {
    error = "no host directory in '" + spec + "'";
    return std::nullopt;
  }
  if (fields.size() == 2 && (fields[1] == "ro" || fields[1] == "rw")) {
    error = "'" + spec + "' is ambiguous: write " + grant.hostPath + "::" + fields[1] +
            " for the same name, or " + grant.hostPath + ":GUEST:" + fields[1];
    return std::nullopt;
  }
  if (fields.size() == 3) {
    if (fields[2] != "ro" && fields[2] != "rw") {
      error = "the access of '" + spec + "' must be 'ro' or 'rw', got '" + fields[2] + "'";
      return std::nullopt;
    }
    grant.readOnly = fields[2] == "ro";
  }
  grant.guestPath = fields.size() > 1 && !fields[1].empty() ? fields[1] : grant.hostPath;
  return grant;
}

}  // namespace synergy::sandbox
