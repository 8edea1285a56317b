// A live move's section shipped between three parts of a job (part 0, a
// source and a target), each with its own real Transport on loopback, as
// MpiPeerLink wires them: the whole 64 MiB section lands in place with its
// CRC-32C checked, and every hostile frame is refused with its reason:
// aborting the move through part 0 when it belongs to an announced move,
// dropped and logged when it does not.
#include "cluster/RankSectionTransfer.h"

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "transport/Transport.h"
#include "util/Crc32c.h"
#include "util/LittleEndian.h"

namespace synergy::cluster {
namespace {

using namespace std::chrono_literals;
using transport::FrameType;

constexpr char kToken[] = "rank-section-transfer-test-token";
constexpr uint32_t kParts = 3;
// Deadlines that only a broken transfer reaches; nothing is timed.
constexpr auto kLimit = 30s;

// One part: a Transport, the module wired to it as MpiPeerLink wires it,
// and the lines the module logged. The lower part connects to the higher
// and introduces itself with its index (an MpiHello of 4 bytes).
class Part {
 public:
  explicit Part(uint32_t index) : index_(index) {
    sections_ = std::make_unique<RankSectionTransfer>(RankSectionTransfer::Links{
        .selfPart = index,
        .partCount = kParts,
        .send =
            [this](uint32_t part, FrameType type, std::vector<uint8_t> payload) {
              if (auto connection = peer(part); connection && !crashed_)
                connection->send(type, std::move(payload));
            },
        .sendLent =
            [this](uint32_t part, std::vector<transport::LentFrame> frames,
                   std::function<void()> released) {
              if (auto connection = peer(part); connection && !crashed_)
                connection->sendLent(std::move(frames), std::move(released));
              else
                released();
            },
        .log = [this](const std::string& line) {
          std::lock_guard<std::mutex> guard(mutex_);
          logged_.push_back(line);
          changed_.notify_all();
        }});
    transport_ = std::make_unique<transport::Transport>(transport::TransportConfig{
        .token = kToken,
        .onFrame =
            [this](transport::Connection& from, transport::Frame&& frame, std::string& reason) {
              if (frame.type == FrameType::MpiHello) {
                if (frame.payload.size() != 4) {
                  reason = "bad hello";
                  return false;
                }
                uint32_t part = uint32_t(util::readLittleEndian(frame.payload.data(), 4));
                std::lock_guard<std::mutex> guard(mutex_);
                partOf_[&from] = part;
                peers_[part] = from.shared_from_this();
                changed_.notify_all();
                return true;
              }
              std::optional<uint32_t> part = partOf(from);
              if (!part || !RankSectionTransfer::carries(frame.type)) {
                reason = "unexpected frame";
                return false;
              }
              sections_->onFrame(*part, frame.type, frame.payload);
              return true;
            },
        .placePayload = [this](transport::Connection& from, FrameType type,
                               uint64_t bytes) -> uint8_t* {
          std::optional<uint32_t> part = partOf(from);
          if (!part || !RankSectionTransfer::carries(type)) return nullptr;
          uint8_t* at = sections_->placePayload(*part, type, bytes);
          if (at) ++placed_;
          return at;
        },
        .onPlacedFrame =
            [this](transport::Connection& from, FrameType type, uint64_t bytes, std::string&) {
              sections_->placedFrameArrived(*partOf(from), type, bytes);
              return true;
            },
        .onClosed =
            [this](transport::Connection& connection) {
              if (std::optional<uint32_t> part = partOf(connection))
                sections_->partClosed(*part);
            },
        .log = [](const std::string&) {}});
    std::string error;
    EXPECT_TRUE(transport_->listen("127.0.0.1", 0, error)) << error;
  }

  void connectTo(Part& higher) {
    std::string error;
    std::shared_ptr<transport::Connection> connection =
        transport_->connectionTo("127.0.0.1", higher.transport_->listeningPort(), error);
    ASSERT_TRUE(connection) << error;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      partOf_[connection.get()] = higher.index_;
      peers_[higher.index_] = connection;
    }
    std::vector<uint8_t> hello(4);
    util::writeLittleEndian(hello.data(), index_, 4);
    connection->send(FrameType::MpiHello, std::move(hello));
    higher.waitForPeer(index_);
  }

