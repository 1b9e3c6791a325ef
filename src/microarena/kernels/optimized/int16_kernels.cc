#include "microarena/kernels/optimized/int16_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/int8_dot.h"
#include "microarena/kernels/optimized/requantize.h"
#include "microarena/kernels/optimized/window_clip.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena::optimized {
namespace {

using reference::NhwcShape;

// The sum of an output, modulo 2^32 (uint32_t: the reference's int32 sums,
// which wrap) or 2^64 (uint64_t: its int64 ones), so that adding the terms
// in any order, the bias first, gives the reference's bits.
template <typename Bias>
using SumOf = std::make_unsigned_t<Bias>;

// An exact int32 partial sum (or any int32) added to a modular sum.
template <typename Sum>
MICROARENA_ALWAYS_INLINE Sum Widen(int32_t partial) {
  return static_cast<Sum>(static_cast<std::make_signed_t<Sum>>(partial));
}

// The bias of output `o` as the sum's start; a model's int64 bias may sit
// at a 4-byte offset, so it is read by bytes.
template <typename Bias>
MICROARENA_ALWAYS_INLINE SumOf<Bias> BiasStart(const Bias* bias, int32_t o) {
  if (bias == nullptr) return 0;
  Bias value;
  std::memcpy(&value, bias + o, sizeof(value));
  return static_cast<SumOf<Bias>>(value);
}

// The 64-bit rescale, out of line: inlined at each of a block's outputs,
// its 64-bit temporaries spill into the caller's frame, on the Invoke
// stack's deepest path (a call costs a few instructions of its 60 or so).
[[gnu::noinline]] int32_t Rescale64(uint64_t sum, int32_t multiplier, int shift) {
  return fixed_point::MultiplyByQuantizedMultiplier64(static_cast<int64_t>(sum), multiplier, shift);
}

// The reference's rescale of a sum: the 32-bit MultiplyByQuantizedMultiplier
// (requantize.h's exact shortcut) for int32 sums, the 64-bit one for int64.
template <typename Sum>
MICROARENA_ALWAYS_INLINE int32_t Rescale(Sum sum, int32_t multiplier, int shift) {
  if constexpr (sizeof(Sum) == sizeof(uint64_t)) {
    return Rescale64(sum, multiplier, shift);
  } else {
    return MultiplyByQuantizedMultiplier(static_cast<int32_t>(sum), multiplier, shift);
  }
}

MICROARENA_ALWAYS_INLINE int16_t Clamp16(int32_t value, int32_t min, int32_t max) {
  value = value > min ? value : min;
  value = value < max ? value : max;
  return static_cast<int16_t>(value);
}

// A convolution's output `o` from its sum (bias included): no zero points
// (TFLM's 16x8 convolutions apply none), the clamp.
template <typename Sum>
MICROARENA_ALWAYS_INLINE int16_t ConvOutput(Sum sum, const reference::QuantizedConvParams& quant, int32_t o) {
  return Clamp16(Rescale(sum, quant.output_multiplier[o], quant.output_shift[o]), quant.activation_min,
                 quant.activation_max);
}

#if MICROARENA_ARM_DSP
// Two int16 values from any even address (the M4 loads a word unaligned).
MICROARENA_ALWAYS_INLINE Packed LoadPair(const int16_t* p) {
  Packed value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

// Four values in the halves SMLAD pairs: (v0, v2) and (v1, v3), the order
// in which SXTB16 unpacks a word of int8 weights.
struct EvenOdd {
  Packed even;
  Packed odd;
};

// Values k..k+3 of int16 activations: two words (v0, v1), (v2, v3) that
// PKHBT and PKHTB regroup (GCC does not pick them from C by itself).
MICROARENA_ALWAYS_INLINE EvenOdd LoadFourValues(const int16_t* x) {
  const Packed low = LoadPair(x);
  const Packed high = LoadPair(x + 2);
  Packed even;
  Packed odd;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(even) : "r"(low), "r"(high));
  __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(odd) : "r"(high), "r"(low));
  return {even, odd};
}

MICROARENA_ALWAYS_INLINE EvenOdd LoadFourWeights(const int8_t* w) {
  const Packed word = LoadWord(w);
  return {UnpackEven(word), UnpackOdd(word)};
}
#endif

