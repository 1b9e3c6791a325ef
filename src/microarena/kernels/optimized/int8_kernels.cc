#include "microarena/kernels/optimized/int8_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/int8_dot.h"
#include "microarena/kernels/optimized/requantize.h"
#include "microarena/kernels/optimized/window_clip.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena::optimized {
namespace {

using reference::NhwcShape;

// The bias of channel o as the accumulator's start (the sum is taken modulo
// 2^32, so adding the bias first or last gives the same bits).
inline uint32_t BiasStart(const int32_t* bias, int32_t o) {
  return bias != nullptr ? static_cast<uint32_t>(bias[o]) : 0U;
}

// CONV_2D's operands and layout, fixed for the op. One struct, passed by
// reference down the chain ConvInt8 -> ConvRow -> SumWindow, keeps the
// frames narrow (the firmware's Invoke stack budget is TFLM's).
struct ConvGeometry {
  const reference::QuantizedConvParams* quant = nullptr;
  const int8_t* filter = nullptr;
  const int32_t* bias = nullptr;  // nullptr: no bias
  int32_t stride_width = 1;
  int32_t padding_width = 0;
  int32_t dilation_height = 1;
  int32_t dilation_width = 1;
  int32_t filter_height = 1;
  int32_t filter_width = 1;
  int32_t input_height = 1;
  int32_t input_width = 1;
  int32_t out_width = 1;
  int32_t in_channels = 0;     // input depth
  int32_t group_depth = 0;     // filter depth: input channels per group
  int32_t group_outputs = 0;   // output channels per group
  int32_t groups = 1;
  int32_t out_channels = 0;
  ptrdiff_t input_row = 0;       // bytes per input row
  ptrdiff_t input_row_step = 0;  // between filter rows (dilation)
  ptrdiff_t input_tap_step = 0;  // between filter columns (dilation)
  ptrdiff_t pixel_step = 0;      // between output columns (stride)
  ptrdiff_t filter_row = 0;      // bytes per filter row
  ptrdiff_t filter_channel = 0;  // bytes per output channel's filter
  bool contiguous = false;       // a window row is one run of input bytes
};

// The geometry of one CONV_2D, built in the frame of the path that runs it.
MICROARENA_ALWAYS_INLINE ConvGeometry MakeGeometry(const reference::ConvParams& params,
                                                   const reference::QuantizedConvParams& quant,
                                                   const EvalTensor& input, const EvalTensor& filter,
                                                   const EvalTensor* bias, const EvalTensor& output) {
  ConvGeometry g;
  g.quant = &quant;
  g.filter = filter.As<const int8_t>();
  g.bias = bias != nullptr ? bias->As<const int32_t>() : nullptr;
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
  return g;
}

// The clipped window of one output pixel as runs of bytes: `rows` filter
// rows of `taps` runs of `run` bytes each.
struct WindowRuns {
  int32_t rows = 0;
  int32_t taps = 0;
  int32_t run = 0;
  ptrdiff_t filter_start = 0;  // within an output channel's filter
};

// acc[] += the sums of one window, for one or two pixels (x1 = x0 +
// pixel_step) and one or two output channels (w1 = w0 + filter_channel):
// acc[0] = (x0, w0), acc[1] = (x0, w1), acc[2] = (x1, w0), acc[3] = (x1, w1).
// Out of line: its loops need most registers, and inlined they would
// spill into ConvRow's frame.
template <int kPixels, int kChannels>
[[gnu::noinline]] void SumWindow(const ConvGeometry& g, const WindowRuns& window, const int8_t* x0, const int8_t* w0,
                                 uint32_t* acc) {
  const int32_t offset = g.quant->input_offset;
  for (int32_t r = 0; r < window.rows; ++r) {
    const int8_t* x = x0;
    const int8_t* w = w0;
    for (int32_t t = 0; t < window.taps; ++t) {
      if constexpr (kPixels == 2 && kChannels == 2) {
        Dot2x2Stepped(x, w, static_cast<int32_t>(g.pixel_step), static_cast<int32_t>(g.filter_channel), window.run,
                      offset, acc);
      } else if constexpr (kChannels == 2) {
        Dot1x2(x, w, w + g.filter_channel, window.run, offset, acc);
      } else {
        acc[0] = Dot1x1(x, w, window.run, offset, acc[0]);
      }
      x += g.input_tap_step;
      w += g.group_depth;
    }
    x0 += g.input_row_step;
    w0 += g.filter_row;
  }
}

// The sums of a block for channels o and o + 1 start at their biases, for
// one pixel (acc[0], acc[1]) and a second (acc[2], acc[3]).
MICROARENA_ALWAYS_INLINE void StartPair(const int32_t* bias, int32_t o, uint32_t* acc) {
  acc[0] = acc[2] = BiasStart(bias, o);
  acc[1] = acc[3] = BiasStart(bias, o + 1);
}

// Channels o and o + 1 of one pixel (out0), and of a second (out1) when
// `two_pixels`, from a block's sums: each channel's multiplier and shift
// read once for both pixels.
MICROARENA_ALWAYS_INLINE void StorePair(OutputStage stage, const reference::QuantizedConvParams& quant,
                                        const uint32_t* acc, int32_t o, bool two_pixels, int8_t* out0, int8_t* out1) {
  const int32_t m0 = quant.output_multiplier[o];
  const int32_t m1 = quant.output_multiplier[o + 1];
  const int s0 = quant.output_shift[o];
  const int s1 = quant.output_shift[o + 1];
  out0[o] = stage(acc[0], m0, s0);
  out0[o + 1] = stage(acc[1], m1, s1);
  if (two_pixels) {
    out1[o] = stage(acc[2], m0, s0);
    out1[o + 1] = stage(acc[3], m1, s1);
  }
}

// Output channels [first, first + group_outputs) of one or two pixels (out1
// unused for one), all of one group; x0 is the group's first input byte.
template <int kPixels>
inline void ConvChannels(const ConvGeometry& g, const WindowRuns& window, const int8_t* x0, int32_t first,
                         int8_t* out0, int8_t* out1) {
  const OutputStage stage(*g.quant);
  const int32_t* multipliers = g.quant->output_multiplier;
  const int8_t* shifts = g.quant->output_shift;
  const int32_t end = first + g.group_outputs;
  const int8_t* w = g.filter + first * g.filter_channel + window.filter_start;
  int32_t o = first;
  for (; o + 2 <= end; o += 2, w += 2 * g.filter_channel) {
    uint32_t acc[4];
    StartPair(g.bias, o, acc);
    SumWindow<kPixels, 2>(g, window, x0, w, acc);
    StorePair(stage, *g.quant, acc, o, kPixels == 2, out0, out1);
  }
  if (o < end) {  // an odd last channel
    for (int32_t p = 0; p < kPixels; ++p) {
      uint32_t acc = BiasStart(g.bias, o);
      SumWindow<1, 1>(g, window, x0 + p * g.pixel_step, w, &acc);
      (p == 0 ? out0 : out1)[o] = stage(acc, multipliers[o], shifts[o]);
    }
  }
}

// Every output channel of the run of `depth` input bytes at x0 (out0),
// and of the run `depth` bytes after it (out0 + out_channels) when
// `two_pixels`: a pointwise CONV_2D's pixels, or the windows SmallWindowConv
// copies; each output channel's filter is `depth` bytes. The operands come
// as values, not in a struct, so SmallWindowConv (which inlines this) adds
// no copy of them to its frame, kws's deepest.
inline void RunChannels(const reference::QuantizedConvParams& quant, const int8_t* filter, const int32_t* bias,
                        int32_t depth, int32_t channels, OutputStage stage, const int8_t* x0, bool two_pixels,
                        int8_t* out0) {
  const int32_t offset = quant.input_offset;
  int8_t* out1 = out0 + channels;
  const int8_t* w = filter;
  int32_t o = 0;
  for (; o + 2 <= channels; o += 2, w += 2 * depth) {
    uint32_t acc[4];
    StartPair(bias, o, acc);
    if (two_pixels) {
      Dot2x2Strided(x0, w, depth, depth, offset, acc);
    } else {
      Dot1x2(x0, w, w + depth, depth, offset, acc);
    }
    StorePair(stage, quant, acc, o, two_pixels, out0, out1);
  }
  if (o < channels) {  // an odd last channel
    for (int32_t p = 0; p < (two_pixels ? 2 : 1); ++p) {
      const uint32_t acc = Dot1x1(x0 + p * depth, w, depth, offset, BiasStart(bias, o));
      (p == 0 ? out0 : out1)[o] = stage(acc, quant.output_multiplier[o], quant.output_shift[o]);
    }
  }
}

// CONV_2D with a 1x1 filter, stride 1, no padding and one group (most of
// the MACs of MobileNet- and DS-CNN-style models): a product of the pixels,
// rows of in_channels bytes, with the filters, so pixel pairs go straight
// to the dot products without window bookkeeping.
// The overlap (the output up to D bytes below the input, kernels/overlap.h):
// a pair reads both its input pixels again for every channel pair while it
// writes both its outputs. Within a row that is safe (no output of row y
// reaches input row y). A pair across rows, the last pixel of row y with the
// first of row y + 1, is safe when rows hold 2 or more pixels: the row-lag D
// keeps output pixel (y + 1, 0) below input pixel (y, W - 1) (worked out in
// docs/kernels.md). With one pixel per row it would overwrite the input
// pixel the pair still reads, so such rows pair nothing.
[[gnu::noinline]] void PointwiseConv(const reference::QuantizedConvParams& quant, const EvalTensor& input,
                                     const EvalTensor& filter, const EvalTensor* bias, EvalTensor& output) {
  const int8_t* weights = filter.As<const int8_t>();
  const int32_t* biases = bias != nullptr ? bias->As<const int32_t>() : nullptr;
  const int32_t depth = input.dim(3);
  const int32_t channels = output.dim(3);
  const int32_t pixels = output.dim(0) * output.dim(1) * output.dim(2);  // the input's too
  const OutputStage stage(quant);
  const auto in_step = static_cast<ptrdiff_t>(depth);
  const auto out_step = static_cast<ptrdiff_t>(channels);
  const int8_t* x = input.As<const int8_t>();
  int8_t* out = output.As<int8_t>();
  int32_t p = 0;
  if (output.dim(2) >= 2) {
    for (; p + 2 <= pixels; p += 2) {
      RunChannels(quant, weights, biases, depth, channels, stage, x + p * in_step, true, out + p * out_step);
    }
  }
  for (; p < pixels; ++p) {
    RunChannels(quant, weights, biases, depth, channels, stage, x + p * in_step, false, out + p * out_step);
  }
}

// Bytes of the two windows SmallWindowConv copies, on the stack: windows
// of up to 40 values (kws's 10x4x1 first layer, 3x3x3 image stems, 5x5x1).
constexpr int32_t kSmallWindowBytes = 40;

// The window of the output pixel at input origin (in_y, in_x), every tap
// in (fy, fx, channel) order as the filter stores it, into `window`: taps
// outside the input get the input zero point, which the offset turns into
// 0, so a padded tap adds nothing, as in the reference.
// Byte loops: the runs are a few bytes long, shorter than a memcpy or
// memset call's own work, so GCC must not turn the loops into those calls.
#if defined(__GNUC__) && !defined(__clang__)
#define MICROARENA_NO_LIBCALL_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define MICROARENA_NO_LIBCALL_LOOPS
#endif
MICROARENA_NO_LIBCALL_LOOPS void CopyWindow(const ConvGeometry& g, const int8_t* input_batch, int32_t in_y,
                                            int32_t in_x, int8_t pad, int8_t* window) {
  const int32_t channels = g.in_channels;
  const auto row_bytes = static_cast<int32_t>(g.filter_row);
  for (int32_t fy = 0; fy < g.filter_height; ++fy, window += row_bytes) {
    const int32_t y = in_y + fy * g.dilation_height;
    if (y < 0 || y >= g.input_height) {
      for (int32_t i = 0; i < row_bytes; ++i) window[i] = pad;
      continue;
    }
    const int8_t* row = input_batch + y * g.input_row;
    int8_t* to = window;
    for (int32_t fx = 0; fx < g.filter_width; ++fx, to += channels) {
      const int32_t x = in_x + fx * g.dilation_width;
      if (x >= 0 && x < g.input_width) {
        const int8_t* from = row + static_cast<ptrdiff_t>(x) * channels;
        for (int32_t c = 0; c < channels; ++c) to[c] = from[c];
      } else {
        for (int32_t c = 0; c < channels; ++c) to[c] = pad;
      }
    }
  }
}

// CONV_2D (one group) whose window holds few values, such as a first layer
// over one to three input channels: the runs of a window row are a few bytes
// each, too short for the dot products, so the windows of two output pixels
// are copied into one contiguous run each first (im2col on the stack) and
// every pixel pair goes through Dot2x2 whole. The pair's reads (the copies)
// come before its writes, pixels in ascending order, as the overlap needs.
[[gnu::noinline, gnu::flatten]] void SmallWindowConv(const reference::ConvParams& params,
                                                     const reference::QuantizedConvParams& quant,
                                       const EvalTensor& input_tensor, const EvalTensor& filter_tensor,
                                       const EvalTensor* bias_tensor, EvalTensor& output_tensor) {
  const ConvGeometry g = MakeGeometry(params, quant, input_tensor, filter_tensor, bias_tensor, output_tensor);
  const int8_t* input = input_tensor.As<const int8_t>();
  int8_t* output = output_tensor.As<int8_t>();
  const int32_t batches = output_tensor.dim(0);
  const int32_t out_height = output_tensor.dim(1);
  // The second window starts `depth` bytes after the first, as the second
  // filter after the first: Dot2x2Strided's layout.
  alignas(4) int8_t windows[2 * kSmallWindowBytes];
  const OutputStage stage(*g.quant);
  const auto pad = static_cast<int8_t>(-g.quant->input_offset);
  const auto depth = static_cast<int32_t>(g.filter_channel);
  // Pixels pair up in raster order, across row ends too (the copies make
  // any two pixels alike): a row of odd width leaves no single pixel
  // behind. Each pair's reads come before its writes, rows ascending.
  const ptrdiff_t input_batch_bytes = g.input_row * g.input_height;
  const int32_t pixels = out_height * g.out_width;
  for (int32_t b = 0; b < batches; ++b) {
    const int8_t* input_batch = input + b * input_batch_bytes;
    int32_t out_y = 0;
    int32_t out_x = 0;
    for (int32_t p = 0; p < pixels; p += 2) {
      const bool pair = p + 1 < pixels;
      CopyWindow(g, input_batch, out_y * params.stride_height - params.padding_height,
                 out_x * g.stride_width - g.padding_width, pad, windows);
      if (++out_x == g.out_width) {
        out_x = 0;
        ++out_y;
      }
      if (pair) {
        CopyWindow(g, input_batch, out_y * params.stride_height - params.padding_height,
                   out_x * g.stride_width - g.padding_width, pad, windows + depth);
        if (++out_x == g.out_width) {
          out_x = 0;
          ++out_y;
        }
      }
      RunChannels(*g.quant, g.filter, g.bias, depth, g.out_channels, stage, windows, pair, output);
      output += (pair ? 2 : 1) * g.out_channels;
    }
  }
}

// One output row of CONV_2D at input row origin `in_y` (input_batch: the
// batch's first input byte).
[[gnu::noinline]] void ConvRow(const ConvGeometry& g, const int8_t* input_batch, int32_t in_y, int8_t* out_row) {
  int32_t first_row = 0;
  int32_t end_row = 0;
  ClipRange(in_y, g.filter_height, g.dilation_height, g.input_height, &first_row, &end_row);
  for (int32_t out_x = 0; out_x < g.out_width;) {
    const int32_t in_x = out_x * g.stride_width - g.padding_width;
    int32_t first_column = 0;
    int32_t end_column = 0;
    ClipRange(in_x, g.filter_width, g.dilation_width, g.input_width, &first_column, &end_column);
    // Two pixels go together when their windows are clipped alike.
    bool pair = false;
    if (out_x + 1 < g.out_width) {
      int32_t first = 0;
      int32_t end = 0;
      ClipRange(in_x + g.stride_width, g.filter_width, g.dilation_width, g.input_width, &first, &end);
      pair = first == first_column && end == end_column;
    }
    WindowRuns window;
    const int8_t* x0 = input_batch;
    if (first_row < end_row && first_column < end_column) {
      const int32_t columns = end_column - first_column;
      window.rows = end_row - first_row;
      window.taps = g.contiguous ? 1 : columns;
      window.run = g.contiguous ? columns * g.in_channels : g.group_depth;
      x0 += (in_y + first_row * g.dilation_height) * g.input_row +
            static_cast<ptrdiff_t>(in_x + first_column * g.dilation_width) * g.in_channels;
      window.filter_start = first_row * g.filter_row + static_cast<ptrdiff_t>(first_column) * g.group_depth;
    }  // else every tap reads padding: the sums are the biases alone
    int8_t* out0 = out_row + static_cast<ptrdiff_t>(out_x) * g.out_channels;
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

// DEPTHWISE_CONV_2D's clipped window of one output pixel: `rows` x
// `columns` taps, `row_step` / `tap_step` input bytes apart (the filter's
// taps are `filter_row` / `channels` bytes apart).
struct DepthwiseWindow {
  int32_t rows = 0;
  int32_t columns = 0;
  ptrdiff_t row_step = 0;
  ptrdiff_t tap_step = 0;
  ptrdiff_t filter_row = 0;
  int32_t channels = 0;  // input and output depth (depth multiplier 1)
};

// The scalar sum of channel c over the window (the host's chunks, the
// Cortex-M's last channels).
inline uint32_t DepthwiseChannel(const DepthwiseWindow& d, const int8_t* x, const int8_t* w, int32_t offset,
                                 uint32_t acc) {
  for (int32_t r = 0; r < d.rows; ++r, x += d.row_step, w += d.filter_row) {
    const int8_t* xp = x;
    const int8_t* wp = w;
    for (int32_t col = 0; col < d.columns; ++col, xp += d.tap_step, wp += d.channels) {
      acc += static_cast<uint32_t>((*xp + offset) * int32_t{*wp});
    }
  }
  return acc;
}

#if MICROARENA_ARM_ASM
// The taps of a 3x3 window for four channels, written out: in C the
// compiler spills two of the pointers and steps (42 instructions a window
// row instead of 32). Taps of one row at [x], [x, c] and [x, c, lsl #1]
// (c: the channels, the step between taps of the input and the filter
// alike, dilation 1); rows input_row and filter_row bytes apart. Fourteen
// registers, as Dot2x2WordsStrided.
#define MICROARENA_DEPTHWISE_TAP(OFFSET)                  \
      "ldr %[t0], [%[x]" OFFSET "]\n"                  \
      "ldr %[t2], [%[w]" OFFSET "]\n"                  \
      "sxtab16 %[t1], %[off], %[t0]\n"                  \
      "sxtab16 %[t0], %[off], %[t0], ror #8\n"          \
      "sxtb16 %[t3], %[t2]\n"                           \
      "sxtb16 %[t2], %[t2], ror #8\n"                   \
      "smlabb %[a0], %[t1], %[t3], %[a0]\n"             \
      "smlatt %[a2], %[t1], %[t3], %[a2]\n"             \
      "smlabb %[a1], %[t0], %[t2], %[a1]\n"             \
      "smlatt %[a3], %[t0], %[t2], %[a3]\n"
#define MICROARENA_DEPTHWISE_ROW                            \
  MICROARENA_DEPTHWISE_TAP("")                              \
  MICROARENA_DEPTHWISE_TAP(", %[c]")                        \
  MICROARENA_DEPTHWISE_TAP(", %[c], lsl #1")
inline void Depthwise3x3Four(const int8_t* x, const int8_t* w, int32_t channels, ptrdiff_t input_row,
                             ptrdiff_t filter_row, Packed offsets, int32_t* a) {
  Packed t0, t1, t2, t3;
  __asm__(MICROARENA_DEPTHWISE_ROW
          "add %[x], %[x], %[in_row]\n"
          "add %[w], %[w], %[f_row]\n"
          MICROARENA_DEPTHWISE_ROW
          "add %[x], %[x], %[in_row]\n"
          "add %[w], %[w], %[f_row]\n"
          MICROARENA_DEPTHWISE_ROW
          : [a0] "+r"(a[0]), [a1] "+r"(a[1]), [a2] "+r"(a[2]), [a3] "+r"(a[3]), [x] "+r"(x), [w] "+r"(w),
            [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
          : [c] "r"(channels), [in_row] "r"(input_row), [f_row] "r"(filter_row), [off] "r"(offsets)
          : "memory");
}
// Windows clipped at an edge, with a loop over the rows.
// Rows of three taps (a full window, or one clipped at the top or bottom)
// and rows of two (clipped at the left or right): `rows` >= 1 rows, the row
// count kept in memory (a temporary is free at each row's end).
#define MICROARENA_DEPTHWISE_ROWS(TAPS)                                                                          \
  __asm__("1:\n" TAPS                                                                                           \
          "add %[x], %[x], %[in_row]\n"                                                                         \
          "add %[w], %[w], %[f_row]\n"                                                                          \
          "ldr %[t0], %[rows]\n"                                                                                \
          "subs %[t0], %[t0], #1\n"                                                                             \
          "str %[t0], %[rows]\n"                                                                                \
          "bne 1b\n"                                                                                            \
          : [a0] "+r"(a[0]), [a1] "+r"(a[1]), [a2] "+r"(a[2]), [a3] "+r"(a[3]), [x] "+r"(x), [w] "+r"(w),        \
            [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [rows] "+m"(rows)                     \
          : [c] "r"(channels), [in_row] "r"(input_row), [f_row] "r"(filter_row), [off] "r"(offsets)            \
          : "cc", "memory")
template <int kColumns>
inline void DepthwiseRows(const int8_t* x, const int8_t* w, int32_t rows, int32_t channels, ptrdiff_t input_row,
                          ptrdiff_t filter_row, Packed offsets, int32_t* a) {
  Packed t0, t1, t2, t3;
  if constexpr (kColumns == 3) {
    MICROARENA_DEPTHWISE_ROWS(MICROARENA_DEPTHWISE_ROW);
  } else {
    MICROARENA_DEPTHWISE_ROWS(MICROARENA_DEPTHWISE_TAP("") MICROARENA_DEPTHWISE_TAP(", %[c]"));
  }
}
#undef MICROARENA_DEPTHWISE_ROWS
#undef MICROARENA_DEPTHWISE_ROW
#undef MICROARENA_DEPTHWISE_TAP
#endif

// Every channel of one output pixel (depth multiplier 1): x and w are the
// window's first input and filter bytes of channel 0.
[[gnu::noinline]] void DepthwisePixel(const DepthwiseWindow& d, const reference::QuantizedConvParams& quant,
                                      OutputStage stage, const int8_t* x, const int8_t* w,
                                      const int32_t* bias, int8_t* out) {
  const int32_t* multipliers = quant.output_multiplier;
  const int8_t* shifts = quant.output_shift;
  const int32_t offset = quant.input_offset;
  int32_t c = 0;
#if MICROARENA_ARM_DSP
  // Four channels in registers: one word of each tap holds them; SXTAB16 /
  // SXTB16 unpack it and SMLABB / SMLATT multiply the halves that match.
  const Packed offsets = OffsetPair(offset);
  // A full 3x3 window (MobileNet's and DS-CNN's interior pixels): the nine
  // taps unrolled, addressed from three row pointers, no loop counters.
  const bool three_by_three = d.rows == 3 && d.columns == 3;
  for (; c + 4 <= d.channels; c += 4) {
    int32_t a0 = bias != nullptr ? bias[c] : 0;
    int32_t a1 = bias != nullptr ? bias[c + 1] : 0;
    int32_t a2 = bias != nullptr ? bias[c + 2] : 0;
    int32_t a3 = bias != nullptr ? bias[c + 3] : 0;
    const auto tap = [&](const int8_t* xp, const int8_t* wp) __attribute__((always_inline)) {
      const Packed in = LoadWord(xp);
      const Packed wt = LoadWord(wp);
      const Packed in_even = UnpackEvenWithOffset(offsets, in);
      const Packed wt_even = UnpackEven(wt);
      a0 = __smlabb(in_even, wt_even, a0);
      a2 = __smlatt(in_even, wt_even, a2);
      const Packed in_odd = UnpackOddWithOffset(offsets, in);
      const Packed wt_odd = UnpackOdd(wt);
      a1 = __smlabb(in_odd, wt_odd, a1);
      a3 = __smlatt(in_odd, wt_odd, a3);
    };
    const int8_t* xr = x + c;
    const int8_t* wr = w + c;
#if MICROARENA_ARM_ASM
    if (d.tap_step == d.channels && d.rows > 0 && (d.columns == 3 || d.columns == 2)) {
      int32_t sums[4] = {a0, a1, a2, a3};
      if (d.columns == 3 && d.rows == 3) {
        Depthwise3x3Four(xr, wr, d.channels, d.row_step, d.filter_row, offsets, sums);  // the interior
      } else if (d.columns == 3) {
        DepthwiseRows<3>(xr, wr, d.rows, d.channels, d.row_step, d.filter_row, offsets, sums);
      } else {
        DepthwiseRows<2>(xr, wr, d.rows, d.channels, d.row_step, d.filter_row, offsets, sums);
      }
      a0 = sums[0];
      a1 = sums[1];
      a2 = sums[2];
      a3 = sums[3];
    } else
#endif
    if (three_by_three) {
      for (int32_t r = 0; r < 3; ++r, xr += d.row_step, wr += d.filter_row) {
        tap(xr, wr);
        tap(xr + d.tap_step, wr + d.channels);
        tap(xr + 2 * d.tap_step, wr + 2 * d.channels);
      }
    } else {
      for (int32_t r = d.rows; r > 0; --r, xr += d.row_step, wr += d.filter_row) {
        const int8_t* xp = xr;
        const int8_t* wp = wr;
        for (int32_t col = d.columns; col > 0; --col, xp += d.tap_step, wp += d.channels) tap(xp, wp);
      }
    }
    out[c] = stage(static_cast<uint32_t>(a0), multipliers[c], shifts[c]);
    out[c + 1] = stage(static_cast<uint32_t>(a1), multipliers[c + 1], shifts[c + 1]);
    out[c + 2] = stage(static_cast<uint32_t>(a2), multipliers[c + 2], shifts[c + 2]);
    out[c + 3] = stage(static_cast<uint32_t>(a3), multipliers[c + 3], shifts[c + 3]);
  }
#else
  // Sixteen channels at a time in a short array, the channel loop innermost
  // (contiguous bytes in the input and the filter): it vectorises.
  constexpr int32_t kChunk = 16;
  for (; c + kChunk <= d.channels; c += kChunk) {
    uint32_t acc[kChunk];
    for (int32_t i = 0; i < kChunk; ++i) acc[i] = BiasStart(bias, c + i);
    for (int32_t r = 0; r < d.rows; ++r) {
      const int8_t* xp = x + c + r * d.row_step;
      const int8_t* wp = w + c + r * d.filter_row;
      for (int32_t col = 0; col < d.columns; ++col, xp += d.tap_step, wp += d.channels) {
        for (int32_t i = 0; i < kChunk; ++i) acc[i] += static_cast<uint32_t>((xp[i] + offset) * int32_t{wp[i]});
      }
    }
    for (int32_t i = 0; i < kChunk; ++i) out[c + i] = stage(acc[i], multipliers[c + i], shifts[c + i]);
  }
#endif
  for (; c < d.channels; ++c) {
    out[c] = stage(DepthwiseChannel(d, x + c, w + c, offset, BiasStart(bias, c)), multipliers[c], shifts[c]);
  }
}

// Depth multiplier above 1: outputs c * multiplier + j read input channel
// c, so each input value is loaded once per tap for up to eight outputs,
// whose filter values are consecutive bytes.
// Out of line: its block of sums would widen DepthwiseConvInt8's frame.
[[gnu::noinline]] void DepthwiseMultiplied(const DepthwiseWindow& d, const reference::QuantizedConvParams& quant,
                                           OutputStage stage, const int8_t* x, const int8_t* w, const int32_t* bias,
                                           int32_t multiplier, int32_t out_channels, int8_t* out) {
  constexpr int32_t kBlock = 8;
  const int32_t offset = quant.input_offset;
  for (int32_t o = 0; o < out_channels;) {
    const int32_t c = o / multiplier;
    const int32_t n = std::min(kBlock, (c + 1) * multiplier - o);  // outputs of channel c from o on
    uint32_t acc[kBlock];
    for (int32_t i = 0; i < n; ++i) acc[i] = BiasStart(bias, o + i);
    const int8_t* xr = x + c;
    const int8_t* wr = w + o;
    for (int32_t r = 0; r < d.rows; ++r, xr += d.row_step, wr += d.filter_row) {
      const int8_t* xp = xr;
      const int8_t* wp = wr;
      for (int32_t col = 0; col < d.columns; ++col, xp += d.tap_step, wp += out_channels) {
        const int32_t in = *xp + offset;
        for (int32_t i = 0; i < n; ++i) acc[i] += static_cast<uint32_t>(in * int32_t{wp[i]});
      }
    }
    for (int32_t i = 0; i < n; ++i, ++o) out[o] = stage(acc[i], quant.output_multiplier[o], quant.output_shift[o]);
  }
}


// The general path: window rows as runs, pixel pairs clipped alike.
[[gnu::noinline]] void WindowConv(const reference::ConvParams& params, const reference::QuantizedConvParams& quant,
                                  const EvalTensor& input_tensor, const EvalTensor& filter_tensor,
                                  const EvalTensor* bias_tensor, EvalTensor& output_tensor) {
  const ConvGeometry g = MakeGeometry(params, quant, input_tensor, filter_tensor, bias_tensor, output_tensor);
  const ptrdiff_t input_batch_bytes = g.input_row * g.input_height;
  const auto output_row_bytes = static_cast<ptrdiff_t>(g.out_width) * g.out_channels;
  const int8_t* input = input_tensor.As<const int8_t>();
  int8_t* out_row = output_tensor.As<int8_t>();
  for (int32_t b = 0; b < output_tensor.dim(0); ++b) {
    const int8_t* input_batch = input + b * input_batch_bytes;
    for (int32_t out_y = 0; out_y < output_tensor.dim(1); ++out_y, out_row += output_row_bytes) {
      ConvRow(g, input_batch, out_y * params.stride_height - params.padding_height, out_row);
    }
  }
}

}  // namespace

// Picks the path; each builds what it needs in its own frame (this one
// stays small: Invoke's deepest stack runs through it).
void ConvInt8(const reference::ConvParams& params, const reference::QuantizedConvParams& quant,
              const EvalTensor& input, const EvalTensor& filter, const EvalTensor* bias, EvalTensor& output) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::ConvPerChannelInt8(params, quant, NhwcShapeOf(input), input.As<const int8_t>(),
                                reference::ConvFilterShape{filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3)},
                                filter.As<const int8_t>(), bias != nullptr ? bias->As<const int32_t>() : nullptr,
                                NhwcShapeOf(output), output.As<int8_t>());
  return;
#endif
  const bool one_group = filter.dim(3) == input.dim(3);
  if (filter.dim(1) == 1 && filter.dim(2) == 1 && params.stride_height == 1 && params.stride_width == 1 &&
      params.padding_height == 0 && params.padding_width == 0 && one_group && output.dim(1) == input.dim(1) &&
      output.dim(2) == input.dim(2)) {
    PointwiseConv(quant, input, filter, bias, output);  // output and input have the same pixels
  } else if (one_group && filter.dim(1) * filter.dim(2) * filter.dim(3) <= kSmallWindowBytes) {
    SmallWindowConv(params, quant, input, filter, bias, output);
  } else {
    WindowConv(params, quant, input, filter, bias, output);
  }
}

void DepthwiseConvInt8(const reference::ConvParams& params, int32_t depth_multiplier,
                       const reference::QuantizedConvParams& quant, const EvalTensor& input_tensor,
                       const EvalTensor& filter_tensor, const EvalTensor* bias_tensor, EvalTensor& output_tensor) {
  const NhwcShape input_shape = NhwcShapeOf(input_tensor);
  const NhwcShape filter_shape = NhwcShapeOf(filter_tensor);
  const NhwcShape output_shape = NhwcShapeOf(output_tensor);
  const int8_t* input = input_tensor.As<const int8_t>();
  const int8_t* filter = filter_tensor.As<const int8_t>();
  const int32_t* bias = bias_tensor != nullptr ? bias_tensor->As<const int32_t>() : nullptr;
  int8_t* output = output_tensor.As<int8_t>();
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::DepthwiseConvPerChannelInt8(params, depth_multiplier, quant, input_shape, input, filter_shape, filter,
                                         bias, output_shape, output);
  return;
#endif
  const int32_t channels = input_shape.channels;
  const int32_t out_channels = output_shape.channels;
  const auto input_row = static_cast<ptrdiff_t>(input_shape.width) * channels;
  const OutputStage stage(quant);
  DepthwiseWindow d;
  d.row_step = input_row * params.dilation_height;
  d.tap_step = static_cast<ptrdiff_t>(params.dilation_width) * channels;
  d.filter_row = static_cast<ptrdiff_t>(filter_shape.width) * out_channels;
  d.channels = out_channels;
  int8_t* out = output;
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    const int8_t* input_batch = input + b * input_row * input_shape.height;
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
        const int8_t* x =
            input_batch + (empty ? 0 : (in_y + first_row * params.dilation_height) * input_row + first_x * channels);
        const int8_t* w = filter + (empty ? 0 : first_row * d.filter_row +
                                                    static_cast<ptrdiff_t>(first_column) * out_channels);
        if (depth_multiplier != 1) {
          DepthwiseMultiplied(d, quant, stage, x, w, bias, depth_multiplier, out_channels, out);
          continue;
        }
        DepthwisePixel(d, quant, stage, x, w, bias, out);
      }
    }
  }
}