  std::shared_ptr<transport::Connection> peer(uint32_t part) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = peers_.find(part);
    return it == peers_.end() ? nullptr : it->second;
  }

  void waitForPeer(uint32_t part) {
    std::unique_lock<std::mutex> lock(mutex_);
    ASSERT_TRUE(changed_.wait_for(lock, kLimit, [&] { return peers_.count(part) != 0; }));
  }

  // Whether a line containing `text` was logged, within the limit.
  bool logs(const std::string& text) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kLimit, [&] {
      for (const std::string& line : logged_)
        if (line.find(text) != std::string::npos) return true;
      return false;
    });
  }

  // Waits until part 0's announcement of `moveId` has come here.
  MoveState waitAnnounced(uint64_t moveId) {
    auto deadline = std::chrono::steady_clock::now() + kLimit;
    while (sections_->outcome(moveId).state == MoveState::Unknown &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    return sections_->outcome(moveId).state;
  }

  void closeConnections() { transport_->closeConnections(); }
  // As a process that is killed: its connections close, and it sends
  // nothing more.
  void crash() {
    crashed_ = true;
    transport_->closeConnections();
  }

  RankSectionTransfer& sections() { return *sections_; }
  // The payloads the transport read straight into a section.
  int placed() const { return placed_.load(); }

 private:
  std::optional<uint32_t> partOf(const transport::Connection& connection) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = partOf_.find(&connection);
    if (it == partOf_.end()) return std::nullopt;
    return it->second;
  }

  uint32_t index_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<const transport::Connection*, uint32_t> partOf_;
  std::map<uint32_t, std::shared_ptr<transport::Connection>> peers_;
  std::vector<std::string> logged_;
  std::unique_ptr<RankSectionTransfer> sections_;
  std::atomic<bool> crashed_{false};
  std::atomic<int> placed_{0};
  // Last, so that it goes first: its I/O thread calls into the rest.
  std::unique_ptr<transport::Transport> transport_;
};

class Job {
 public:
  Job() {
    for (uint32_t i = 0; i < kParts; ++i) parts_[i] = std::make_unique<Part>(i);
    parts_[0]->connectTo(*parts_[1]);
    parts_[0]->connectTo(*parts_[2]);
    parts_[1]->connectTo(*parts_[2]);
  }
  Part& operator[](uint32_t i) { return *parts_[i]; }

 private:
  std::array<std::unique_ptr<Part>, kParts> parts_;
};

// A section as encodeDepartingRank gives one: `bytes` - 4 bytes of some
// rank's state, then their CRC-32C. In a mapping, as a suspended granule's
// memory is.
class Section {
 public:
  explicit Section(uint64_t bytes) : bytes_(bytes) {
    void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(at, MAP_FAILED);
    data_ = static_cast<uint8_t*>(at);
    uint64_t state = bytes;
    for (uint64_t i = 0; i + 8 <= bytes - 4; i += 8) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      std::memcpy(data_ + i, &state, 8);
    }
    util::Crc32c checksum;
    checksum.update(data_, bytes - 4);
    crc_ = checksum.value();
    util::writeLittleEndian(data_ + bytes - 4, crc_, 4);
  }
  ~Section() { munmap(data_, bytes_); }
  uint8_t* data() { return data_; }
  uint64_t size() const { return bytes_; }
  uint32_t crc() const { return crc_; }

 private:
  uint64_t bytes_;
  uint8_t* data_;
  uint32_t crc_ = 0;
};

RankMoveAnnouncement move(uint64_t id, uint32_t source, uint32_t target, uint64_t bytes) {
  return {.moveId = id, .worldRank = 5, .sourcePart = source, .targetPart = target, .bytes = bytes};
}

std::vector<uint8_t> head(uint64_t moveId, uint64_t offset, uint64_t bytes) {
  std::vector<uint8_t> payload(transport::kRankSectionHeadBytes);
  util::writeLittleEndian(payload.data(), moveId, 8);
  util::writeLittleEndian(payload.data() + 8, offset, 8);
  util::writeLittleEndian(payload.data() + 16, bytes, 8);
  return payload;
}

