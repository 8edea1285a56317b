//===- OpenFileRecord.h - a rank's open files in a checkpoint ---------------===//
//
// A checkpoint holds, for each rank, the files its WASI descriptor table
// has open beyond stdio and the --dir preopens: the guest's descriptor
// number, the grant it was opened beneath and its path below that grant's
// directory (where the file is at the checkpoint, symbolic links resolved,
// so a rename since it was opened is followed), its access mode and flags,
// its rights and its offset. `--resume` reopens each one through the
// sandbox's own resolver beneath the same grant (never creating or
// truncating on open; a path that now leads out of the grant through a
// symbolic link is refused, as a guest's own open would be), gives it the
// same number, rights and read-only state, and seeks it.
//
// Bytes a rank wrote to a file after the checkpoint are taken back, as
// stdout's are: a regular file open for writing is cut back to its length
// at the checkpoint, and the resumed ranks write them again. Only files
// open at the checkpoint are cut back; one the job opened, wrote and closed
// after it keeps what the killed run wrote. A directory needs no position:
// fd_readdir's cookie lives in guest memory and every call seeks by it.
//
// Some descriptors cannot be recorded (a socket, a file that was deleted
// or moved out of its grant, stdio or a preopen that the guest closed or
// renumbered): the checkpoint still serves a rewind in this process, and
// captureOpenFiles returns the reason `--resume` refuses the file with.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "checkpoint/CheckpointFile.h"
#include "sandbox/Grant.h"

namespace synergy::granule {
class Granule;
}

namespace synergy::checkpoint {

// The open files of `granule` (a job with `grantCount` --dir grants), in
// increasing descriptor order; returns why they cannot all be recorded, or
// empty.
std::string captureOpenFiles(granule::Granule& granule, size_t grantCount,
                             std::vector<OpenFile>& files);

// Checks, without changing anything, that every file of `files` can be
// reopened beneath its grant of `grants` as restoreOpenFiles will, and is
// at least as long as it must be cut back to. False with a one-line
// `error` when not.
bool checkOpenFiles(const std::vector<sandbox::Grant>& grants, const std::vector<OpenFile>& files,
                    std::string& error);

// Reopens `files` into the WASI table of `granule` (fresh, with the job's
// preopens), cutting writable regular files back to their recorded length.
bool restoreOpenFiles(granule::Granule& granule, const std::vector<OpenFile>& files,
                      std::string& error);

}  // namespace synergy::checkpoint