void FullyConnectedInt8(const reference::QuantizedFullyConnectedParams& params,
                        const reference::FullyConnectedShape& shape, const int8_t* input, const int8_t* filter,
                        const int32_t* bias, int8_t* output) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::FullyConnectedInt8(params, shape, input, filter, bias, output);
  return;
#endif
  const int32_t depth = shape.accum_depth;
  const int32_t units = shape.output_depth;
  for (int32_t b = 0; b < shape.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * depth;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * units;
    int32_t o = 0;
    for (; o + 4 <= units; o += 4) {
      const int8_t* w0 = filter + static_cast<ptrdiff_t>(o) * depth;
      uint32_t acc[4] = {BiasStart(bias, o), BiasStart(bias, o + 1), BiasStart(bias, o + 2), BiasStart(bias, o + 3)};
      Dot1x4Strided(x, w0, depth, depth, params.input_offset, acc);
      for (int32_t i = 0; i < 4; ++i) out[o + i] = RequantizeToInt8(acc[i], params, 0);
    }
    for (; o + 2 <= units; o += 2) {
      const int8_t* w0 = filter + static_cast<ptrdiff_t>(o) * depth;
      uint32_t acc[2] = {BiasStart(bias, o), BiasStart(bias, o + 1)};
      Dot1x2(x, w0, w0 + depth, depth, params.input_offset, acc);
      out[o] = RequantizeToInt8(acc[0], params, 0);
      out[o + 1] = RequantizeToInt8(acc[1], params, 0);
    }
    if (o < units) {
      const uint32_t acc =
          Dot1x1(x, filter + static_cast<ptrdiff_t>(o) * depth, depth, params.input_offset, BiasStart(bias, o));
      out[o] = RequantizeToInt8(acc, params, 0);
    }
  }
}

