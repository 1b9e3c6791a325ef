// The kernels' overlap displacements: the formulas of kernels/overlap.h on
// hand-calculated cases, and the reference kernels run with the output
// placed exactly D bytes below the input in one buffer (the tightest overlap
// a plan may use), which must give the bytes of a run in separate buffers.
#include "microarena/kernels/overlap.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "microarena/kernels/reference/activations.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/reference/quantize.h"
#include "microarena/model/window.h"

namespace microarena {
namespace {

using reference::NhwcShape;

size_t RowLag(int64_t out_height, int64_t in_row, int64_t out_row, int64_t stride, int64_t pad) {
  size_t d = 0;
  EXPECT_TRUE(RowLagDisplacement(out_height, in_row, out_row, stride, pad, &d));
  return d;
}

TEST(OverlapDisplacement, RowLagByHand) {
  // vww's 1x1 convolution 48x48x8 -> 48x48x16 int8: R_in = 48*8 = 384,
  // R_out = 48*16 = 768; row y needs input rows from y on, so
  // D = max_y (y+1)*768 - y*384 = 48*768 - 47*384 = 18,816 (at y = 47).
  EXPECT_EQ(RowLag(48, 384, 768, 1, 0), 18816u);
  // 3 rows in and out of 6 B each, stride 1, one row of padding on top:
  // y=0: 6 - 0 = 6; y=1: 12 - 0*6 = 12; y=2: 18 - 1*6 = 12  -> D = 12.
  EXPECT_EQ(RowLag(3, 6, 6, 1, 1), 12u);
  // 4 input rows of 8 B -> 2 output rows of 4 B, stride 2, no padding:
  // y=0: 4 - 0 = 4; y=1: 8 - 2*8 = -8  -> D = 4 (one output row).
  EXPECT_EQ(RowLag(2, 8, 4, 2, 0), 4u);
  EXPECT_FALSE([] {
    size_t d = 0;
    return RowLagDisplacement(0, 8, 4, 1, 0, &d);
  }());
}

TEST(OverlapDisplacement, ElementwiseByHand) {
  size_t d = 99;
  // Same element size: in place.
  ASSERT_TRUE(ElementwiseDisplacement(10, 1, 1, &d));
  EXPECT_EQ(d, 0u);
  // int8 -> float32 over 10 elements: the write of element i ends at
  // O + 4(i+1), the next read starts at I + (i+1): D = 9 * (4 - 1) = 27.
  ASSERT_TRUE(ElementwiseDisplacement(10, 1, 4, &d));
  EXPECT_EQ(d, 27u);
  // float32 -> int8 shrinks: the output never catches up.
  ASSERT_TRUE(ElementwiseDisplacement(10, 4, 1, &d));
  EXPECT_EQ(d, 0u);
}

struct Geometry {
  int32_t in_h, in_w, in_c, out_c, filter, stride, dilation;
  tflite::Padding padding;
};

std::vector<int8_t> RandomBytes(std::mt19937& random, size_t count) {
  std::vector<int8_t> bytes(count);
  for (int8_t& b : bytes) b = static_cast<int8_t>(random() % 256);
  return bytes;
}

// Runs `kernel(input, output)` once with separate buffers and once with the
// output at the start of one buffer and the input `displacement` bytes above
// it; returns whether the outputs are equal.
template <typename Kernel>
bool SameWhenOverlapped(const std::vector<int8_t>& input, size_t output_bytes, size_t displacement,
                        Kernel kernel) {
  std::vector<int8_t> separate(output_bytes);
  kernel(input.data(), separate.data());
  std::vector<int8_t> shared(std::max(output_bytes, displacement + input.size()));
  std::memcpy(shared.data() + displacement, input.data(), input.size());
  kernel(shared.data() + displacement, shared.data());
  return std::memcmp(shared.data(), separate.data(), output_bytes) == 0;
}

class WindowOverlapTest : public ::testing::TestWithParam<Geometry> {};

TEST_P(WindowOverlapTest, ConvDepthwiseAndPoolsAreExactAtTheirDisplacement) {
  const Geometry g = GetParam();
  std::mt19937 random(static_cast<uint32_t>(g.in_h * 131 + g.in_c * 7 + g.stride));
  const int64_t out_h = WindowOutputSize(g.padding, g.in_h, g.filter, g.stride, g.dilation);
  const int64_t out_w = WindowOutputSize(g.padding, g.in_w, g.filter, g.stride, g.dilation);
  ASSERT_GT(out_h, 0);
  ASSERT_GT(out_w, 0);
  reference::ConvParams params;
  params.stride_height = params.stride_width = g.stride;
  params.dilation_height = params.dilation_width = g.dilation;
  params.padding_height = static_cast<int32_t>(WindowPaddingBefore(g.in_h, g.filter, g.stride, g.dilation, out_h));
  params.padding_width = static_cast<int32_t>(WindowPaddingBefore(g.in_w, g.filter, g.stride, g.dilation, out_w));
  const NhwcShape in_shape{1, g.in_h, g.in_w, g.in_c};
  const std::vector<int8_t> input = RandomBytes(random, static_cast<size_t>(g.in_h * g.in_w * g.in_c));

  std::vector<int32_t> multipliers(static_cast<size_t>(std::max(g.out_c, g.in_c)), 1 << 30);
  std::vector<int8_t> shifts(multipliers.size(), -6);
  reference::QuantizedConvParams quant;
  quant.input_offset = 3;
  quant.output_offset = -2;
  quant.output_multiplier = multipliers.data();
  quant.output_shift = shifts.data();

  {  // CONV_2D
    const NhwcShape out_shape{1, static_cast<int32_t>(out_h), static_cast<int32_t>(out_w), g.out_c};
    const reference::ConvFilterShape filter_shape{g.out_c, g.filter, g.filter, g.in_c};
    const std::vector<int8_t> filter = RandomBytes(random, static_cast<size_t>(g.out_c * g.filter * g.filter * g.in_c));
    const size_t d = RowLag(out_h, int64_t{g.in_w} * g.in_c, out_w * g.out_c, g.stride, params.padding_height);
    const size_t out_bytes = static_cast<size_t>(out_h * out_w * g.out_c);
    EXPECT_TRUE(SameWhenOverlapped(input, out_bytes, d, [&](const int8_t* in, int8_t* out) {
      reference::ConvPerChannelInt8(params, quant, in_shape, in, filter_shape, filter.data(), nullptr, out_shape, out);
    })) << "CONV_2D, D = " << d;
  }
  {  // DEPTHWISE_CONV_2D, depth multiplier out_c / in_c (or 1)
    const int32_t multiplier = g.out_c % g.in_c == 0 ? g.out_c / g.in_c : 1;
    const int32_t channels = g.in_c * multiplier;
    const NhwcShape out_shape{1, static_cast<int32_t>(out_h), static_cast<int32_t>(out_w), channels};
    const NhwcShape filter_shape{1, g.filter, g.filter, channels};
    const std::vector<int8_t> filter = RandomBytes(random, static_cast<size_t>(g.filter * g.filter * channels));
    std::vector<int32_t> dw_multipliers(static_cast<size_t>(channels), 1 << 30);
    std::vector<int8_t> dw_shifts(static_cast<size_t>(channels), -4);
    reference::QuantizedConvParams dw_quant = quant;
    dw_quant.output_multiplier = dw_multipliers.data();
    dw_quant.output_shift = dw_shifts.data();
    const size_t d = RowLag(out_h, int64_t{g.in_w} * g.in_c, out_w * channels, g.stride, params.padding_height);
    const size_t out_bytes = static_cast<size_t>(out_h * out_w * channels);
    EXPECT_TRUE(SameWhenOverlapped(input, out_bytes, d, [&](const int8_t* in, int8_t* out) {
      reference::DepthwiseConvPerChannelInt8(params, multiplier, dw_quant, in_shape, in, filter_shape, filter.data(),
                                             nullptr, out_shape, out);
    })) << "DEPTHWISE_CONV_2D, D = " << d;
  }
  if (g.dilation == 1) {  // AVERAGE_POOL_2D and MAX_POOL_2D
    reference::PoolParams pool;
    pool.stride_height = pool.stride_width = g.stride;
    pool.filter_height = pool.filter_width = g.filter;
    pool.padding_height = params.padding_height;
    pool.padding_width = params.padding_width;
    const NhwcShape out_shape{1, static_cast<int32_t>(out_h), static_cast<int32_t>(out_w), g.in_c};
    const size_t d = RowLag(out_h, int64_t{g.in_w} * g.in_c, out_w * g.in_c, g.stride, params.padding_height);
    const size_t out_bytes = static_cast<size_t>(out_h * out_w * g.in_c);
    EXPECT_TRUE(SameWhenOverlapped(input, out_bytes, d, [&](const int8_t* in, int8_t* out) {
      reference::AveragePoolInt8(pool, in_shape, in, out_shape, out);
    })) << "AVERAGE_POOL_2D, D = " << d;
    EXPECT_TRUE(SameWhenOverlapped(input, out_bytes, d, [&](const int8_t* in, int8_t* out) {
      reference::MaxPoolInt8(pool, in_shape, in, out_shape, out);
    })) << "MAX_POOL_2D, D = " << d;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, WindowOverlapTest,
    ::testing::Values(Geometry{12, 12, 8, 16, 1, 1, 1, tflite::Padding::VALID},  // pointwise, grows
                      Geometry{12, 12, 16, 8, 1, 1, 1, tflite::Padding::VALID},  // pointwise, shrinks
                      Geometry{11, 9, 4, 4, 3, 1, 1, tflite::Padding::SAME},
                      Geometry{12, 12, 4, 8, 3, 2, 1, tflite::Padding::SAME},
                      Geometry{13, 10, 3, 6, 3, 2, 1, tflite::Padding::VALID},
                      Geometry{10, 10, 4, 4, 3, 1, 2, tflite::Padding::SAME},
                      Geometry{9, 7, 2, 8, 5, 3, 1, tflite::Padding::SAME}));

// The test above can fail. The row lag is a whole-row bound, a little
// larger than the byte-exact one: within the last row, output pixel k
// (16 B) is written channel by channel while input pixel k (8 B) is still
// read for the next channel, which is safe only when
// offset(I) - offset(O) >= 8k + 16 for every pixel k < 144, i.e. >= 1,160.
// D - 96 (one input row less) = 1,152 is below that, so the writes of pixel
// 143's channels 8..14 land on its input before channel 15 reads it.
TEST(OverlapDisplacement, ARowLessThanDCorruptsAPointwiseConvolution) {
  std::mt19937 random(3);
  const NhwcShape in_shape{1, 12, 12, 8};
  const NhwcShape out_shape{1, 12, 12, 16};
  const reference::ConvFilterShape filter_shape{16, 1, 1, 8};
  const std::vector<int8_t> input = RandomBytes(random, 12 * 12 * 8);
  const std::vector<int8_t> filter = RandomBytes(random, 16 * 8);
  std::vector<int32_t> multipliers(16, 1 << 30);
  std::vector<int8_t> shifts(16, -5);
  reference::QuantizedConvParams quant;
  quant.output_multiplier = multipliers.data();
  quant.output_shift = shifts.data();
  const size_t d = RowLag(12, 12 * 8, 12 * 16, 1, 0);
  EXPECT_EQ(d, 12u * 192u - 11u * 96u);  // 1,248
  const auto conv = [&](const int8_t* in, int8_t* out) {
    reference::ConvPerChannelInt8(reference::ConvParams{}, quant, in_shape, in, filter_shape, filter.data(), nullptr,
                                  out_shape, out);
  };
  EXPECT_TRUE(SameWhenOverlapped(input, 12 * 12 * 16, d, conv));
  EXPECT_FALSE(SameWhenOverlapped(input, 12 * 12 * 16, d - 96, conv));
}

TEST(OverlapDisplacement, ElementwiseKernelsAreExactInPlaceAndDequantizeAtItsD) {
  std::mt19937 random(5);
  const std::vector<int8_t> input = RandomBytes(random, 257);
  EXPECT_TRUE(SameWhenOverlapped(input, input.size(), 0, [](const int8_t* in, int8_t* out) {
    reference::ClampArray<int8_t>(-20, 90, 257, in, out);
  }));
  reference::SigmoidInt8Params sigmoid;
  sigmoid.input_zero_point = 4;
  sigmoid.input_range_radius = 100;
  sigmoid.input_multiplier = 1 << 30;
  sigmoid.input_shift = 2;
  EXPECT_TRUE(SameWhenOverlapped(input, input.size(), 0, [&](const int8_t* in, int8_t* out) {
    reference::LogisticInt8(sigmoid, 257, in, out);
  }));
  // int8 -> float32: the output is 4x larger; at D = 256 * 3 it is exact.
  size_t d = 0;
  ASSERT_TRUE(ElementwiseDisplacement(257, 1, 4, &d));
  EXPECT_EQ(d, 768u);
  // The kernel writes floats into the (malloc-aligned) byte buffers.
  const auto dequantize = [](const int8_t* in, int8_t* out) {
    reference::Dequantize(0.25, 3, 257, in, reinterpret_cast<float*>(out));
  };
  EXPECT_TRUE(SameWhenOverlapped(input, 257 * 4, d, dequantize));
}

}  // namespace
}  // namespace microarena
