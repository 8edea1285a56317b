//===- HugePagePolicy.h - whether large growths ask for huge pages --------===//
//
// A linear memory marks each growth of at least 2 MiB MADV_HUGEPAGE when a
// transparent huge page makes a first touch cheaper than 512 base pages do.
// That holds on bare metal, but not inside a virtual machine whose balloon
// device reports free memory to the hypervisor (virtio-balloon free page
// reporting): the guest reports, and the host then discards, free blocks of
// 2 MiB and more, so nearly every fresh huge page is one the host must fault
// in again, 512 host faults under one guest fault, while 4 KiB allocations
// are served first from the smaller free blocks that were never reported.
// Measured on such a guest (kernel 6.18, Firecracker, page_reporting_order
// 9): a fresh 512 MiB array cost 0.7-1.1 s of system time with huge pages
// against 0.17-0.26 s with base pages; refilling the same huge pages within
// one process cost 0.05 s, the saving huge pages give where memory stays
// backed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace synergy::snapshot {

// Whether a large growth of linear memory should be marked MADV_HUGEPAGE
// here: false when free page reporting is active. Decided once per process,
// on first use, so runs that never grow by 2 MiB never read sysfs.
bool largeGrowthWantsHugePages();

// Whether a virtio balloon device under the sysfs tree `sysfsRoot` (normally
// "/sys") has negotiated free page reporting. Exposed for tests.
bool freePageReportingActive(const std::string& sysfsRoot);

}  // namespace synergy::snapshot
