// Parsing a byte count as people write it on a command line (host):
// "65536", "64K", "64KiB", "64KB", "0.5M", "1.25MiB", "2G", "100B".
//
// K/KB/KiB mean 1024 bytes, M/MB/MiB 1024^2, G/GB/GiB 1024^3 (memory sizes
// of microcontrollers are powers of two; kB as 1000 is not accepted to avoid
// the ambiguity). A fraction must come out a whole number of bytes. Rejects,
// with a message that says what was given and what is accepted: empty text,
// a sign, hexadecimal, unknown units ("64Q"), missing digits ("K", "0x"),
// zero, and values that do not fit 64 bits.
#pragma once

#include <cstdint>
#include <string>

#include "microarena/base/result.h"

namespace microarena::report {

Result<uint64_t> ParseByteSize(const std::string& text);

}  // namespace microarena::report
