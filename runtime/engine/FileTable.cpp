//===- FileTable.cpp - Verilog file descriptors over host files ------------===//
//
// Each $fopen mode becomes open(2) flags, the file is opened through the
// sandbox, and the stream is an fdopen of that descriptor, so no host path
// is ever opened by name here.
//
//===----------------------------------------------------------------------===//
#include "engine/FileTable.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace synergy::engine {

static constexpr uint32_t kDescriptorBit = 0x80000000u;
static constexpr uint32_t kStdin = kDescriptorBit | 0;
static constexpr uint32_t kStdout = kDescriptorBit | 1;
static constexpr uint32_t kStderr = kDescriptorBit | 2;
static constexpr uint32_t kFirstFileDescriptor = 3;
// What one read of a tenant's buffered stdin asks for, as a stream's buffer
// would.
static constexpr size_t kStdinReadBytes = 1 << 16;
static constexpr int kChannelCount = 31;  // bit 31 marks a plain descriptor
// Plain descriptors a state file may name: as many as a design could open.
static constexpr uint32_t kMaxFileDescriptor = 1u << 16;
// The modes vvp's $fopen accepts.
static constexpr const char* kFopenModes[] = {"r",   "rb",  "w",   "wb",  "a",
                                              "ab",  "r+",  "r+b", "rb+", "w+",
                                              "w+b", "wb+", "a+",  "a+b", "ab+"};

static bool isFopenMode(const std::string& mode) {
  return std::find(std::begin(kFopenModes), std::end(kFopenModes), mode) != std::end(kFopenModes);
}

// The open(2) flags of a valid $fopen mode. A restart passes truncate=false:
// reopening a file the first run wrote must keep what it wrote.
static int openFlagsOf(const std::string& mode, bool truncate) {
  bool update = mode.find('+') != std::string::npos;
  int access = update ? O_RDWR : mode[0] == 'r' ? O_RDONLY : O_WRONLY;
  switch (mode[0]) {
  case 'w':
    return access | O_CREAT | (truncate ? O_TRUNC : 0) | O_NOCTTY;
  case 'a':
    return access | O_CREAT | O_APPEND | O_NOCTTY;
  default:
    return access | O_NOCTTY;
  }
}

FileTable::FileTable(sandbox::GrantTable grants) : grants_(std::move(grants)) {}

FileTable::~FileTable() { closeAll(); }

void FileTable::closeAll() {
  for (auto& [descriptor, file] : files_)
    std::fclose(file.stream);
  files_.clear();
}

std::FILE* FileTable::openStream(const std::string& name, const std::string& mode, bool truncate,
                                 int& error) const {
  error = EINVAL;
  if (!isFopenMode(mode)) return nullptr;
  sandbox::OpenedBeneath opened = grants_.openGuestFile(name, openFlagsOf(mode, truncate), 0666);
  error = opened.error;
  if (!opened.fd.valid()) return nullptr;
  std::FILE* stream = ::fdopen(opened.fd.get(), mode.c_str());
  if (!stream) {
    error = errno;
    return nullptr;
  }
  opened.fd.release();
  return stream;
}

// vvp answers a file it cannot open with 0 and no message; a file the
// sandbox refuses gets a warning too, so the user sees why.
static void warnIfRefused(const std::string& name, int error) {
  if (error == sandbox::kEscapes || error == EROFS)
    std::fprintf(stderr, "synergy-run: warning: $fopen(\"%s\") refused: %s\n", name.c_str(),
                 sandbox::GrantTable::describeError(error).c_str());
}

uint32_t FileTable::open(const std::string& name, const std::string& mode) {
  uint32_t number = kFirstFileDescriptor;
  while (files_.count(kDescriptorBit | number))
    ++number;
  if (number >= kMaxFileDescriptor)
    return 0;
  int error = 0;
  std::FILE* stream = openStream(name, mode, /*truncate=*/true, error);
  if (!stream) {
    warnIfRefused(name, error);
    return 0;
  }
  files_[kDescriptorBit | number] = {stream, name, mode};
  return kDescriptorBit | number;
}

uint32_t FileTable::openMultichannel(const std::string& name) {
  for (int channel = 1; channel < kChannelCount; ++channel) {
    uint32_t bit = 1u << channel;
    if (files_.count(bit))
      continue;
    int error = 0;
    std::FILE* stream = openStream(name, "w", /*truncate=*/true, error);
    if (!stream) {
      warnIfRefused(name, error);
      return 0;
    }
    files_[bit] = {stream, name, "w"};
    return bit;
  }
  return 0;
}