void FullyConnectedInt8PerChannel(const reference::QuantizedFullyConnectedParams& params,
                                  const reference::FullyConnectedShape& shape, const int8_t* input,
                                  const int8_t* filter, const int32_t* bias, int8_t* output,
                                  const reference::UnitScales& unit_scales) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::FullyConnectedInt8(params, shape, input, filter, bias, output, unit_scales);
  return;
#endif
  const int32_t depth = shape.accum_depth;
  const int32_t units = shape.output_depth;
  for (int32_t b = 0; b < shape.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * depth;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * units;
    for (int32_t o = 0; o < units; ++o) {
      const uint32_t acc =
          Dot1x1(x, filter + static_cast<ptrdiff_t>(o) * depth, depth, params.input_offset, BiasStart(bias, o));
      const int32_t value =
          MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), unit_scales.multiplier[o], unit_scales.shift[o]);
      out[o] = ClampOutput(value, params.output_offset, params.activation_min, params.activation_max);
    }
  }
}

void FullyConnectedInt8PackedInt4(const reference::QuantizedFullyConnectedParams& params,
                                  const reference::FullyConnectedShape& shape, const int8_t* input,
                                  const uint8_t* packed, const int32_t* bias, int8_t* output) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::FullyConnectedInt8PackedInt4(params, shape, input, packed, bias, output);
  return;
