//===- CheckpointFile.cpp - the checkpoint file format ----------------------===//
//
// This file implements the encoder and the checking decoder of the format
// described in CheckpointFile.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointFile.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "checkpoint/FieldCoding.h"
#include "snapshot/DirtyTracker.h"
#include "snapshot/NonZeroPages.h"
#include "util/Crc32c.h"

namespace synergy::checkpoint {

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'K', 'P', 'T', '\0'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 32 + 8 + 4;
constexpr uint64_t kWasmPage = 65536;
constexpr uint64_t kMaxMemoryBytes = 65536 * kWasmPage;

// Maps in the whole pages of [data, data + bytes), fresh memory about to be
// filled, in one call: copying into it would otherwise take a page fault
// per 4 KiB (a rank's first section is tens of thousands of pages), and a
// fault's trap costs about as much again as zeroing its page does
// (MADV_POPULATE_WRITE, Linux 5.14: 100 MiB of fresh memory took 43 ms of
// CPU to populate and fill against 59 ms filled page by page, on this
// project's VM). The contents are left as they are. A kernel without it
// refuses the advice and the pages fault in as they are written.
void populateForWriting(char* data, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t start = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)bytes;
#endif
}

std::string encodeJob(const JobRecord& job) {
  std::string out;
  put(out, job.stdoutOffset);
  put(out, job.stderrOffset);
  putText(out, job.program);
  put(out, uint32_t(job.args.size()));
  for (const std::string& arg : job.args) putText(out, arg);
  put(out, uint32_t(job.grants.size()));
  for (const sandbox::Grant& grant : job.grants) {
    putText(out, grant.hostPath);
    putText(out, grant.guestPath);
    put(out, uint8_t(grant.readOnly));
  }
  put(out, uint32_t(job.env.size()));
  for (const std::string& variable : job.env) putText(out, variable);
  putText(out, job.unresumable);
  put(out, uint32_t(job.partOutputs.size()));
  for (const PartOutput& part : job.partOutputs) {
    put(out, part.jobId);
    put(out, part.part);
    put(out, part.stdoutBytes);
  }
  return out;
}

bool decodeJob(FieldReader& reader, JobRecord& job, std::string& error) {
  // All the record's texts share one budget, so no count or length can
  // make the decoder allocate more than the file holds or the limit.
  uint64_t budget = kMaxJobTextBytes;
  uint32_t argCount = 0, grantCount = 0, envCount = 0;
  if (!reader.read(job.stdoutOffset) || !reader.read(job.stderrOffset) ||
      !readText(reader, budget, job.program) || !reader.read(argCount)) {
    error = "the job record is truncated or too long";
    return false;
  }
  if (job.stdoutOffset < -1 || job.stderrOffset < -1) {
    error = "the job record has a negative output offset";
    return false;
  }
  // Each argument takes at least its 4-byte length.
  if (argCount > reader.left() / 4) {
    error = "the job record has more arguments than the file can hold";
    return false;
  }
  job.args.resize(argCount);
  for (std::string& arg : job.args)
    if (!readText(reader, budget, arg)) {
      error = "the job record is truncated or too long";
      return false;
    }
  // A grant takes at least its two 4-byte lengths and its flag.
  if (!reader.read(grantCount) || grantCount > reader.left() / 9) {
    error = "the job record has more --dir grants than the file can hold";
    return false;
  }
  job.grants.resize(grantCount);
  for (sandbox::Grant& grant : job.grants) {
    uint8_t readOnly = 0;
    if (!readText(reader, budget, grant.hostPath) || !readText(reader, budget, grant.guestPath) ||
        !reader.read(readOnly)) {
      error = "the job record is truncated or too long";
      return false;
    }
    if (grant.hostPath.empty() || grant.hostPath[0] != '/' || grant.guestPath.empty() ||
        readOnly > 1 || grant.hostPath.find('\0') != std::string::npos ||
        grant.guestPath.find('\0') != std::string::npos) {
      error = "the job record has a malformed --dir grant";
      return false;
    }
    grant.readOnly = readOnly;
  }
  if (!reader.read(envCount) || envCount > reader.left() / 4) {
    error = "the job record has more --env variables than the file can hold";
    return false;
  }
  job.env.resize(envCount);
  for (std::string& variable : job.env) {
    if (!readText(reader, budget, variable)) {
      error = "the job record is truncated or too long";
      return false;
    }
    if (variable.find('=') == std::string::npos || variable.find('\0') != std::string::npos) {
      error = "the job record has an --env variable that is not KEY=VALUE";
      return false;
    }
  }
  if (!readText(reader, budget, job.unresumable)) {
    error = "the job record is truncated or too long";
    return false;
  }
  // Each part's count takes 20 bytes.
  uint32_t partCount = 0;
  if (!reader.read(partCount) || partCount > kMaxCheckpointRanks ||
      partCount > reader.left() / 20) {
    error = "the job record has more host parts than the file can hold";
    return false;
  }
  job.partOutputs.resize(partCount);
  for (PartOutput& part : job.partOutputs)
    if (!reader.read(part.jobId) || !reader.read(part.part) || !reader.read(part.stdoutBytes)) {
      error = "the job record is truncated or too long";
      return false;
    }
  return true;
}

