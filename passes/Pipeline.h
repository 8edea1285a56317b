//===- Pipeline.h - the default wasm pass pipeline -------------------------===//
//
// The one entry point the driver uses: run every Synergy pass, in order, on a
// linked module.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace synergy::passes {

struct PassInfo;

// The passes runDefaultPipeline runs, in order (synergy-opt --default-pipeline).
std::vector<const PassInfo*> defaultPipelinePasses();

// Reads the linked module at inputWasm, runs the default pipeline, writes the
// result to outputWasm (which may equal inputWasm). On failure returns false
// and sets `error` to a one-line message, a complete diagnostic ready to
// print: `<file>[:0x<offset>]: error: <message>`.
bool runDefaultPipeline(const std::string& inputWasm, const std::string& outputWasm,
                        std::string& error);

}  // namespace synergy::passes