#endif
  constexpr int32_t kChunk = 64;  // unpacked weights on the stack
  const int32_t depth = shape.accum_depth;
  const int32_t units = shape.output_depth;
  int8_t weights[kChunk];
  for (int32_t b = 0; b < shape.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * depth;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * units;
    for (int32_t o = 0; o < units; ++o) {
      // The int32 sum wraps as the reference's does, in any order.
      uint32_t acc = BiasStart(bias, o);
      const size_t row = static_cast<size_t>(o) * static_cast<size_t>(depth);
      for (int32_t d = 0; d < depth; d += kChunk) {
        const int32_t count = std::min(kChunk, depth - d);
        for (int32_t i = 0; i < count; ++i) {
          weights[i] = static_cast<int8_t>(reference::Int4At(packed, row + static_cast<size_t>(d + i)));
        }
        acc = Dot1x1(x + d, weights, count, params.input_offset, acc);
      }
      out[o] = RequantizeToInt8(acc, params, 0);
    }
  }
}

bool AveragePoolInt8(const reference::PoolParams& params, const EvalTensor& input_tensor, EvalTensor& output_tensor) {
  const NhwcShape input_shape = NhwcShapeOf(input_tensor);
  const NhwcShape output_shape = NhwcShapeOf(output_tensor);
  const int8_t* input = input_tensor.As<const int8_t>();
  int8_t* out = output_tensor.As<int8_t>();
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  return reference::AveragePoolInt8(params, input_shape, input, output_shape, out);
#endif
  const int32_t channels = output_shape.channels;
  const auto input_row = static_cast<ptrdiff_t>(input_shape.width) * channels;
  constexpr int32_t kChunk = 16;  // sums on the stack: 64 bytes
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    const int8_t* input_batch = input + b * input_row * input_shape.height;
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x, out += channels) {
        const reference::PoolWindow w = reference::ClipPoolWindow(params, input_shape, out_y, out_x);
        const int32_t count = (w.y_end - w.y_begin) * (w.x_end - w.x_begin);
        if (w.y_end <= w.y_begin || w.x_end <= w.x_begin) return false;
        const int8_t* window = input_batch + (w.y_origin + w.y_begin) * input_row +
                               static_cast<ptrdiff_t>(w.x_origin + w.x_begin) * channels;
        for (int32_t c = 0; c < channels; c += kChunk) {
          const int32_t n = std::min(kChunk, channels - c);
          uint32_t sums[kChunk] = {};
          for (int32_t fy = w.y_begin; fy < w.y_end; ++fy) {
            const int8_t* tap = window + (fy - w.y_begin) * input_row + c;
            for (int32_t fx = w.x_begin; fx < w.x_end; ++fx, tap += channels) {
              for (int32_t i = 0; i < n; ++i) sums[i] += static_cast<uint32_t>(int32_t{tap[i]});
            }
          }
          for (int32_t i = 0; i < n; ++i) {
            // Ties away from zero, as the reference: add or subtract half the
            // count (wrapping), then truncate.
            const auto sum = static_cast<int32_t>(sums[i]);
            int32_t average = sum > 0 ? fixed_point::WrappingAdd(sum, count / 2) / count
                                      : fixed_point::WrappingSub(sum, count / 2) / count;
            average = std::min(std::max(average, params.activation_min), params.activation_max);
            out[c + i] = static_cast<int8_t>(average);
          }
        }
      }
    }
  }
  return true;
}

