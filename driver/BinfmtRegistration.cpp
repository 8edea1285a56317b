//===- BinfmtRegistration.cpp - run .wasm files directly through binfmt_misc ===//
//
// binfmt_misc (Documentation/admin-guide/binfmt-misc.rst) takes one line
// written to its `register` file, `:name:type:offset:magic:mask:interpreter:flags`,
// and from then on execve() of a file whose first bytes are `magic` runs
// `interpreter file args...`. The entry written here matches the eight
// bytes every wasm module starts with (`\0asm` and version 1), with no
// flags: the interpreter is opened by path at each exec, as other wasm
// runtimes register theirs, and the guest's argv[0] is the path it was
// started by.
//
// The entry is written where binfmt_misc is mounted: the last binfmt_misc
// mount in /proc/self/mountinfo, which is /proc/sys/fs/binfmt_misc on a
// usual host, or one a container or a user namespace mounted for itself
// (since Linux 6.7 each user namespace can have its own). Registering
// again replaces the entry, so that it names this synergy-run.
//
//===----------------------------------------------------------------------===//
#include "BinfmtRegistration.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace synergy::driver {

namespace {

// The kernel keeps at most this many bytes of an interpreter's path
// (BINPRM_BUF_SIZE, including the terminating zero).
constexpr size_t kLongestInterpreter = 255;

// The eight bytes every wasm module starts with, in binfmt_misc's escapes.
constexpr const char* kWasmMagic = "\\x00asm\\x01\\x00\\x00\\x00";

// Undoes the octal escapes (\040 for a space) of a mountinfo path.
std::string unescapeMountPath(const std::string& field) {
  auto octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string path;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && octal(field[i + 1]) &&
        octal(field[i + 2]) && octal(field[i + 3])) {
      path += char((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
      i += 3;
    } else {
      path += field[i];
    }
  }
  return path;
}

// Where binfmt_misc is mounted for this process, if it is.
std::optional<std::string> binfmtMount() {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::optional<std::string> found;
  std::string line;
  while (std::getline(mountinfo, line)) {
    // Fields: id, parent, dev, root, mount point, options, optional
    // fields, "-", filesystem type, source, super options.
    std::istringstream fields(line);
    std::string field, mountPoint;
    for (int k = 0; k < 5 && fields >> field; ++k)
      if (k == 4) mountPoint = field;
    while (fields >> field && field != "-") {
    }
    std::string type;
    if (fields >> type && type == "binfmt_misc") found = unescapeMountPath(mountPoint);
  }
  return found;
}

// Writes `text` to `path` in one write(), as binfmt_misc's files expect;
// false with errno set.
bool writeControlFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t written = write(fd, text.data(), text.size());
  int writeError = errno;
  close(fd);
  errno = writeError;
  return written == ssize_t(text.size());
}

std::string permissionHint(const std::string& mount) {
  return "writing to binfmt_misc needs root (CAP_SYS_ADMIN over the user namespace that "
         "mounted " + mount + ")";
}

// The mount, checked to be enabled; empty after setting `error`.
std::string enabledMount(std::string& error) {
  std::optional<std::string> mount = binfmtMount();
  if (!mount) {
    error = "binfmt_misc is not mounted (as root: mount -t binfmt_misc binfmt_misc "
            "/proc/sys/fs/binfmt_misc)";
    return "";
  }
  std::ifstream statusFile(*mount + "/status");
  std::string status;
  if (statusFile >> status && status == "disabled") {
    error = "binfmt_misc is disabled (as root: echo 1 > " + *mount + "/status)";
    return "";
  }
  return *mount;
}

bool entryExists(const std::string& mount) {
  return access((mount + "/" + kBinfmtEntryName).c_str(), F_OK) == 0;
}

// Removes the entry that exists at `mount`.
bool removeEntry(const std::string& mount, std::string& error) {
  std::string entry = mount + "/" + kBinfmtEntryName;
  if (writeControlFile(entry, "-1")) return true;
  error = (errno == EACCES || errno == EPERM)
              ? permissionHint(mount)
              : "cannot remove " + entry + ": " + std::strerror(errno);
  return false;
}

}  // namespace

bool registerBinfmt(const std::string& interpreter, std::string& done, std::string& error) {
  if (interpreter.empty() || interpreter[0] != '/' ||
      interpreter.find_first_of(":\n") != std::string::npos ||
      interpreter.size() > kLongestInterpreter) {
    error = "binfmt_misc needs the interpreter as an absolute path of at most " +
            std::to_string(kLongestInterpreter) + " bytes without ':', not '" + interpreter + "'";
    return false;
  }
  std::string mount = enabledMount(error);
  if (mount.empty()) return false;
  bool replaced = entryExists(mount);
  if (replaced && !removeEntry(mount, error)) return false;
  std::string line = std::string(":") + kBinfmtEntryName + ":M::" + kWasmMagic + "::" +
                     interpreter + ":";
  if (!writeControlFile(mount + "/register", line)) {
    if (errno == EACCES || errno == EPERM)
      error = permissionHint(mount);
    else if (errno == EEXIST)
      error = std::string("another binfmt_misc entry named ") + kBinfmtEntryName +
              " appeared meanwhile in " + mount;
    else
      error = "binfmt_misc refused the entry (" + mount + "/register): " + std::strerror(errno);
    return false;
  }
  done = std::string(replaced ? "replaced" : "registered") + " binfmt_misc entry " +
         kBinfmtEntryName + " in " + mount + ": wasm files run through " + interpreter;
  return true;
}

bool unregisterBinfmt(std::string& done, std::string& error) {
  std::optional<std::string> mount = binfmtMount();
  if (!mount) {
    error = "binfmt_misc is not mounted, so nothing is registered";
    return false;
  }
  if (!entryExists(*mount)) {
    error = std::string("no binfmt_misc entry ") + kBinfmtEntryName + " is registered in " + *mount;
    return false;
  }
  if (!removeEntry(*mount, error)) return false;
  done = std::string("removed binfmt_misc entry ") + kBinfmtEntryName + " from " + *mount;
  return true;
}

}  // namespace synergy::driver
