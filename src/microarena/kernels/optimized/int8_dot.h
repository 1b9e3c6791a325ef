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
// The loops written out in assembly take 13 or 14 of the 14 registers an
// optimised Thumb-2 function can allocate; an unoptimised build (-O0) keeps
// a frame pointer and has one fewer, so it takes the C loops instead.
#if MICROARENA_ARM_DSP && defined(__OPTIMIZE__)
#define MICROARENA_ARM_ASM 1
#else
#define MICROARENA_ARM_ASM 0
#endif

// The inner loops' one-instruction helpers and the requantization are
// inlined at every optimisation level: at -Os GCC would otherwise call them
// once per word or per output.
#define MICROARENA_ALWAYS_INLINE __attribute__((always_inline)) inline

namespace microarena::optimized {

#if MICROARENA_ARM_DSP

// ACLE's packed types (int8x4_t, int16x2_t) are plain 32-bit integers.
using Packed = int32_t;

// Four bytes from any address (the M4 loads a word unaligned).
MICROARENA_ALWAYS_INLINE Packed LoadWord(const int8_t* p) {
  Packed value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

// Bytes 1 and 3 of `value`, sign-extended to halves, plus `offsets` (two
// 16-bit halves). GCC does not fold a rotate into SXTAB16 by itself.
MICROARENA_ALWAYS_INLINE Packed UnpackOddWithOffset(Packed offsets, Packed value) {
  Packed result;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(result) : "r"(offsets), "r"(value));
  return result;
}
MICROARENA_ALWAYS_INLINE Packed UnpackOdd(Packed value) {
  Packed result;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(result) : "r"(value));
  return result;
}
MICROARENA_ALWAYS_INLINE Packed UnpackEvenWithOffset(Packed offsets, Packed value) { return __sxtab16(offsets, value); }
MICROARENA_ALWAYS_INLINE Packed UnpackEven(Packed value) { return __sxtb16(value); }
MICROARENA_ALWAYS_INLINE int32_t Mac2(Packed a, Packed b, int32_t acc) { return __smlad(a, b, acc); }

