//===- ClusterToken.cpp - The shared secret every connection presents -----===//
//
// This file implements reading and comparing cluster tokens (ClusterToken.h).
//
//===----------------------------------------------------------------------===//
#include "transport/ClusterToken.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include "transport/FrameTypes.h"
#include "util/FileIO.h"

namespace synergy::transport {

bool readClusterToken(const std::string& path, std::string& token, std::string& error) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    error = "cannot read token file '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = "token file '" + path + "' is not a regular file";
    return false;
  }
  if (info.st_mode & (S_IRWXG | S_IRWXO)) {
    error = "token file '" + path + "' is accessible by group or others; chmod 600 it";
    return false;
  }
  if (info.st_size > off_t(kMaxTokenBytes + 2)) {
    error = "token file '" + path + "' is longer than " + std::to_string(kMaxTokenBytes) + " bytes";
    return false;
  }
  std::optional<std::string> contents = util::readFile(path);
  if (!contents) {
    error = "cannot read token file '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string text = std::move(*contents);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.size() < kMinTokenBytes || text.size() > kMaxTokenBytes) {
    error = "token in '" + path + "' must be " + std::to_string(kMinTokenBytes) + " to " +
            std::to_string(kMaxTokenBytes) + " bytes long, not " + std::to_string(text.size());
    return false;
  }
  token = std::move(text);
  return true;
}

bool tokensMatch(std::string_view expected, std::string_view presented) {
  if (expected.size() != presented.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    difference |= static_cast<unsigned char>(expected[i] ^ presented[i]);
  return difference == 0;
}

}  // namespace synergy::transport