#if MICROARENA_ARM_ASM
// DotBlock's whole words for two pixels by two weight rows, written out: in
// C, GCC spills two sums (34 instructions a turn); here 25 per 16
// multiply-adds. Fourteen registers: four sums, three pointers, the weight
// row step, four regrouped values and two temporaries; the end pointer is
// read from memory. words >= 1.
MICROARENA_ALWAYS_INLINE void Dot2x2Words(const int16_t* x, ptrdiff_t x_step, const int8_t* w, ptrdiff_t w_step,
                                          int32_t words, int32_t* s) {
  int32_t s00 = 0;
  int32_t s01 = 0;
  int32_t s10 = 0;
  int32_t s11 = 0;
  const int16_t* x1 = x + x_step;
  const int16_t* const end = x + 4 * words;
  Packed even0, odd0, even1, odd1, t0, t1;
  __asm__ volatile(
      "1:\n"
      "ldr %[t0], [%[x0], #4]\n"  // (v2, v3)
      "ldr %[t1], [%[x0]], #8\n"  // (v0, v1)
      "pkhbt %[e0], %[t1], %[t0], lsl #16\n"
      "pkhtb %[o0], %[t0], %[t1], asr #16\n"
      "ldr %[t0], [%[x1], #4]\n"
      "ldr %[t1], [%[x1]], #8\n"
      "pkhbt %[e1], %[t1], %[t0], lsl #16\n"
      "pkhtb %[o1], %[t0], %[t1], asr #16\n"
      "ldr %[t0], [%[w], %[w_step]]\n"  // weight row 1, then row 0
      "sxtb16 %[t1], %[t0]\n"
      "sxtb16 %[t0], %[t0], ror #8\n"
      "smlad %[s01], %[e0], %[t1], %[s01]\n"
      "smlad %[s11], %[e1], %[t1], %[s11]\n"
      "smlad %[s01], %[o0], %[t0], %[s01]\n"
      "smlad %[s11], %[o1], %[t0], %[s11]\n"
      "ldr %[t0], [%[w]], #4\n"
      "sxtb16 %[t1], %[t0]\n"
      "sxtb16 %[t0], %[t0], ror #8\n"
      "smlad %[s00], %[e0], %[t1], %[s00]\n"
      "smlad %[s10], %[e1], %[t1], %[s10]\n"
      "smlad %[s00], %[o0], %[t0], %[s00]\n"
      "smlad %[s10], %[o1], %[t0], %[s10]\n"
      "ldr %[t0], %[end]\n"
      "cmp %[x0], %[t0]\n"
      "bne 1b\n"
      : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11), [x0] "+r"(x), [x1] "+r"(x1),
        [w] "+r"(w), [e0] "=&r"(even0), [o0] "=&r"(odd0), [e1] "=&r"(even1), [o1] "=&r"(odd1), [t0] "=&r"(t0),
        [t1] "=&r"(t1)
      : [w_step] "r"(w_step), [end] "m"(end)
      : "cc", "memory");
  s[0] = s00;
  s[1] = s01;
  s[2] = s10;
  s[3] = s11;
}

// DotBlock's whole words for one pixel by four weight rows (a fully
// connected layer's input row against four units): the values regrouped
// once for the four, 27 instructions per 16 multiply-adds (43 as GCC
// compiles the C). Rows 1 and 3 at [w, step] and [w2, step]. words >= 1.
MICROARENA_ALWAYS_INLINE void Dot1x4Words(const int16_t* x, const int8_t* w, ptrdiff_t w_step, int32_t words,
                                          int32_t* s) {
  int32_t s0 = 0;
  int32_t s1 = 0;
  int32_t s2 = 0;
  int32_t s3 = 0;
  const int8_t* w2 = w + 2 * w_step;
  const int16_t* const end = x + 4 * words;
  Packed even, odd, t0, t1;
#define MICROARENA_INT16_ROW(ADDRESS, SUM)       \
  "ldr %[t0], " ADDRESS "\n"                     \
  "sxtb16 %[t1], %[t0]\n"                        \
  "sxtb16 %[t0], %[t0], ror #8\n"                \
  "smlad " SUM ", %[e], %[t1], " SUM "\n"        \
  "smlad " SUM ", %[o], %[t0], " SUM "\n"
  __asm__ volatile(
      "1:\n"
      "ldr %[t0], [%[x], #4]\n"
      "ldr %[t1], [%[x]], #8\n"
      "pkhbt %[e], %[t1], %[t0], lsl #16\n"
      "pkhtb %[o], %[t0], %[t1], asr #16\n"
      MICROARENA_INT16_ROW("[%[w], %[w_step]]", "%[s1]")
      MICROARENA_INT16_ROW("[%[w]], #4", "%[s0]")
      MICROARENA_INT16_ROW("[%[w2], %[w_step]]", "%[s3]")
      MICROARENA_INT16_ROW("[%[w2]], #4", "%[s2]")
      "ldr %[t0], %[end]\n"
      "cmp %[x], %[t0]\n"
      "bne 1b\n"
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w] "+r"(w), [w2] "+r"(w2),
        [e] "=&r"(even), [o] "=&r"(odd), [t0] "=&r"(t0), [t1] "=&r"(t1)
      : [w_step] "r"(w_step), [end] "m"(end)
      : "cc", "memory");
