//===- AffinityFormat.cpp - omp_capture_affinity and its format -------------===//
//
// The OpenMP 5.0 affinity routines: omp_set/get_affinity_format,
// omp_capture_affinity and omp_display_affinity. A format is text with
// fields `%[0][.][width]x` or `%[0][.][width]{name}`: t team_num,
// T num_teams, L nesting_level, n thread_num, N num_threads,
// a ancestor_tnum, H host, P process_id, i native_thread_id,
// A thread_affinity, and %% for a percent sign. A field is left-justified
// in its width unless `.` asks for right justification, and `0` pads a
// right-justified number with zeros. Unknown fields are copied unexpanded.
//
// Threads are not bound to places here, so thread_affinity is the set of
// CPUs the process may run on, as ranges ("0-3,6").
//
//===----------------------------------------------------------------------===//
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "omp/Team.h"

using synergy::granule::Granule;
using namespace synergy::omp;

namespace {

// Formats are short; a longer one comes from a corrupted pointer.
constexpr uint32_t kMaxFormatBytes = 4096;
constexpr int kMaxFieldWidth = 1024;

// The NUL-terminated guest string at `address` (at most kMaxFormatBytes).
std::string guestFormat(Granule& granule, uint32_t address, const char* caller) {
  uint64_t memory = granule.memorySize();
  if (address >= memory) granule.trap(std::string(caller) + ": format outside memory");
  uint32_t available = uint32_t(std::min<uint64_t>(kMaxFormatBytes + 1, memory - address));
  const char* text = reinterpret_cast<const char*>(granule.guestBytes(address, available));
  size_t length = strnlen(text, available);
  if (length == available)
    granule.trap(std::string(caller) + ": format is not NUL-terminated within " +
                 std::to_string(kMaxFormatBytes) + " bytes");
  return std::string(text, length);
}

std::string cpuRanges() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::string ranges;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!ranges.empty()) ranges += ',';
    ranges += std::to_string(cpu);
    if (last > cpu) ranges += '-' + std::to_string(last);
    cpu = last;
  }
  return ranges;
}

int ancestorThreadNum(const OmpThread& me, int level) {
  if (level < 0) return -1;
  const Team* team = me.at.team;
  int number = me.at.threadNum;
  while (team && team->level > level) {
    number = team->parentThreadNum;
    team = team->parent;
  }
  return number;
}

// The value of field `name` (a one-letter or long name) for `me`, and
// whether it is a number; false when the field is unknown.
bool fieldValue(OmpThread& me, std::string_view name, std::string& value, bool& numeric) {
  auto is = [&](char letter, std::string_view longName) {
    return name == std::string_view(&letter, 1) || name == longName;
  };
  int level = me.at.team ? me.at.team->level : 0;
  numeric = true;
  if (is('t', "team_num")) value = "0";
  else if (is('T', "num_teams")) value = "1";
  else if (is('L', "nesting_level")) value = std::to_string(level);
  else if (is('n', "thread_num")) value = std::to_string(me.at.threadNum);
  else if (is('N', "num_threads")) value = std::to_string(me.teamSize());
  else if (is('a', "ancestor_tnum")) value = std::to_string(ancestorThreadNum(me, level - 1));
  else if (is('P', "process_id")) value = std::to_string(getpid());
  else if (is('i', "native_thread_id")) value = std::to_string(long(syscall(SYS_gettid)));
  else {
    numeric = false;
    if (is('H', "host")) {
      char host[256] = {};
      gethostname(host, sizeof host - 1);
      value = host;
    } else if (is('A', "thread_affinity")) {
      value = cpuRanges();
    } else {
      return false;
    }
  }
  return true;
}

std::string expandFormat(OmpThread& me, std::string_view format) {
  std::string out;
  for (size_t at = 0; at < format.size();) {
    if (format[at] != '%') {
      out += format[at++];
      continue;
    }
    size_t start = at++;
    if (at < format.size() && format[at] == '%') {
      out += '%';
      ++at;
      continue;
    }
    bool zeros = at < format.size() && format[at] == '0';
    if (zeros) ++at;
    bool right = at < format.size() && format[at] == '.';
    if (right) ++at;
    int width = 0;
    while (at < format.size() && format[at] >= '0' && format[at] <= '9')
      width = std::min(width * 10 + (format[at++] - '0'), kMaxFieldWidth);
    std::string_view name;
    if (at < format.size() && format[at] == '{') {
      size_t close = format.find('}', at);
      if (close == std::string_view::npos) {
        out += format.substr(start);
        break;
      }
      name = format.substr(at + 1, close - at - 1);
      at = close + 1;
    } else if (at < format.size()) {
      name = format.substr(at++, 1);
    }
    std::string value;
    bool numeric = false;
    if (name.empty() || !fieldValue(me, name, value, numeric)) {
      out += format.substr(start, at - start);
      continue;
    }
    size_t padding = value.size() < size_t(width) ? size_t(width) - value.size() : 0;
    if (!right) {
      out += value + std::string(padding, ' ');
    } else if (zeros && numeric && !value.empty() && value[0] == '-') {
      out += '-' + std::string(padding, '0') + value.substr(1);
    } else {
      out += std::string(padding, zeros && numeric ? '0' : ' ') + value;
    }
  }
  return out;
}

// The format an affinity routine was given, or the ICV when it is null or
// empty.
std::string chosenFormat(Granule& granule, uint32_t address, const char* caller) {
  std::string format = address ? guestFormat(granule, address, caller) : std::string();
  if (!format.empty()) return format;
  DeviceIcvs& device = ompRuntime(granule).device();
  std::lock_guard guard(device.lock);
  return device.affinityFormat;
}

// Copies `text` into the guest buffer like snprintf; returns its length.
uint32_t copyOut(Granule& granule, uint32_t buffer, uint32_t size, const std::string& text) {
  if (buffer && size) {
    uint32_t kept = uint32_t(std::min<size_t>(text.size(), size - 1));
    char* out = reinterpret_cast<char*>(granule.guestBytes(buffer, kept + 1));
    std::memcpy(out, text.data(), kept);
    out[kept] = '\0';
  }
  return uint32_t(text.size());
}

}  // namespace

extern "C" {

void Z_envZ_omp_set_affinity_format(void* host, uint32_t format) {
  Granule& granule = Granule::fromHost(host);
  std::string text = guestFormat(granule, format, "omp_set_affinity_format");
  DeviceIcvs& device = ompRuntime(granule).device();
  std::lock_guard guard(device.lock);
  device.affinityFormat = std::move(text);
}

uint32_t Z_envZ_omp_get_affinity_format(void* host, uint32_t buffer, uint32_t size) {
  Granule& granule = Granule::fromHost(host);
  DeviceIcvs& device = ompRuntime(granule).device();
  std::string format;
  {
    std::lock_guard guard(device.lock);
    format = device.affinityFormat;
  }
  return copyOut(granule, buffer, size, format);
}

uint32_t Z_envZ_omp_capture_affinity(void* host, uint32_t buffer, uint32_t size,
                                     uint32_t format) {
  Granule& granule = Granule::fromHost(host);
  std::string text =
      expandFormat(ompThread(granule), chosenFormat(granule, format, "omp_capture_affinity"));
  return copyOut(granule, buffer, size, text);
}

// Like libgomp, to stderr, one line per call.
void Z_envZ_omp_display_affinity(void* host, uint32_t format) {
  Granule& granule = Granule::fromHost(host);
  std::string text =
      expandFormat(ompThread(granule), chosenFormat(granule, format, "omp_display_affinity"));
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // extern "C"
