//===- FileTable.h - Verilog file descriptors over host files --------------===//
//
// The files an engine's $fopen opened, numbered as Icarus numbers them so a
// program that prints a descriptor sees vvp's value:
//  - $fopen(name, mode) returns a descriptor 0x8000_0000 | n, n >= 3
//    (0x8000_0000..2 are stdin, stdout and stderr);
//  - $fopen(name) without a mode returns a multichannel descriptor, one bit
//    per file, bit 0 being stdout;
//  - a file that cannot be opened yields 0.
// Every name goes through the sandbox (sandbox/GrantTable.h): it is opened
// beneath the --dir grant that holds it, and a name outside every grant, or
// a writing mode on a read-only grant, yields 0 as a missing file does, with
// a warning on stderr. Open files are part of a saved state: their guest
// name, mode and position are recorded, and a restart reopens them through
// the same sandbox, never truncating, so a state file can open nothing the
// design could not have opened itself.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "engine/InputStream.h"
#include "sandbox/GrantTable.h"

namespace synergy::engine {

struct OpenFileRecord {
  uint32_t descriptor = 0;
  std::string path;  // the guest name the design opened
  std::string mode;
  int64_t position = 0;
};

class FileTable {
 public:
  explicit FileTable(sandbox::GrantTable grants);
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
  // The same stream as the input tasks read it (InputStream.h); nullptr
  // when it is not open.
  InputStream* input(uint32_t descriptor);
  // Writes to every file a descriptor or multichannel descriptor names.
  void write(uint32_t descriptorOrChannels, const std::string& text);
  void flush(uint32_t descriptorOrChannels);
  void flushAll();
  // stdout is block-buffered when it is a pipe or a file, so a design that
  // prints at once and then computes for seconds would show nothing until it
  // ends. The run loop calls this between ticks and traps: output that has
  // waited kStdoutMaxWait is written out. That changes only when bytes reach
  // the reader, never which bytes or their order.
  static constexpr std::chrono::milliseconds kStdoutMaxWait{50};
  bool stdoutIsWaiting() const { return stdoutWaitingSince_.has_value(); }
  void flushWaitingStdout(std::chrono::steady_clock::time_point now);

  // The whole contents of the regular guest file `name` ($readmemh, ROM
  // checks, $restart), read through the sandbox; nullopt with `error` (an
  // errno, or sandbox::kEscapes) when it cannot be read.
  std::optional<std::string> readGuestFile(const std::string& name, int& error) const;
  // Replaces the guest file `name` with `contents` ($save) by a rename, so
  // a crash never leaves a torn file (GrantTable::replaceGuestFile).
  bool writeGuestFile(const std::string& name, const std::string& contents,
                      std::string& error) const;

  std::vector<OpenFileRecord> records() const;

  // Read-ahead for an engine that runs elsewhere (hypervisor/RemoteEngine.h),
  // which serves reads from the bytes it was sent. The descriptors whose
  // next bytes can be sent ahead: files opened for reading only ("r",
  // "rb"), regular, with neither the end-of-file nor the error flag set, and
  // not open for writing through another descriptor or as stdout or stderr,
  // so nothing but the design's own reads moves them or changes their bytes;
  // nor one with a byte an $ungetc pushed back still unread, which a peek
  // at the file's bytes would not see. After readStdinAhead, stdin too.
  std::vector<uint32_t> readAheadDescriptors();
  // Up to `maxBytes` bytes from such a file's position on, leaving the
  // position and flags as they were; `endsAtEof` tells that the file ends
  // right after them. nullopt when the file cannot be read.
  std::optional<std::string> peekInput(uint32_t descriptor, size_t maxBytes, bool& endsAtEof);
  // The design read `bytes` of what peekInput returned and, when `hitEof`,
  // then read at the file's end: the stream is left as those reads would
  // have left it. False when the descriptor is not one of
  // readAheadDescriptors().
  bool advanceInput(uint32_t descriptor, uint64_t bytes, bool hitEof);
  // A tenant of synergy-hv reads stdin ahead too, once this is called (before
  // anything reads stdin). A regular file is offered as any input file is.
  // Anything else (a pipe, a terminal) cannot be peeked and put back, so
  // from then on the input tasks read stdin through a buffer of the
  // table's own, and a peek offers what that buffer holds plus what stdin
  // has ready, never waiting for more: a pipe fed slowly gets a short
  // window, and a read past it is the tenant's, which waits as a solo
  // run's would.
  void readStdinAhead();
  // Checks every record (descriptor numbering, a mode $fopen accepts, a
  // position within the file) and reopens them through the sandbox without
  // truncating; false with `error` if one is refused, and nothing stays open.
  bool restore(const std::vector<OpenFileRecord>& records, std::string& error);

 private:
  // A stream as InputStream. An unget remembers the position it was made
  // at: until the stream is read past it again, the bytes ahead may be
  // pushed-back ones rather than the file's.
  class FileInput final : public InputStream {
   public:
    explicit FileInput(std::FILE* stream) : stream_(stream) {}
    int get() override { return std::fgetc(stream_); }
    bool unget(uint8_t byte) override;
    bool atEnd() const override { return std::feof(stream_) != 0; }
    bool mayHoldPushedBack();

   private:
    std::FILE* stream_;
    int64_t pushedBackFrom_ = -1;  // -1: nothing pushed back
  };
  // stdin as a tenant reads it when it is no regular file: the bytes read
  // from the descriptor and not yet consumed (pushed-back ones first), and
  // whether a read hit the end ($feof) or read(2) reported it, which the
  // next read past the bytes held then hits.
  class BufferedStdin final : public InputStream {
   public:
    int get() override;
    bool unget(uint8_t byte) override;
    bool atEnd() const override { return atEnd_; }
    std::string peek(size_t maxBytes, bool& endsAtEof);
    bool consume(uint64_t bytes, bool hitEof);

   private:
    size_t held() const { return bytes_.size() - next_; }
    // One read(2) of up to `maxBytes`; without `wait`, only when stdin has
    // bytes (or its end) ready. False when nothing was read.
    bool fill(size_t maxBytes, bool wait);
    std::string bytes_;
    size_t next_ = 0;
    bool atEnd_ = false;
    bool sawEnd_ = false;
  };
  struct OpenFile {
    std::FILE* stream = nullptr;
    std::string path;
    std::string mode;
    FileInput input{stream};
  };
  std::vector<std::FILE*> streamsFor(uint32_t descriptorOrChannels) const;
  void closeAll();

  // When the oldest byte written to stdout since its last flush was written.
  std::optional<std::chrono::steady_clock::time_point> stdoutWaitingSince_;

  std::FILE* openStream(const std::string& name, const std::string& mode, bool truncate,
                        int& error) const;

  sandbox::GrantTable grants_;
  FileInput stdinInput_{stdin}, stdoutInput_{stdout}, stderrInput_{stderr};
  // readStdinAhead: stdin is a regular file, or read through this buffer.
  bool stdinIsFile_ = false;
  std::unique_ptr<BufferedStdin> bufferedStdin_;
  std::map<uint32_t, OpenFile> files_;  // by descriptor (either numbering)
};

}  // namespace synergy::engine
