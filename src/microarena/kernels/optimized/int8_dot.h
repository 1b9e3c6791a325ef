// Dot products of int8 activations against int8 weights, the inner loops of
// the fast int8 convolution and fully connected paths (optimized/*.cc).
//
// Each adds sum over k of w[k] * (x[k] + offset) to an accumulator, modulo
// 2^32: TFLM's reference wraps its int32 sums (WrappingAdd), and a sum
// modulo 2^32 does not depend on the order of its terms, so any blocking or
// reordering gives the reference's bytes. |x + offset| <= 255 and |w| <= 128
// (Prepare checks the zero points), so every product and every pair of
// products fits in 32 bits.
//
// Two implementations with one contract:
//   - Cortex-M with the DSP extension (__ARM_FEATURE_DSP: M4, M7, M33):
//     four bytes per load; SXTAB16 unpacks bytes 0 and 2 (and, rotated,
//     1 and 3) to 16-bit halves with the offset added in the same
//     instruction, SXTB16 unpacks the weights alike, and SMLAD does two
//     multiply-adds. Both operands are unpacked the same way, so the pairs
//     match without reordering. 2 x 2 blocking (two pixels, two output
//     channels): 20 instructions per 16 multiply-adds.
//   - Everywhere else: plain loops over k that compilers vectorise (the
//     kernels' fast-path sources are compiled with the dynamic cost model).
//
// The blocked forms take two pixels x0, x1 (the same offset), two weight
// rows w0, w1 and `count` values of each:
//   acc[0] += x0.w0, acc[1] += x0.w1, acc[2] += x1.w0, acc[3] += x1.w1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define MICROARENA_ARM_DSP 1
#else
#define MICROARENA_ARM_DSP 0
#endif

namespace microarena::optimized {

#if MICROARENA_ARM_DSP

// ACLE's packed types (int8x4_t, int16x2_t) are plain 32-bit integers.
using Packed = int32_t;

// Four bytes from any address (the M4 loads a word unaligned).
inline Packed LoadWord(const int8_t* p) {
  Packed value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

// Bytes 1 and 3 of `value`, sign-extended to halves, plus `offsets` (two
// 16-bit halves). GCC does not fold a rotate into SXTAB16 by itself.
inline Packed UnpackOddWithOffset(Packed offsets, Packed value) {
  Packed result;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(result) : "r"(offsets), "r"(value));
  return result;
}
inline Packed UnpackOdd(Packed value) {
  Packed result;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(result) : "r"(value));
  return result;
}
inline Packed UnpackEvenWithOffset(Packed offsets, Packed value) { return __sxtab16(offsets, value); }
inline Packed UnpackEven(Packed value) { return __sxtb16(value); }
inline int32_t Mac2(Packed a, Packed b, int32_t acc) { return __smlad(a, b, acc); }

// The input offset in both 16-bit halves, as SXTAB16 adds it.
inline Packed OffsetPair(int32_t offset) {
  const uint32_t half = static_cast<uint16_t>(static_cast<int16_t>(offset));
  return static_cast<Packed>(half | (half << 16));
}

#endif

