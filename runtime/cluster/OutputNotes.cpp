//===- OutputNotes.cpp - a moved rank's output order, daemon -> client ----===//
//
// This file implements OutputNotes.h.
//
//===----------------------------------------------------------------------===//
#include "cluster/OutputNotes.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "util/LittleEndian.h"

namespace synergy::cluster {

std::vector<uint8_t> encodeOutputNote(const OutputNote& note) {
  std::vector<uint8_t> bytes{note.kind, 0, 0, 0};
  util::appendLittleEndian(bytes, note.worldRank, 4);
  util::appendLittleEndian(bytes, note.sourcePart, 4);
  return bytes;
}

bool decodeOutputNote(const uint8_t* bytes, OutputNote& note) {
  if ((bytes[0] != kOutputNoteMark && bytes[0] != kOutputNoteHold) || bytes[1] || bytes[2] ||
      bytes[3])
    return false;
  note.kind = bytes[0];
  note.worldRank = uint32_t(util::readLittleEndian(bytes + 4, 4));
  note.sourcePart = uint32_t(util::readLittleEndian(bytes + 8, 4));
  return note.kind == kOutputNoteHold || note.sourcePart == 0;
}

std::vector<uint8_t> encodeOutputMark(uint64_t jobId, uint32_t worldRank) {
  std::vector<uint8_t> payload;
  util::appendLittleEndian(payload, jobId, 8);
  util::appendLittleEndian(payload, worldRank, 4);
  return payload;
}

std::vector<uint8_t> encodeOutputHold(uint64_t jobId, uint32_t worldRank, uint32_t sourcePart) {
  std::vector<uint8_t> payload = encodeOutputMark(jobId, worldRank);
  util::appendLittleEndian(payload, sourcePart, 4);
  return payload;
}

static bool decodeRankOf(const std::vector<uint8_t>& payload, size_t size, const char* what,
                         uint64_t jobId, uint32_t ranks, uint32_t& worldRank,
                         std::string& reason) {
  if (payload.size() != size) {
    reason = std::string(what) + " of " + std::to_string(payload.size()) + " bytes, not " +
             std::to_string(size);
    return false;
  }
  uint64_t job = util::readLittleEndian(payload.data(), 8);
  if (job != jobId) {
    reason = std::string(what) + " for job " + std::to_string(job) + ", not this job " +
             std::to_string(jobId);
    return false;
  }
  worldRank = uint32_t(util::readLittleEndian(payload.data() + 8, 4));
  if (worldRank >= ranks) {
    reason = std::string(what) + " for rank " + std::to_string(worldRank) + " of a job of " +
             std::to_string(ranks) + " ranks";
    return false;
  }
  return true;
}

bool decodeOutputMark(const std::vector<uint8_t>& payload, uint64_t jobId, uint32_t ranks,
                      uint32_t& worldRank, std::string& reason) {
  return decodeRankOf(payload, transport::kOutputMarkBytes, "OutputMark", jobId, ranks,
                      worldRank, reason);
}

bool decodeOutputHold(const std::vector<uint8_t>& payload, uint64_t jobId, uint32_t ranks,
                      uint32_t parts, uint32_t fromPart, uint32_t& worldRank,
                      uint32_t& sourcePart, std::string& reason) {
  if (!decodeRankOf(payload, transport::kOutputHoldBytes, "OutputHold", jobId, ranks, worldRank,
                    reason))
    return false;
  sourcePart = uint32_t(util::readLittleEndian(payload.data() + 12, 4));
  if (sourcePart >= parts || sourcePart == fromPart) {
    reason = "OutputHold from part " + std::to_string(fromPart) + " naming part " +
             std::to_string(sourcePart) + " of " + std::to_string(parts) + " as its source";
    return false;
  }
  return true;
}

namespace {

std::mutex notesMutex;

// The socket kOutputNotesEnv names, once checked; -1 when there is none.
int notesSocket() {
  static int fd = [] {
    const char* text = std::getenv(kOutputNotesEnv);
    if (!text || !*text) return -1;
    char* end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (*end || value < 3 || value > 1 << 20) return -1;
    int descriptor = int(value);
    // Only the daemon's AF_UNIX stream socket: a process this one started
    // inherits the variable, not the socket (it is close-on-exec).
    int type = 0, domain = 0;
    socklen_t size = sizeof type;
    if (getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM)
      return -1;
    size = sizeof domain;
    if (getsockopt(descriptor, SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0 || domain != AF_UNIX)
      return -1;
    fcntl(descriptor, F_SETFD, FD_CLOEXEC);
    return descriptor;
  }();
  return fd;
}

bool sendNote(int fd, const OutputNote& note) {
  std::vector<uint8_t> bytes = encodeOutputNote(note);
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t wrote = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    sent += size_t(wrote);
  }
  return true;
}

}  // namespace

void noteOutputMark(uint32_t worldRank) {
  std::lock_guard<std::mutex> guard(notesMutex);
  int fd = notesSocket();
  if (fd >= 0) sendNote(fd, {kOutputNoteMark, worldRank, 0});
}

bool noteOutputHold(uint32_t worldRank, uint32_t sourcePart, std::string& error) {
  std::lock_guard<std::mutex> guard(notesMutex);
  int fd = notesSocket();
  if (fd < 0) return true;
  if (!sendNote(fd, {kOutputNoteHold, worldRank, sourcePart})) {
    error = "its daemon's notes socket is closed";
    return false;
  }
  auto deadline = std::chrono::steady_clock::now() + kOutputHoldAckWait;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      error = "its daemon did not confirm the hold in " +
              std::to_string(std::chrono::seconds(kOutputHoldAckWait).count()) + " s";
      return false;
    }
    pollfd wait{fd, POLLIN, 0};
    int ready = poll(&wait, 1, int(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    uint8_t answer = 0;
    ssize_t got = recv(fd, &answer, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got == 1 && answer == kOutputHoldSent) return true;
    error = "its daemon answered the hold wrongly";
    return false;
  }
}

OutputOrder::OutputOrder(size_t parts, Deliver deliver)
    : parts_(parts), deliver_(std::move(deliver)) {}

void OutputOrder::output(size_t part, transport::Frame&& frame) {
  Entry entry;
  entry.frame = std::move(frame);
  take(part, std::move(entry));
}

void OutputOrder::mark(size_t part, uint32_t worldRank) {
  Entry entry;
  entry.kind = Entry::Mark;
  entry.worldRank = worldRank;
  take(part, std::move(entry));
}

void OutputOrder::hold(size_t part, uint32_t worldRank, uint32_t sourcePart) {
  Entry entry;
  entry.kind = Entry::Hold;
  entry.worldRank = worldRank;
  entry.sourcePart = sourcePart;
  take(part, std::move(entry));
}

void OutputOrder::lost(size_t part) {
  if (part >= parts_.size()) return;
  parts_[part].done = true;
  pump();
}

void OutputOrder::take(size_t part, Entry&& entry) {
  if (part >= parts_.size()) return;
  Part& slot = parts_[part];
  if (released_ || (!slot.hold && slot.queue.empty())) {
    apply(part, std::move(entry));
  } else {
    slot.queuedBytes += entry.frame.payload.size();
    slot.queue.push_back(std::move(entry));
    if (slot.hold && slot.queuedBytes > kMaxHeldOutputBytes) {
      notes_.push_back("part " + std::to_string(part) + " held more than " +
                       std::to_string(kMaxHeldOutputBytes >> 20) + " MiB of output for rank " +
                       std::to_string(slot.hold->worldRank) + "'s earlier lines from part " +
                       std::to_string(slot.hold->sourcePart));
      slot.hold.reset();
    }
  }
  pump();
}

void OutputOrder::apply(size_t part, Entry&& entry) {
  Part& slot = parts_[part];
  switch (entry.kind) {
    case Entry::Frame: {
      bool exit = entry.frame.type == transport::FrameType::JobExit;
      deliver_(part, std::move(entry.frame));
      if (exit) slot.done = true;
      return;
    }
    case Entry::Mark:
      ++marks_[{uint32_t(part), entry.worldRank}];
      return;
    case Entry::Hold:
      if (!released_ && entry.sourcePart < parts_.size() && entry.sourcePart != part)
        slot.hold = Hold{entry.worldRank, entry.sourcePart, std::chrono::steady_clock::now()};
      return;
  }
}

void OutputOrder::pump() {
  // A delivery may end the job and release everything (releaseAll): the
  // outer pump goes round once more instead of nesting.
  if (pumping_) {
    again_ = true;
    return;
  }
  pumping_ = true;
  bool progress = true;
  while (progress || again_) {
    progress = false;
    again_ = false;
    for (size_t part = 0; part < parts_.size(); ++part) {
      Part& slot = parts_[part];
      while (slot.hold || !slot.queue.empty()) {
        if (slot.hold) {
          auto found = marks_.find({slot.hold->sourcePart, slot.hold->worldRank});
          bool marked = found != marks_.end();
          if (!marked && !released_ && !parts_[slot.hold->sourcePart].done) break;
          if (marked && --found->second == 0) marks_.erase(found);
          slot.hold.reset();
          progress = true;
          continue;
        }
        Entry entry = std::move(slot.queue.front());
        slot.queue.pop_front();
        slot.queuedBytes -= entry.frame.payload.size();
        apply(part, std::move(entry));
        progress = true;
      }
    }
  }
  pumping_ = false;
}

std::vector<std::string> OutputOrder::expire(std::chrono::steady_clock::time_point now) {
  for (size_t part = 0; part < parts_.size(); ++part) {
    Part& slot = parts_[part];
    if (!slot.hold ||
        std::chrono::duration<double>(now - slot.hold->since).count() < kMaxOutputHoldSeconds)
      continue;
    notes_.push_back("part " + std::to_string(part) + " held its output " +
                     std::to_string(int(kMaxOutputHoldSeconds)) + " s for rank " +
                     std::to_string(slot.hold->worldRank) + "'s earlier lines from part " +
                     std::to_string(slot.hold->sourcePart));
    slot.hold.reset();
  }
  pump();
  return std::exchange(notes_, {});
}

void OutputOrder::releaseAll() {
  released_ = true;
  pump();
}

}  // namespace synergy::cluster
