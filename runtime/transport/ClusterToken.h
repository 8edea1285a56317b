//===- ClusterToken.h - The shared secret every connection presents -------===//
//
// All hosts of a cluster share one token, read from a file given with
// --token-file. A connection's first frame carries it, and the accepting host
// drops connections whose token does not match. The file must be private to
// its owner (like an ssh key), since anyone who can read it can join.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>

namespace synergy::transport {

// Reads the token from `path`: the file's contents without one trailing
// newline, kMinTokenBytes..kMaxTokenBytes long, in a file that neither group
// nor others can read. On failure returns false and sets `error`.
bool readClusterToken(const std::string& path, std::string& token, std::string& error);

// Compares two tokens in time that depends only on their lengths, so that a
// peer cannot find the token byte by byte by timing refusals.
bool tokensMatch(std::string_view expected, std::string_view presented);

}  // namespace synergy::transport
