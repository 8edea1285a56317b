//===- FileTable.h - Verilog file descriptors over host files --------------===//
//
// The files an engine's $fopen opened, numbered as Icarus numbers them so a
// program that prints a descriptor sees vvp's value:
//  - $fopen(name, mode) returns a descriptor 0x8000_0000 | n, n >= 3
//    (0x8000_0000..2 are stdin, stdout and stderr);
//  - $fopen(name) without a mode returns a multichannel descriptor, one bit
//    per file, bit 0 being stdout;
//  - a file that cannot be opened yields 0.
// Names resolve against the working directory, except that a name under a
// directory mapping's guest path (synergy-run --dir HOST:GUEST) is opened
// under HOST instead. Open files are part of a saved
// state: their path, mode and position are recorded and reopened on restart.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace synergy::engine {

struct DirectoryMapping {
  std::string hostPath;
  std::string guestPath;
};

struct OpenFileRecord {
  uint32_t descriptor = 0;
  std::string path;  // as resolved when opened
  std::string mode;
  int64_t position = 0;
};

class FileTable {
 public:
  explicit FileTable(std::vector<DirectoryMapping> mappings = {});
  ~FileTable();
  FileTable(const FileTable&) = delete;
  FileTable& operator=(const FileTable&) = delete;

  // Returns the descriptor, or 0 when the file cannot be opened.
  uint32_t open(const std::string& name, const std::string& mode);
  uint32_t openMultichannel(const std::string& name);
  void close(uint32_t descriptorOrChannels);
  // The stream of a single-file descriptor (stdin/stdout/stderr included);
  // nullptr when it is not open.
  std::FILE* stream(uint32_t descriptor) const;
  // Writes to every file a descriptor or multichannel descriptor names.
  void write(uint32_t descriptorOrChannels, const std::string& text);
  void flush(uint32_t descriptorOrChannels);
  void flushAll();

  // The host path a Verilog file name refers to.
  std::string resolve(const std::string& name) const;

  std::vector<OpenFileRecord> records() const;
  // Reopens saved files at their positions; false (with `error`) if one is gone.
  bool restore(const std::vector<OpenFileRecord>& records, std::string& error);

 private:
  struct OpenFile {
    std::FILE* stream = nullptr;
    std::string path;
    std::string mode;
  };
  std::vector<std::FILE*> streamsFor(uint32_t descriptorOrChannels) const;
  void closeAll();

  std::vector<DirectoryMapping> mappings_;
  std::map<uint32_t, OpenFile> files_;  // by descriptor (either numbering)
};

}  // namespace synergy::engine