void putOpenFile(std::string& out, const OpenFile& file) {
  put(out, file.guestFd);
  put(out, file.grant);
  putText(out, file.path);
  put(out, uint8_t(file.kind));
  put(out, file.access);
  put(out, file.fdflags);
  put(out, file.rightsBase);
  put(out, file.rightsInheriting);
  put(out, file.offset);
  put(out, file.lengthToRestore);
}

// The fixed part of an open file's record, its path's bytes aside.
constexpr size_t kOpenFileFixedBytes = 4 + 4 + 4 + 1 + 1 + 2 + 8 + 8 + 8 + 8;

// Reads and checks one open file; `firstFreeFd` is the lowest descriptor
// number it may have (above the preopens and the previous file).
bool decodeOpenFile(FieldReader& reader, uint64_t firstFreeFd, uint32_t grantCount, OpenFile& file,
                    const std::string& where, std::string& error) {
  uint32_t pathBytes = 0;
  uint8_t kind = 0;
  std::string_view path;
  if (!reader.read(file.guestFd) || !reader.read(file.grant) || !reader.read(pathBytes) ||
      pathBytes > kMaxOpenFilePathBytes || !reader.take(pathBytes, path) || !reader.read(kind) ||
      !reader.read(file.access) || !reader.read(file.fdflags) || !reader.read(file.rightsBase) ||
      !reader.read(file.rightsInheriting) || !reader.read(file.offset) ||
      !reader.read(file.lengthToRestore)) {
    error = where + "truncated or over-long open file record";
    return false;
  }
  std::string fd = "open file descriptor " + std::to_string(file.guestFd);
  if (file.guestFd < firstFreeFd || file.guestFd >= kMaxGuestFd) {
    error = where + fd + " is out of order, a preopen's or past " + std::to_string(kMaxGuestFd);
    return false;
  }
  if (file.grant >= grantCount) {
    error = where + fd + " names --dir grant " + std::to_string(file.grant) + " of " +
            std::to_string(grantCount);
    return false;
  }
  file.path.assign(path);
  if (!isPlainRelativePath(file.path)) {
    error = where + fd + " has a path that is not plain and relative to its grant";
    return false;
  }
  if (kind > uint8_t(OpenFile::Kind::Directory) || file.access == 0 ||
      file.access > (OpenFile::kReadable | OpenFile::kWritable) ||
      (file.fdflags & ~OpenFile::kKnownFdflags)) {
    error = where + fd + " has an unknown kind, access mode or flag";
    return false;
  }
  file.kind = OpenFile::Kind(kind);
  bool writable = file.access & OpenFile::kWritable;
  if (file.offset > uint64_t(INT64_MAX) || file.lengthToRestore < -1 ||
      (file.kind == OpenFile::Kind::Directory &&
       (file.access != OpenFile::kReadable || file.offset != 0 || file.lengthToRestore != -1)) ||
      (file.kind == OpenFile::Kind::RegularFile && writable != (file.lengthToRestore >= 0))) {
    error = where + fd + " has an offset or length that does not fit its kind and access";
    return false;
  }
  return true;
}

