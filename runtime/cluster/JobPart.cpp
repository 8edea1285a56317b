//===- JobPart.cpp - One host's share of a job spread over several hosts --===//
//
// This file implements JobPart.h: a line-oriented format whose every field
// is required once, in order, and range-checked as it is read.
//
//===----------------------------------------------------------------------===//
#include "cluster/JobPart.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <sstream>
#include <thread>

#include "cluster/ClusterState.h"
#include "cluster/JobMessages.h"
#include "util/DecimalNumber.h"
#include "util/FileIO.h"

namespace synergy::cluster {

namespace {

constexpr const char* kFirstLine = "synergy-job-part 1";
constexpr const char* kFirstLineWithRankParts = "synergy-job-part 2";

// Splits "key value" at the first space; false when the key differs.
bool field(const std::string& line, const char* key, std::string& value) {
  std::string prefix = std::string(key) + " ";
  if (line.compare(0, prefix.size(), prefix) != 0) return false;
  value = line.substr(prefix.size());
  return true;
}

// Reads the part of each world rank into `rankParts`: exactly one number
// per rank of `partRanks`, each below the part count, and part p named as
// many times as partRanks[p] says.
bool parseRankParts(const std::string& text, const std::vector<uint32_t>& partRanks,
                    std::vector<uint32_t>& rankParts) {
  uint64_t worldSize = std::accumulate(partRanks.begin(), partRanks.end(), uint64_t(0));
  std::vector<uint32_t> named(partRanks.size(), 0);
  if (!text.empty() && text.back() == ' ') return false;
  std::istringstream numbers(text);
  for (std::string number; std::getline(numbers, number, ' ');) {
    uint64_t rankPart = 0;
    if (rankParts.size() >= worldSize || !util::parseDecimal(number, partRanks.size() - 1, rankPart) ||
        ++named[rankPart] > partRanks[rankPart])
      return false;
    rankParts.push_back(uint32_t(rankPart));
  }
  return rankParts.size() == worldSize;
}

}  // namespace

int JobPart::worldSize() const {
  return int(std::accumulate(partRanks.begin(), partRanks.end(), uint64_t(0)));
}

RankRoutes JobPart::routes() const {
  return rankParts.empty() ? RankRoutes::consecutive(partRanks)
                           : RankRoutes(rankParts, uint32_t(partRanks.size()));
}

std::string formatJobPart(const JobPart& part) {
  // A layout a job starts with is written as version 1, the only one that
  // older readers know.
  bool consecutive = part.rankParts.empty() ||
                     part.rankParts == RankRoutes::consecutive(part.partRanks).partOfRanks();
  std::ostringstream text;
  text << (consecutive ? kFirstLine : kFirstLineWithRankParts) << "\njob " << part.jobId
       << "\npart " << part.partIndex << "\nparts";
  for (uint32_t count : part.partRanks) text << " " << count;
  if (!consecutive) {
    text << "\nrank-parts";
    for (uint32_t rankPart : part.rankParts) text << " " << rankPart;
  }
  text << "\naddress " << part.address << "\nstate " << part.state.textWithCredentials()
       << "\ntoken-file " << part.tokenFile << "\n";
  return text.str();
}

bool parseJobPart(const std::string& text, JobPart& part, std::string& error) {
  std::vector<std::string> lines;
  std::istringstream input(text);
  for (std::string line; std::getline(input, line);) lines.push_back(line);
  const char* const keys[] = {"job", "part", "parts", "address", "state", "token-file"};
  bool withRankParts = lines.size() == 8 && lines[0] == kFirstLineWithRankParts;
  if (!withRankParts && (lines.size() != 7 || lines[0] != kFirstLine)) {
    error = "not a job part file";
    return false;
  }
  // The rank-parts line, checked once the counts are known; lines after
  // it are numbered as they stand in the file.
  std::string rankPartsLine;
  if (withRankParts) {
    if (!field(lines[4], "rank-parts", rankPartsLine)) {
      error = "line 5: expected 'rank-parts'";
      return false;
    }
    lines.erase(lines.begin() + 4);
  }
  auto lineOf = [&](int index) { return index + 1 + (withRankParts && index >= 4 ? 1 : 0); };
  std::string values[6];
  for (int i = 0; i < 6; ++i) {
    if (!field(lines[i + 1], keys[i], values[i])) {
      error = "line " + std::to_string(lineOf(i + 1)) + ": expected '" + keys[i] + "'";
      return false;
    }
  }
  uint64_t number = 0;
  if (!util::parseDecimal(values[0], UINT64_MAX, number)) {
    error = "line 2: bad job id";
    return false;
  }
  part.jobId = number;
  uint64_t index = 0;
  if (!util::parseDecimal(values[1], kMaxJobRanks, index)) {
    error = "line 3: bad part index";
    return false;
  }
  part.partRanks.clear();
  uint64_t total = 0;
  std::istringstream counts(values[2]);
  for (std::string count; std::getline(counts, count, ' ');) {
    if (!util::parseDecimal(count, kMaxJobRanks, number) || number == 0 ||
        (total += number) > kMaxJobRanks || part.partRanks.size() >= kMaxJobRanks) {
      error = "line 4: bad rank counts";
      return false;
    }
    part.partRanks.push_back(uint32_t(number));
  }
  if (index >= part.partRanks.size()) {
    error = "line 3: part " + std::to_string(index) + " of " +
            std::to_string(part.partRanks.size());
    return false;
  }
  part.partIndex = uint32_t(index);
  part.rankParts.clear();
  if (withRankParts && !parseRankParts(rankPartsLine, part.partRanks, part.rankParts)) {
    error = "line 5: the rank-parts do not match the counts";
    return false;
  }
  part.address = values[3];
  if (part.address.empty() ||
      part.address.find_first_not_of("0123456789abcdefABCDEF.:") != std::string::npos) {
    error = "line " + std::to_string(lineOf(4)) + ": the address is not an IP literal";
    return false;
  }
  if (!parseStateUrl(values[4], part.state, error)) {
    error = "line " + std::to_string(lineOf(5)) + ": " + error;
    return false;
  }
  part.tokenFile = values[5];
  if (part.tokenFile.empty()) {
    error = "line " + std::to_string(lineOf(6)) + ": no token file";
    return false;
  }
  return true;
}

bool readJobPart(const std::string& path, JobPart& part, std::string& error) {
  constexpr size_t kMaxPartFileBytes = 64 << 10;
  std::optional<std::string> text = util::readFile(path);
  if (!text) {
    error = "cannot read the job part file";
    return false;
  }
  if (text->size() > kMaxPartFileBytes) {
    error = "the job part file is too large";
    return false;
  }
  return parseJobPart(*text, part, error);
}

std::string formatJobEndpoint(const std::string& address, uint16_t port) {
  return (address.find(':') != std::string::npos ? "[" + address + "]" : address) + ":" +
         std::to_string(port);
}

bool splitJobEndpoint(const std::string& text, std::string& address, uint16_t& port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() ||
      text.size() - colon > 6)
    return false;
  unsigned value = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + unsigned(c - '0');
  }
  if (value == 0 || value > 65535) return false;
  address = text.substr(0, colon);
  if (address.size() > 2 && address.front() == '[' && address.back() == ']')
    address = address.substr(1, address.size() - 2);
  port = uint16_t(value);
  return true;
}

