//===- FileIO.h - whole-file reads, atomic writes, cache location ----------===//
#pragma once

#include <optional>
#include <string>

namespace synergy::util {

// The whole file, or nullopt (with errno set) when it cannot be read.
std::optional<std::string> readFile(const std::string& path);

// Writes through a temporary in the same directory and renames it into place,
// so readers never see a partial file. Returns false on failure.
bool writeFileAtomically(const std::string& path, const std::string& contents);

// mkdir -p. Returns false on failure.
bool makeDirectories(const std::string& path);

// $SYNERGY_CACHE_DIR, else $XDG_CACHE_HOME/synergy, else $HOME/.cache/synergy.
std::string cacheDirectory();

}  // namespace synergy::util
