//===- rank_section_bench.cpp - A live move's section against a raw TCP copy -===//
//
// Measures what shipping one rank's section costs (cluster/RankSectionTransfer.h):
// three processes on loopback, part 0, the source and the target, each with
// its own Transport, as the parts of a job are; part 0 announces the move,
// the source ships the section once it heard, the target places and checks
// it and acknowledges. The time runs from part 0's announcement to its
// acknowledgement; each process's CPU (user + system, all its threads)
// over the same stretch. Against it, `tcp` copies the same bytes from one
// process to another over a plain loopback socket (write() from the
// sender's mapping, read() into a fresh mapping of the same size on the
// receiver, then a one-byte answer): the floor any transfer over TCP has.
//
//   synergy-rank-section-bench transfer|tcp BYTES
//
// prints one JSON line; bench/cluster/rank_section_bench.py runs both
// modes in turn and tabulates them.
//
//===----------------------------------------------------------------------===//
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cluster/RankSectionTransfer.h"
#include "transport/Transport.h"
#include "util/Crc32c.h"
#include "util/LittleEndian.h"

namespace {

using namespace synergy;
using Clock = std::chrono::steady_clock;
using transport::FrameType;

constexpr char kToken[] = "rank-section-bench-token-0123456789";
constexpr uint32_t kParts = 3;
constexpr uint64_t kMoveId = 1;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "rank_section_bench: %s\n", what.c_str());
  std::exit(1);
}

double cpuMillis() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// Lines between the parent and a child, over a pair of pipes.
struct Channel {
  int in = -1;
  int out = -1;
  void say(const std::string& line) const {
    std::string text = line + "\n";
    if (write(out, text.data(), text.size()) != ssize_t(text.size())) fail("pipe write");
  }
  std::string hear() const {
    std::string line;
    char c;
    while (read(in, &c, 1) == 1 && c != '\n') line.push_back(c);
    return line;
  }
};

// A child process that talks over a Channel; `body` runs in it.
template <typename Body>
Channel spawn(Body body) {
  int down[2], up[2];
  if (pipe(down) || pipe(up)) fail("pipe");
  pid_t pid = fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    body(Channel{down[0], up[1]});
    std::_Exit(0);
  }
  close(down[0]);
  close(up[1]);
  return Channel{up[0], down[1]};
}

// A section as encodeDepartingRank gives one: the bytes, then their CRC-32C.
uint8_t* makeSection(uint64_t bytes) {
  void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED) fail("mmap");
  auto* data = static_cast<uint8_t*>(at);
  uint64_t state = bytes;
  for (uint64_t i = 0; i + 8 <= bytes - 4; i += 8) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    std::memcpy(data + i, &state, 8);
  }
  util::Crc32c checksum;
  checksum.update(data, bytes - 4);
  util::writeLittleEndian(data + bytes - 4, checksum.value(), 4);
  return data;
}