#undef MICROARENA_INT16_ROW
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
}
#endif

// s[p * kChannels + c] = the dot product of pixel p (x + p * x_step) with
// weight row c (w + c * w_step) over `count` <= kInt16DotBlock values,
// exact in int32 (|product| <= 2^22). On Cortex-M four values a turn: per
// pixel two loads and two PKH, per weight row a load and two SXTB16, two
// SMLAD per pair; the 2 x 2 and 1 x 4 blocks take the loops written out above.
template <int kPixels, int kChannels>
MICROARENA_ALWAYS_INLINE void DotBlock(const int16_t* x, ptrdiff_t x_step, const int8_t* w, ptrdiff_t w_step,
                                       int32_t count, int32_t* s) {
  int32_t sums[static_cast<size_t>(kPixels * kChannels)] = {};
  int32_t k = 0;
#if MICROARENA_ARM_DSP
#if MICROARENA_ARM_ASM
  if constexpr (kPixels == 2 && kChannels == 2) {
    if (count >= 4) Dot2x2Words(x, x_step, w, w_step, count / 4, sums);
    k = count & ~3;
  } else if constexpr (kPixels == 1 && kChannels == 4) {
    if (count >= 4) Dot1x4Words(x, w, w_step, count / 4, sums);
    k = count & ~3;
  } else
#endif
  {
    for (; k + 4 <= count; k += 4) {
      EvenOdd values[static_cast<size_t>(kPixels)];
      for (int p = 0; p < kPixels; ++p) values[p] = LoadFourValues(x + p * x_step + k);
      for (int c = 0; c < kChannels; ++c) {
        const EvenOdd weights = LoadFourWeights(w + c * w_step + k);
        for (int p = 0; p < kPixels; ++p) {
          int32_t& sum = sums[p * kChannels + c];
          sum = Mac2(values[p].odd, weights.odd, Mac2(values[p].even, weights.even, sum));
        }
      }
    }
  }
#endif
  for (; k < count; ++k) {
    for (int p = 0; p < kPixels; ++p) {
      const int32_t value = x[p * x_step + k];
      for (int c = 0; c < kChannels; ++c) sums[p * kChannels + c] += value * int32_t{w[c * w_step + k]};
    }
  }
  for (int i = 0; i < kPixels * kChannels; ++i) s[i] = sums[i];
}

// sum[p * kChannels + c] += DotBlock's products over `count` values of any
// length, in blocks of kInt16DotBlock.
template <int kPixels, int kChannels, typename Sum>
inline void Dot(const int16_t* x, ptrdiff_t x_step, const int8_t* w, ptrdiff_t w_step, int32_t count, Sum* sum) {
  for (int32_t start = 0; start < count; start += kInt16DotBlock) {
    int32_t partial[static_cast<size_t>(kPixels * kChannels)];
    DotBlock<kPixels, kChannels>(x + start, x_step, w + start, w_step, std::min(kInt16DotBlock, count - start),
                                 partial);
    for (int i = 0; i < kPixels * kChannels; ++i) sum[i] += Widen<Sum>(partial[i]);
  }
}

// CONV_2D's operands and layout, fixed for the op; steps count values
// (int16 activations, int8 weights). One struct passed by reference down
// WindowConv -> ConvRow keeps the frames narrow.
template <typename Bias>
struct ConvGeometry {
  const reference::QuantizedConvParams* quant = nullptr;
  const int8_t* filter = nullptr;
  const Bias* bias = nullptr;  // nullptr: no bias
  int32_t stride_width = 1;
  int32_t padding_width = 0;
  int32_t dilation_height = 1;
  int32_t dilation_width = 1;
  int32_t filter_height = 1;
  int32_t filter_width = 1;
  int32_t input_height = 1;
  int32_t input_width = 1;
  int32_t out_width = 1;
  int32_t in_channels = 0;    // input depth
  int32_t group_depth = 0;    // filter depth: input channels per group
  int32_t group_outputs = 0;  // output channels per group
  int32_t groups = 1;
  int32_t out_channels = 0;
  ptrdiff_t input_row = 0;       // values per input row
  ptrdiff_t input_row_step = 0;  // between filter rows (dilation)
  ptrdiff_t input_tap_step = 0;  // between filter columns (dilation)
  ptrdiff_t pixel_step = 0;      // between output columns (stride)
  ptrdiff_t filter_row = 0;      // weights per filter row
  ptrdiff_t filter_channel = 0;  // weights per output channel
  bool contiguous = false;       // a window row is one run of input values
};

