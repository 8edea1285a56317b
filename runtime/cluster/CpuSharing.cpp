//===- CpuSharing.cpp - Whether a job part's waiting ranks may spin -------===//
//
// This file implements CpuSharing.h. Addresses are compared as parsed
// addresses, so that "::ffff:127.0.0.2" and other spellings of one address
// agree with the interfaces' own.
//
//===----------------------------------------------------------------------===//
#include "cluster/CpuSharing.h"

#include <cstring>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sched.h>

namespace synergy::cluster {

namespace {

// The address in IPv6 form (an IPv4 one mapped into ::ffff:0:0/96); false
// when `text` is not an address.
// `v4` mapped into ::ffff:0:0/96.
in6_addr mappedIntoV6(const in_addr& v4) {
  in6_addr address;
  std::memset(&address, 0, sizeof(address));
  address.s6_addr[10] = address.s6_addr[11] = 0xff;
  std::memcpy(address.s6_addr + 12, &v4, sizeof(v4));
  return address;
}

bool parseAddress(const std::string& text, in6_addr& address) {
  if (inet_pton(AF_INET6, text.c_str(), &address) == 1) return true;
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) != 1) return false;
  address = mappedIntoV6(v4);
  return true;
}

bool isLoopback(const in6_addr& address) {
  if (IN6_IS_ADDR_LOOPBACK(&address)) return true;
  return IN6_IS_ADDR_V4MAPPED(&address) && address.s6_addr[12] == 127;
}

}  // namespace

bool isAddressOfThisMachine(const std::string& text) {
  in6_addr address;
  if (!parseAddress(text, address)) return false;
  if (isLoopback(address)) return true;
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) return false;
  bool found = false;
  for (ifaddrs* entry = interfaces; entry && !found; entry = entry->ifa_next) {
    if (!entry->ifa_addr) continue;
    in6_addr own;
    if (entry->ifa_addr->sa_family == AF_INET6) {
      own = reinterpret_cast<const sockaddr_in6*>(entry->ifa_addr)->sin6_addr;
    } else if (entry->ifa_addr->sa_family == AF_INET) {
      own = mappedIntoV6(reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr);
    } else {
      continue;
    }
    found = std::memcmp(&own, &address, sizeof(own)) == 0;
  }
  freeifaddrs(interfaces);
  return found;
}

bool partRanksOwnCpus(const JobPart& part, const std::vector<std::string>& partAddresses,
                      size_t usableCpus) {
  size_t ranksHere = part.partRanks[part.partIndex];
  // Alone, the part has no I/O thread that its ranks wait for.
  size_t ioThreadsHere = part.partRanks.size() > 1 ? 1 : 0;
  for (size_t p = 0; p < part.partRanks.size() && p < partAddresses.size(); ++p) {
    if (p == part.partIndex || !isAddressOfThisMachine(partAddresses[p])) continue;
    ranksHere += part.partRanks[p];
    ++ioThreadsHere;
  }
  return ranksHere + ioThreadsHere <= usableCpus;
}

size_t usableCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return size_t(CPU_COUNT(&set));
}

}  // namespace synergy::cluster