// The input offset in both 16-bit halves, as SXTAB16 adds it.
MICROARENA_ALWAYS_INLINE Packed OffsetPair(int32_t offset) {
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

#if MICROARENA_ARM_ASM
// The loop of Dot2x2WordsStrided and Dot2x2Words: pixel 1 and filter 1 of
// a 2 x 2 block, words at a time; PIXEL is the second pixel's offset from
// x after its post-indexed load (a register or an immediate).
#define MICROARENA_DOT2X2_LOOP(PIXEL)              \
  "1:\n"                                     \
  "ldr %[t0], [%[x]], #4\n"                  \
  "ldr %[t2], [%[w]], #4\n"                  \
  "sxtab16 %[t1], %[off], %[t0]\n"           \
  "sxtab16 %[t0], %[off], %[t0], ror #8\n"   \
  "sxtb16 %[t3], %[t2]\n"                    \
  "sxtb16 %[t2], %[t2], ror #8\n"            \
  "smlad %[a00], %[t1], %[t3], %[a00]\n"     \
  "smlad %[a00], %[t0], %[t2], %[a00]\n"     \
  "ldr %[t4], [%[w], %[step]]\n"             \
  "sxtb16 %[t5], %[t4]\n"                    \
  "sxtb16 %[t4], %[t4], ror #8\n"            \
  "smlad %[a01], %[t1], %[t5], %[a01]\n"     \
  "smlad %[a01], %[t0], %[t4], %[a01]\n"     \
  "ldr %[t0], [%[x], " PIXEL "]\n"           \
  "sxtab16 %[t1], %[off], %[t0]\n"           \
  "sxtab16 %[t0], %[off], %[t0], ror #8\n"   \
  "smlad %[a10], %[t1], %[t3], %[a10]\n"     \
  "smlad %[a10], %[t0], %[t2], %[a10]\n"     \
  "smlad %[a11], %[t1], %[t5], %[a11]\n"     \
  "smlad %[a11], %[t0], %[t4], %[a11]\n"     \
  "ldr %[t1], %[end]\n"                      \
  "cmp %[x], %[t1]\n"                        \
  "bne 1b\n"

// The whole words of Dot2x2Strided, written out: in C the compiler keeps
// one sum or pointer on the stack (26 instructions a turn instead of 23).
// Fourteen registers: four sums, two pointers, the stride, the offsets and
// six for the unpacked words; the end pointer is read from memory (GCC
// spills what the caller keeps live around the loop). Post-indexed loads
// step x0 and w0, so the second pixel and filter are at [x0, stride - 4]
// and [w0, stride - 4]. count >= 4; steps x0 and w0 past the whole words.
inline void Dot2x2WordsStrided(const int8_t*& x0, const int8_t*& w0, int32_t stride, int32_t count, Packed offsets,
                               int32_t* a) {
  const int8_t* const end = x0 + (count & ~3);
  const int32_t step = stride - 4;
  Packed t0, t1, t2, t3, t4, t5;
  __asm__ volatile(
      MICROARENA_DOT2X2_LOOP("%[step]")
      : [a00] "+r"(a[0]), [a01] "+r"(a[1]), [a10] "+r"(a[2]), [a11] "+r"(a[3]), [x] "+r"(x0), [w] "+r"(w0),
        [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)
      : [step] "r"(step), [off] "r"(offsets), [end] "m"(end)
      : "cc", "memory");
}
#endif

// Dot2x2 for a pointwise convolution, where the second pixel and the
// second weight row both start `stride` bytes after the first (pixels and
// filters are rows of the same depth): two pointers and one stride instead
// of four pointers, one register fewer for the Cortex-M's loop.
inline void Dot2x2Strided(const int8_t* x0, const int8_t* w0, int32_t stride, int32_t count, int32_t offset,
                          uint32_t* acc) {
#if MICROARENA_ARM_ASM
  const Packed offsets = OffsetPair(offset);
  auto a00 = static_cast<int32_t>(acc[0]);
  auto a01 = static_cast<int32_t>(acc[1]);
  auto a10 = static_cast<int32_t>(acc[2]);
  auto a11 = static_cast<int32_t>(acc[3]);
  if (count >= 4) {
    int32_t a[4] = {a00, a01, a10, a11};
    Dot2x2WordsStrided(x0, w0, stride, count, offsets, a);
    a00 = a[0];
    a01 = a[1];
    a10 = a[2];
    a11 = a[3];
  }
  acc[0] = static_cast<uint32_t>(a00);
  acc[1] = static_cast<uint32_t>(a01);
  acc[2] = static_cast<uint32_t>(a10);
  acc[3] = static_cast<uint32_t>(a11);
  if ((count & 3) != 0) Dot2x2(x0, x0 + stride, w0, w0 + stride, count & 3, offset, acc);
#else
  Dot2x2(x0, x0 + stride, w0, w0 + stride, count, offset, acc);
#endif
}

#if MICROARENA_ARM_ASM
// Dot2x2Strided's loop for two pixels kPixelStep bytes apart (an immediate
// offset) and two filters `filter_step` bytes apart: the immediate frees the
// register a second stride would take. count >= 4; steps x0 and w0 past
// the whole words.
template <int32_t kPixelStep>
inline void Dot2x2Words(const int8_t*& x0, const int8_t*& w0, int32_t filter_step, int32_t count, Packed offsets,
                        int32_t* a) {
  const int8_t* const end = x0 + (count & ~3);
  const int32_t step = filter_step - 4;
  Packed t0, t1, t2, t3, t4, t5;
  __asm__ volatile(
      MICROARENA_DOT2X2_LOOP("%[pixel]")
      : [a00] "+r"(a[0]), [a01] "+r"(a[1]), [a10] "+r"(a[2]), [a11] "+r"(a[3]), [x] "+r"(x0), [w] "+r"(w0),
        [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)
      : [step] "r"(step), [off] "r"(offsets), [end] "m"(end), [pixel] "i"(kPixelStep - 4)
      : "cc", "memory");
}
#endif

// Dot2x2 for pixels pixel_step bytes apart and filters filter_step bytes
// apart (a convolution's window rows). On the Cortex-M, optimised for speed,
// the common pixel steps (channels x stride of 8 to 128) take a loop written
// out with the step as an immediate; others, and -Os builds, take Dot2x2.
inline void Dot2x2Stepped(const int8_t* x0, const int8_t* w0, int32_t pixel_step, int32_t filter_step, int32_t count,
                          int32_t offset, uint32_t* acc) {
#if MICROARENA_ARM_ASM && !defined(__OPTIMIZE_SIZE__)  // five loops: too much flash for -Os
  if (count >= 4) {
    int32_t a[4] = {static_cast<int32_t>(acc[0]), static_cast<int32_t>(acc[1]), static_cast<int32_t>(acc[2]),
                    static_cast<int32_t>(acc[3])};
    const Packed offsets = OffsetPair(offset);
    bool done = true;
    switch (pixel_step) {
      case 8: Dot2x2Words<8>(x0, w0, filter_step, count, offsets, a); break;
      case 16: Dot2x2Words<16>(x0, w0, filter_step, count, offsets, a); break;
      case 32: Dot2x2Words<32>(x0, w0, filter_step, count, offsets, a); break;
      case 64: Dot2x2Words<64>(x0, w0, filter_step, count, offsets, a); break;
      case 128: Dot2x2Words<128>(x0, w0, filter_step, count, offsets, a); break;
      default: done = false;
    }
    if (done) {
      for (int i = 0; i < 4; ++i) acc[i] = static_cast<uint32_t>(a[i]);
      if ((count & 3) != 0) Dot2x2(x0, x0 + pixel_step, w0, w0 + filter_step, count & 3, offset, acc);
      return;
    }
  }
#endif
  Dot2x2(x0, x0 + pixel_step, w0, w0 + filter_step, count, offset, acc);
}

// acc[0..3] += the products of one input row x0 with four weight rows
// w0 + k * stride (a fully connected layer: one row reused by every unit).
// Four sums per input word unpacked: 26 instructions per 16 multiply-adds
// on the Cortex-M, against 32 for two calls of Dot1x2.
inline void Dot1x4Strided(const int8_t* x0, const int8_t* w0, int32_t stride, int32_t count, int32_t offset,
                          uint32_t* acc) {
#if MICROARENA_ARM_ASM
  auto a0 = static_cast<int32_t>(acc[0]);
  auto a1 = static_cast<int32_t>(acc[1]);
  auto a2 = static_cast<int32_t>(acc[2]);
  auto a3 = static_cast<int32_t>(acc[3]);
  if (count >= 4) {
    // Rows 2 and 3 through the scaled register offset (w + 2 * stride),
    // read before the post-indexed loads of rows 0 and 1 step the pointers.
    const Packed offsets = OffsetPair(offset);
    const int8_t* const end = x0 + (count & ~3);
    const int8_t* w1 = w0 + stride;
    Packed t0, t1, t2, t3;
    __asm__ volatile(
        "1:\n"
        "ldr %[t0], [%[x]], #4\n"
        "sxtab16 %[t1], %[off], %[t0]\n"
        "sxtab16 %[t0], %[off], %[t0], ror #8\n"
        "ldr %[t2], [%[w0], %[s], lsl #1]\n"
        "sxtb16 %[t3], %[t2]\n"
        "sxtb16 %[t2], %[t2], ror #8\n"
        "smlad %[a2], %[t1], %[t3], %[a2]\n"
        "smlad %[a2], %[t0], %[t2], %[a2]\n"
        "ldr %[t2], [%[w0]], #4\n"
        "sxtb16 %[t3], %[t2]\n"
        "sxtb16 %[t2], %[t2], ror #8\n"
        "smlad %[a0], %[t1], %[t3], %[a0]\n"
        "smlad %[a0], %[t0], %[t2], %[a0]\n"
        "ldr %[t2], [%[w1], %[s], lsl #1]\n"
        "sxtb16 %[t3], %[t2]\n"
        "sxtb16 %[t2], %[t2], ror #8\n"
        "smlad %[a3], %[t1], %[t3], %[a3]\n"
        "smlad %[a3], %[t0], %[t2], %[a3]\n"
        "ldr %[t2], [%[w1]], #4\n"
        "sxtb16 %[t3], %[t2]\n"
        "sxtb16 %[t2], %[t2], ror #8\n"
        "smlad %[a1], %[t1], %[t3], %[a1]\n"
        "smlad %[a1], %[t0], %[t2], %[a1]\n"
        "ldr %[t1], %[end]\n"
        "cmp %[x], %[t1]\n"
        "bne 1b\n"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x0), [w0] "+r"(w0), [w1] "+r"(w1),
          [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
        : [s] "r"(stride), [off] "r"(offsets), [end] "m"(end)
        : "cc", "memory");
  }
  uint32_t s0 = static_cast<uint32_t>(a0);
  uint32_t s1 = static_cast<uint32_t>(a1);
  uint32_t s2 = static_cast<uint32_t>(a2);
  uint32_t s3 = static_cast<uint32_t>(a3);
  const int32_t done = count & ~3;
  const int8_t* w = w0 - done;  // the rows' starts again (w0 has stepped)
  x0 -= done;
#else
  uint32_t s0 = acc[0];
  uint32_t s1 = acc[1];
  uint32_t s2 = acc[2];
  uint32_t s3 = acc[3];
  const int32_t done = 0;
  const int8_t* w = w0;
#endif
  const int8_t* r1 = w + stride;
  const int8_t* r2 = r1 + stride;
  const int8_t* r3 = r2 + stride;
  for (int32_t k = done; k < count; ++k) {
    const int32_t in = x0[k] + offset;
    s0 += static_cast<uint32_t>(in * int32_t{w[k]});
    s1 += static_cast<uint32_t>(in * int32_t{r1[k]});
    s2 += static_cast<uint32_t>(in * int32_t{r2[k]});
    s3 += static_cast<uint32_t>(in * int32_t{r3[k]});
  }
  acc[0] = s0;
  acc[1] = s1;
  acc[2] = s2;
  acc[3] = s3;
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
