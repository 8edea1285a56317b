//===- JobGrants.h - A job's --dir grants on the host that runs it --------===//
//
// A cluster job may carry --dir grants (JobMessages.h), but a daemon writes
// files only where its operator allows: `synergyd --allow-dir PATH`, each
// resolved to its canonical path when the daemon starts. Before a job runs,
// the host opens every granted directory itself (a relative one from the
// client's working directory), reads back the canonical path of what it
// actually opened, and refuses the job unless that lies inside an allowed
// directory. The job's process then gets the open descriptors and opens
// each grant through /proc/self/fd, never the path again, so a symbolic
// link swapped in after the check changes nothing: the grant is the
// directory that was checked.
//
// The grants keep their single-host meaning (README, --dir): the job runs
// in the client's working directory, and a grant given without a guest name
// keeps the name the local synergy-run would show (a relative one that holds
// the working directory, like `--dir .`, under its canonical host path).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/JobMessages.h"
#include "sandbox/UniqueFd.h"

namespace synergy::cluster {

// The canonical form of an --allow-dir directory, or nullopt with a
// one-line `error` when it is not an existing directory.
std::optional<std::string> canonicalAllowedDirectory(const std::string& path, std::string& error);

// A job's grants, opened and checked on this host.
struct OpenedGrants {
  // The client's working directory, when it exists here; the job runs in it.
  sandbox::UniqueFd workingDirectory;
  // One entry per grant, in the job's order.
  std::vector<sandbox::UniqueFd> directories;
  std::vector<std::string> guestPaths;
  std::vector<bool> readOnly;

  // The --dir value for grant i when its directory is descriptor `fd` of
  // the job's process: /proc/self/fd/FD:GUEST:ro|rw.
  std::string specFor(size_t i, int fd) const;
};

// Opens `request`'s grants; false with a one-line `reason` naming the path
// when one cannot be opened or lies outside every `allowed` directory
// (canonical paths, from canonicalAllowedDirectory).
bool openJobGrants(const RunJobRequest& request, const std::vector<std::string>& allowed,
                   OpenedGrants& grants, std::string& reason);

// A job's checkpoint directory (RunJobRequest::checkpointDirectory), which
// its part writes to and reads from: it must lie inside a directory the
// operator allows, like a --dir grant; on success it is replaced by its
// canonical path. Nothing to check without one.
//
// With a `checkpointRoot` (synergyd --checkpoint-root, canonical) the
// directory is this host's own instead: the client's absolute path taken
// as a path below the root (D = /x/y is ROOT/x/y), created as needed, and
// the --allow-dir directories do not apply. Every host of a spread job
// then has its own copy of the name, so a lost host does not take the
// only checkpoint with it (CheckpointAgreement.h).
bool allowCheckpointDirectory(RunJobRequest& request, const std::vector<std::string>& allowed,
                              const std::string& checkpointRoot, std::string& reason);
// The canonical form of a --checkpoint-root directory, or nullopt with a
// one-line `error` when it is not an existing directory.
std::optional<std::string> canonicalCheckpointRoot(const std::string& path, std::string& error);

}  // namespace synergy::cluster