// acc[0..3] += the four products of pixels x0, x1 with weight rows w0, w1.
inline void Dot2x2(const int8_t* x0, const int8_t* x1, const int8_t* w0, const int8_t* w1, int32_t count,
                   int32_t offset, uint32_t* acc) {
#if MICROARENA_ARM_DSP
  const Packed offsets = OffsetPair(offset);
  auto a00 = static_cast<int32_t>(acc[0]);
  auto a01 = static_cast<int32_t>(acc[1]);
  auto a10 = static_cast<int32_t>(acc[2]);
  auto a11 = static_cast<int32_t>(acc[3]);
  int32_t k = 0;
  for (; k + 4 <= count; k += 4) {
    const Packed in0 = LoadWord(x0 + k);
    const Packed in0_even = UnpackEvenWithOffset(offsets, in0);
    const Packed in0_odd = UnpackOddWithOffset(offsets, in0);
    const Packed wt0 = LoadWord(w0 + k);
    const Packed wt0_even = UnpackEven(wt0);
    const Packed wt0_odd = UnpackOdd(wt0);
    a00 = Mac2(in0_even, wt0_even, a00);
    a00 = Mac2(in0_odd, wt0_odd, a00);
    const Packed wt1 = LoadWord(w1 + k);
    const Packed wt1_even = UnpackEven(wt1);
    const Packed wt1_odd = UnpackOdd(wt1);
    a01 = Mac2(in0_even, wt1_even, a01);
    a01 = Mac2(in0_odd, wt1_odd, a01);
    const Packed in1 = LoadWord(x1 + k);
    const Packed in1_even = UnpackEvenWithOffset(offsets, in1);
    const Packed in1_odd = UnpackOddWithOffset(offsets, in1);
    a10 = Mac2(in1_even, wt0_even, a10);
    a10 = Mac2(in1_odd, wt0_odd, a10);
    a11 = Mac2(in1_even, wt1_even, a11);
    a11 = Mac2(in1_odd, wt1_odd, a11);
  }
  uint32_t s00 = static_cast<uint32_t>(a00);
  uint32_t s01 = static_cast<uint32_t>(a01);
  uint32_t s10 = static_cast<uint32_t>(a10);
  uint32_t s11 = static_cast<uint32_t>(a11);
#else
  uint32_t s00 = acc[0];
  uint32_t s01 = acc[1];
  uint32_t s10 = acc[2];
  uint32_t s11 = acc[3];
  int32_t k = 0;
#endif
  for (; k < count; ++k) {
    const int32_t in0 = x0[k] + offset;
    const int32_t in1 = x1[k] + offset;
    const int32_t wt0 = w0[k];
    const int32_t wt1 = w1[k];
    s00 += static_cast<uint32_t>(in0 * wt0);
    s01 += static_cast<uint32_t>(in0 * wt1);
    s10 += static_cast<uint32_t>(in1 * wt0);
    s11 += static_cast<uint32_t>(in1 * wt1);
  }
  acc[0] = s00;
  acc[1] = s01;
  acc[2] = s10;
  acc[3] = s11;
}

// acc[0..1] += the products of pixel x0 with weight rows w0 and w1.
inline void Dot1x2(const int8_t* x0, const int8_t* w0, const int8_t* w1, int32_t count, int32_t offset,
                   uint32_t* acc) {
#if MICROARENA_ARM_DSP
  const Packed offsets = OffsetPair(offset);
  auto a0 = static_cast<int32_t>(acc[0]);
  auto a1 = static_cast<int32_t>(acc[1]);
  int32_t k = 0;
  for (; k + 4 <= count; k += 4) {
    const Packed in = LoadWord(x0 + k);
    const Packed in_even = UnpackEvenWithOffset(offsets, in);
    const Packed in_odd = UnpackOddWithOffset(offsets, in);
    const Packed wt0 = LoadWord(w0 + k);
    a0 = Mac2(in_even, UnpackEven(wt0), a0);
    a0 = Mac2(in_odd, UnpackOdd(wt0), a0);
    const Packed wt1 = LoadWord(w1 + k);
    a1 = Mac2(in_even, UnpackEven(wt1), a1);
    a1 = Mac2(in_odd, UnpackOdd(wt1), a1);
  }
  uint32_t s0 = static_cast<uint32_t>(a0);
  uint32_t s1 = static_cast<uint32_t>(a1);
#else
  uint32_t s0 = acc[0];
  uint32_t s1 = acc[1];
  int32_t k = 0;
#endif
  for (; k < count; ++k) {
    const int32_t in = x0[k] + offset;
    s0 += static_cast<uint32_t>(in * int32_t{w0[k]});
    s1 += static_cast<uint32_t>(in * int32_t{w1[k]});
  }
  acc[0] = s0;
  acc[1] = s1;
}

// The sum of the products of pixel x0 with weight row w0.
inline uint32_t Dot1x1(const int8_t* x0, const int8_t* w0, int32_t count, int32_t offset, uint32_t acc) {
#if MICROARENA_ARM_DSP
  const Packed offsets = OffsetPair(offset);
  auto a0 = static_cast<int32_t>(acc);
  int32_t k = 0;
  for (; k + 4 <= count; k += 4) {
    const Packed in = LoadWord(x0 + k);
    const Packed wt = LoadWord(w0 + k);
    a0 = Mac2(UnpackEvenWithOffset(offsets, in), UnpackEven(wt), a0);
    a0 = Mac2(UnpackOddWithOffset(offsets, in), UnpackOdd(wt), a0);
  }
  uint32_t s0 = static_cast<uint32_t>(a0);
#else
  uint32_t s0 = acc;
  int32_t k = 0;
#endif
  for (; k < count; ++k) s0 += static_cast<uint32_t>((x0[k] + offset) * int32_t{w0[k]});
  return s0;
}

}  // namespace microarena::optimized