// The clipped window of one output pixel as runs: `rows` filter rows of
// `taps` runs of `run` values each.
struct WindowRuns {
  int32_t rows = 0;
  int32_t taps = 0;
  int32_t run = 0;
  ptrdiff_t filter_start = 0;  // within an output channel's filter
};

// sum[] += the products of one window for kPixels pixels (pixel_step apart)
// and kChannels output channels (filter_channel apart), laid out as Dot's.
// Inlined into ConvRow: a frame of its own would add 120-136 B to the
// Invoke stack's deepest path (inlined, ConvRow grows by about 80 B).
template <int kPixels, int kChannels, typename Bias>
MICROARENA_ALWAYS_INLINE void SumWindow(const ConvGeometry<Bias>& g, const WindowRuns& window, const int16_t* x0,
                                 const int8_t* w0, SumOf<Bias>* sum) {
  for (int32_t r = 0; r < window.rows; ++r, x0 += g.input_row_step, w0 += g.filter_row) {
    const int16_t* x = x0;
    const int8_t* w = w0;
    for (int32_t t = 0; t < window.taps; ++t, x += g.input_tap_step, w += g.group_depth) {
      Dot<kPixels, kChannels>(x, g.pixel_step, w, g.filter_channel, window.run, sum);
    }
  }
}

// Output channels [first, first + group_outputs) of one or two pixels
// (out1 unused for one), all of one group; x0 is the group's first input value.
template <int kPixels, typename Bias>
void ConvChannels(const ConvGeometry<Bias>& g, const WindowRuns& window, const int16_t* x0, int32_t first,
                  int16_t* out0, int16_t* out1) {
  using Sum = SumOf<Bias>;
  const reference::QuantizedConvParams& quant = *g.quant;
  const int32_t end = first + g.group_outputs;
  const int8_t* w = g.filter + first * g.filter_channel + window.filter_start;
  int32_t o = first;
  for (; o + 2 <= end; o += 2, w += 2 * g.filter_channel) {
    Sum sum[static_cast<size_t>(2 * kPixels)];
    for (int p = 0; p < kPixels; ++p) {
      sum[2 * p] = BiasStart(g.bias, o);
      sum[2 * p + 1] = BiasStart(g.bias, o + 1);
    }
    SumWindow<kPixels, 2>(g, window, x0, w, sum);
    out0[o] = ConvOutput(sum[0], quant, o);
    out0[o + 1] = ConvOutput(sum[1], quant, o + 1);
    if constexpr (kPixels == 2) {
      out1[o] = ConvOutput(sum[2 * kPixels - 2], quant, o);
      out1[o + 1] = ConvOutput(sum[2 * kPixels - 1], quant, o + 1);
    }
  }
  if (o < end) {  // an odd last channel
    Sum sum[static_cast<size_t>(kPixels)];
    for (int p = 0; p < kPixels; ++p) sum[p] = BiasStart(g.bias, o);
    SumWindow<kPixels, 1>(g, window, x0, w, sum);
    out0[o] = ConvOutput(sum[0], quant, o);
    if constexpr (kPixels == 2) out1[o] = ConvOutput(sum[kPixels - 1], quant, o);
  }
}

