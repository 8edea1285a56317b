//===- FileIO.cpp - whole-file reads and atomic writes --------------------===//
#include "util/FileIO.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace synergy::util {

std::optional<std::string> readFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) errno = EISDIR;
    close(fd);
    return std::nullopt;
  }
  std::string contents;
  char chunk[1 << 16];
  ssize_t n;
  while ((n = read(fd, chunk, sizeof chunk)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      close(fd);
      return std::nullopt;
    }
    contents.append(chunk, size_t(n));
  }
  close(fd);
  return contents;
}

namespace {

bool readOpenRegularFile(int fd, const std::string& path, size_t maxBytes, struct stat& readFrom,
                         std::string& contents, std::string& error) {
  std::string problem;
  if (fstat(fd, &readFrom) != 0) problem = std::strerror(errno);
  else if (!S_ISREG(readFrom.st_mode)) problem = "not a regular file";
  else if (size_t(readFrom.st_size) > maxBytes)
    problem = "larger than the limit of " + std::to_string(maxBytes) + " bytes";
  if (!problem.empty()) {
    error = path + ": " + problem;
    return false;
  }
  // Read one byte past the size seen, so a file that grows meanwhile is
  // noticed instead of read without bound.
  contents.clear();
  contents.resize(size_t(readFrom.st_size) + 1);
  size_t got = 0;
  while (got < contents.size()) {
    ssize_t n = read(fd, contents.data() + got, contents.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  if (got != size_t(readFrom.st_size)) {
    error = path + ": changed size while being read";
    return false;
  }
  contents.resize(got);
  return true;
}

}  // namespace

bool readRegularFileInto(const std::string& path, size_t maxBytes, std::string& contents,
                         std::string& error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat readFrom;
  bool read = readOpenRegularFile(fd, path, maxBytes, readFrom, contents, error);
  close(fd);
  return read;
}

std::optional<std::string> readRegularFile(const std::string& path, size_t maxBytes,
                                           std::string& error) {
  std::string contents;
  if (!readRegularFileInto(path, maxBytes, contents, error)) return std::nullopt;
  return contents;
}

std::optional<std::string> readRegularFile(int fd, const std::string& path, size_t maxBytes,
                                           struct stat& readFrom, std::string& error) {
  std::string contents;
  if (!readOpenRegularFile(fd, path, maxBytes, readFrom, contents, error)) return std::nullopt;
  return contents;
}

bool writeAll(int fd, std::string_view bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += size_t(n);
  }
  return true;
}

bool writeFileAtomically(const std::string& path, const std::string& contents) {
  std::string temp = path + ".tmp.XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) return false;
  if (!writeAll(fd, contents)) {
    close(fd);
    unlink(temp.c_str());
    return false;
  }
  fchmod(fd, 0644);
  if (close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
    unlink(temp.c_str());
    return false;
  }
  return true;
}

bool makeDirectories(const std::string& path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    std::string prefix = path.substr(0, pos);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace synergy::util
