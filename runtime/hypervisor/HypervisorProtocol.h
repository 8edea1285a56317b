//===- HypervisorProtocol.h - Payloads of the hypervisor's frames ----------===//
//
// The hypervisor's frames (transport/FrameTypes.h, HvHello to
// HvStatusReport) carry fixed-size little-endian records, except the
// submitted manifest, refusals and status reports, which are text. This
// header gives each record one struct and one decoder; a decoder refuses a
// payload whose length is not exactly its record's, so a truncated or padded
// request never reaches an engine. The protocol version travels in HvHello
// and HvWelcome; a peer with another version is refused before anything else
// is read.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace synergy::hypervisor {

// 2: trap replies carry the trapped task's argument words; HvBatch.
// 3: HvMigrate and HvMoveTo.
// 4: an HvOpenLooped reply carries every trap of its run: the output-only
//    tasks the hypervisor ran past, then the one it stopped at; HvReadState.
// 5: an HvOpenLoop carries read-ahead windows of the tenant's input files,
//    and its HvOpenLooped reply how far the run read into each.
// 6: HvRunProgress while an open-loop run goes on.
inline constexpr uint32_t kHypervisorProtocolVersion = 6;

// Appends little-endian integers to a payload. An open-loop reply is
// thousands of them, so they are inline, and on a little-endian host one
// unaligned copy each rather than a loop over bytes (which the compiler
// leaves a loop).
class PayloadWriter {
 public:
  PayloadWriter& u32(uint32_t value) { return put<4>(value); }
  PayloadWriter& u64(uint64_t value) { return put<8>(value); }
  PayloadWriter& raw(const std::vector<uint8_t>& bytes);
  // Room for `bytes` more, for a writer that knows its record's size.
  void reserve(size_t bytes) { room(bytes); }
  std::vector<uint8_t> take() {
    bytes_.resize(used_);
    used_ = 0;
    return std::move(bytes_);
  }

 private:
  // Makes `bytes` free past the `used_` ones; bytes_ grows ahead of them,
  // so that a write is a copy and an add.
  void room(size_t bytes) {
    if (bytes_.size() - used_ < bytes)
      bytes_.resize(std::max(2 * bytes_.size(), used_ + bytes));
  }
  template <size_t Bytes>
  PayloadWriter& put(uint64_t value) {
    room(Bytes);
    uint8_t* at = bytes_.data() + used_;
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(at, &value, Bytes);
    else
      for (size_t i = 0; i < Bytes; ++i) at[i] = uint8_t(value >> (8 * i));
    used_ += Bytes;
    return *this;
  }
  std::vector<uint8_t> bytes_;
  size_t used_ = 0;
};

// Reads little-endian integers from a payload whose length the caller has
// checked against the record's (inline, as PayloadWriter).
class PayloadReader {
 public:
  explicit PayloadReader(const std::vector<uint8_t>& bytes, size_t offset = 0) : bytes_(bytes), offset_(offset) {}
  uint32_t u32() { return uint32_t(get<4>()); }
  uint64_t u64() { return get<8>(); }
  std::vector<uint8_t> raw(size_t count);
  size_t offset() const { return offset_; }

 private:
  template <size_t Bytes>
  uint64_t get() {
    assert(offset_ + Bytes <= bytes_.size() && "payload length not checked");
    const uint8_t* at = bytes_.data() + offset_;
    uint64_t value = 0;
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(&value, at, Bytes);
    else
      for (size_t i = 0; i < Bytes; ++i) value |= uint64_t(at[i]) << (8 * i);
    offset_ += Bytes;
    return value;
  }
  const std::vector<uint8_t>& bytes_;
  size_t offset_ = 0;
};

// The payload sizes of the fixed records, by frame type; nullopt for the
// text frames.
std::optional<size_t> fixedPayloadBytes(uint16_t frameType);