// One output row at input row origin `in_y` (input_batch: the batch's first
// input value). Two pixels go together when their windows are clipped alike.
template <typename Bias>
[[gnu::noinline]] void ConvRow(const ConvGeometry<Bias>& g, const int16_t* input_batch, int32_t in_y,
                               int16_t* out_row) {
  int32_t first_row = 0;
  int32_t end_row = 0;
  ClipRange(in_y, g.filter_height, g.dilation_height, g.input_height, &first_row, &end_row);
  for (int32_t out_x = 0; out_x < g.out_width;) {
    const int32_t in_x = out_x * g.stride_width - g.padding_width;
    int32_t first_column = 0;
    int32_t end_column = 0;
    ClipRange(in_x, g.filter_width, g.dilation_width, g.input_width, &first_column, &end_column);
    bool pair = false;
    if (out_x + 1 < g.out_width) {
      int32_t first = 0;
      int32_t end = 0;
      ClipRange(in_x + g.stride_width, g.filter_width, g.dilation_width, g.input_width, &first, &end);
      pair = first == first_column && end == end_column;
    }
    WindowRuns window;
    const int16_t* x0 = input_batch;
    if (first_row < end_row && first_column < end_column) {
      const int32_t columns = end_column - first_column;
      window.rows = end_row - first_row;
      window.taps = g.contiguous ? 1 : columns;
      window.run = g.contiguous ? columns * g.in_channels : g.group_depth;
      x0 += (in_y + first_row * g.dilation_height) * g.input_row +
            static_cast<ptrdiff_t>(in_x + first_column * g.dilation_width) * g.in_channels;
      window.filter_start = first_row * g.filter_row + static_cast<ptrdiff_t>(first_column) * g.group_depth;
    }  // else every tap reads padding: the sums are the biases alone
    int16_t* out0 = out_row + static_cast<ptrdiff_t>(out_x) * g.out_channels;
    for (int32_t group = 0; group < g.groups; ++group, x0 += g.group_depth) {
      if (pair) {
        ConvChannels<2>(g, window, x0, group * g.group_outputs, out0, out0 + g.out_channels);
      } else {
        ConvChannels<1>(g, window, x0, group * g.group_outputs, out0, out0);
      }
    }
    out_x += pair ? 2 : 1;
  }
}

// Every CONV_2D: output rows in ascending order, each reading only the
// input rows of its windows.
template <typename Bias>
[[gnu::noinline]] void WindowConv(const reference::ConvParams& params, const reference::QuantizedConvParams& quant,
                                  const EvalTensor& input, const EvalTensor& filter, const Bias* bias,
                                  EvalTensor& output) {
  ConvGeometry<Bias> g;
  g.quant = &quant;
  g.filter = filter.As<const int8_t>();
  g.bias = bias;
  g.stride_width = params.stride_width;
  g.padding_width = params.padding_width;
  g.dilation_height = params.dilation_height;
  g.dilation_width = params.dilation_width;
  g.filter_height = filter.dim(1);
  g.filter_width = filter.dim(2);
  g.input_height = input.dim(1);
  g.input_width = input.dim(2);
  g.out_width = output.dim(2);
  g.in_channels = input.dim(3);
  g.group_depth = filter.dim(3);
  g.groups = g.in_channels / g.group_depth;
  g.out_channels = output.dim(3);
  g.group_outputs = g.out_channels / g.groups;
  g.input_row = static_cast<ptrdiff_t>(g.input_width) * g.in_channels;
  g.input_row_step = g.input_row * params.dilation_height;
  g.input_tap_step = static_cast<ptrdiff_t>(params.dilation_width) * g.in_channels;
  g.pixel_step = static_cast<ptrdiff_t>(params.stride_width) * g.in_channels;
  g.filter_row = static_cast<ptrdiff_t>(g.filter_width) * g.group_depth;
  g.filter_channel = g.filter_row * g.filter_height;
  g.contiguous = params.dilation_width == 1 && g.groups == 1;
  const ptrdiff_t input_batch_values = g.input_row * g.input_height;
  const auto output_row_values = static_cast<ptrdiff_t>(g.out_width) * g.out_channels;
  const int16_t* input_values = input.As<const int16_t>();
  int16_t* out_row = output.As<int16_t>();
  for (int32_t b = 0; b < output.dim(0); ++b) {
    const int16_t* input_batch = input_values + b * input_batch_values;
    for (int32_t out_y = 0; out_y < output.dim(1); ++out_y, out_row += output_row_values) {
      ConvRow(g, input_batch, out_y * params.stride_height - params.padding_height, out_row);
    }
  }
}

// DEPTHWISE_CONV_2D's clipped window of one output pixel: `rows` x
// `columns` taps, `row_step` / `tap_step` input values apart (the filter's
// `filter_row` / `channels` weights apart).
struct DepthwiseWindow {
  int32_t rows = 0;
  int32_t columns = 0;
  ptrdiff_t row_step = 0;
  ptrdiff_t tap_step = 0;
  ptrdiff_t filter_row = 0;
  int32_t channels = 0;  // output channels: the weights per tap
};

// The int64 sum of output channel o over the window, product by product
// (windows of more than kInt16DotBlock taps, the last channels): x and w
// are the window's first input value and weight of channel o's.
inline uint64_t DepthwiseChannelSum(const DepthwiseWindow& d, const int16_t* x, const int8_t* w, uint64_t sum) {
  for (int32_t r = 0; r < d.rows; ++r, x += d.row_step, w += d.filter_row) {
    const int16_t* xp = x;
    const int8_t* wp = w;
    for (int32_t col = 0; col < d.columns; ++col, xp += d.tap_step, wp += d.channels) {
      sum += Widen<uint64_t>(int32_t{*xp} * int32_t{*wp});
    }
  }
  return sum;
}