template <bool kSubtract>
void AddInt8(const reference::AddQuantizedParams& params, const int8_t* input1, const int8_t* input2,
             int8_t* output, size_t count) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  for (size_t i = 0; i < count; ++i) {
    output[i] = reference::AddQuantizedElement<kSubtract>(input1[i], input2[i], params);
  }
  return;
#endif
  // Locals: read through `params`, they would be reloaded after each store.
  const reference::AddQuantizedParams p = params;
  for (size_t i = 0; i < count; ++i) {
    // |offset + value| <= 255, so the left shift (20 for int8) stays in int32.
    const int32_t shifted1 = (p.input1_offset + int32_t{input1[i]}) * (int32_t{1} << p.left_shift);
    const int32_t shifted2 = (p.input2_offset + int32_t{input2[i]}) * (int32_t{1} << p.left_shift);
    // The reference's MultiplyByQuantizedMultiplierSmallerThanOneExp: shifts <= 0.
    const int32_t scaled1 = MultiplyByQuantizedMultiplier(shifted1, p.input1_multiplier, p.input1_shift);
    const int32_t scaled2 = MultiplyByQuantizedMultiplier(shifted2, p.input2_multiplier, p.input2_shift);
    const int32_t raw = kSubtract ? scaled1 - scaled2 : scaled1 + scaled2;
    const int32_t value = MultiplyByQuantizedMultiplier(raw, p.output_multiplier, p.output_shift) + p.output_offset;
    output[i] = static_cast<int8_t>(std::min(p.activation_max, std::max(p.activation_min, value)));
  }
}