void FileTable::close(uint32_t descriptorOrChannels) {
  std::vector<uint32_t> keys;
  if (descriptorOrChannels & kDescriptorBit)
    keys.push_back(descriptorOrChannels);
  else
    for (int channel = 1; channel < kChannelCount; ++channel)
      if (descriptorOrChannels & (1u << channel))
        keys.push_back(1u << channel);
  for (uint32_t key : keys) {
    auto it = files_.find(key);
    if (it == files_.end())
      continue;
    std::fclose(it->second.stream);
    files_.erase(it);
  }
}

std::FILE* FileTable::stream(uint32_t descriptor) const {
  switch (descriptor) {
  case kStdin:
    return stdin;
  case kStdout:
    return stdout;
  case kStderr:
    return stderr;
  default:
    break;
  }
  auto it = files_.find(descriptor);
  return it == files_.end() ? nullptr : it->second.stream;
}

InputStream* FileTable::input(uint32_t descriptor) {
  switch (descriptor) {
  case kStdin:
    if (bufferedStdin_)
      return bufferedStdin_.get();
    return &stdinInput_;
  case kStdout:
    return &stdoutInput_;
  case kStderr:
    return &stderrInput_;
  default:
    break;
  }
  auto it = files_.find(descriptor);
  return it == files_.end() ? nullptr : &it->second.input;
}

// Pushing back the byte the file holds just before the position (a
// design's peek, $fscanf's look at the byte after an item) leaves the
// stream reading the file's own bytes, which a peek sees as they are; only
// another byte is remembered.
bool FileTable::FileInput::unget(uint8_t byte) {
  if (pushedBackFrom_ < 0) {
    off_t position = ftello(stream_);
    uint8_t before = 0;
    if (position <= 0 || ::pread(fileno(stream_), &before, 1, position - 1) != 1 || before != byte)
      pushedBackFrom_ = position < 0 ? 0 : position;
  }
  return std::ungetc(byte, stream_) != EOF;
}

// ftello counts a pushed-back byte as one before the position it was
// pushed at, so the stream is past every pushed-back byte once it stands at
// or beyond the first such position again.
bool FileTable::FileInput::mayHoldPushedBack() {
  if (pushedBackFrom_ < 0)
    return false;
  off_t position = ftello(stream_);
  if (position >= 0 && position >= pushedBackFrom_)
    pushedBackFrom_ = -1;
  return pushedBackFrom_ >= 0;
}

std::vector<std::FILE*> FileTable::streamsFor(uint32_t descriptorOrChannels) const {
  std::vector<std::FILE*> streams;
  if (descriptorOrChannels & kDescriptorBit) {
    if (std::FILE* single = stream(descriptorOrChannels))
      streams.push_back(single);
    return streams;
  }
  if (descriptorOrChannels & 1u)
    streams.push_back(stdout);
  for (int channel = 1; channel < kChannelCount; ++channel)
    if (descriptorOrChannels & (1u << channel))
      if (auto it = files_.find(1u << channel); it != files_.end())
        streams.push_back(it->second.stream);
  return streams;
}

void FileTable::write(uint32_t descriptorOrChannels, const std::string& text) {
  for (std::FILE* out : streamsFor(descriptorOrChannels)) {
    std::fwrite(text.data(), 1, text.size(), out);
    if (out == stdout && !stdoutWaitingSince_ && !text.empty())
      stdoutWaitingSince_ = std::chrono::steady_clock::now();
  }
}

void FileTable::flush(uint32_t descriptorOrChannels) {
  for (std::FILE* out : streamsFor(descriptorOrChannels)) {
    std::fflush(out);
    if (out == stdout)
      stdoutWaitingSince_.reset();
  }
}

void FileTable::flushWaitingStdout(std::chrono::steady_clock::time_point now) {
  if (stdoutWaitingSince_ && now - *stdoutWaitingSince_ >= kStdoutMaxWait) {
    std::fflush(stdout);
    stdoutWaitingSince_.reset();
  }
}

void FileTable::flushAll() {
  stdoutWaitingSince_.reset();
  std::fflush(stdout);
  std::fflush(stderr);
  for (auto& [descriptor, file] : files_)
    std::fflush(file.stream);
}

std::vector<OpenFileRecord> FileTable::records() const {
  std::vector<OpenFileRecord> result;
  for (const auto& [descriptor, file] : files_) {
    std::fflush(file.stream);
    result.push_back({descriptor, file.path, file.mode, static_cast<int64_t>(std::ftell(file.stream))});
  }
  return result;
}

void FileTable::readStdinAhead() {
  struct stat info;
  if (::fstat(STDIN_FILENO, &info) != 0)
    return;
  if (S_ISREG(info.st_mode))
    stdinIsFile_ = true;
  else
    bufferedStdin_ = std::make_unique<BufferedStdin>();
}