// Every channel of one output pixel, depth multiplier 1: x and w are the
// window's first input value and weight of channel 0. The window's taps
// number at most kInt16DotBlock, so each channel's sum is exact in int32.
[[gnu::noinline]] void DepthwisePixel(const DepthwiseWindow& d, const reference::QuantizedConvParams& quant,
                                      const int16_t* x, const int8_t* w, const int64_t* bias, int16_t* out) {
  int32_t c = 0;
#if MICROARENA_ARM_DSP
  // Four channels a tap: two words of activations, one of weights that
  // SXTB16 unpacks to (w0, w2) and (w1, w3); SMLAxy multiplies the halves
  // that match.
  for (; c + 4 <= d.channels; c += 4) {
    int32_t s0 = 0;
    int32_t s1 = 0;
    int32_t s2 = 0;
    int32_t s3 = 0;
    const int16_t* xr = x + c;
    const int8_t* wr = w + c;
    for (int32_t r = d.rows; r > 0; --r, xr += d.row_step, wr += d.filter_row) {
      const int16_t* xp = xr;
      const int8_t* wp = wr;
      for (int32_t col = d.columns; col > 0; --col, xp += d.tap_step, wp += d.channels) {
        const Packed x01 = LoadPair(xp);
        const Packed x23 = LoadPair(xp + 2);
        const EvenOdd weights = LoadFourWeights(wp);
        s0 = __smlabb(x01, weights.even, s0);
        s1 = __smlatb(x01, weights.odd, s1);
        s2 = __smlabt(x23, weights.even, s2);
        s3 = __smlatt(x23, weights.odd, s3);
      }
    }
    out[c] = ConvOutput(BiasStart(bias, c) + Widen<uint64_t>(s0), quant, c);
    out[c + 1] = ConvOutput(BiasStart(bias, c + 1) + Widen<uint64_t>(s1), quant, c + 1);
    out[c + 2] = ConvOutput(BiasStart(bias, c + 2) + Widen<uint64_t>(s2), quant, c + 2);
    out[c + 3] = ConvOutput(BiasStart(bias, c + 3) + Widen<uint64_t>(s3), quant, c + 3);
  }
#else
  // Sixteen channels at a time, the channel loop innermost (contiguous
  // values in the input and the filter): it vectorises.
  constexpr int32_t kChunk = 16;
  for (; c + kChunk <= d.channels; c += kChunk) {
    int32_t sums[kChunk] = {};
    for (int32_t r = 0; r < d.rows; ++r) {
      const int16_t* xp = x + c + r * d.row_step;
      const int8_t* wp = w + c + r * d.filter_row;
      for (int32_t col = 0; col < d.columns; ++col, xp += d.tap_step, wp += d.channels) {
        for (int32_t i = 0; i < kChunk; ++i) sums[i] += int32_t{xp[i]} * int32_t{wp[i]};
      }
    }
    for (int32_t i = 0; i < kChunk; ++i) {
      out[c + i] = ConvOutput(BiasStart(bias, c + i) + Widen<uint64_t>(sums[i]), quant, c + i);
    }
  }
#endif
  for (; c < d.channels; ++c) out[c] = ConvOutput(DepthwiseChannelSum(d, x + c, w + c, BiasStart(bias, c)), quant, c);
}

// Depth multiplier above 1: outputs c * multiplier + j read input channel
// c, so each input value is loaded once per tap for up to eight outputs,
// whose weights are consecutive. Windows of at most kInt16DotBlock taps.
[[gnu::noinline]] void DepthwiseMultiplied(const DepthwiseWindow& d, const reference::QuantizedConvParams& quant,
                                           const int16_t* x, const int8_t* w, const int64_t* bias,
                                           int32_t multiplier, int16_t* out) {
  constexpr int32_t kBlock = 8;
  for (int32_t o = 0; o < d.channels;) {
    const int32_t c = o / multiplier;
    const int32_t n = std::min(kBlock, (c + 1) * multiplier - o);  // outputs of channel c from o on
    int32_t sums[kBlock] = {};
    const int16_t* xr = x + c;
    const int8_t* wr = w + o;
    for (int32_t r = 0; r < d.rows; ++r, xr += d.row_step, wr += d.filter_row) {
      const int16_t* xp = xr;
      const int8_t* wp = wr;
      for (int32_t col = 0; col < d.columns; ++col, xp += d.tap_step, wp += d.channels) {
        const int32_t value = *xp;
        for (int32_t i = 0; i < n; ++i) sums[i] += value * int32_t{wp[i]};
      }
    }
    for (int32_t i = 0; i < n; ++i, ++o) out[o] = ConvOutput(BiasStart(bias, o) + Widen<uint64_t>(sums[i]), quant, o);
  }
}