// A state word with its address: a word an HvEvaluated or HvOpenLooped
// reply carries for the trapped task, or a write an HvBatch carries.
struct StateWordRecord {
  uint32_t id = 0;
  uint32_t element = 0;
  uint32_t word = 0;
  uint64_t data = 0;
  bool operator==(const StateWordRecord&) const = default;
};

// The fixed head of an HvEvaluated reply, which the state words follow.
inline constexpr size_t kEvaluatedHeadBytes = 12;

// Appends u32 count and the records.
void writeStateWords(PayloadWriter& payload, const std::vector<StateWordRecord>& words);
// Reads u32 count and the records from `offset` to the payload's end;
// nullopt unless they fill it exactly and count <= maxCount.
std::optional<std::vector<StateWordRecord>> readStateWords(const std::vector<uint8_t>& payload, size_t offset,
                                                           uint64_t maxCount);

// Read-ahead (protocol 5). An input task ($fgetc) needs its answer before
// the design goes on, so without help each one costs a round trip. With an
// open-loop request the tenant sends, for each input file the design may
// read, the bytes from the file's position on (a window); the hypervisor
// serves the input tasks on that file ($fgetc, $ungetc, $fgets, $feof,
// $fread, $fscanf) from the window while the run goes on, and the reply
// says where each file's run left it (an $ungetc of the byte before moves
// back) and whether a read hit the file's end, which the tenant then
// applies to its own stream. A read past a window that does not end at the
// file's end, or a push-back of another byte, stops the run at that task,
// which the tenant services as before.
struct ReadAheadWindow {
  uint32_t descriptor = 0;
  bool endsAtEof = false;  // the file ends right after the window's bytes
  std::vector<uint8_t> bytes;
  bool operator==(const ReadAheadWindow&) const = default;
};

// How far a run read into one window: `consumed` bytes, whether a read then
// hit the file's end (only when the window ends there and is used up), and
// how many tasks the hypervisor served from it, which the tenant counts as
// its own (--timeline, SYNERGY_ENGINE_STATS).
struct ReadAheadAdvance {
  uint32_t descriptor = 0;
  uint32_t consumed = 0;
  bool hitEof = false;
  uint32_t tasks = 0;
  bool operator==(const ReadAheadAdvance&) const = default;
};

// An HvOpenLoop: u32 engine, u32 ticks, u64 edges per tick, u32 window
// count, then each window as u32 descriptor, u32 flags (bit 0: ends at the
// file's end), u32 length and its bytes.
struct OpenLoopRequest {
  uint32_t engine = 0;
  uint32_t ticks = 0;
  uint64_t edgesPerTick = 0;
  std::vector<ReadAheadWindow> windows;
};
std::vector<uint8_t> encodeOpenLoopRequest(const OpenLoopRequest& request);
// Checks the structure (at most kMaxHvReadAheadFiles windows of at most
// kMaxHvReadAheadBytes each, distinct descriptors, no unknown flag, the exact
// length) and decodes; nullopt and `reason` otherwise.
std::optional<OpenLoopRequest> decodeOpenLoopRequest(const std::vector<uint8_t>& payload, std::string& reason);

// One trap of an open-loop run: the task, how many ticks the run had
// started when it trapped (the trapped tick is the last of them; 0 is the
// tick that was in progress when the request came, stopped at a task), and
// how many words the runtime reads to service it: the next `wordCount` of
// the reply's `words`, which hold every trap's in order. A reply holds
// thousands of traps, and one vector for all their words costs no
// allocation per trap on either side.
struct TrapRecord {
  uint32_t task = 0;
  uint32_t ticksStarted = 0;
  uint32_t wordCount = 0;
  bool operator==(const TrapRecord&) const = default;
};

