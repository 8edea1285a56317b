//===- BinfmtRegistration.h - run .wasm files directly through binfmt_misc ===//
//
// `synergy-run --register-binfmt` asks the kernel's binfmt_misc to run
// every file that starts with the wasm header through this synergy-run, so
// that `./prog.wasm args` runs a granule as `synergy-run ./prog.wasm args`
// does; `--unregister-binfmt` removes the entry again.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace synergy::driver {

// The name of the entry under the binfmt_misc mount.
inline constexpr const char* kBinfmtEntryName = "synergy-wasm";

// Registers `interpreter` (an absolute path) for wasm files, replacing an
// entry of the same name. Returns false with a one-line reason: binfmt_misc
// is not mounted or is disabled, the caller may not register, or the kernel
// refused the entry. `done` says what was done.
bool registerBinfmt(const std::string& interpreter, std::string& done, std::string& error);

// Removes the entry; false with a one-line reason when there is none or it
// cannot be removed.
bool unregisterBinfmt(std::string& done, std::string& error);

}  // namespace synergy::driver
