//===- ClockFunctions.cpp - clocks and poll_oneoff -------------------------===//
//
// Clocks map one-to-one onto the host's POSIX clocks. poll_oneoff waits for
// the earliest clock subscription (which is how wasi-libc implements
// nanosleep, sleep and usleep) and, when fd subscriptions are present, polls
// their host fds with the same deadline. All deadlines are converted to
// CLOCK_MONOTONIC first, so a realtime clock step cannot stretch a relative
// sleep.
//
//===----------------------------------------------------------------------===//
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "granule/Granule.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiErrno.h"
#include "wasi/WasiImports.h"
#include "wasi/WasiState.h"

using synergy::granule::Granule;
using namespace synergy::wasi;

static constexpr uint64_t kNanosPerSecond = 1'000'000'000;
static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// More subscriptions than this are refused with EINVAL, as poll(2) refuses
// more fds than it may open, so a guest cannot make the host allocate
// gigabytes of bookkeeping.
static constexpr uint32_t kMaxSubscriptions = 1u << 16;

static std::optional<clockid_t> hostClock(uint32_t wasiClock) {
  switch (wasiClock) {
    case clockid::kRealtime: return CLOCK_REALTIME;
    case clockid::kMonotonic: return CLOCK_MONOTONIC;
    case clockid::kProcessCputime: return CLOCK_PROCESS_CPUTIME_ID;
    case clockid::kThreadCputime: return CLOCK_THREAD_CPUTIME_ID;
    default: return std::nullopt;
  }
}

static uint64_t nanoseconds(const timespec& t) {
  return uint64_t(t.tv_sec) * kNanosPerSecond + uint64_t(t.tv_nsec);
}

static timespec timespecOf(uint64_t nanos) {
  timespec t;
  t.tv_sec = static_cast<time_t>(nanos / kNanosPerSecond);
  t.tv_nsec = static_cast<long>(nanos % kNanosPerSecond);
  return t;
}

static uint64_t now(clockid_t clock) {
  timespec t;
  ::clock_gettime(clock, &t);
  return nanoseconds(t);
}

static uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return b > kNever - a ? kNever : a + b;
}

// One subscription, as poll_oneoff tracks it until it fires.
struct Subscription {
  uint64_t userdata = 0;
  uint8_t type = 0;
  Errno error = Errno::Success;     // reported at once when not Success
  uint64_t deadline = kNever;       // clock subscriptions, CLOCK_MONOTONIC ns
  size_t pollIndex = 0;             // fd subscriptions, into the pollfd array
};

static void storeEvent(uint8_t* at, const Subscription& s, Errno error, uint64_t nbytes,
                       uint16_t flags) {
  std::memset(at, 0, layout::kEventSize);
  storeGuest<uint64_t>(at + layout::kEventUserdata, s.userdata);
  storeGuest<uint16_t>(at + layout::kEventError, static_cast<uint16_t>(error));
  storeGuest<uint8_t>(at + layout::kEventType, s.type);
  storeGuest<uint64_t>(at + layout::kEventNbytes, nbytes);
  storeGuest<uint16_t>(at + layout::kEventFlags, flags);
}

// Bytes a read would return without blocking, as far as the host can tell.
static uint64_t readableBytes(int hostFd) {
  struct stat info;
  if (::fstat(hostFd, &info) == 0 && S_ISREG(info.st_mode)) {
    off_t position = ::lseek(hostFd, 0, SEEK_CUR);
    return position >= 0 && info.st_size > position ? uint64_t(info.st_size - position) : 0;
  }
  int pending = 0;
  return ::ioctl(hostFd, FIONREAD, &pending) == 0 && pending > 0 ? uint64_t(pending) : 0;
}

static void sleepUntil(uint64_t monotonicDeadline) {
  timespec until = timespecOf(monotonicDeadline);
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
  }
}