bool decodeRank(FieldReader& reader, uint32_t expectedRank, uint32_t rankCount,
                uint32_t grantCount, RankImage& rank, std::string& error, bool viewRuns = false) {
  std::string where = "rank " + std::to_string(expectedRank) + ": ";
  uint32_t globalsBytes = 0;
  if (!reader.read(rank.worldRank) || !reader.read(rank.unwindBuffer) ||
      !reader.read(globalsBytes)) {
    error = where + "truncated section header";
    return false;
  }
  if (rank.worldRank != expectedRank) {
    error = where + "the section names rank " + std::to_string(rank.worldRank);
    return false;
  }
  std::string_view globals;
  if (globalsBytes > kMaxGlobalsBytes || !reader.take(globalsBytes, globals)) {
    error = where + "globals of " + std::to_string(globalsBytes) + " bytes do not fit";
    return false;
  }
  rank.globals.assign(globals.begin(), globals.end());
  uint32_t runCount = 0;
  if (!reader.read(rank.memoryBytes) || !reader.read(runCount)) {
    error = where + "truncated memory header";
    return false;
  }
  if (rank.memoryBytes % kWasmPage || rank.memoryBytes > kMaxMemoryBytes) {
    error = where + "memory size " + std::to_string(rank.memoryBytes) +
            " is not a whole number of wasm pages up to 4 GiB";
    return false;
  }
  if (rank.unwindBuffer == 0 || rank.unwindBuffer >= rank.memoryBytes) {
    error = where + "the unwind buffer lies outside memory";
    return false;
  }
  // Each run takes at least its 16-byte header, which bounds the count by
  // what is left before anything is allocated for it.
  if (runCount > reader.left() / 16) {
    error = where + "more memory runs than the file can hold";
    return false;
  }
  rank.runs.resize(runCount);
  uint64_t end = 0;
  for (MemoryRun& run : rank.runs) {
    uint64_t length = 0;
    std::string_view bytes;
    if (!reader.read(run.offset) || !reader.read(length) || !reader.take(length, bytes)) {
      error = where + "truncated memory run";
      return false;
    }
    if (length == 0 || run.offset < end || run.offset > rank.memoryBytes ||
        length > rank.memoryBytes - run.offset) {
      error = where + "memory run at offset " + std::to_string(run.offset) +
              " is empty, overlaps another or lies outside memory";
      return false;
    }
    end = run.offset + length;
    if (viewRuns)
      run.view = bytes;
    else
      run.bytes.assign(bytes);
  }
  uint32_t fileCount = 0;
  if (!reader.read(fileCount) || fileCount > reader.left() / kOpenFileFixedBytes) {
    error = where + "truncated open file count, or more open files than the file can hold";
    return false;
  }
  rank.files.resize(fileCount);
  // Descriptors 0-2 are stdio and the grants' preopens follow them (64
  // bits: an absurd grant count must not wrap around).
  uint64_t firstFreeFd = 3 + uint64_t(grantCount);
  for (OpenFile& file : rank.files) {
    if (!decodeOpenFile(reader, firstFreeFd, grantCount, file, where, error)) return false;
    firstFreeFd = uint64_t(file.guestFd) + 1;
  }
  return decodeMpiObjects(reader, expectedRank, rankCount, rank.mpi, where, error);
}

}  // namespace

