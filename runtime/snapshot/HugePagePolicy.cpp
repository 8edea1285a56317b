//===- HugePagePolicy.cpp - whether large growths ask for huge pages ------===//
//
// Detects free page reporting from the virtio balloon driver's devices in
// sysfs: each bound device has a `features` file holding one '0' or '1'
// per negotiated feature bit, bit 0 first, and bit 5 is
// VIRTIO_BALLOON_F_REPORTING (virtio specification 1.2, 5.5.3). The kernel
// registers its page reporting only when that bit was negotiated.
//
//===----------------------------------------------------------------------===//
#include "snapshot/HugePagePolicy.h"

#include <dirent.h>

#include <cstdio>
#include <cstring>

namespace synergy::snapshot {
namespace {

constexpr unsigned kBalloonReportingFeatureBit = 5;

// Whether the features file at `path` has the reporting bit set; a missing,
// short or unreadable file counts as not set.
bool featuresHaveReporting(const std::string& path) {
  FILE* features = std::fopen(path.c_str(), "r");
  if (!features) return false;
  char bits[kBalloonReportingFeatureBit + 2] = {};
  const size_t read = std::fread(bits, 1, kBalloonReportingFeatureBit + 1, features);
  std::fclose(features);
  return read > kBalloonReportingFeatureBit && bits[kBalloonReportingFeatureBit] == '1';
}

}  // namespace

bool freePageReportingActive(const std::string& sysfsRoot) {
  const std::string driver = sysfsRoot + "/bus/virtio/drivers/virtio_balloon";
  DIR* devices = opendir(driver.c_str());
  if (!devices) return false;
  bool active = false;
  // The driver's directory holds one link per bound device (virtio0, ...)
  // beside its own attribute files (bind, uevent, ...).
  while (dirent* entry = readdir(devices)) {
    if (std::strncmp(entry->d_name, "virtio", 6) != 0) continue;
    if (featuresHaveReporting(driver + "/" + entry->d_name + "/features")) {
      active = true;
      break;
    }
  }
  closedir(devices);
  return active;
}

bool largeGrowthWantsHugePages() {
  static const bool wanted = !freePageReportingActive("/sys");
  return wanted;
}

}  // namespace synergy::snapshot
