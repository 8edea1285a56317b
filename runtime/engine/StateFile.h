//===- StateFile.h - the file $save writes and $restart reads --------------===//
//
// A saved engine state: every non-volatile variable by hierarchical name, the
// tick it was taken at, and the runtime's own state (open files with their
// positions, the $random/$urandom seeds). The format is text, versioned, and
// ends in a SHA-256 of everything before it:
//
//   SYNERGY-STATE 1
//   design <sha256 of the saved variables' names, widths and depths>
//   tick <last completed tick>
//   seeds <$random seed> <$urandom seed>
//   file <descriptor> <position> "<mode>" "<path>"        (one per open file)
//   monitor <task id> <on 0|1> "<values it last printed>" (if $monitor ran)
//   var "<name>" <width> <depth> <hex element>...        (depth 0: one element)
//   checksum <sha256 hex>
//
// readSavedState refuses a file with a bad magic, version or checksum, a
// truncated file, or a malformed line, so a caller can check everything
// before applying any of it. Numbers are plain decimal digits within their
// type (no sign, no wrap-around), widths at most 2^20 bits and all variables
// at most 2^31 bits together, so parsing never throws and its allocation is
// bounded. The checksum only catches accidents: anyone can recompute it, so
// what a file names (files, $monitor, ticks) is checked again against the
// design and the grants when it is restored (EngineRunner.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/BitValue.h"
#include "engine/FileTable.h"

namespace synergy::engine {

inline constexpr int kStateFileVersion = 1;

struct SavedVariable {
  std::string name;
  uint32_t width = 0;
  uint64_t depth = 0;               // 0 for a scalar
  std::vector<BitValue> elements;   // one for a scalar, depth for a memory
};

struct SavedState {
  std::string designSignature;
  uint64_t tick = 0;
  int32_t randomSeed = 0;
  int32_t urandomSeed = 0;
  std::vector<OpenFileRecord> files;
  uint32_t monitorTask = 0;  // 0: $monitor never ran
  bool monitorOn = true;
  std::string monitorValues;
  std::vector<SavedVariable> variables;
};

// The signature of a set of variables: what a restart must match.
std::string designSignature(const std::vector<SavedVariable>& variables);

std::string serializeSavedState(const SavedState& state);
std::optional<SavedState> parseSavedState(const std::string& text, std::string& error);

// Written through a temporary and a rename: a crash never leaves half a file.
bool writeSavedState(const std::string& path, const SavedState& state, std::string& error);
std::optional<SavedState> readSavedState(const std::string& path, std::string& error);

}  // namespace synergy::engine