// Ships `section` from `source` to `target`, as announced by part 0, as
// soon as the source has heard the announcement: the chunks go once the
// target, which may hear it later, has accepted.
void ship(Job& job, uint64_t id, uint32_t source, uint32_t target, Section& section,
          uint64_t announcedBytes, std::atomic<int>& released) {
  std::string error;
  ASSERT_TRUE(job[0].sections().announce(move(id, source, target, announcedBytes), error))
      << error;
  ASSERT_EQ(job[source].waitAnnounced(id), MoveState::Announced);
  EXPECT_TRUE(job[source].sections().ship(id, section.data(), section.size(),
                                          [&] { ++released; }, error))
      << error;
}

TEST(RankSectionTransferTest, Ships64MiBInPlaceAndAcknowledgesToSourceAndPart0) {
  Job job;
  Section section(64ull << 20);
  std::atomic<int> released{0};
  ship(job, 1, 1, 2, section, section.size(), released);
  MoveOutcome atPart0 = job[0].sections().waitOutcome(1, kLimit);
  ASSERT_EQ(atPart0.state, MoveState::Landed) << atPart0.reason;
  EXPECT_EQ(atPart0.crc, section.crc());
  EXPECT_EQ(job[1].sections().waitOutcome(1, kLimit).state, MoveState::Landed);
  EXPECT_EQ(job[2].sections().outcome(1).state, MoveState::Landed);
  std::shared_ptr<SectionBuffer> landed = job[2].sections().takeLanded(1);
  ASSERT_TRUE(landed);
  ASSERT_EQ(landed->size(), section.size());
  EXPECT_EQ(std::memcmp(landed->data(), section.data(), section.size()), 0);
  EXPECT_FALSE(job[2].sections().takeLanded(1)) << "given up once";
  // Every chunk went from the socket to its place, none through a frame's
  // own buffer.
  EXPECT_EQ(job[2].placed(), int(section.size() / RankSectionTransfer::kChunkBytes));
  job[1].closeConnections();
  EXPECT_EQ(released.load(), 1);
}

// Part 0 is the source; a size that is no multiple of the chunk size.
TEST(RankSectionTransferTest, Part0ShipsASectionOfUnevenChunks) {
  Job job;
  Section section(2 * RankSectionTransfer::kChunkBytes + 12345);
  std::atomic<int> released{0};
  ship(job, 7, 0, 2, section, section.size(), released);
  MoveOutcome atPart0 = job[0].sections().waitOutcome(7, kLimit);
  ASSERT_EQ(atPart0.state, MoveState::Landed) << atPart0.reason;
  uint32_t computed = 0;
  std::shared_ptr<SectionBuffer> landed = job[2].sections().takeLanded(7, &computed);
  ASSERT_TRUE(landed);
  EXPECT_EQ(std::memcmp(landed->data(), section.data(), section.size()), 0);
  // The CRC-32C the target computed chunk by chunk as they landed, which
  // the arrival's decode compares the stated one with.
  EXPECT_EQ(computed, section.crc());
}

// A failure of an announced move ends it on all three parts, with the
// reason the part that found it gave.
void expectAbortedEverywhere(Job& job, uint64_t id, const std::string& reason) {
  for (uint32_t part = 0; part < kParts; ++part) {
    if (job[part].sections().outcome(id).state == MoveState::Unknown) continue;
    MoveOutcome outcome = job[part].sections().waitOutcome(id, kLimit);
    EXPECT_EQ(outcome.state, MoveState::Aborted) << "part " << part;
    EXPECT_NE(outcome.reason.find(reason), std::string::npos)
        << "part " << part << ": " << outcome.reason;
  }
  EXPECT_FALSE(job[2].sections().takeLanded(id));
}

