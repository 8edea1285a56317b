//===- ReadmemFile.h - The words of a $readmemh/$readmemb file ------------===//
//
// The one reading of a $readmemh/$readmemb data file: the runtime loads it
// into an engine's memory when the task traps, and foldConstantVariables
// loads it at compile time into a ROM's initial contents. Sharing it is what
// keeps the two loads identical.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace synergy::hwlower {

struct ReadmemWord {
  int64_t address = 0;  // Verilog index
  std::string digits;   // the word as written in the file
};

struct ReadmemLoad {
  std::vector<ReadmemWord> words;  // in file order
  bool sawAddress = false;         // the file has an @address record
  int64_t first = 0;               // where the load began
  int64_t next = 0;                // the address after the last word
  bool stoppedEarly = false;       // at a word outside the range (vvp may warn)
};

// Whitespace-separated words, // and /* */ comments, and @address records
// (hex, parsed by `parseAddress`), into consecutive addresses from `first`.
// The load stops at the first word outside [lowest, highest] or past `last`.
ReadmemLoad parseReadmem(const std::string& text, int64_t first, int64_t last, int64_t lowest, int64_t highest,
                         const std::function<int64_t(const std::string&)>& parseAddress);

// vvp warns (on stdout) when a file without @ records leaves the range short.
inline bool readmemLeavesRangeShort(const ReadmemLoad& load, int64_t last) {
  return !load.sawAddress && load.next <= last;
}

}  // namespace synergy::hwlower
