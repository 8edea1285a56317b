// The data of the large-message test programs (large_messages.c,
// late_receiver.c): pseudo-random bytes per seed, so that a lost, repeated,
// reordered or misplaced frame changes what the receiver hashes.
#pragma once

#include <stddef.h>
#include <stdint.h>

static void fill(uint8_t* data, size_t bytes, uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < bytes; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    data[i] = (uint8_t)(state >> 24);
  }
}

// FNV-1a.
static uint64_t hash(const uint8_t* data, size_t bytes) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}
