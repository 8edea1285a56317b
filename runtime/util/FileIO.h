//===- FileIO.h - whole-file reads and atomic writes ----------------------===//
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>
#include <string_view>

namespace synergy::util {

// The whole file, or nullopt (with errno set) when it cannot be read.
std::optional<std::string> readFile(const std::string& path);

// The whole of `path` when it is a regular file of at most `maxBytes`, else
// nullopt and a one-line `error` that starts with the path. Devices, FIFOs
// and directories are refused before anything is read.
std::optional<std::string> readRegularFile(const std::string& path, size_t maxBytes,
                                           std::string& error);
// The same from the file open at `fd` (read from where it stands), named
// `path` in the error; `readFrom` gets its fstat from before the read.
std::optional<std::string> readRegularFile(int fd, const std::string& path, size_t maxBytes,
                                           struct stat& readFrom, std::string& error);
// readRegularFile into `contents`, whose capacity it reuses: a caller that
// reads files of a similar size again and again (part 0 of a cluster
// checkpoint, the other parts' files) maps their pages once. False with
// `error` as above.
bool readRegularFileInto(const std::string& path, size_t maxBytes, std::string& contents,
                         std::string& error);

// Writes through a temporary in the same directory and renames it into place,
// so readers never see a partial file. Returns false on failure.
bool writeFileAtomically(const std::string& path, const std::string& contents);

// Writes all of `bytes` to `fd`, retrying after EINTR and short writes;
// false (errno set) when a write fails.
bool writeAll(int fd, std::string_view bytes);

// mkdir -p. Returns false on failure.
bool makeDirectories(const std::string& path);

}  // namespace synergy::util