TEST(RankSectionTransferTest, AWrongSizeAtTheSourceAbortsThroughPart0) {
  Job job;
  Section section(1 << 20);
  std::string error;
  ASSERT_TRUE(job[0].sections().announce(move(2, 1, 2, section.size() + 1), error));
  ASSERT_EQ(job[1].waitAnnounced(2), MoveState::Announced);
  ASSERT_EQ(job[2].waitAnnounced(2), MoveState::Announced);
  bool released = false;
  EXPECT_FALSE(job[1].sections().ship(2, section.data(), section.size(),
                                      [&] { released = true; }, error));
  EXPECT_TRUE(released);
  EXPECT_NE(error.find("wrong size"), std::string::npos) << error;
  EXPECT_NE(job[0].sections().waitOutcome(2, kLimit).reason.find("part 1: move 2: wrong size"),
            std::string::npos);
  expectAbortedEverywhere(job, 2, "move 2: wrong size: the section has 1048576 bytes "
                                  "where 1048577 were announced");
}

TEST(RankSectionTransferTest, ABadCrcAbortsThroughPart0) {
  Job job;
  Section section(3 << 20);
  section.data()[123456] ^= 0x10;
  std::atomic<int> released{0};
  ship(job, 3, 1, 2, section, section.size(), released);
  EXPECT_NE(job[0].sections().waitOutcome(3, kLimit).reason.find("part 2: bad CRC-32C"),
            std::string::npos);
  expectAbortedEverywhere(job, 3, "bad CRC-32C");
}

// Chunks a hostile source sends by hand, each refused with its reason.
struct HostileChunks {
  const char* name;
  std::vector<std::pair<std::vector<uint8_t>, uint64_t>> frames;  // head, data bytes (~0: none)
  const char* reason;
};

void PrintTo(const HostileChunks& chunks, std::ostream* out) { *out << chunks.name; }

constexpr uint64_t kNoData = ~0ull;
constexpr uint64_t kSmall = 100;

class HostileChunkTest : public testing::TestWithParam<HostileChunks> {};

TEST_P(HostileChunkTest, AbortsTheMoveWithItsReason) {
  Job job;
  std::string error;
  ASSERT_TRUE(job[0].sections().announce(move(4, 1, 2, kSmall), error)) << error;
  ASSERT_EQ(job[2].waitAnnounced(4), MoveState::Announced);
  std::shared_ptr<transport::Connection> toTarget = job[1].peer(2);
  for (const auto& [headBytes, dataBytes] : GetParam().frames) {
    toTarget->send(FrameType::RankSectionHead, headBytes);
    if (dataBytes != kNoData)
      toTarget->send(FrameType::RankSectionData, std::vector<uint8_t>(dataBytes, 0x5a));
  }
  // Part 0 hears it from the target, and says so.
  MoveOutcome atPart0 = job[0].sections().waitOutcome(4, kLimit);
  EXPECT_EQ(atPart0.reason.rfind("part 2: ", 0), 0u) << atPart0.reason;
  expectAbortedEverywhere(job, 4, GetParam().reason);
}

INSTANTIATE_TEST_SUITE_P(
    Chunks, HostileChunkTest,
    testing::Values(
        HostileChunks{"OutOfRange", {{head(4, 50, 60), 60}},
                      "a chunk of 60 bytes at offset 50 is out of range of the 100 bytes "
                      "announced"},
        HostileChunks{"OffsetPastTheEnd", {{head(4, ~0ull - 3, 8), 8}}, "is out of range"},
        HostileChunks{"Overlap", {{head(4, 0, 40), 40}, {head(4, 20, 20), 20}},
                      "a chunk of 20 bytes at offset 20 overlaps the 40 bytes placed"},
        HostileChunks{"Gap", {{head(4, 10, 10), 10}},
                      "a chunk of 10 bytes at offset 10 leaves a gap after the 0 bytes placed"},
        HostileChunks{"EmptyChunk", {{head(4, 0, 0), kNoData}}, "chunks hold 1 to 16777216 bytes"},
        HostileChunks{"OversizedChunk", {{head(4, 0, (16 << 20) + 1), kNoData}},
                      "chunks hold 1 to 16777216 bytes"},
        HostileChunks{"DataShorterThanItsHead", {{head(4, 0, 40), 30}},
                      "RankSectionData of 30 bytes where its head announced 40"},
        HostileChunks{"TwoHeadsInARow", {{head(4, 0, 40), kNoData}, {head(4, 0, 40), kNoData}},
                      "RankSectionHead before the data of the previous chunk"},
        HostileChunks{"ShortHead", {{std::vector<uint8_t>(23), kNoData}},
                      "RankSectionHead of 23 bytes, not 24"},
        // All 100 bytes placed, but they are no section: their CRC fails.
        HostileChunks{"AllPlacedBadCrc", {{head(4, 0, 60), 60}, {head(4, 60, 40), 40}},
                      "bad CRC-32C"}),
    [](const testing::TestParamInfo<HostileChunks>& info) { return info.param.name; });