// Windows of more than kInt16DotBlock taps, product by product.
[[gnu::noinline]] void DepthwiseLargeWindow(const DepthwiseWindow& d, const reference::QuantizedConvParams& quant,
                                            const int16_t* x, const int8_t* w, const int64_t* bias,
                                            int32_t multiplier, int16_t* out) {
  for (int32_t o = 0; o < d.channels; ++o) {
    out[o] = ConvOutput(DepthwiseChannelSum(d, x + o / multiplier, w + o, BiasStart(bias, o)), quant, o);
  }
}

// The sum of `count` weights (FULLY_CONNECTED's input offset times it is
// the offset's share of the row's sum).
inline int32_t WeightSum(const int8_t* w, int32_t count) {
  int32_t sum = 0;
  for (int32_t k = 0; k < count; ++k) sum += w[k];
  return sum;
}

// A fully connected output from its sum (bias and input offset included).
template <typename Sum>
MICROARENA_ALWAYS_INLINE int16_t FullyConnectedOutput(Sum sum, const reference::QuantizedFullyConnectedParams& p,
                                                      const reference::UnitRescale& rescale, int32_t o) {
  const int32_t value =
      fixed_point::WrappingAdd(Rescale(sum, rescale.multiplier_of(o), rescale.shift_of(o)), p.output_offset);
  return Clamp16(value, p.activation_min, p.activation_max);
}

}  // namespace

void ConvInt16(const reference::ConvParams& params, const reference::QuantizedConvParams& quant,
               const EvalTensor& input, const EvalTensor& filter, const EvalTensor* bias, EvalTensor& output) {
  const bool int32_bias = bias != nullptr && bias->type == TensorType::kInt32;
  const int64_t* bias64 = bias != nullptr && !int32_bias ? bias->As<const int64_t>() : nullptr;
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  const reference::ConvFilterShape filter_shape{filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3)};
  if (int32_bias) {
    reference::ConvPerChannelInt16(params, quant, NhwcShapeOf(input), input.As<const int16_t>(), filter_shape,
                                   filter.As<const int8_t>(), bias->As<const int32_t>(), NhwcShapeOf(output),
                                   output.As<int16_t>());
  } else {
    reference::ConvPerChannelInt16(params, quant, NhwcShapeOf(input), input.As<const int16_t>(), filter_shape,
                                   filter.As<const int8_t>(), bias64, NhwcShapeOf(output), output.As<int16_t>());
  }
  return;
#endif
  if (int32_bias) {
    WindowConv(params, quant, input, filter, bias->As<const int32_t>(), output);
  } else {
    WindowConv(params, quant, input, filter, bias64, output);
  }
}

