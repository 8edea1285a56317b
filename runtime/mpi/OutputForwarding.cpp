//===- OutputForwarding.cpp - each rank's stdout and stderr, line by line -===//
#include "mpi/OutputForwarding.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace synergy::mpi {

namespace {

void writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += size_t(n);
  }
}

}  // namespace

OutputForwarding::OutputForwarding(const std::vector<int>& worldRanks, bool tagOutput)
    : tag_(tagOutput) {
  for (int worldRank : worldRanks) {
    Stream made[2];
    int writeEnds[2];
    if (!openStreams(worldRank, made, writeEnds)) {
      ok_ = false;
      return;
    }
    for (int i : {0, 1}) {
      made[i].writeFd = writeEnds[i];
      streams_.push_back(made[i]);
    }
  }
  if (::pipe2(stopPipe_, O_CLOEXEC) != 0 || ::pipe2(wakePipe_, O_CLOEXEC | O_NONBLOCK) != 0)
    ok_ = false;
}

bool OutputForwarding::openStreams(int worldRank, Stream made[2], int writeEnds[2]) {
  for (int target : {1, 2}) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      if (target == 2) {
        ::close(made[0].readFd);
        ::close(writeEnds[0]);
      }
      return false;
    }
    // Non-blocking, since drain() may empty a pipe the forwarding thread
    // has just been told is readable.
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
    made[target - 1].rank = worldRank;
    made[target - 1].target = target;
    made[target - 1].readFd = fds[0];
    writeEnds[target - 1] = fds[1];
  }
  return true;
}

bool OutputForwarding::addRank(int worldRank, int writeEnds[2]) {
  writeEnds[0] = writeEnds[1] = -1;
  if (worldRank < 0) return false;
  std::lock_guard<std::mutex> guard(mutex_);
  for (const Stream& stream : streams_)
    if (stream.rank == worldRank && stream.open) return false;
  Stream made[2];
  if (!openStreams(worldRank, made, writeEnds)) {
    writeEnds[0] = writeEnds[1] = -1;
    return false;
  }
  if (auto seeded = seeded_.find(worldRank); seeded != seeded_.end()) {
    made[0].pending = std::move(seeded->second[0]);
    made[1].pending = std::move(seeded->second[1]);
    seeded_.erase(seeded);
  }
  streams_.push_back(made[0]);
  streams_.push_back(made[1]);
  char wake = 1;
  (void)!::write(wakePipe_[1], &wake, 1);
  return true;
}

OutputForwarding::~OutputForwarding() {
  if (thread_.joinable()) finish();
  for (Stream& stream : streams_) {
    if (stream.readFd >= 0) ::close(stream.readFd);
    if (stream.writeFd >= 0) ::close(stream.writeFd);
  }
  for (int fd : stopPipe_)
    if (fd >= 0) ::close(fd);
  for (int fd : wakePipe_)
    if (fd >= 0) ::close(fd);
}

int OutputForwarding::takeWriteEnd(int rank, int stream) {
  Stream& s = streams_[size_t(rank) * 2 + (stream == 2 ? 1 : 0)];
  int fd = s.writeFd;
  s.writeFd = -1;
  return fd;
}

void OutputForwarding::start() {
  thread_ = std::thread([this] { run(); });
}

void OutputForwarding::emit(Stream& stream, const std::string& line) {
  std::string text;
  if (tag_)
    text = "[1," + std::to_string(stream.rank) + "]" +
           (stream.target == 1 ? "<stdout>:" : "<stderr>:");
  text += line;
  writeAll(stream.target, text);
  if (stream.target == 1) stdoutBytes_ += text.size();
}

void OutputForwarding::emitWholeLines(Stream& stream) {
  size_t start = 0;
  for (size_t newline; (newline = stream.pending.find('\n', start)) != std::string::npos;
       start = newline + 1)
    emit(stream, stream.pending.substr(start, newline + 1 - start));
  stream.pending.erase(0, start);
}

