#include "microarena/report/byte_size.h"

#include <cctype>

namespace microarena::report {
namespace {

__extension__ typedef unsigned __int128 Wide;  // room for a 64-bit value times 2^30

Status Rejected(const std::string& text, const char* why) {
  return Status::Error(ErrorCode::kInvalidArgument,
                       "size '%s' %s; give bytes as digits with an optional unit K, M or G (powers of 1024; "
                       "also KB/KiB, MB/MiB, GB/GiB, B), e.g. 65536, 64K, 64KiB, 0.5M",
                       text.c_str(), why);
}

}  // namespace

Result<uint64_t> ParseByteSize(const std::string& text) {
  size_t i = 0;
  Wide integer = 0;
  size_t integer_digits = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0; ++i, ++integer_digits) {
    integer = integer * 10 + static_cast<unsigned>(text[i] - '0');
    if (integer > UINT64_MAX) return Rejected(text, "does not fit 64 bits");
  }
  Wide fraction = 0, fraction_scale = 1;
  size_t fraction_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0; ++i, ++fraction_digits) {
      if (fraction_digits >= 18) return Rejected(text, "has too many decimals");
      fraction = fraction * 10 + static_cast<unsigned>(text[i] - '0');
      fraction_scale *= 10;
    }
    if (fraction_digits == 0) return Rejected(text, "has no digits after the decimal point");
  }
  if (integer_digits == 0 && fraction_digits == 0) {
    return Rejected(text, text.empty() ? "is empty" : "does not start with a digit");
  }
  const std::string unit = text.substr(i);
  Wide multiplier = 0;
  if (unit.empty() || unit == "B") multiplier = 1;
  if (unit == "K" || unit == "KB" || unit == "KiB" || unit == "k" || unit == "kB" || unit == "kiB") multiplier = 1024;
  if (unit == "M" || unit == "MB" || unit == "MiB") multiplier = 1024 * 1024;
  if (unit == "G" || unit == "GB" || unit == "GiB") multiplier = 1024ull * 1024 * 1024;
  if (multiplier == 0) {
    return Rejected(text, ("has an unknown unit '" + unit + "' (B, K, k, KB, kB, KiB, kiB, M, MB, MiB, G, GB or GiB)").c_str());
  }
  // integer < 2^64 and multiplier <= 2^30; fraction < 10^18 < 2^60: no overflow.
  const Wide fraction_bytes = fraction * multiplier;
  if (fraction_bytes % fraction_scale != 0) return Rejected(text, "is not a whole number of bytes");
  const Wide bytes = integer * multiplier + fraction_bytes / fraction_scale;
  if (bytes > UINT64_MAX) return Rejected(text, "does not fit 64 bits");
  if (bytes == 0) return Rejected(text, "is zero");
  return static_cast<uint64_t>(bytes);
}

}  // namespace microarena::report
