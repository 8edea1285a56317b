//===- JobPart.h - One host's share of a job spread over several hosts ----===//
//
// When a job's ranks span hosts, the daemon of each host runs its part (a
// set of ranks) with `synergy-run --cluster-part FILE`. The file says which
// job and part this is, how many ranks every part has, which part runs
// each rank when that is not the parts' runs of consecutive ranks in order
// (a rank moved live), the address this host's part listens on for the
// others, where the cluster state is, and where the cluster token is. It
// is written by synergyd into its private area and read back by the
// child, but the child still checks every field: nothing in it is trusted
// beyond what it says.
//
//   synergy-job-part 1
//   job 42
//   part 1
//   parts 2 2 1
//   address 127.0.0.3
//   state redis://127.0.0.1:6380
//   token-file /path/to/token
//
// A job whose parts hold runs of consecutive ranks in part order, as every
// job starts, is written as above. Any other layout is version 2, with one
// more line after "parts": the part of each world rank, in rank order,
// which must agree with the counts:
//
//   synergy-job-part 2
//   ...
//   parts 2 2 1
//   rank-parts 0 1 0 1 2
//   ...
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/RankRoutes.h"
#include "cluster/RedisConnection.h"
#include "transport/Transport.h"

namespace synergy::cluster {

struct JobPart {
  uint64_t jobId = 0;
  uint32_t partIndex = 0;
  std::vector<uint32_t> partRanks;  // ranks per part, in part order
  std::string address;              // an IP literal of this host
  StateUrl state;
  std::string tokenFile;
  // The part of each world rank; empty: part p runs the partRanks[p]
  // ranks after those of the parts before it.
  std::vector<uint32_t> rankParts;

  int worldSize() const;
  // The rank -> part table this file describes.
  RankRoutes routes() const;
};

std::string formatJobPart(const JobPart& part);
// False with a one-line `error` when the text is malformed or over a limit.
bool parseJobPart(const std::string& text, JobPart& part, std::string& error);
// Reads and parses the part file at `path` (at most 64 KiB).
bool readJobPart(const std::string& path, JobPart& part, std::string& error);

// A part's endpoint as published in the cluster state: "address:port", an
// IPv6 address in brackets; and back, false when malformed.
std::string formatJobEndpoint(const std::string& address, uint16_t port);
bool splitJobEndpoint(const std::string& text, std::string& address, uint16_t& port);

// Publishes this part's `endpoint` in the cluster state and waits, for at
// most `limit`, until every part from `needFrom` on has published its own
// (it sleeps in Redis until another part publishes one). The endpoints
// published so far, or false with a one-line `error`.
bool exchangeJobEndpoints(const JobPart& part, const std::string& endpoint, uint32_t needFrom,
                          std::chrono::seconds limit, std::map<uint32_t, std::string>& endpoints,
                          std::string& error);
// Opens (or reuses) `transport`'s authenticated connection to part `other`
// at its endpoint in `endpoints`; null with `error` when it has none, a
// malformed one, or cannot be reached.
std::shared_ptr<transport::Connection> connectToPart(
    transport::Transport& transport, const JobPart& part,
    const std::map<uint32_t, std::string>& endpoints, uint32_t other, std::string& error);

}  // namespace synergy::cluster