bool isPlainRelativePath(std::string_view path) {
  if (path == ".") return true;
  if (path.empty() || path.size() > kMaxOpenFilePathBytes) return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view component =
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (component.empty() || component == "." || component == ".." ||
        component.find('\0') != std::string_view::npos)
      return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

namespace {

// A rank section's records before its memory runs, before each run's
// bytes, and after the runs (the format above).
void putSectionHead(std::string& out, uint32_t worldRank, uint32_t unwindBuffer,
                    const std::vector<uint8_t>& globals, uint64_t memoryBytes, size_t runCount) {
  put(out, worldRank);
  put(out, unwindBuffer);
  put(out, uint32_t(globals.size()));
  out.append(reinterpret_cast<const char*>(globals.data()), globals.size());
  put(out, memoryBytes);
  put(out, uint32_t(runCount));
}

void putRunHead(std::string& out, uint64_t offset, uint64_t length) {
  put(out, offset);
  put(out, length);
}

void putSectionTail(std::string& out, const std::vector<OpenFile>& files, const MpiObjects& mpi) {
  put(out, uint32_t(files.size()));
  for (const OpenFile& file : files) putOpenFile(out, file);
  encodeMpiObjects(out, mpi);
}

}  // namespace

std::string encodeRankSection(uint32_t worldRank, uint32_t unwindBuffer,
                              const std::vector<uint8_t>& globals, const uint8_t* memory,
                              uint64_t memoryBytes, const std::vector<OpenFile>& files,
                              const MpiObjects& mpi, bool memoryIsAnonymous,
                              std::string buffer) {
  // The runs are found first so that the section is allocated once, at its
  // size: growing it run by run would copy and zero it again each time.
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  uint64_t runBytes = 0;
  snapshot::forEachNonZeroRun(memory, memoryBytes, memoryIsAnonymous,
                              [&](uint64_t offset, uint64_t length) {
                                runs.emplace_back(offset, length);
                                runBytes += 16 + length;
                                return true;
                              });
  // The open files and MPI objects that follow are small: if they outgrow
  // the slack, the one reallocation is of a section already this size.
  constexpr size_t kSlackForSmallRecords = 4096;
  const uint64_t fixedBytes = 4 + 4 + 4 + globals.size() + 8 + 4 + kSlackForSmallRecords;
  std::string out = std::move(buffer);
  out.clear();
  // A buffer too small for this section is replaced by one with room for
  // every page of this memory: the rank's next section, whose non-zero
  // pages come and go (an array freed, another filled), then fits in the
  // same pages (a run's 16-byte header takes less than the zero page it
  // skips). Growing by what this one needs would take fresh memory (a page
  // fault per 4 KiB, and the old buffer's unmapping) at every checkpoint
  // whose section outgrows the last; the room beyond the section is
  // address space, whose pages are touched only when a section fills them.
  // Only what this section fills is populated: the rest of the room stays
  // address space.
  if (out.capacity() < fixedBytes + runBytes) {
    out.reserve(fixedBytes + std::max(runBytes, memoryBytes));
    populateForWriting(out.data(), size_t(fixedBytes + runBytes));
  }
  putSectionHead(out, worldRank, unwindBuffer, globals, memoryBytes, runs.size());
  for (const auto& [offset, length] : runs) {
    putRunHead(out, offset, length);
    out.append(reinterpret_cast<const char*>(memory + offset), length);
  }
  putSectionTail(out, files, mpi);
  return out;
}

bool patchRankSection(std::string& section, uint32_t worldRank, uint32_t unwindBuffer,
                      const std::vector<uint8_t>& globals, const uint8_t* memory,
                      uint64_t memoryBytes, const std::vector<uint64_t>& writtenPages,
                      const std::vector<OpenFile>& files, const MpiObjects& mpi,
                      uint64_t& copiedBytes,
                      std::vector<std::pair<uint64_t, uint64_t>>* changed) {
  constexpr uint64_t kPage = snapshot::kHostPageSize;
  copiedBytes = 0;
  if (changed) changed->clear();
  if (memoryBytes % kPage) return false;
  // The head: rank, unwind buffer, globals, memory size, run count.
  FieldReader reader{std::string_view(section)};
  std::string_view skipped;
  auto skip = [&](uint64_t bytes) { return reader.take(bytes, skipped); };
  auto position = [&] { return section.size() - reader.left(); };
  uint32_t lastRank = 0, lastUnwindBuffer = 0, globalsBytes = 0, runCount = 0;
  uint64_t lastMemoryBytes = 0;
  if (!reader.read(lastRank) || !reader.read(lastUnwindBuffer) || !reader.read(globalsBytes) ||
      lastRank != worldRank || globalsBytes != globals.size() || !skip(globalsBytes) ||
      !reader.read(lastMemoryBytes) || lastMemoryBytes != memoryBytes || !reader.read(runCount))
    return false;
  const size_t globalsAt = 12;
  // Where each run's bytes lie in the section, checked against its size
  // and the memory's, in increasing order with no two runs adjacent (as
  // the encoder cuts them).
  struct Run {
    uint64_t offset, length, at;
  };
  std::vector<Run> runs;
  runs.reserve(std::min<uint64_t>(runCount, section.size() / 16));
  uint64_t runsEnd = 0;
  for (uint32_t i = 0; i < runCount; ++i) {
    uint64_t offset = 0, length = 0;
    if (!reader.read(offset) || !reader.read(length) || length == 0 || offset % kPage ||
        length % kPage || offset < runsEnd || (i > 0 && offset == runsEnd) ||
        length > memoryBytes - std::min(offset, memoryBytes) || offset >= memoryBytes)
      return false;
    runs.push_back({offset, length, uint64_t(position())});
    if (!skip(length)) return false;
    runsEnd = offset + length;
  }
  const size_t tailAt = position();
  // Every written page must keep its zero-ness: non-zero inside a run,
  // zero outside. Checked for all before anything is copied.
  size_t run = 0;
  uint64_t lastPage = 0;
  for (size_t i = 0; i < writtenPages.size(); ++i) {
    const uint64_t page = writtenPages[i];
    if (page >= memoryBytes / kPage || (i > 0 && page <= lastPage)) return false;
    lastPage = page;
    const uint64_t offset = page * kPage;
    while (run < runs.size() && runs[run].offset + runs[run].length <= offset) ++run;
    const bool inRun = run < runs.size() && runs[run].offset <= offset;
    if (inRun == snapshot::isZeroHostPage(memory + offset)) return false;
  }
  // The head (rank, unwind buffer, globals) is rewritten below.
  if (changed) changed->emplace_back(0, globalsAt + globals.size());
  run = 0;
  for (uint64_t page : writtenPages) {
    const uint64_t offset = page * kPage;
    while (run < runs.size() && runs[run].offset + runs[run].length <= offset) ++run;
    if (run < runs.size() && runs[run].offset <= offset) {
      const uint64_t at = runs[run].at + (offset - runs[run].offset);
      std::memcpy(section.data() + at, memory + offset, kPage);
      copiedBytes += kPage;
      if (!changed) continue;
      if (changed->back().first + changed->back().second == at) changed->back().second += kPage;
      else changed->emplace_back(at, kPage);
    }
  }
  std::memcpy(section.data() + 4, &unwindBuffer, sizeof unwindBuffer);
  if (!globals.empty()) std::memcpy(section.data() + globalsAt, globals.data(), globals.size());
  section.resize(tailAt);
  putSectionTail(section, files, mpi);
  if (changed && section.size() > tailAt) changed->emplace_back(tailAt, section.size() - tailAt);
  return true;
}

std::vector<SectionPiece> layoutRankSection(uint32_t worldRank, uint32_t unwindBuffer,
                                            const std::vector<uint8_t>& globals,
                                            const uint8_t* memory, uint64_t memoryBytes,
                                            const std::vector<OpenFile>& files,
                                            const MpiObjects& mpi, bool memoryIsAnonymous) {
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  snapshot::forEachNonZeroRun(memory, memoryBytes, memoryIsAnonymous,
                              [&](uint64_t offset, uint64_t length) {
                                runs.emplace_back(offset, length);
                                return true;
                              });
  std::vector<SectionPiece> pieces(1);
  putSectionHead(pieces.back().literal, worldRank, unwindBuffer, globals, memoryBytes,
                 runs.size());
  for (const auto& [offset, length] : runs) {
    putRunHead(pieces.back().literal, offset, length);
    pieces.push_back({{}, offset, length});
    pieces.emplace_back();
  }
  putSectionTail(pieces.back().literal, files, mpi);
  return pieces;
}

std::string encodeCheckpoint(uint64_t sequence, const Digest& programDigest,
                             const std::vector<std::string>& rankSections,
                             const JobRecord& job) {
  std::string out = encodeCheckpointHead(
      sequence, programDigest,
      std::vector<std::string_view>(rankSections.begin(), rankSections.end()), job);
  size_t sectionBytes = 0;
  for (const std::string& section : rankSections) sectionBytes += section.size();
  out.reserve(out.size() + sectionBytes);
  for (const std::string& section : rankSections) out += section;
  return out;
}

std::string encodeCheckpointHead(uint64_t sequence, const Digest& programDigest,
                                 const std::vector<std::string_view>& rankSections,
                                 const JobRecord& job) {
  std::vector<uint64_t> sectionBytes;
  util::Crc32c sectionsChecksum;
  for (std::string_view section : rankSections) {
    sectionBytes.push_back(section.size());
    sectionsChecksum.update(section);
  }
  return encodeCheckpointHead(sequence, programDigest, sectionBytes, sectionsChecksum.value(), job);
}

std::string encodeCheckpointHead(uint64_t sequence, const Digest& programDigest,
                                 const std::vector<uint64_t>& sectionBytes,
                                 uint32_t sectionsChecksum, const JobRecord& job) {
  std::string jobSection = encodeJob(job);
  uint64_t sectionsTotal = 0;
  for (uint64_t bytes : sectionBytes) sectionsTotal += bytes;
  std::string out(kMagic, sizeof kMagic);
  put(out, kCheckpointVersion);
  put(out, uint32_t(sectionBytes.size()));
  put(out, sequence);
  out.append(reinterpret_cast<const char*>(programDigest.data()), programDigest.size());
  put(out, uint64_t(jobSection.size()) + sectionsTotal);
  util::Crc32c fileChecksum;
  fileChecksum.update(out);
  fileChecksum.update(jobSection);
  put(out, util::Crc32c::combine(fileChecksum.value(), sectionsChecksum, sectionsTotal));
  out += jobSection;
  return out;
}

std::optional<RankImage> decodeRankSection(std::string_view section, uint32_t worldRank,
                                           uint32_t rankCount, uint32_t grantCount,
                                           std::string& error, bool viewRuns) {
  if (rankCount == 0 || rankCount > kMaxCheckpointRanks || worldRank >= rankCount) {
    error = "rank " + std::to_string(worldRank) + " of " + std::to_string(rankCount) +
            " is not a rank of the job";
    return std::nullopt;
  }
  FieldReader reader(section);
  RankImage rank;
  if (!decodeRank(reader, worldRank, rankCount, grantCount, rank, error, viewRuns))
    return std::nullopt;
  if (reader.left() != 0) {
    error = "rank " + std::to_string(worldRank) + ": bytes after its section";
    return std::nullopt;
  }
  return rank;
}

std::optional<CheckpointImage> decodeCheckpoint(std::string_view bytes, std::string& error,
                                                bool viewRuns) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    error = "not a Synergy checkpoint file";
    return std::nullopt;
  }
  FieldReader reader(bytes.substr(sizeof kMagic));
  CheckpointImage image;
  uint32_t version = 0, rankCount = 0, fileChecksum = 0;
  uint64_t payloadBytes = 0;
  std::string_view programDigest;
  reader.read(version);
  reader.read(rankCount);
  reader.read(image.sequence);
  reader.take(32, programDigest);
  reader.read(payloadBytes);
  reader.read(fileChecksum);
  if (version != kCheckpointVersion) {
    error = "checkpoint format version " + std::to_string(version) + " is not version " +
            std::to_string(kCheckpointVersion) +
            ", the one this synergy-run reads (checkpoint again with this build)";
    return std::nullopt;
  }
  if (payloadBytes != reader.left()) {
    error = "the checkpoint is truncated or has trailing bytes (payload of " +
            std::to_string(reader.left()) + " bytes, header says " +
            std::to_string(payloadBytes) + ")";
    return std::nullopt;
  }
  std::string_view payload = bytes.substr(kHeaderBytes);
  util::Crc32c actual;
  actual.update(bytes.substr(0, kHeaderBytes - 4));
  actual.update(payload);
  if (actual.value() != fileChecksum) {
    error = "the checkpoint's checksum does not match its contents (corrupt file)";
    return std::nullopt;
  }
  if (rankCount == 0 || rankCount > kMaxCheckpointRanks) {
    error = "the checkpoint holds " + std::to_string(rankCount) + " ranks";
    return std::nullopt;
  }
  std::memcpy(image.programDigest.data(), programDigest.data(), image.programDigest.size());
  FieldReader sections(payload);
  if (!decodeJob(sections, image.job, error)) return std::nullopt;
  image.ranks.resize(rankCount);
  for (uint32_t rank = 0; rank < rankCount; ++rank)
    if (!decodeRank(sections, rank, rankCount, uint32_t(image.job.grants.size()),
                    image.ranks[rank], error, viewRuns))
      return std::nullopt;
  if (sections.left() != 0) {
    error = "the checkpoint has bytes after its last rank";
    return std::nullopt;
  }
  return image;
}

}  // namespace synergy::checkpoint