TEST(RankSectionTransferTest, AnUnannouncedTransferIsDroppedWithItsReason) {
  Job job;
  std::shared_ptr<transport::Connection> toTarget = job[1].peer(2);
  toTarget->send(FrameType::RankSectionHead, head(77, 0, 40));
  toTarget->send(FrameType::RankSectionData, std::vector<uint8_t>(40));
  EXPECT_TRUE(job[2].logs("move 77: RankSectionHead from part 1 for a move part 0 has not "
                          "announced here"));
  EXPECT_TRUE(job[2].logs("RankSectionData of 40 bytes from part 1 without a RankSectionHead of "
                          "an announced move"));
  EXPECT_EQ(job[2].sections().outcome(77).state, MoveState::Unknown);
  EXPECT_EQ(job[0].sections().outcome(77).state, MoveState::Unknown);
  // The connection stays: a move announced after that still lands.
  Section section(4096);
  std::atomic<int> released{0};
  ship(job, 78, 1, 2, section, section.size(), released);
  EXPECT_EQ(job[0].sections().waitOutcome(78, kLimit).state, MoveState::Landed);
}

TEST(RankSectionTransferTest, OnlyPart0AnnouncesAndOnlyTheSourceSends) {
  Job job;
  // An announcement from part 1, not part 0.
  job[1].peer(2)->send(FrameType::RankMoveAnnounce,
                       encodeRankMoveAnnouncement(move(5, 1, 2, kSmall)));
  EXPECT_TRUE(job[2].logs("RankMoveAnnounce from part 1, not part 0"));
  EXPECT_EQ(job[2].sections().outcome(5).state, MoveState::Unknown);
  // A malformed one from part 0.
  std::vector<uint8_t> shortAnnounce = encodeRankMoveAnnouncement(move(6, 1, 2, kSmall));
  shortAnnounce.pop_back();
  job[0].peer(2)->send(FrameType::RankMoveAnnounce, shortAnnounce);
  EXPECT_TRUE(job[2].logs("RankMoveAnnounce of 31 bytes, not 32"));
  // Chunks from part 0, which is not the move's source.
  std::string error;
  ASSERT_TRUE(job[0].sections().announce(move(8, 1, 2, kSmall), error)) << error;
  ASSERT_EQ(job[2].waitAnnounced(8), MoveState::Announced);
  job[0].peer(2)->send(FrameType::RankSectionHead, head(8, 0, 40));
  EXPECT_TRUE(job[2].logs("move 8: RankSectionHead from part 0, not from the move's source part 1"));
  // An abort from part 1 to part 2, which only part 0 may send.
  std::vector<uint8_t> abort(transport::kRankMoveAbortHeadBytes);
  util::writeLittleEndian(abort.data(), 8, 8);
  job[1].peer(2)->send(FrameType::RankMoveAbort, abort);
  EXPECT_TRUE(job[2].logs("move 8: RankMoveAbort from part 1, which has no say in it"));
  // An acceptance from a part that is not the target.
  std::vector<uint8_t> accept(transport::kRankSectionAcceptBytes);
  util::writeLittleEndian(accept.data(), 8, 8);
  ASSERT_EQ(job[1].waitAnnounced(8), MoveState::Announced);
  job[0].peer(1)->send(FrameType::RankSectionAccept, accept);
  EXPECT_TRUE(job[1].logs("move 8: RankSectionAccept from part 0, not the move's target, to its "
                          "source"));
  // An acknowledgement from a part that is not the target.
  std::vector<uint8_t> landed(transport::kRankSectionLandedBytes);
  util::writeLittleEndian(landed.data(), 8, 8);
  job[1].peer(0)->send(FrameType::RankSectionLanded, landed);
  EXPECT_TRUE(job[0].logs("move 8: RankSectionLanded from part 1, not the move's target part 2"));
  EXPECT_EQ(job[2].sections().outcome(8).state, MoveState::Announced);
  EXPECT_EQ(job[0].sections().outcome(8).state, MoveState::Announced);
}

