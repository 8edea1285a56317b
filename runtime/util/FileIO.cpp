//===- FileIO.cpp - whole-file reads, atomic writes, cache location --------===//
#include "util/FileIO.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

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

bool writeFileAtomically(const std::string& path, const std::string& contents) {
  std::string temp = path + ".tmp.XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) return false;
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      close(fd);
      unlink(temp.c_str());
      return false;
    }
    written += size_t(n);
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

std::string cacheDirectory() {
  if (const char* dir = std::getenv("SYNERGY_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/synergy";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/synergy";
  return "/tmp/synergy-cache";
}

}  // namespace synergy::util
