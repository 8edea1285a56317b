//===- Pipeline.h - From the frontend's HW IR to an engine manifest -------===//
#pragma once

#include "hwlower/EngineManifest.h"
#include "hwlower/HwIr.h"

namespace synergy::hwlower {

// Runs every hwlower pass in order and fills `manifest`. Returns false
// after reporting through `diags`; the manifest is then unusable.
bool lowerDesign(Design& design, Diagnostics& diags, EngineManifest& manifest);

}  // namespace synergy::hwlower