extern "C" {

uint32_t Z_wasi_snapshot_preview1Z_clock_res_get(WasiInstance* instance, uint32_t clockId,
                                                 uint32_t resolutionOut) {
  uint8_t* out = Granule::fromHost(instance).guestBytes(resolutionOut, 8);
  std::optional<clockid_t> clock = hostClock(clockId);
  if (!clock) return toGuest(Errno::Inval);
  timespec resolution;
  if (::clock_getres(*clock, &resolution) != 0) return toGuest(errnoFromHost(errno));
  storeGuest<uint64_t>(out, nanoseconds(resolution));
  return toGuest(Errno::Success);
}

uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(WasiInstance* instance, uint32_t clockId,
                                                  uint64_t, uint32_t timeOut) {
  uint8_t* out = Granule::fromHost(instance).guestBytes(timeOut, 8);
  std::optional<clockid_t> clock = hostClock(clockId);
  if (!clock) return toGuest(Errno::Inval);
  timespec time;
  if (::clock_gettime(*clock, &time) != 0) return toGuest(errnoFromHost(errno));
  storeGuest<uint64_t>(out, nanoseconds(time));
  return toGuest(Errno::Success);
}

uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(WasiInstance* instance, uint32_t subscriptions,
                                               uint32_t events, uint32_t count,
                                               uint32_t eventCountOut) {
  Granule& granule = Granule::fromHost(instance);
  const uint8_t* in = granule.guestBytes(subscriptions, uint64_t(count) * layout::kSubscriptionSize);
  uint8_t* out = granule.guestBytes(events, uint64_t(count) * layout::kEventSize);
  uint8_t* eventCount = granule.guestBytes(eventCountOut, 4);
  WasiState& state = wasiState(granule);
  if (count == 0 || count > kMaxSubscriptions) return toGuest(Errno::Inval);

  std::vector<Subscription> subs(count);
  std::vector<pollfd> pollFds;
  bool anyImmediate = false;
  uint64_t earliestDeadline = kNever;
  uint64_t start = now(CLOCK_MONOTONIC);

  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* raw = in + i * layout::kSubscriptionSize;
    Subscription& s = subs[i];
    s.userdata = loadGuest<uint64_t>(raw + layout::kSubscriptionUserdata);
    s.type = loadGuest<uint8_t>(raw + layout::kSubscriptionTag);
    if (s.type == eventtype::kClock) {
      std::optional<clockid_t> clock =
          hostClock(loadGuest<uint32_t>(raw + layout::kSubscriptionClockId));
      uint64_t timeout = loadGuest<uint64_t>(raw + layout::kSubscriptionClockTimeout);
      uint16_t flags = loadGuest<uint16_t>(raw + layout::kSubscriptionClockFlags);
      if (!clock) {
        s.error = Errno::Inval;
        anyImmediate = true;
        continue;
      }
      uint64_t remaining = timeout;
      if (flags & kSubscriptionClockAbstime) {
        uint64_t clockNow = now(*clock);
        remaining = timeout > clockNow ? timeout - clockNow : 0;
      }
      s.deadline = saturatingAdd(start, remaining);
      earliestDeadline = std::min(earliestDeadline, s.deadline);
    } else if (s.type == eventtype::kFdRead || s.type == eventtype::kFdWrite) {
      FileDescriptor* file = state.find(loadGuest<uint32_t>(raw + layout::kSubscriptionFd));
      if (!file) {
        s.error = Errno::Badf;
        anyImmediate = true;
        continue;
      }
      s.pollIndex = pollFds.size();
      short interest = s.type == eventtype::kFdRead ? POLLIN : POLLOUT;
      pollFds.push_back(pollfd{file->hostFd(), interest, 0});
    } else {
      s.error = Errno::Inval;
      anyImmediate = true;
    }
  }

  while (true) {
    uint64_t before = now(CLOCK_MONOTONIC);
    if (pollFds.empty()) {
      if (!anyImmediate) sleepUntil(earliestDeadline);
    } else {
      timespec wait{};
      timespec* timeout = nullptr;
      if (anyImmediate || earliestDeadline != kNever) {
        uint64_t left = anyImmediate || earliestDeadline <= before ? 0 : earliestDeadline - before;
        wait = timespecOf(left);
        timeout = &wait;
      }
      if (::ppoll(pollFds.data(), pollFds.size(), timeout, nullptr) < 0) {
        if (errno == EINTR) continue;
        return toGuest(errnoFromHost(errno));
      }
    }

    uint64_t after = now(CLOCK_MONOTONIC);
    uint32_t fired = 0;
    for (const Subscription& s : subs) {
      uint8_t* event = out + fired * layout::kEventSize;
      if (s.error != Errno::Success) {
        storeEvent(event, s, s.error, 0, 0);
        ++fired;
      } else if (s.type == eventtype::kClock) {
        if (s.deadline > after) continue;
        storeEvent(event, s, Errno::Success, 0, 0);
        ++fired;
      } else {
        const pollfd& polled = pollFds[s.pollIndex];
        if (polled.revents == 0) continue;
        uint16_t flags = (polled.revents & POLLHUP) ? kEventFdReadWriteHangup : 0;
        Errno error = Errno::Success;
        if (polled.revents & POLLNVAL) error = Errno::Badf;
        else if ((polled.revents & POLLERR) && !(polled.revents & (POLLIN | POLLOUT)))
          error = Errno::Io;
        uint64_t nbytes = s.type == eventtype::kFdRead && error == Errno::Success
                              ? readableBytes(polled.fd)
                              : 0;
        storeEvent(event, s, error, nbytes, flags);
        ++fired;
      }
    }
    if (fired > 0) {
      storeGuest<uint32_t>(eventCount, fired);
      return toGuest(Errno::Success);
    }
  }
}

}  // extern "C"
