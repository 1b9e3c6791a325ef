// Integer arithmetic with the results TFLite's kernels get, without the
// undefined behaviour they rely on.
//
// TFLite's reference kernels sum int32 values and let overflow wrap (two's
// complement, what the hardware does). In C++ a signed overflow is undefined,
// so a compiler may assume it never happens. The helpers below do the same
// sums in uint32_t/uint64_t, where wrap-around is defined, and convert back:
// that conversion is modular in g++ and clang (documented) and in every
// compiler from C++20 on. At -O2 they compile to the same single instruction
// as the plain signed operation, so inner loops stay as fast.
//
// Float -> integer conversions of values that may be out of range (NaN, inf,
// |x| >= 2^31) are undefined too; TruncateToInt32 gives what TFLM's x86-64
// build computes (cvttss2si/cvttsd2si return INT32_MIN for those), so that
// the differential tests against that build agree byte for byte.
#pragma once

#include <cstdint>
#include <limits>

namespace microarena::fixed_point {

// a + b modulo 2^32.
inline int32_t WrappingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// a - b modulo 2^32.
inline int32_t WrappingSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

// a * b modulo 2^32 (the low half of the product is the same signed or unsigned).
inline int32_t WrappingMul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// -a modulo 2^32: INT32_MIN stays INT32_MIN.
inline int32_t WrappingNegate(int32_t a) { return static_cast<int32_t>(0u - static_cast<uint32_t>(a)); }

// a * 2^shift modulo 2^32, 0 <= shift <= 31 (TFLite writes x * (1 << shift)).
inline int32_t WrappingShiftLeft(int32_t a, int shift) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) << shift);
}

// 64-bit forms, for the int64 accumulators and the int64 multiply of
// MultiplyByQuantizedMultiplier64.
inline int64_t WrappingAdd64(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrappingMul64(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// |a| as an unsigned value: 2^31 for INT32_MIN (where std::abs is undefined
// and TFLite's abs() returns INT32_MIN, whose uint32_t value is also 2^31).
inline uint32_t UnsignedMagnitude(int32_t a) {
  return a < 0 ? 0u - static_cast<uint32_t>(a) : static_cast<uint32_t>(a);
}

// a + b clamped to [INT32_MIN, INT32_MAX].
inline int32_t SaturatingAdd(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + int64_t{b};
  if (sum > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  if (sum < std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(sum);
}

// a - b clamped to [INT32_MIN, INT32_MAX].
inline int32_t SaturatingSub(int32_t a, int32_t b) {
  const int64_t difference = int64_t{a} - int64_t{b};
  if (difference > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  if (difference < std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(difference);
}

// Whether x truncates to an int32 without overflow: -2^31 - 1 < x < 2^31.
// False for NaN. 2^31 is exact in float and double.
inline bool FitsInt32(double x) { return x > -2147483649.0 && x < 2147483648.0; }
inline bool FitsInt32(float x) { return x >= -2147483648.0f && x < 2147483648.0f; }

// static_cast<int32_t>(x) (truncation toward zero) where that is defined;
// INT32_MIN for NaN and out-of-range x, x86-64's "integer indefinite" value
// and so TFLM's answer on the host the differential tests run on.
inline int32_t TruncateToInt32(double x) {
  return FitsInt32(x) ? static_cast<int32_t>(x) : std::numeric_limits<int32_t>::min();
}
inline int32_t TruncateToInt32(float x) {
  return FitsInt32(x) ? static_cast<int32_t>(x) : std::numeric_limits<int32_t>::min();
}

// The int64 form: INT64_MIN for NaN and |x| >= 2^63 (cvttsd2si with a
// 64-bit destination).
inline int64_t TruncateToInt64(double x) {
  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? static_cast<int64_t>(x)
                                                                       : std::numeric_limits<int64_t>::min();
}

}  // namespace microarena::fixed_point