bool FileTable::BufferedStdin::fill(size_t maxBytes, bool wait) {
  if (!wait) {
    pollfd ready{STDIN_FILENO, POLLIN, 0};
    int polled;
    do
      polled = ::poll(&ready, 1, 0);
    while (polled < 0 && errno == EINTR);
    if (polled <= 0)
      return false;
  }
  // The bytes consumed go once they are half the buffer, so a stream that
  // a peek keeps topping up never grows it past twice what it holds.
  if (next_ > 0 && next_ >= bytes_.size() / 2) {
    bytes_.erase(0, next_);
    next_ = 0;
  }
  size_t before = bytes_.size();
  bytes_.resize(before + maxBytes);
  ssize_t got;
  do
    got = ::read(STDIN_FILENO, bytes_.data() + before, maxBytes);
  while (got < 0 && errno == EINTR);
  bytes_.resize(before + size_t(std::max<ssize_t>(got, 0)));
  // An error reads as nothing, as getc's EOF does; the next read tries again.
  if (got == 0)
    sawEnd_ = true;
  return got > 0;
}

int FileTable::BufferedStdin::get() {
  if (held() == 0 && !sawEnd_ && !atEnd_)
    fill(kStdinReadBytes, /*wait=*/true);
  if (held() > 0)
    return uint8_t(bytes_[next_++]);
  // Like a stream's end-of-file flag since glibc 2.28, the end is sticky
  // until a byte is pushed back.
  atEnd_ = atEnd_ || sawEnd_;
  return EOF;
}

bool FileTable::BufferedStdin::unget(uint8_t byte) {
  if (next_ > 0)
    bytes_[--next_] = char(byte);
  else
    bytes_.insert(bytes_.begin(), char(byte));
  atEnd_ = false;
  return true;
}

std::string FileTable::BufferedStdin::peek(size_t maxBytes, bool& endsAtEof) {
  while (held() < maxBytes && !sawEnd_ && fill(maxBytes - held(), /*wait=*/false)) {
  }
  endsAtEof = sawEnd_ && held() <= maxBytes;
  return bytes_.substr(next_, std::min(maxBytes, held()));
}

bool FileTable::BufferedStdin::consume(uint64_t bytes, bool hitEof) {
  if (bytes > held() || (hitEof && (bytes != held() || !sawEnd_)))
    return false;
  next_ += size_t(bytes);
  atEnd_ = hitEof;
  return true;
}

std::vector<uint32_t> FileTable::readAheadDescriptors() {
  auto identity = [](int fd, struct stat& info) { return fd >= 0 && fstat(fd, &info) == 0; };
  std::vector<std::pair<dev_t, ino_t>> written;
  for (int fd : {STDOUT_FILENO, STDERR_FILENO})
    if (struct stat info; identity(fd, info))
      written.emplace_back(info.st_dev, info.st_ino);
  for (const auto& [descriptor, file] : files_)
    if (file.mode != "r" && file.mode != "rb")
      if (struct stat info; identity(fileno(file.stream), info))
        written.emplace_back(info.st_dev, info.st_ino);
  std::vector<uint32_t> readable;
  for (auto& [descriptor, file] : files_) {
    struct stat info;
    if ((file.mode != "r" && file.mode != "rb") || std::feof(file.stream) || std::ferror(file.stream) ||
        file.input.mayHoldPushedBack() ||
        !identity(fileno(file.stream), info) || !S_ISREG(info.st_mode))
      continue;
    if (std::find(written.begin(), written.end(), std::make_pair(info.st_dev, info.st_ino)) == written.end())
      readable.push_back(descriptor);
  }
  if (bufferedStdin_ && !bufferedStdin_->atEnd())
    readable.push_back(kStdin);
  struct stat info;
  if (stdinIsFile_ && !std::feof(stdin) && !std::ferror(stdin) && !stdinInput_.mayHoldPushedBack() &&
      identity(STDIN_FILENO, info) && S_ISREG(info.st_mode) &&
      std::find(written.begin(), written.end(), std::make_pair(info.st_dev, info.st_ino)) == written.end())
    readable.push_back(kStdin);
  return readable;
}

