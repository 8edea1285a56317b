//===- PrintableText.h - bytes as text that fits one message line ---------===//
//
// Diagnostics quote names and excerpts taken from hostile inputs (a wasm
// import name, a state file's variable name, a line of an .eng's Verilog),
// and digests and build ids are shown and stored as hexadecimal. These two
// functions are the one place either is spelled, so every message escapes
// the same way and no input can break a message across lines or smuggle a
// terminal control sequence into it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace synergy::util {

// Two lowercase hexadecimal digits a byte, in order.
std::string hexDigits(std::span<const uint8_t> bytes);

// `text` with printable ASCII (0x20-0x7e) as it is, except the characters
// in `alsoEscaped` (the quote a caller wraps it in, a backslash), and every
// other byte as \xHH.
std::string printableText(std::string_view text, std::string_view alsoEscaped = {});

}  // namespace synergy::util
