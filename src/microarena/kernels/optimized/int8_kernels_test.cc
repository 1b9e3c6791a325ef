// The fast int8 paths against their oracle, the reference kernels: the same
// bytes on every shape class the int8 Prepare accepts (MAX_POOL_2D and MUL
// too) (1x1 and larger
// filters, strides, padding on every side, dilation, groups, depth
// multipliers, odd channel counts and depths, batches, no bias, clamps,
// input zero points at both ends of int8), first on named cases, then on
// random ones drawn from fixed seeds (optimized/self_check.h, which the
// Cortex-M firmware examples/cortex_m/kernel_check.cc runs too). The
// requantization shortcut is checked against fixed_point on its edge values
// and on random ones.
#include "microarena/kernels/optimized/int8_kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/int8_dot.h"
#include "microarena/kernels/optimized/requantize.h"
#include "microarena/kernels/optimized/self_check.h"

namespace microarena {
namespace {

using optimized::self_check::ConvCase;
using optimized::self_check::DepthwiseCase;
using optimized::self_check::FullyConnectedCase;
using optimized::self_check::Outcome;
using optimized::self_check::Placement;
using optimized::self_check::PoolCase;
using optimized::self_check::Random;
using optimized::self_check::Window;
using optimized::self_check::Workspace;

std::string Describe(const Window& w) {
  return "filter " + std::to_string(w.filter_height) + "x" + std::to_string(w.filter_width) + " stride " +
         std::to_string(w.stride_h) + "x" + std::to_string(w.stride_w) + " dilation " + std::to_string(w.dilation_h) +
         "x" + std::to_string(w.dilation_w) + " pad " + std::to_string(w.pad_h) + "," + std::to_string(w.pad_w) + "+" +
         std::to_string(w.pad_after);
}
std::string Describe(const ConvCase& c) {
  return "batches " + std::to_string(c.batches) + " input " + std::to_string(c.height) + "x" +
         std::to_string(c.width) + "x" + std::to_string(c.in_channels) + " -> " + std::to_string(c.out_channels) +
         " groups " + std::to_string(c.groups) + " " + Describe(c.window) + (c.bias ? "" : " no bias");
}
std::string Describe(const DepthwiseCase& c) {
  return "batches " + std::to_string(c.batches) + " input " + std::to_string(c.height) + "x" +
         std::to_string(c.width) + "x" + std::to_string(c.channels) + " multiplier " + std::to_string(c.multiplier) +
         " " + Describe(c.window) + (c.bias ? "" : " no bias");
}

// The workspace is 33 KB: on the heap, not on the test's stack.
std::unique_ptr<Workspace> NewWorkspace() { return std::make_unique<Workspace>(); }

TEST(FastConvInt8Test, MatchesTheReferenceOnEveryShapeClass) {
  Random random{20261203};
  auto ws = NewWorkspace();
  const ConvCase cases[] = {
      // 1x1 (pointwise), even and odd channel counts and widths.
      {1, 5, 5, 64, 64, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 3, 7, 13, 9, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 4, 3, 3, 1, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, false},
      // 3x3 SAME, stride 1 and 2 (kws/resnet-like), padding on all sides.
      {1, 8, 8, 16, 16, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 9, 7, 3, 8, 1, {3, 3, 2, 2, 1, 1, 1, 1, 1}, true},
      {1, 6, 6, 5, 7, 1, {3, 3, 2, 2, 1, 1, 0, 0, 1}, true},
      // kws's first layer: 10x4 over one channel, stride 2, uneven padding.
      {1, 49, 10, 1, 64, 1, {10, 4, 2, 2, 1, 1, 4, 1, 1}, true},
      // Windows larger than the input, so some clip on both sides or miss entirely.
      {1, 3, 3, 4, 6, 1, {5, 5, 1, 1, 1, 1, 3, 3, 3}, true},
      {1, 2, 2, 2, 3, 1, {3, 3, 3, 3, 1, 1, 2, 2, 2}, false},
      // Dilation, alone and with padding.
      {1, 9, 9, 6, 5, 1, {3, 3, 1, 1, 2, 2, 2, 2, 2}, true},
      {1, 7, 8, 4, 4, 1, {2, 3, 1, 2, 3, 1, 0, 1, 1}, true},
      // Groups: 2 and 4 groups, odd outputs per group.
      {1, 5, 5, 8, 6, 2, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 4, 6, 12, 12, 4, {1, 3, 1, 1, 1, 1, 0, 1, 1}, true},
      {1, 5, 4, 6, 9, 3, {2, 2, 1, 1, 1, 1, 0, 0, 1}, false},
      // Batches.
      {3, 4, 4, 5, 4, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      // Pointwise over maps one pixel wide, narrowing and widening: overlapped,
      // a pair across rows would overwrite the input it still reads.
      {1, 2, 1, 8, 4, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 3, 1, 4, 8, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 4, 3, 16, 4, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
  };
  for (const ConvCase& c : cases) {
    EXPECT_EQ(optimized::self_check::CheckConv(c, random, *ws), Outcome::kSame) << Describe(c);
    // Batch 1: again with the output D bytes below the input, as an overlap plan puts it.
    if (c.batches == 1) {
      // (kTooLarge: input and output at D do not fit the workspace together.)
      EXPECT_NE(optimized::self_check::CheckConv(c, random, *ws, Placement::kOverlapped), Outcome::kDifferent)
          << Describe(c) << ", overlapped";
    }
  }
}

// Random convolutions of every kind, from a fixed seed.
TEST(FastConvInt8Test, MatchesTheReferenceOnRandomShapes) {
  Random random{7};
  auto ws = NewWorkspace();
  int compared = 0;
  int compared_overlapped = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ConvCase c{};
    if (!optimized::self_check::RandomConvCase(random, &c)) continue;
    ASSERT_EQ(optimized::self_check::CheckConv(c, random, *ws), Outcome::kSame) << Describe(c);
    ++compared;
    const Outcome overlapped = optimized::self_check::CheckConv(c, random, *ws, Placement::kOverlapped);
    if (overlapped == Outcome::kTooLarge) continue;
    ASSERT_EQ(overlapped, Outcome::kSame) << Describe(c) << ", overlapped";
    ++compared_overlapped;
  }
  EXPECT_GT(compared, 300);
  EXPECT_GT(compared_overlapped, 100);
}

TEST(FastDepthwiseConvInt8Test, MatchesTheReferenceOnEveryShapeClass) {
  Random random{1203};
  auto ws = NewWorkspace();
  const DepthwiseCase cases[] = {
      // 3x3 SAME, stride 1 and 2, channel counts around the 4- and 16-channel blocks.
      {1, 25, 5, 64, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 12, 12, 8, 1, {3, 3, 2, 2, 1, 1, 0, 0, 1}, true},
      {1, 7, 6, 19, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 5, 5, 3, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, false},
      {1, 6, 5, 33, 1, {5, 3, 2, 1, 1, 1, 2, 1, 2}, true},
      // Windows clipped on both sides or missing the input.
      {1, 2, 3, 4, 1, {5, 5, 2, 2, 1, 1, 3, 3, 3}, true},
      // Dilation, depth multipliers, batches.
      {1, 9, 9, 5, 1, {3, 3, 1, 1, 2, 3, 2, 3, 2}, true},
      {1, 6, 6, 3, 2, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 5, 7, 4, 3, {2, 2, 2, 1, 1, 2, 0, 1, 1}, false},
      {2, 4, 4, 8, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
  };
  for (const DepthwiseCase& c : cases) {
    EXPECT_EQ(optimized::self_check::CheckDepthwise(c, random, *ws), Outcome::kSame) << Describe(c);
    if (c.batches == 1) {
      EXPECT_NE(optimized::self_check::CheckDepthwise(c, random, *ws, Placement::kOverlapped),
                Outcome::kDifferent)
          << Describe(c) << ", overlapped";
    }
  }
}

TEST(FastDepthwiseConvInt8Test, MatchesTheReferenceOnRandomShapes) {
  Random random{11};
  auto ws = NewWorkspace();
  int compared = 0;
  int compared_overlapped = 0;
  for (int trial = 0; trial < 400; ++trial) {
    DepthwiseCase c{};
    if (!optimized::self_check::RandomDepthwiseCase(random, &c)) continue;
    const Outcome outcome = optimized::self_check::CheckDepthwise(c, random, *ws);
    if (outcome == Outcome::kTooLarge) continue;
    ASSERT_EQ(outcome, Outcome::kSame) << Describe(c);
    ++compared;
    const Outcome overlapped = optimized::self_check::CheckDepthwise(c, random, *ws, Placement::kOverlapped);
    if (overlapped == Outcome::kTooLarge) continue;
    ASSERT_EQ(overlapped, Outcome::kSame) << Describe(c) << ", overlapped";
    ++compared_overlapped;
  }
  EXPECT_GT(compared, 250);
  EXPECT_GT(compared_overlapped, 80);
}

TEST(FastFullyConnectedInt8Test, MatchesTheReference) {
  Random random{5};
  auto ws = NewWorkspace();
  // ad01-like (640 deep, 128 units), odd depths (the 4-byte loops' tails),
  // units around the blocks of 4 and 2, batches.
  const FullyConnectedCase cases[] = {{1, 640, 12, true}, {1, 60, 128, true}, {1, 128, 8, true}, {1, 7, 5, true},
                                      {1, 1, 1, false},
                                      {3, 33, 10, true},  {2, 250, 3, false}, {1, 13, 7, true}};
  for (const bool per_channel : {false, true}) {
    for (FullyConnectedCase c : cases) {
      c.per_channel = per_channel;
      EXPECT_EQ(optimized::self_check::CheckFullyConnected(c, random, *ws), Outcome::kSame)
          << c.batches << "x" << c.depth << " -> " << c.units << (per_channel ? " per channel" : "");
    }
  }
  for (int trial = 0; trial < 200; ++trial) {
    FullyConnectedCase c{};
    optimized::self_check::RandomFullyConnectedCase(random, &c);
    ASSERT_EQ(optimized::self_check::CheckFullyConnected(c, random, *ws), Outcome::kSame)
        << c.batches << "x" << c.depth << " -> " << c.units;
  }
}

TEST(FastAddInt8Test, MatchesTheReferenceOnRandomParameters) {
  Random random{17};
  auto ws = NewWorkspace();
  for (int trial = 0; trial < 200; ++trial) {
    optimized::self_check::AddCase c{};
    optimized::self_check::RandomAddCase(random, &c);
    ASSERT_EQ(optimized::self_check::CheckAdd(c, random, *ws), Outcome::kSame)
        << (c.subtract ? "SUB" : "ADD") << " of " << c.count << " elements";
  }
}

// Global pools as kws's, strided ones, padded windows clipped at every
// edge, channel counts around the 16-channel chunk, clamps; the output
// also D bytes below the input.
TEST(FastAveragePoolInt8Test, MatchesTheReferenceOnRandomShapes) {
  Random random{13};
  auto ws = NewWorkspace();
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    PoolCase c{};
    if (!optimized::self_check::RandomPoolCase(random, &c)) continue;
    for (const Placement placement : {Placement::kApart, Placement::kOverlapped}) {
      const Outcome outcome = optimized::self_check::CheckAveragePool(c, random, *ws, placement);
      if (outcome == Outcome::kTooLarge) continue;
      ASSERT_EQ(outcome, Outcome::kSame) << c.batches << "x" << c.height << "x" << c.width << "x" << c.channels
                                         << " filter " << c.params.filter_height << "x" << c.params.filter_width
                                         << (placement == Placement::kOverlapped ? " overlapped" : "");
      ++compared;
    }
  }
  EXPECT_GT(compared, 250);
}

// Windows clipped at every edge, strided and global pools, channel counts
// around the 4-channel word and the 16-channel chunk, clamps; the output
// also D bytes below the input, as an overlap plan places it.
TEST(FastMaxPoolInt8Test, MatchesTheReferenceOnRandomShapes) {
  Random random{19};
  auto ws = NewWorkspace();
  int compared = 0;
  int overlapped = 0;
  for (int trial = 0; trial < 300; ++trial) {
    PoolCase c{};
    if (!optimized::self_check::RandomPoolCase(random, &c)) continue;
    for (const Placement placement : {Placement::kApart, Placement::kOverlapped}) {
      const Outcome outcome = optimized::self_check::CheckMaxPool(c, random, *ws, placement);
      if (outcome == Outcome::kTooLarge) continue;
      ASSERT_EQ(outcome, Outcome::kSame)
          << c.batches << "x" << c.height << "x" << c.width << "x" << c.channels << " filter "
          << c.params.filter_height << "x" << c.params.filter_width << " stride " << c.params.stride_height << "x"
          << c.params.stride_width << " clamp " << c.params.activation_min << ".." << c.params.activation_max
          << (placement == Placement::kOverlapped ? " overlapped" : "");
      ++(placement == Placement::kOverlapped ? overlapped : compared);
    }
  }
  EXPECT_GT(compared, 200);
  EXPECT_GT(overlapped, 50);
}

// A window that lies wholly in the padding has no input: the reference
// gives the clamped lowest value, and so must the fast path (21 channels:
// a chunk of 16 and a tail on the host, five words and a tail on
// Cortex-M).
TEST(FastMaxPoolInt8Test, AnEmptyWindowGivesTheClampedLowestValue) {
  Random random{23};
  auto ws = NewWorkspace();
  PoolCase c{};
  c.batches = 1;
  c.height = 1;
  c.width = 1;
  c.channels = 21;
  c.params.filter_height = 1;
  c.params.filter_width = 1;
  c.params.stride_height = 2;
  c.params.stride_width = 2;
  c.params.padding_height = 1;  // output row 0 reads input row -1: nothing
  c.params.padding_width = 0;
  c.params.activation_min = -7;
  c.params.activation_max = 127;
  ASSERT_EQ(optimized::self_check::CheckMaxPool(c, random, *ws), Outcome::kSame);
  for (int i = 0; i < 21; ++i) EXPECT_EQ(ws->actual[i], -7) << "channel " << i;
}

// Same shapes, a scalar on either side; in place over input 1 too.
TEST(FastMulInt8Test, MatchesTheReferenceOnRandomParameters) {
  Random random{29};
  auto ws = NewWorkspace();
  int scalars = 0;
  for (int trial = 0; trial < 300; ++trial) {
    optimized::self_check::MulCase c{};
    optimized::self_check::RandomMulCase(random, &c);
    for (const Placement placement : {Placement::kApart, Placement::kOverlapped}) {
      const Outcome outcome = optimized::self_check::CheckMul(c, random, *ws, placement);
      if (outcome == Outcome::kTooLarge) continue;
      ASSERT_EQ(outcome, Outcome::kSame) << "MUL of " << c.count << " elements" << (c.scalar1 ? ", input 1 scalar" : "")
                                         << (c.scalar2 ? ", input 2 scalar" : "")
                                         << (placement == Placement::kOverlapped ? ", in place" : "");
    }
    scalars += c.scalar1 || c.scalar2 ? 1 : 0;
  }
  EXPECT_GT(scalars, 40);
}

// Products at both ends (-255 x -255 and 255 x -255) with the largest
// multipliers and left shifts: the requantization's extremes.
TEST(FastMulInt8Test, MatchesTheReferenceOnExtremeProducts) {
  const int8_t input1[] = {-128, 127, -128, 127, 0, -1};
  const int8_t input2[] = {-128, -128, 127, 127, 0, 1};
  for (const int32_t shift : {-31, -20, -8, 0, 1, 4}) {
    for (const int32_t offset : {-127, 0, 128}) {
      reference::MulQuantizedParams p;
      p.input1_offset = offset;
      p.input2_offset = -offset;
      p.output_offset = -offset / 2;
      p.output_multiplier = 0x7fffffff;
      p.output_shift = shift;
      p.activation_min = -128;
      p.activation_max = 127;
      int8_t actual[6];
      optimized::MulInt8(p, input1, false, input2, false, actual, 6);
      for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(actual[i], reference::MulQuantizedElement(input1[i], input2[i], p))
            << "element " << i << " shift " << shift << " offset " << offset;
      }
    }
  }
}

// Rows shorter and longer than the 16 cached exps, int8 and int16 outputs,
// diff scalings where few or all diffs count, flat rows whose sum of exps
// overflows an int8 output's format.
TEST(FastSoftmaxInt8Test, MatchesTheReferenceOnRandomRows) {
  Random random{31};
  auto ws = NewWorkspace();
  int compared = 0;
  int flat_long = 0;
  for (int trial = 0; trial < 300; ++trial) {
    optimized::self_check::SoftmaxCase c{};
    optimized::self_check::RandomSoftmaxCase(random, &c);
    const Outcome outcome = optimized::self_check::CheckSoftmax(c, random, *ws);
    if (outcome == Outcome::kTooLarge) continue;
    ASSERT_EQ(outcome, Outcome::kSame) << c.rows << " rows of " << c.depth << (c.int16_output ? " to int16" : " to int8")
                                       << (c.flat ? ", flat" : "");
    ++compared;
    flat_long += c.flat && c.depth > 512 ? 1 : 0;
  }
  EXPECT_GT(compared, 250);
  EXPECT_GT(flat_long, 0);
}

// Long runs of the extreme products wrap the int32 sum as the reference's
// WrappingAdd does: 70,000 x (-128 x 255) is below INT32_MIN.
TEST(FastDotTest, WrapsLongSumsAsTheReference) {
  const int32_t count = 70000;
  std::vector<int8_t> x(count, 127);
  std::vector<int8_t> w(count, -128);
  const int32_t offset = 128;  // input zero point -128: every value becomes 255
  int32_t expected = 0;
  for (int32_t k = 0; k < count; ++k) expected = fixed_point::WrappingAdd(expected, 255 * -128);
  EXPECT_EQ(static_cast<int32_t>(optimized::Dot1x1(x.data(), w.data(), count, offset, 0)), expected);
  uint32_t acc[4] = {0, 0, 0, 0};
  optimized::Dot2x2(x.data(), x.data(), w.data(), w.data(), count, offset, acc);
  for (const uint32_t value : acc) EXPECT_EQ(static_cast<int32_t>(value), expected);
}

// The requantization shortcut (optimized/requantize.h) against fixed_point.
TEST(FastRequantizeTest, MatchesFixedPointOnEdgesAndRandomValues) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> values = {kMin, kMin + 1, -1, 0, 1, kMax - 1, kMax};
  for (int bit = 0; bit < 31; ++bit) {
    const int32_t power = int32_t{1} << bit;
    for (const int32_t v : {power, power - 1, power + 1, -power, -power - 1, -power + 1}) values.push_back(v);
  }
  const int32_t multipliers[] = {0, 1, 1 << 30, (1 << 30) + 1, kMax, kMax - 1, 1518500250};
  int checked = 0;
  for (const int32_t x : values) {
    for (const int32_t m : multipliers) {
      for (int shift = -31; shift <= 31; ++shift) {
        ASSERT_EQ(optimized::MultiplyByQuantizedMultiplier(x, m, shift),
                  fixed_point::MultiplyByQuantizedMultiplier(x, m, shift))
            << "x " << x << " multiplier " << m << " shift " << shift;
        ++checked;
      }
    }
  }
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> mantissa(1 << 30, kMax);
  std::uniform_int_distribution<int> shift(-31, 31);
  for (int trial = 0; trial < 200000; ++trial) {
    const int32_t x = trial % 2 == 0 ? any(rng) : any(rng) >> (trial % 31);  // small values too
    const int32_t m = mantissa(rng);
    const int s = shift(rng);
    ASSERT_EQ(optimized::MultiplyByQuantizedMultiplier(x, m, s), fixed_point::MultiplyByQuantizedMultiplier(x, m, s))
        << "x " << x << " multiplier " << m << " shift " << s;
    ++checked;
  }
  EXPECT_GT(checked, 200000);
}

}  // namespace
}  // namespace microarena