std::optional<std::string> FileTable::peekInput(uint32_t descriptor, size_t maxBytes, bool& endsAtEof) {
  if (descriptor == kStdin && bufferedStdin_) {
    std::string bytes = bufferedStdin_->peek(maxBytes, endsAtEof);
    // Nothing ready yet: no window; the design's read waits in the tenant.
    if (bytes.empty() && !endsAtEof)
      return std::nullopt;
    return bytes;
  }
  auto it = files_.find(descriptor);
  if (it == files_.end() && !(descriptor == kStdin && stdinIsFile_))
    return std::nullopt;
  std::FILE* in = it == files_.end() ? stdin : it->second.stream;
  off_t position = ftello(in);
  if (position < 0)
    return std::nullopt;
  std::string bytes(maxBytes, '\0');
  bytes.resize(std::fread(bytes.data(), 1, maxBytes, in));
  endsAtEof = bytes.size() < maxBytes && std::feof(in);
  bool failed = std::ferror(in);
  // fseeko clears the end-of-file flag the read may have set, as it was.
  if (fseeko(in, position, SEEK_SET) != 0 || failed) {
    std::clearerr(in);
    return std::nullopt;
  }
  return bytes;
}

bool FileTable::advanceInput(uint32_t descriptor, uint64_t bytes, bool hitEof) {
  if (descriptor == kStdin && bufferedStdin_)
    return bufferedStdin_->consume(bytes, hitEof);
  auto it = files_.find(descriptor);
  if (it == files_.end() && !(descriptor == kStdin && stdinIsFile_))
    return false;
  std::FILE* in = it == files_.end() ? stdin : it->second.stream;
  if (bytes > 0 && fseeko(in, off_t(bytes), SEEK_CUR) != 0)
    return false;
  // A read at the end sets the flag; should the file have grown meanwhile,
  // the byte read goes back and the stream is where the reads left it.
  if (hitEof)
    if (int c = std::fgetc(in); c != EOF)
      std::ungetc(c, in);
  return true;
}

std::optional<std::string> FileTable::readGuestFile(const std::string& name, int& error) const {
  sandbox::OpenedBeneath opened = grants_.openGuestFile(name, O_RDONLY | O_NOCTTY, 0);
  struct stat info;
  if (opened.fd.valid() && ::fstat(opened.fd.get(), &info) == 0 && !S_ISREG(info.st_mode))
    opened = {sandbox::UniqueFd(), EINVAL};
  error = opened.error;
  if (!opened.fd.valid())
    return std::nullopt;
  std::string contents;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(opened.fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = errno;
      return std::nullopt;
    }
    if (n == 0)
      return contents;
    contents.append(buffer, static_cast<size_t>(n));
  }
}

bool FileTable::writeGuestFile(const std::string& name, const std::string& contents,
                               std::string& error) const {
  if (int failure = grants_.replaceGuestFile(name, contents)) {
    error = "cannot write '" + name + "': " + sandbox::GrantTable::describeError(failure);
    return false;
  }
  return true;
}

// A record's descriptor as FileTable hands them out: a plain descriptor
// 0x8000_0000 | n with n from 3, or one multichannel bit other than stdout's.
static bool isRestorableDescriptor(uint32_t descriptor) {
  if (descriptor & kDescriptorBit) {
    uint32_t number = descriptor & ~kDescriptorBit;
    return number >= kFirstFileDescriptor && number < kMaxFileDescriptor;
  }
  return descriptor > 1 && (descriptor & (descriptor - 1)) == 0;
}

bool FileTable::restore(const std::vector<OpenFileRecord>& records, std::string& error) {
  closeAll();
  for (const auto& record : records) {
    auto refuse = [&](const std::string& why) {
      error = "file record for '" + record.path + "': " + why;
      closeAll();
      return false;
    };
    if (!isRestorableDescriptor(record.descriptor) || files_.count(record.descriptor))
      return refuse("bad or repeated descriptor " + std::to_string(record.descriptor));
    if (!isFopenMode(record.mode) || (!(record.descriptor & kDescriptorBit) && record.mode != "w"))
      return refuse("mode \"" + record.mode + "\" is not one $fopen gives");
    int openError = 0;
    std::FILE* stream = openStream(record.path, record.mode, /*truncate=*/false, openError);
    if (!stream)
      return refuse("cannot reopen it: " + sandbox::GrantTable::describeError(openError));
    files_[record.descriptor] = {stream, record.path, record.mode};
    struct stat info;
    if (::fstat(::fileno(stream), &info) != 0 || !S_ISREG(info.st_mode))
      return refuse("not a regular file");
    if (record.position < 0 || record.position > info.st_size)
      return refuse("position " + std::to_string(record.position) + " is outside the file (" +
                    std::to_string(info.st_size) + " bytes)");
    if (std::fseek(stream, static_cast<long>(record.position), SEEK_SET) != 0)
      return refuse("cannot seek to " + std::to_string(record.position));
  }
  return true;
}

}  // namespace synergy::engine
