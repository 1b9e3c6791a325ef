// SHA-256 (FIPS 180-4) of a byte string, for host reports: the arena header
// records the model's digest so a firmware build can tell when the model it
// embeds is not the one the arena was sized for.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace microarena::report {

using Sha256Digest = std::array<uint8_t, 32>;

// The digest of `size` bytes at `data` (data may be null when size is 0).
Sha256Digest Sha256(const uint8_t* data, size_t size);
// 64 lowercase hex digits.
std::string Sha256Hex(const Sha256Digest& digest);

}  // namespace microarena::report