// One part: a Transport whose section frames go to a RankSectionTransfer,
// the part of the peer known from its first frame (an MpiHello of 4 bytes).
class Part {
 public:
  explicit Part(uint32_t index) : index_(index) {
    sections_ = std::make_unique<cluster::RankSectionTransfer>(cluster::RankSectionTransfer::Links{
        .selfPart = index,
        .partCount = kParts,
        .send = [this](uint32_t part, FrameType type,
                       std::vector<uint8_t> payload) { peer(part)->send(type, std::move(payload)); },
        .sendLent = [this](uint32_t part, std::vector<transport::LentFrame> frames,
                           std::function<void()> released) {
          peer(part)->sendLent(std::move(frames), std::move(released));
        },
        .log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }});
    transport_ = std::make_unique<transport::Transport>(transport::TransportConfig{
        .token = kToken,
        .onFrame = [this](transport::Connection& from, transport::Frame&& frame,
                          std::string&) {
          if (frame.type == FrameType::MpiHello && frame.payload.size() == 4) {
            std::lock_guard<std::mutex> guard(mutex_);
            uint32_t part = uint32_t(util::readLittleEndian(frame.payload.data(), 4));
            partOf_[&from] = part;
            peers_[part] = from.shared_from_this();
          } else if (auto part = partOf(from)) {
            sections_->onFrame(*part, frame.type, frame.payload);
          }
          return true;
        },
        .placePayload = [this](transport::Connection& from, FrameType type,
                               uint64_t bytes) -> uint8_t* {
          auto part = partOf(from);
          return part ? sections_->placePayload(*part, type, bytes) : nullptr;
        },
        .onPlacedFrame = [this](transport::Connection& from, FrameType type, uint64_t bytes,
                                std::string&) {
          sections_->placedFrameArrived(*partOf(from), type, bytes);
          return true;
        }});
    std::string error;
    if (!transport_->listen("127.0.0.1", 0, error)) fail(error);
  }
  uint16_t port() const { return transport_->listeningPort(); }
  void connectTo(uint32_t part, uint16_t port) {
    std::string error;
    auto connection = transport_->connectionTo("127.0.0.1", port, error);
    if (!connection) fail(error);
    {
      std::lock_guard<std::mutex> guard(mutex_);
      partOf_[connection.get()] = part;
      peers_[part] = connection;
    }
    std::vector<uint8_t> hello(4);
    util::writeLittleEndian(hello.data(), index_, 4);
    connection->send(FrameType::MpiHello, std::move(hello));
  }
  cluster::RankSectionTransfer& sections() { return *sections_; }

 private:
  std::shared_ptr<transport::Connection> peer(uint32_t part) {
    std::lock_guard<std::mutex> guard(mutex_);
    return peers_.at(part);
  }
  std::optional<uint32_t> partOf(const transport::Connection& connection) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = partOf_.find(&connection);
    if (it == partOf_.end()) return std::nullopt;
    return it->second;
  }
  uint32_t index_;
  std::mutex mutex_;
  std::map<const transport::Connection*, uint32_t> partOf_;
  std::map<uint32_t, std::shared_ptr<transport::Connection>> peers_;
  std::unique_ptr<cluster::RankSectionTransfer> sections_;
  std::unique_ptr<transport::Transport> transport_;
};