bool OutputForwarding::pump(Stream& stream) {
  char buffer[65536];
  ssize_t n = ::read(stream.readFd, buffer, sizeof(buffer));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) {
    if (!stream.pending.empty()) emit(stream, stream.pending);
    stream.pending.clear();
    return false;
  }
  stream.pending.append(buffer, size_t(n));
  emitWholeLines(stream);
  return true;
}

void OutputForwarding::run() {
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Stream*> owners;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      for (Stream& stream : streams_) {
        if (!stream.open) continue;
        fds.push_back({stream.readFd, POLLIN, 0});
        owners.push_back(&stream);
      }
    }
    if (fds.empty()) return;
    fds.push_back({wakePipe_[0], POLLIN, 0});
    fds.push_back({stopPipe_[0], POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds.back().revents) return;
    if (fds[fds.size() - 2].revents) {
      char buffer[64];
      while (::read(wakePipe_[0], buffer, sizeof buffer) > 0) {
      }
    }
    std::lock_guard<std::mutex> guard(mutex_);
    for (size_t i = 0; i < owners.size(); ++i)
      if (fds[i].revents && !pump(*owners[i])) owners[i]->open = false;
  }
}

void OutputForwarding::finish() {
  std::lock_guard<std::mutex> guard(endLock_);
  if (thread_.joinable()) thread_.join();
}

void OutputForwarding::readAvailable(Stream& stream) {
  for (;;) {
    char buffer[65536];
    ssize_t n = ::read(stream.readFd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // empty (EAGAIN) or closed
    stream.pending.append(buffer, size_t(n));
  }
  emitWholeLines(stream);
}

void OutputForwarding::emptyStream(Stream& stream) {
  readAvailable(stream);
  if (!stream.pending.empty()) emit(stream, stream.pending);
  stream.pending.clear();
}

int OutputForwarding::rankMidLine() {
  std::lock_guard<std::mutex> guard(mutex_);
  int midLine = -1;
  for (Stream& stream : streams_) {
    if (!stream.open) continue;
    readAvailable(stream);
    if (!stream.pending.empty() && midLine < 0) midLine = stream.rank;
  }
  return midLine;
}

std::array<std::string, 2> OutputForwarding::holdTails(int worldRank, size_t maxBytes) {
  std::array<std::string, 2> tails;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    for (Stream& stream : streams_) {
      if (!stream.open || stream.rank != worldRank) continue;
      readAvailable(stream);
      if (stream.pending.size() > maxBytes) {
        emit(stream, stream.pending);
        stream.pending.clear();
      }
      tails[stream.target - 1] = stream.pending;
    }
  }
  // The forwarding of this launcher's output (JobHost's) reads these
  // pipes; once they are empty, what the rank printed here is on its way
  // to the client ahead of anything the rank prints on the target, which
  // starts only after the rest of the live round.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (int fd : {1, 2}) {
    struct stat info;
    if (::fstat(fd, &info) != 0 || !S_ISFIFO(info.st_mode)) continue;
    int unread = 0;
    while (::ioctl(fd, FIONREAD, &unread) == 0 && unread > 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return tails;
}

void OutputForwarding::dropTails(int worldRank) {
  std::lock_guard<std::mutex> guard(mutex_);
  for (Stream& stream : streams_)
    if (stream.open && stream.rank == worldRank) {
      readAvailable(stream);
      stream.pending.clear();
    }
}

void OutputForwarding::seedTails(int worldRank, const std::array<std::string, 2>& tails) {
  std::lock_guard<std::mutex> guard(mutex_);
  seeded_[worldRank] = tails;
}

void OutputForwarding::drain() {
  std::lock_guard<std::mutex> guard(mutex_);
  for (Stream& stream : streams_)
    if (stream.open) emptyStream(stream);  // the thread sees a closed stream's end
}

void OutputForwarding::flushNow() {
  std::lock_guard<std::mutex> guard(endLock_);
  char stop = 1;
  if (::write(stopPipe_[1], &stop, 1) < 0) return;
  if (thread_.joinable()) thread_.join();
  for (Stream& stream : streams_) {
    if (!stream.open) continue;
    emptyStream(stream);
    stream.open = false;
  }
}

}  // namespace synergy::mpi