bool exchangeJobEndpoints(const JobPart& part, const std::string& endpoint, uint32_t needFrom,
                          std::chrono::seconds limit, std::map<uint32_t, std::string>& endpoints,
                          std::string& error) {
  // One blocking wait stays under the state connection's command timeout.
  constexpr auto kWaitSlice = std::chrono::milliseconds(1000);
  auto deadline = std::chrono::steady_clock::now() + limit;
  uint32_t partCount = uint32_t(part.partRanks.size());
  auto complete = [&] {
    for (uint32_t p = needFrom; p < partCount; ++p)
      if (!endpoints.count(p)) return false;
    return true;
  };
  // Every command here may be repeated (publishing sets the same field
  // again and wakes the others once more), so one that fails is retried,
  // on a fresh connection, until the store has failed for
  // kStateOutageLimit: a stalled Redis delays the job's start instead of
  // failing it.
  constexpr auto kRetryPause = std::chrono::milliseconds(200);
  std::optional<ClusterState> state;
  bool published = false;
  std::optional<std::chrono::steady_clock::time_point> failingSince;
  while (!published || !complete()) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      error = "job " + std::to_string(part.jobId) + ": only " + std::to_string(endpoints.size()) +
              " of its " + std::to_string(partCount) + " host parts came up within " +
              std::to_string(limit.count()) + " s";
      return false;
    }
    try {
      if (!state) state.emplace(part.state);
      if (!published) {
        endpoints = state->publishJobEndpoint(part.jobId, part.partIndex, partCount, endpoint);
        published = true;
      } else {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
        if (state->waitForJobEndpoints(part.jobId, part.partIndex, std::min(left, kWaitSlice)))
          endpoints = state->jobEndpoints(part.jobId);
      }
      failingSince.reset();
    } catch (const StateStoreError& e) {
      if (!failingSince) failingSince = now;
      if (std::chrono::steady_clock::now() - *failingSince >= kStateOutageLimit) {
        error = e.what();
        return false;
      }
      // A wake token the failed wait took is lost with its reply: publish
      // again, which returns every endpoint published so far.
      published = false;
      std::this_thread::sleep_for(kRetryPause);
    }
  }
  return true;
}

std::shared_ptr<transport::Connection> connectToPart(
    transport::Transport& transport, const JobPart& part,
    const std::map<uint32_t, std::string>& endpoints, uint32_t other, std::string& error) {
  std::string address;
  uint16_t port = 0;
  auto it = endpoints.find(other);
  if (it == endpoints.end() || !splitJobEndpoint(it->second, address, port)) {
    error = "job " + std::to_string(part.jobId) + ": part " + std::to_string(other) +
            " has no valid endpoint in the cluster state";
    return nullptr;
  }
  return transport.connectionTo(address, port, error);
}

}  // namespace synergy::cluster
