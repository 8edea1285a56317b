//===- OutputJournal.cpp - where a spread job's stdout went, for --resume --===//
//
// This file implements OutputJournal.h.
//
//===----------------------------------------------------------------------===//
#include "scheduler/OutputJournal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

#include "util/FileIO.h"
#include "util/LittleEndian.h"

namespace synergy::scheduler {

namespace {

constexpr const char* kJournalName = "output.journal";
constexpr size_t kRecordBytes = 36;
constexpr uint32_t kResumeMark = 0xffffffff;
// A record per write: far more than any job's stdout needs.
constexpr size_t kMaxJournalBytes = size_t(1) << 32;

struct Record {
  uint64_t jobId = 0;
  uint32_t part = 0;
  uint64_t partOffset = 0;
  uint64_t fileOffset = 0;
  uint64_t bytes = 0;
};

std::string encode(const Record& record) {
  std::string out;
  util::appendLittleEndian(out, record.jobId, 8);
  util::appendLittleEndian(out, record.part, 4);
  util::appendLittleEndian(out, record.partOffset, 8);
  util::appendLittleEndian(out, record.fileOffset, 8);
  util::appendLittleEndian(out, record.bytes, 8);
  return out;
}

bool stdoutIsRegularFile() {
  struct stat info;
  return fstat(STDOUT_FILENO, &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

OutputJournal::~OutputJournal() {
  if (fd_ >= 0) close(fd_);
}

bool OutputJournal::open(const std::string& directory, uint64_t jobId, std::string& error) {
  if (!stdoutIsRegularFile()) return true;
  std::string path = directory + "/" + kJournalName;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  jobId_ = jobId;
  return true;
}

void OutputJournal::wrote(uint32_t part, uint64_t partOffset, uint64_t bytes) {
  if (fd_ < 0 || bytes == 0) return;
  off_t end = lseek(STDOUT_FILENO, 0, SEEK_CUR);
  if (end < 0 || uint64_t(end) < bytes) return;
  util::writeAll(fd_, encode({jobId_, part, partOffset, uint64_t(end) - bytes, bytes}));
}

bool cutStdoutToCheckpoint(const std::string& directory,
                           const std::vector<checkpoint::PartOutput>& outputs,
                           std::string& error) {
  if (!stdoutIsRegularFile() || outputs.empty()) return true;
  std::string path = directory + "/" + kJournalName;
  std::string readError;
  std::optional<std::string> journal = util::readRegularFile(path, kMaxJournalBytes, readError);
  if (!journal) return true;  // nothing was printed to a file
  uint64_t jobId = outputs.front().jobId;
  std::map<uint32_t, uint64_t> printedBefore;  // by part: bytes it had printed
  for (const checkpoint::PartOutput& output : outputs) printedBefore[output.part] = output.stdoutBytes;
  struct stat info;
  if (fstat(STDOUT_FILENO, &info) != 0) {
    error = "cannot read stdout's size: " + std::string(std::strerror(errno));
    return false;
  }
  uint64_t fileEnd = uint64_t(info.st_size);
  // The checkpointed job's records, each cut to its bytes from before the
  // checkpoint; `cut`: where the first byte from after it went.
  std::vector<Record> before;
  uint64_t cut = fileEnd;
  std::map<uint32_t, uint64_t> reached;
  for (size_t at = 0; at + kRecordBytes <= journal->size(); at += kRecordBytes) {
    const char* in = journal->data() + at;
    Record record{util::readLittleEndian(in, 8), uint32_t(util::readLittleEndian(in + 8, 4)),
                  util::readLittleEndian(in + 12, 8), util::readLittleEndian(in + 20, 8),
                  util::readLittleEndian(in + 28, 8)};
    if (record.jobId != jobId) continue;
    if (record.part == kResumeMark) {
      cut = std::min(cut, record.fileOffset);
      continue;
    }
    auto limit = printedBefore.find(record.part);
    if (limit == printedBefore.end() || record.fileOffset > fileEnd ||
        record.bytes > fileEnd - record.fileOffset)
      continue;  // not this checkpoint's part, or past what the file holds
    uint64_t pre = record.partOffset >= limit->second
                       ? 0
                       : std::min(record.bytes, limit->second - record.partOffset);
    if (pre < record.bytes) cut = std::min(cut, record.fileOffset + pre);
    if (pre == 0) continue;
    record.bytes = pre;
    before.push_back(record);
    reached[record.part] = std::max(reached[record.part], record.partOffset + pre);
  }
  // The pieces from before the checkpoint that lie past the cut.
  std::string again;
  std::vector<Record> kept;
  int reader = ::open("/proc/self/fd/1", O_RDONLY | O_CLOEXEC);
  for (Record& record : before) {
    if (record.fileOffset < cut) {
      kept.push_back(record);
      continue;
    }
    std::string bytes(record.bytes, '\0');
    if (reader < 0 ||
        pread(reader, bytes.data(), bytes.size(), off_t(record.fileOffset)) != ssize_t(bytes.size())) {
      if (reader >= 0) close(reader);
      error = "cannot read stdout back to cut it to the checkpoint: " +
              std::string(reader < 0 ? std::strerror(errno) : "short read");
      return false;
    }
    record.fileOffset = cut + again.size();
    again += bytes;
    kept.push_back(record);
  }
  if (reader >= 0) close(reader);
  if (ftruncate(STDOUT_FILENO, off_t(cut)) != 0 || lseek(STDOUT_FILENO, off_t(cut), SEEK_SET) < 0 ||
      !util::writeAll(STDOUT_FILENO, again)) {
    error = "cannot cut stdout back to the checkpoint: " + std::string(std::strerror(errno));
    return false;
  }
  std::string rewritten;
  for (const Record& record : kept) rewritten += encode(record);
  rewritten += encode({jobId, kResumeMark, 0, cut + again.size(), 0});
  if (!util::writeFileAtomically(path, rewritten)) {
    error = "cannot rewrite " + path;
    return false;
  }
  uint64_t missing = 0;
  for (const auto& [part, bytes] : printedBefore) missing += bytes - std::min(bytes, reached[part]);
  if (missing)
    std::fprintf(stderr,
                 "synergy-run: note: %llu bytes of stdout from before the checkpoint never "
                 "reached the client that ran the job, and are missing\n",
                 (unsigned long long)missing);
  return true;
}

}  // namespace synergy::scheduler