// Four int8 lanes at once on Cortex-M with DSP: SSUB8 sets a GE flag per
// byte where a - b >= 0 (signed), SEL then picks each byte from a where the
// flag is set, else from b.
#if MICROARENA_ARM_DSP
MICROARENA_ALWAYS_INLINE Packed Select4(Packed a, Packed b) {
  return static_cast<Packed>(__sel(static_cast<uint8x4_t>(a), static_cast<uint8x4_t>(b)));
}
MICROARENA_ALWAYS_INLINE Packed Max4(Packed a, Packed b) {
  (void)__ssub8(a, b);
  return Select4(a, b);
}
MICROARENA_ALWAYS_INLINE Packed Min4(Packed a, Packed b) {
  (void)__ssub8(a, b);
  return Select4(b, a);
}
MICROARENA_ALWAYS_INLINE Packed Splat4(int32_t value) {
  return static_cast<Packed>(0x01010101U * (static_cast<uint32_t>(value) & 0xffU));
}
#endif

bool MaxPoolInt8(const reference::PoolParams& params, const EvalTensor& input_tensor, EvalTensor& output_tensor) {
  const NhwcShape input_shape = NhwcShapeOf(input_tensor);
  const NhwcShape output_shape = NhwcShapeOf(output_tensor);
  const int8_t* input = input_tensor.As<const int8_t>();
  int8_t* out = output_tensor.As<int8_t>();
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::MaxPoolInt8(params, input_shape, input, output_shape, out);
  return true;
#endif
  const int32_t channels = output_shape.channels;
  const auto input_row = static_cast<ptrdiff_t>(input_shape.width) * channels;
  // The clamp's bounds (Prepare keeps them within int8); an empty window
  // gives the clamped lowest value, as the reference.
  const auto low = static_cast<int8_t>(std::max<int32_t>(params.activation_min, -128));
  const auto high = static_cast<int8_t>(std::min<int32_t>(params.activation_max, 127));
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    const int8_t* input_batch = input + b * input_row * input_shape.height;
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x, out += channels) {
        const reference::PoolWindow w = reference::ClipPoolWindow(params, input_shape, out_y, out_x);
        const int32_t rows = std::max<int32_t>(0, w.y_end - w.y_begin);
        const int32_t columns = std::max<int32_t>(0, w.x_end - w.x_begin);
        // An empty window reads nothing: no pointer is formed outside the input.
        const int8_t* window = rows == 0 || columns == 0
                                   ? input_batch
                                   : input_batch + (w.y_origin + w.y_begin) * input_row +
                                         static_cast<ptrdiff_t>(w.x_origin + w.x_begin) * channels;
        int32_t c = 0;
#if MICROARENA_ARM_DSP
        // Four channels per word; the clamp is a max and a min of words.
        const Packed low4 = Splat4(low);
        const Packed high4 = Splat4(high);
        for (; c + 4 <= channels; c += 4) {
          Packed max = Splat4(-128);
          for (int32_t fy = 0; fy < rows; ++fy) {
            const int8_t* tap = window + fy * input_row + c;
            for (int32_t fx = 0; fx < columns; ++fx, tap += channels) max = Max4(max, LoadWord(tap));
          }
          const Packed clamped = Min4(Max4(max, low4), high4);
          std::memcpy(out + c, &clamped, sizeof(clamped));
        }
#else
        // Channels innermost in chunks of 16: the max loop vectorises.
        constexpr int32_t kChunk = 16;
        for (; c + kChunk <= channels; c += kChunk) {
          int8_t max[kChunk];
          for (int32_t i = 0; i < kChunk; ++i) max[i] = -128;
          for (int32_t fy = 0; fy < rows; ++fy) {
            const int8_t* tap = window + fy * input_row + c;
            for (int32_t fx = 0; fx < columns; ++fx, tap += channels) {
              for (int32_t i = 0; i < kChunk; ++i) max[i] = tap[i] > max[i] ? tap[i] : max[i];
            }
          }
          for (int32_t i = 0; i < kChunk; ++i) {
            const int8_t value = max[i] > low ? max[i] : low;
            out[c + i] = value < high ? value : high;
          }
        }
#endif
        for (; c < channels; ++c) {  // the tail, one channel at a time
          int8_t max = -128;
          for (int32_t fy = 0; fy < rows; ++fy) {
            const int8_t* tap = window + fy * input_row + c;
            for (int32_t fx = 0; fx < columns; ++fx, tap += channels) max = *tap > max ? *tap : max;
          }
          const int8_t value = max > low ? max : low;
          out[c] = value < high ? value : high;
        }
      }
    }
  }
  return true;
}