// An HvOpenLooped reply: u32 ticks run, u32 trap count, then each trap as
// u32 task, u32 ticks started, u32 word count and that many word records.
// Every trap but the last is an output-only task ($display, $write,
// $fdisplay, $fwrite) that the hypervisor ran past, so a run costs one round
// trip however many of them fire: the tenant services them in order, each
// at its own tick. The last is the task the run stopped at, or task 0 (with
// every tick counted and no words) when it stopped between two ticks.
//
// Then (protocol 5) u32 advance count and each advance as u32 descriptor,
// u32 bytes consumed, u32 1 if a read hit the file's end (else 0), u32
// tasks served: one per window the request carried that the run used.
struct OpenLoopReply {
  uint32_t ticksRun = 0;
  std::vector<TrapRecord> traps;
  std::vector<StateWordRecord> words;  // the traps' words, one after another
  std::vector<ReadAheadAdvance> advances;
};
// The traps' word counts must add up to the words held.
std::vector<uint8_t> encodeOpenLoopReply(const OpenLoopReply& reply);
// Checks the structure (1 to kMaxHvRunTraps traps, at most
// kMaxHvReplyStateWords words each and kMaxHvRunWords in all, ticks started
// never decreasing nor past the ticks run, a task id in every trap but a
// final 0, at most kMaxHvReadAheadFiles advances with distinct descriptors
// and a flag of 0 or 1, the exact length) and decodes; nullopt and `reason` otherwise.
std::optional<OpenLoopReply> decodeOpenLoopReply(const std::vector<uint8_t>& payload, std::string& reason);

// An HvReadState: the words of one engine to read, in order (the data of
// each record is unused). A migration reads an engine's whole state with
// one such request per kMaxHvReadWords words instead of one per word.
struct StateRead {
  uint32_t engine = 0;
  std::vector<StateWordRecord> addresses;
};
std::vector<uint8_t> encodeStateRead(const StateRead& read);
// Checks the structure (1 to kMaxHvReadWords addresses, the exact length)
// and decodes; nullopt and `reason` otherwise. The ids are still unchecked.
std::optional<StateRead> decodeStateRead(const std::vector<uint8_t>& payload, std::string& reason);

// An HvRunProgress (protocol 6): what an open-loop run the hypervisor is
// still serving has done so far, sent at most once per
// engine::Timeline::kPeriod so that the tenant's --timeline moves while one
// long run goes on. u32 engine, u32 ticks completed, u32 tasks the run went
// past or served from windows (those its reply will list or count).
struct RunProgress {
  uint32_t engine = 0;
  uint32_t ticks = 0;
  uint32_t tasks = 0;
  bool operator==(const RunProgress&) const = default;
};
std::vector<uint8_t> encodeRunProgress(const RunProgress& progress);
// The caller has checked the length (fixedPayloadBytes).
RunProgress decodeRunProgress(const std::vector<uint8_t>& payload);

// An HvBatch: writes for one engine, then one engine request (`request` 0:
// none) with its own fixed record.
struct Batch {
  uint32_t engine = 0;
  std::vector<StateWordRecord> writes;
  uint16_t request = 0;
  std::vector<uint8_t> record;
};
std::vector<uint8_t> encodeBatch(const Batch& batch);
// Checks the structure (count within kMaxHvBatchWrites, a request type a
// batch may end with, that request's exact record length) and decodes;
// nullopt and `reason` otherwise. The ids in it are still unchecked.
std::optional<Batch> decodeBatch(const std::vector<uint8_t>& payload, std::string& reason);

// Whether a payload of `size` bytes has the structure of its frame type:
// the exact length of a fixed record, a count that matches the records of
// an HvEvaluated reply or batch; true for the text frames (bounded by the
// header). The structures of an HvOpenLoop request and its HvOpenLooped
// reply are checked by decodeOpenLoopRequest and decodeOpenLoopReply, which
// need their bytes.
bool payloadLengthIsValid(uint16_t frameType, size_t size);

// Text frames hold printable one-line (refusal) or multi-line (status) text.
std::vector<uint8_t> textPayload(const std::string& text);
std::string payloadText(const std::vector<uint8_t>& payload);

}  // namespace synergy::hypervisor