void waitForState(cluster::RankSectionTransfer& sections, cluster::MoveState state) {
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (sections.outcome(kMoveId).state != state) {
    if (Clock::now() > deadline) fail("no move state " + std::to_string(int(state)));
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// The target (part 2) or the source (part 1).
void runPart(uint32_t index, uint64_t bytes, const Channel& parent) {
  uint8_t* section = index == 1 ? makeSection(bytes) : nullptr;
  Part part(index);
  parent.say(std::to_string(part.port()));
  std::string line = parent.hear();
  if (line.rfind("connect ", 0) == 0) {
    part.connectTo(2, uint16_t(std::stoi(line.substr(8))));
    parent.say("ok");
    line = parent.hear();
  }
  if (line != "start") fail("child expected start, heard " + line);
  double cpu0 = cpuMillis();
  parent.say("ok");
  std::atomic<bool> released{false};
  if (index == 1) {
    waitForState(part.sections(), cluster::MoveState::Announced);
    std::string error;
    if (!part.sections().ship(kMoveId, section, bytes, [&] { released = true; }, error))
      fail(error);
  }
  auto outcome = part.sections().waitOutcome(kMoveId, std::chrono::seconds(60));
  if (outcome.state != cluster::MoveState::Landed) fail("part " + std::to_string(index) + ": " +
                                                        outcome.reason);
  if (index == 1)
    while (!released) std::this_thread::sleep_for(std::chrono::microseconds(20));
  double cpu = cpuMillis() - cpu0;
  if (parent.hear() != "report") fail("child expected report");
  parent.say(std::to_string(cpu));
}

void transfer(uint64_t bytes) {
  Channel target = spawn([&](const Channel& c) { runPart(2, bytes, c); });
  Channel source = spawn([&](const Channel& c) { runPart(1, bytes, c); });
  uint16_t targetPort = uint16_t(std::stoi(target.hear()));
  uint16_t sourcePort = uint16_t(std::stoi(source.hear()));
  Part part0(0);
  part0.connectTo(1, sourcePort);
  part0.connectTo(2, targetPort);
  source.say("connect " + std::to_string(targetPort));
  if (source.hear() != "ok") fail("source did not connect");
  // Every hello has gone before the first frame of the move.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  target.say("start");
  source.say("start");
  target.hear();
  source.hear();
  double cpu0 = cpuMillis();
  auto t0 = Clock::now();
  std::string error;
  if (!part0.sections().announce({kMoveId, 5, 1, 2, bytes}, error)) fail(error);
  auto outcome = part0.sections().waitOutcome(kMoveId, std::chrono::seconds(60));
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  double cpu = cpuMillis() - cpu0;
  if (outcome.state != cluster::MoveState::Landed) fail("part 0: " + outcome.reason);
  target.say("report");
  source.say("report");
  double targetCpu = std::stod(target.hear());
  double sourceCpu = std::stod(source.hear());
  while (wait(nullptr) > 0) {
  }
  std::printf("{\"mode\": \"transfer\", \"bytes\": %llu, \"ms\": %.3f, \"source_cpu_ms\": %.3f, "
              "\"target_cpu_ms\": %.3f, \"part0_cpu_ms\": %.3f}\n",
              (unsigned long long)bytes, ms, sourceCpu, targetCpu, cpu);
}

// The raw copy: the receiver maps a buffer of `bytes` and reads into it.
void tcp(uint64_t bytes) {
  Channel receiver = spawn([&](const Channel& parent) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) ||
        listen(listener, 1) ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length))
      fail("listen");
    parent.say(std::to_string(ntohs(address.sin_port)));
    int socket = accept(listener, nullptr, nullptr);
    if (parent.hear() != "start") fail("receiver expected start");
    double cpu0 = cpuMillis();
    parent.say("ok");
    void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at == MAP_FAILED) fail("mmap");
    madvise(at, bytes, MADV_HUGEPAGE);
    auto* buffer = static_cast<uint8_t*>(at);
    for (uint64_t have = 0; have < bytes;) {
      ssize_t got = read(socket, buffer + have, bytes - have);
      if (got <= 0) fail("read");
      have += uint64_t(got);
    }
    char done = 1;
    if (write(socket, &done, 1) != 1) fail("answer");
    double cpu = cpuMillis() - cpu0;
    if (parent.hear() != "report") fail("receiver expected report");
    parent.say(std::to_string(cpu));
  });
  uint8_t* section = makeSection(bytes);
  uint16_t port = uint16_t(std::stoi(receiver.hear()));
  int socket = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  if (connect(socket, reinterpret_cast<sockaddr*>(&address), sizeof address)) fail("connect");
  int one = 1;
  setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  receiver.say("start");
  receiver.hear();
  double cpu0 = cpuMillis();
  auto t0 = Clock::now();
  for (uint64_t sent = 0; sent < bytes;) {
    ssize_t put = write(socket, section + sent, bytes - sent);
    if (put <= 0) fail("write");
    sent += uint64_t(put);
  }
  char done = 0;
  if (read(socket, &done, 1) != 1) fail("no answer");
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  double cpu = cpuMillis() - cpu0;
  receiver.say("report");
  double receiverCpu = std::stod(receiver.hear());
  while (wait(nullptr) > 0) {
  }
  std::printf("{\"mode\": \"tcp\", \"bytes\": %llu, \"ms\": %.3f, \"source_cpu_ms\": %.3f, "
              "\"target_cpu_ms\": %.3f, \"part0_cpu_ms\": 0}\n",
              (unsigned long long)bytes, ms, cpu, receiverCpu);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) fail("usage: synergy-rank-section-bench transfer|tcp BYTES");
  uint64_t bytes = std::strtoull(argv[2], nullptr, 10);
  if (bytes < transport::kMinRankSectionBytes || bytes > transport::kMaxRankSectionBytes)
    fail("BYTES out of range");
  std::string mode = argv[1];
  if (mode == "transfer")
    transfer(bytes);
  else if (mode == "tcp")
    tcp(bytes);
  else
    fail("unknown mode " + mode);
  return 0;
}