namespace {

// MUL's loop with the operands' kinds fixed: a scalar operand is read once,
// before any output is written.
template <bool kScalar1, bool kScalar2>
void MulLoop(const reference::MulQuantizedParams& params, const int8_t* input1, const int8_t* input2,
             int8_t* output, size_t count) {
  // Locals: read through `params`, they would be reloaded after each store.
  const reference::MulQuantizedParams p = params;
  const int32_t scalar1 = p.input1_offset + int32_t{input1[0]};
  const int32_t scalar2 = p.input2_offset + int32_t{input2[0]};
  for (size_t i = 0; i < count; ++i) {
    // |offset + value| <= 255: the product is exact in int32.
    const int32_t x1 = kScalar1 ? scalar1 : p.input1_offset + int32_t{input1[i]};
    const int32_t x2 = kScalar2 ? scalar2 : p.input2_offset + int32_t{input2[i]};
    output[i] = ClampOutput(MultiplyByQuantizedMultiplier(x1 * x2, p.output_multiplier, p.output_shift),
                            p.output_offset, p.activation_min, p.activation_max);
  }
}

}  // namespace

void MulInt8(const reference::MulQuantizedParams& params, const int8_t* input1, bool input1_scalar,
             const int8_t* input2, bool input2_scalar, int8_t* output, size_t count) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  constexpr bool kShortcut = false;
#else
  constexpr bool kShortcut = true;
#endif
  // The shortcut requantization holds for shifts in [-31, 31] (Prepare
  // refuses larger ones; a smaller one takes the reference's function).
  if (count == 0) return;
  if (!kShortcut || params.output_multiplier < 0 || params.output_shift < -31 || params.output_shift > 31) {
    for (size_t i = 0; i < count; ++i) {
      output[i] = reference::MulQuantizedElement(input1[input1_scalar ? 0 : i], input2[input2_scalar ? 0 : i], params);
    }
  } else if (input1_scalar) {
    MulLoop<true, false>(params, input1, input2, output, count);
  } else if (input2_scalar) {
    MulLoop<false, true>(params, input1, input2, output, count);
  } else {
    MulLoop<false, false>(params, input1, input2, output, count);
  }
}

template void AddInt8<false>(const reference::AddQuantizedParams&, const int8_t*, const int8_t*, int8_t*, size_t);
template void AddInt8<true>(const reference::AddQuantizedParams&, const int8_t*, const int8_t*, int8_t*, size_t);

}  // namespace microarena::optimized
