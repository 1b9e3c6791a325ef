#include "microarena/kernels/optimized/int8_kernels.h"

#include <algorithm>
#include <cstddef>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/int8_dot.h"
#include "microarena/kernels/optimized/requantize.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena::optimized {
namespace {

using reference::NhwcShape;

// The bias of channel o as the accumulator's start (the sum is taken modulo
// 2^32, so adding the bias first or last gives the same bits).
inline uint32_t BiasStart(const int32_t* bias, int32_t o) {
  return bias != nullptr ? static_cast<uint32_t>(bias[o]) : 0U;
}

// The taps of one window axis that land inside the input: taps [first,
// end) of `taps` at origin, origin + dilation, ... over an extent of input.
inline void ClipRange(int32_t origin, int32_t taps, int32_t dilation, int32_t extent, int32_t* first,
                      int32_t* end) {
  *first = origin < 0 ? (-origin + dilation - 1) / dilation : 0;
  const int32_t room = extent - origin;  // input positions from the origin on
  *end = room <= 0 ? 0 : std::min(taps, (room + dilation - 1) / dilation);
  if (*end < *first) *end = *first;
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
        Dot2x2(x, x + g.pixel_step, w, w + g.filter_channel, window.run, offset, acc);
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

// Output channels [first, first + group_outputs) of one or two pixels (out1
// unused for one), all of one group; x0 is the group's first input byte.
template <int kPixels>
inline void ConvChannels(const ConvGeometry& g, const WindowRuns& window, const int8_t* x0, int32_t first,
                         int8_t* out0, int8_t* out1) {
  const reference::QuantizedConvParams& quant = *g.quant;
  const int32_t end = first + g.group_outputs;
  const int8_t* w = g.filter + first * g.filter_channel + window.filter_start;
  int32_t o = first;
  for (; o + 2 <= end; o += 2, w += 2 * g.filter_channel) {
    uint32_t acc[4] = {BiasStart(g.bias, o), BiasStart(g.bias, o + 1), BiasStart(g.bias, o),
                       BiasStart(g.bias, o + 1)};
    SumWindow<kPixels, 2>(g, window, x0, w, acc);
    out0[o] = RequantizeToInt8(acc[0], quant, o);
    out0[o + 1] = RequantizeToInt8(acc[1], quant, o + 1);
    if (kPixels == 2) {
      out1[o] = RequantizeToInt8(acc[2], quant, o);
      out1[o + 1] = RequantizeToInt8(acc[3], quant, o + 1);
    }
  }
  if (o < end) {  // an odd last channel
    for (int32_t p = 0; p < kPixels; ++p) {
      uint32_t acc = BiasStart(g.bias, o);
      SumWindow<1, 1>(g, window, x0 + p * g.pixel_step, w, &acc);
      (p == 0 ? out0 : out1)[o] = RequantizeToInt8(acc, quant, o);
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

// Channels summed together per output pixel: in registers on Cortex-M,
// in a short array the compiler vectorises elsewhere.
constexpr int32_t kDepthwiseChunk = MICROARENA_ARM_DSP ? 4 : 16;

#if MICROARENA_ARM_DSP
// Four channels in registers: SXTAB16 / SXTB16 unpack the four channels of
// one tap, SMLABB / SMLATT multiply the halves that match.
inline void DepthwiseFour(const DepthwiseWindow& d, const int8_t* x, const int8_t* w, Packed offsets,
                          uint32_t* acc) {
  auto a0 = static_cast<int32_t>(acc[0]);
  auto a1 = static_cast<int32_t>(acc[1]);
  auto a2 = static_cast<int32_t>(acc[2]);
  auto a3 = static_cast<int32_t>(acc[3]);
  for (int32_t r = 0; r < d.rows; ++r) {
    const int8_t* xp = x;
    const int8_t* wp = w;
    for (int32_t col = 0; col < d.columns; ++col) {
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
      xp += d.tap_step;
      wp += d.channels;
    }
    x += d.row_step;
    w += d.filter_row;
  }
  acc[0] = static_cast<uint32_t>(a0);
  acc[1] = static_cast<uint32_t>(a1);
  acc[2] = static_cast<uint32_t>(a2);
  acc[3] = static_cast<uint32_t>(a3);
}
#endif

// acc[0, count) += the window's sums of `count` <= kDepthwiseChunk channels
// starting at x and w.
inline void DepthwiseChunk(const DepthwiseWindow& d, const int8_t* x, const int8_t* w, int32_t count,
                           int32_t offset, uint32_t* acc) {
#if MICROARENA_ARM_DSP
  if (count == 4) {
    DepthwiseFour(d, x, w, OffsetPair(offset), acc);
    return;
  }
#endif
  for (int32_t r = 0; r < d.rows; ++r) {
    const int8_t* xp = x + r * d.row_step;
    const int8_t* wp = w + r * d.filter_row;
    for (int32_t col = 0; col < d.columns; ++col) {
      for (int32_t i = 0; i < count; ++i) acc[i] += static_cast<uint32_t>((xp[i] + offset) * int32_t{wp[i]});
      xp += d.tap_step;
      wp += d.channels;
    }
  }
}

// Depth multiplier above 1: output o reads input channel o / multiplier.
void DepthwiseMultiplied(const DepthwiseWindow& d, const reference::QuantizedConvParams& quant, const int8_t* x,
                         const int8_t* w, const int32_t* bias, int32_t multiplier, int32_t out_channels,
                         int8_t* out) {
  for (int32_t o = 0; o < out_channels; ++o) {
    uint32_t acc = BiasStart(bias, o);
    const int8_t* xc = x + o / multiplier;
    for (int32_t r = 0; r < d.rows; ++r) {
      for (int32_t col = 0; col < d.columns; ++col) {
        const int32_t in = xc[r * d.row_step + col * d.tap_step] + quant.input_offset;
        acc += static_cast<uint32_t>(in * int32_t{w[r * d.filter_row + col * out_channels + o]});
      }
    }
    out[o] = RequantizeToInt8(acc, quant, o);
  }
}

}  // namespace

void ConvInt8(const reference::ConvParams& params, const reference::QuantizedConvParams& quant,
              const EvalTensor& input_tensor, const EvalTensor& filter_tensor, const EvalTensor* bias_tensor,
              EvalTensor& output_tensor) {
  const NhwcShape input_shape = NhwcShapeOf(input_tensor);
  const NhwcShape output_shape = NhwcShapeOf(output_tensor);
  const reference::ConvFilterShape filter_shape{filter_tensor.dim(0), filter_tensor.dim(1), filter_tensor.dim(2),
                                                filter_tensor.dim(3)};
  const int8_t* input = input_tensor.As<const int8_t>();
  int8_t* output = output_tensor.As<int8_t>();
  ConvGeometry g;
  g.quant = &quant;
  g.filter = filter_tensor.As<const int8_t>();
  g.bias = bias_tensor != nullptr ? bias_tensor->As<const int32_t>() : nullptr;
  g.stride_width = params.stride_width;
  g.padding_width = params.padding_width;
  g.dilation_height = params.dilation_height;
  g.dilation_width = params.dilation_width;
  g.filter_height = filter_shape.height;
  g.filter_width = filter_shape.width;
  g.input_height = input_shape.height;
  g.input_width = input_shape.width;
  g.out_width = output_shape.width;
  g.in_channels = input_shape.channels;
  g.group_depth = filter_shape.input_channels;
  g.groups = input_shape.channels / filter_shape.input_channels;
  g.out_channels = output_shape.channels;
  g.group_outputs = output_shape.channels / g.groups;
  g.input_row = static_cast<ptrdiff_t>(input_shape.width) * input_shape.channels;
  g.input_row_step = g.input_row * params.dilation_height;
  g.input_tap_step = static_cast<ptrdiff_t>(params.dilation_width) * input_shape.channels;
  g.pixel_step = static_cast<ptrdiff_t>(params.stride_width) * input_shape.channels;
  g.filter_row = static_cast<ptrdiff_t>(filter_shape.width) * filter_shape.input_channels;
  g.filter_channel = g.filter_row * filter_shape.height;
  g.contiguous = params.dilation_width == 1 && g.groups == 1;
  const ptrdiff_t input_batch_bytes = g.input_row * input_shape.height;
  const auto output_row_bytes = static_cast<ptrdiff_t>(output_shape.width) * output_shape.channels;
  int8_t* out_row = output;
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    const int8_t* input_batch = input + b * input_batch_bytes;
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y, out_row += output_row_bytes) {
      ConvRow(g, input_batch, out_y * params.stride_height - params.padding_height, out_row);
    }
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
  const int32_t channels = input_shape.channels;
  const int32_t out_channels = output_shape.channels;
  const auto input_row = static_cast<ptrdiff_t>(input_shape.width) * channels;
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
        const int8_t* x = input_batch + (empty ? 0
                                               : (in_y + first_row * params.dilation_height) * input_row +
                                                     static_cast<ptrdiff_t>(in_x + first_column * params.dilation_width) *
                                                         channels);
        const int8_t* w = filter + (empty ? 0 : first_row * d.filter_row +
                                                    static_cast<ptrdiff_t>(first_column) * out_channels);
        if (depth_multiplier != 1) {
          DepthwiseMultiplied(d, quant, x, w, bias, depth_multiplier, out_channels, out);
          continue;
        }
        for (int32_t c = 0; c < channels; c += kDepthwiseChunk) {
          const int32_t count = std::min(kDepthwiseChunk, channels - c);
          uint32_t acc[kDepthwiseChunk];
          for (int32_t i = 0; i < count; ++i) acc[i] = BiasStart(bias, c + i);
          DepthwiseChunk(d, x + c, w + c, count, quant.input_offset, acc);
          for (int32_t i = 0; i < count; ++i) out[c + i] = RequantizeToInt8(acc[i], quant, c + i);
        }
      }
    }
  }
}

void FullyConnectedInt8(const reference::QuantizedFullyConnectedParams& params,
                        const reference::FullyConnectedShape& shape, const int8_t* input, const int8_t* filter,
                        const int32_t* bias, int8_t* output) {
  const int32_t depth = shape.accum_depth;
  const int32_t units = shape.output_depth;
  for (int32_t b = 0; b < shape.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * depth;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * units;
    int32_t o = 0;
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

}  // namespace microarena::optimized