void DepthwiseConvInt16(const reference::ConvParams& params, int32_t depth_multiplier,
                        const reference::QuantizedConvParams& quant, const EvalTensor& input_tensor,
                        const EvalTensor& filter_tensor, const EvalTensor* bias_tensor, EvalTensor& output_tensor) {
  const NhwcShape input_shape = NhwcShapeOf(input_tensor);
  const NhwcShape filter_shape = NhwcShapeOf(filter_tensor);
  const NhwcShape output_shape = NhwcShapeOf(output_tensor);
  const int16_t* input = input_tensor.As<const int16_t>();
  const int8_t* filter = filter_tensor.As<const int8_t>();
  const int64_t* bias = bias_tensor != nullptr ? bias_tensor->As<const int64_t>() : nullptr;
  int16_t* out = output_tensor.As<int16_t>();
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::DepthwiseConvPerChannelInt16(params, depth_multiplier, quant, input_shape, input, filter_shape, filter,
                                          bias, output_shape, out);
  return;
#endif
  const int32_t channels = input_shape.channels;
  const int32_t out_channels = output_shape.channels;
  const auto input_row = static_cast<ptrdiff_t>(input_shape.width) * channels;
  DepthwiseWindow d;
  d.row_step = input_row * params.dilation_height;
  d.tap_step = static_cast<ptrdiff_t>(params.dilation_width) * channels;
  d.filter_row = static_cast<ptrdiff_t>(filter_shape.width) * out_channels;
  d.channels = out_channels;
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    const int16_t* input_batch = input + b * input_row * input_shape.height;
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      const int32_t in_y = out_y * params.stride_height - params.padding_height;
      int32_t first_row = 0;
      int32_t end_row = 0;
      ClipRange(in_y, filter_shape.height, params.dilation_height, input_shape.height, &first_row, &end_row);
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x, out += out_channels) {
        const int32_t in_x = out_x * params.stride_width - params.padding_width;
        int32_t first_column = 0;
        int32_t end_column = 0;
        ClipRange(in_x, filter_shape.width, params.dilation_width, input_shape.width, &first_column, &end_column);
        d.rows = end_row - first_row;
        d.columns = end_column - first_column;
        const bool empty = d.rows == 0 || d.columns == 0;
        if (empty) d.rows = 0;  // every tap reads padding: the sums are the biases
        const ptrdiff_t first_x = in_x + first_column * params.dilation_width;
        const int16_t* x =
            input_batch + (empty ? 0 : (in_y + first_row * params.dilation_height) * input_row + first_x * channels);
        const int8_t* w = filter + (empty ? 0 : first_row * d.filter_row +
                                                    static_cast<ptrdiff_t>(first_column) * out_channels);
        if (d.rows * d.columns > kInt16DotBlock) {
          DepthwiseLargeWindow(d, quant, x, w, bias, depth_multiplier, out);
        } else if (depth_multiplier != 1) {
          DepthwiseMultiplied(d, quant, x, w, bias, depth_multiplier, out);
        } else {
          DepthwisePixel(d, quant, x, w, bias, out);
        }
      }
    }
  }
}

template <typename Bias>
void FullyConnectedInt16(const reference::QuantizedFullyConnectedParams& params,
                         const reference::FullyConnectedShape& shape, const int16_t* input, const int8_t* filter,
                         const Bias* bias, int16_t* output, const reference::UnitScales& unit_scales) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::FullyConnectedInt16(params, shape, input, filter, bias, output, unit_scales);
  return;
#endif
  if (params.filter_offset != 0) {  // Prepare sets none (symmetric weights); kept exact all the same
    reference::FullyConnectedInt16(params, shape, input, filter, bias, output, unit_scales);
    return;
  }
  using Sum = SumOf<Bias>;
  const reference::UnitRescale rescale(params, unit_scales);
  const int32_t depth = shape.accum_depth;
  const int32_t units = shape.output_depth;
  // The input offset's share of unit o's sum: offset x the row's weight
  // sum, exact in int64 (|offset| <= 2^15, |weight sum| < 2^31).
  const auto offset_share = [&](const int8_t* row) {
    return static_cast<Sum>(int64_t{params.input_offset} * WeightSum(row, depth));
  };
  for (int32_t b = 0; b < shape.batches; ++b) {
    const int16_t* x = input + static_cast<ptrdiff_t>(b) * depth;
    int16_t* out = output + static_cast<ptrdiff_t>(b) * units;
    int32_t o = 0;
    for (; o + 4 <= units; o += 4) {
      const int8_t* w = filter + static_cast<ptrdiff_t>(o) * depth;
      Sum sum[4] = {BiasStart(bias, o), BiasStart(bias, o + 1), BiasStart(bias, o + 2), BiasStart(bias, o + 3)};
      Dot<1, 4>(x, 0, w, depth, depth, sum);
      for (int32_t i = 0; i < 4; ++i) {
        if (params.input_offset != 0) sum[i] += offset_share(w + i * static_cast<ptrdiff_t>(depth));
        out[o + i] = FullyConnectedOutput(sum[i], params, rescale, o + i);
      }
    }
    for (; o < units; ++o) {
      const int8_t* w = filter + static_cast<ptrdiff_t>(o) * depth;
      Sum sum = BiasStart(bias, o);
      Dot<1, 1>(x, 0, w, 0, depth, &sum);
      if (params.input_offset != 0) sum += offset_share(w);
      out[o] = FullyConnectedOutput(sum, params, rescale, o);
    }
  }
}

template void FullyConnectedInt16<int32_t>(const reference::QuantizedFullyConnectedParams&,
                                           const reference::FullyConnectedShape&, const int16_t*, const int8_t*,
                                           const int32_t*, int16_t*, const reference::UnitScales&);
template void FullyConnectedInt16<int64_t>(const reference::QuantizedFullyConnectedParams&,
                                           const reference::FullyConnectedShape&, const int16_t*, const int8_t*,
                                           const int64_t*, int16_t*, const reference::UnitScales&);

}  // namespace microarena::optimized