TEST(RankSectionTransferTest, Part0RefusesMovesThatCannotBe) {
  Job job;
  std::string error;
  EXPECT_FALSE(job[0].sections().announce(move(9, 1, 1, kSmall), error));
  EXPECT_FALSE(job[0].sections().announce(move(9, 1, 3, kSmall), error));
  EXPECT_FALSE(job[0].sections().announce(move(9, 1, 2, 4), error));
  EXPECT_FALSE(
      job[0].sections().announce(move(9, 1, 2, transport::kMaxRankSectionBytes + 1), error));
  EXPECT_FALSE(job[1].sections().announce(move(9, 1, 2, kSmall), error));
  EXPECT_TRUE(job[0].sections().announce(move(9, 1, 2, kSmall), error)) << error;
  EXPECT_FALSE(job[0].sections().announce(move(9, 1, 2, kSmall), error));
  EXPECT_EQ(error, "move 9: announced before");
  // A section the target cannot take is refused there.
  EXPECT_FALSE(job[2].sections().ship(9, nullptr, 0, {}, error));
  EXPECT_EQ(error, "move 9: not announced with part 2 as its source");
}

// The source's bytes are given back when the move ends before they went.
TEST(RankSectionTransferTest, ALostTargetAbortsTheMoveAndGivesTheLentBytesBack) {
  Job job;
  std::string error;
  ASSERT_TRUE(job[0].sections().announce(move(11, 1, 2, kSmall), error)) << error;
  ASSERT_EQ(job[2].waitAnnounced(11), MoveState::Announced);
  ASSERT_EQ(job[1].waitAnnounced(11), MoveState::Announced);
  job[2].crash();
  MoveOutcome atSource = job[1].sections().waitOutcome(11, kLimit);
  ASSERT_EQ(atSource.state, MoveState::Aborted);
  EXPECT_NE(atSource.reason.find("lost part 2"), std::string::npos) << atSource.reason;
  std::atomic<int> released{0};
  Section section(kSmall);
  EXPECT_FALSE(job[1].sections().ship(11, section.data(), section.size(), [&] { ++released; },
                                      error));
  EXPECT_EQ(released.load(), 1);
  EXPECT_EQ(job[0].sections().waitOutcome(11, kLimit).state, MoveState::Aborted);
}

TEST(RankSectionTransferTest, ALostSourceAbortsTheMoveThroughPart0) {
  Job job;
  std::string error;
  ASSERT_TRUE(job[0].sections().announce(move(10, 1, 2, kSmall), error)) << error;
  ASSERT_EQ(job[1].waitAnnounced(10), MoveState::Announced);
  ASSERT_EQ(job[2].waitAnnounced(10), MoveState::Announced);
  job[1].peer(2)->send(FrameType::RankSectionHead, head(10, 0, 40));
  job[1].crash();
  MoveOutcome atPart0 = job[0].sections().waitOutcome(10, kLimit);
  ASSERT_EQ(atPart0.state, MoveState::Aborted);
  // Whichever of part 0 and part 2 saw the connection to part 1 close
  // first, the move is off on both, for that loss.
  EXPECT_NE(atPart0.reason.find("lost part 1"), std::string::npos) << atPart0.reason;
  MoveOutcome atTarget = job[2].sections().waitOutcome(10, kLimit);
  EXPECT_EQ(atTarget.state, MoveState::Aborted);
  EXPECT_NE(atTarget.reason.find("lost part 1"), std::string::npos) << atTarget.reason;
}

}  // namespace
}  // namespace synergy::cluster
