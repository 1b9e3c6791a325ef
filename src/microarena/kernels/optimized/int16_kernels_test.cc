// The fast 16x8 paths against their oracle, the reference kernels: the same
// bytes on every shape class (1x1 and larger filters, strides, padding on
// every side, dilation, groups, depth multipliers, odd channel counts,
// batches, clamps) with each bias the reference accumulates differently
// (none and int64: int64 sums; int32: int32 sums that wrap), on long sums
// of extreme operands, first on named cases, then on random ones drawn from
// fixed seeds (optimized/self_check_int16.h, which the Cortex-M firmware
// examples/cortex_m/kernel_check.cc runs too). Convolutions run with the
// output D bytes below the input as well, as an overlap plan places them.
#include "microarena/kernels/optimized/int16_kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "microarena/kernels/optimized/self_check_int16.h"

namespace microarena {
namespace {

using optimized::self_check::BiasKind;
using optimized::self_check::Conv16Case;
using optimized::self_check::ConvCase;
using optimized::self_check::Depthwise16Case;
using optimized::self_check::DepthwiseCase;
using optimized::self_check::FullyConnected16Case;
using optimized::self_check::FullyConnectedCase;
using optimized::self_check::Operands;
using optimized::self_check::Outcome;
using optimized::self_check::Placement;
using optimized::self_check::Random;
using optimized::self_check::Window;
using optimized::self_check::Workspace16;

constexpr BiasKind kBiasKinds[] = {BiasKind::kNone, BiasKind::kInt32, BiasKind::kInt64};

std::string Describe(const Window& w) {
  return "filter " + std::to_string(w.filter_height) + "x" + std::to_string(w.filter_width) + " stride " +
         std::to_string(w.stride_h) + "x" + std::to_string(w.stride_w) + " dilation " + std::to_string(w.dilation_h) +
         "x" + std::to_string(w.dilation_w) + " pad " + std::to_string(w.pad_h) + "," + std::to_string(w.pad_w) + "+" +
         std::to_string(w.pad_after);
}
std::string Describe(BiasKind bias, Operands operands) {
  const char* kind = bias == BiasKind::kNone ? " no bias" : bias == BiasKind::kInt32 ? " int32 bias" : " int64 bias";
  return std::string(kind) + (operands == Operands::kExtreme ? ", extreme operands" : "");
}
std::string Describe(const Conv16Case& c16) {
  const ConvCase& c = c16.shape;
  return "batches " + std::to_string(c.batches) + " input " + std::to_string(c.height) + "x" +
         std::to_string(c.width) + "x" + std::to_string(c.in_channels) + " -> " + std::to_string(c.out_channels) +
         " groups " + std::to_string(c.groups) + " " + Describe(c.window) + Describe(c16.bias, c16.operands);
}
std::string Describe(const Depthwise16Case& c16) {
  const DepthwiseCase& c = c16.shape;
  return "batches " + std::to_string(c.batches) + " input " + std::to_string(c.height) + "x" +
         std::to_string(c.width) + "x" + std::to_string(c.channels) + " multiplier " + std::to_string(c.multiplier) +
         " " + Describe(c.window) + Describe(c.bias ? BiasKind::kInt64 : BiasKind::kNone, c16.operands);
}
std::string Describe(const FullyConnected16Case& c16) {
  const FullyConnectedCase& c = c16.shape;
  return std::to_string(c.batches) + "x" + std::to_string(c.depth) + " -> " + std::to_string(c.units) +
         (c.per_channel ? " per channel" : "") + Describe(c16.bias, c16.operands);
}

// The workspace is 28 KB: on the heap, not on the test's stack.
std::unique_ptr<Workspace16> NewWorkspace() { return std::make_unique<Workspace16>(); }

TEST(FastConvInt16Test, MatchesTheReferenceOnEveryShapeClass) {
  Random random{20261204};
  auto ws = NewWorkspace();
  const ConvCase shapes[] = {
      // 1x1 (pointwise), even and odd channel counts and widths.
      {1, 5, 5, 64, 64, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 3, 7, 13, 9, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 4, 3, 3, 1, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      // 3x3 SAME, stride 1 and 2, padding on all sides.
      {1, 8, 8, 16, 16, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 9, 7, 3, 8, 1, {3, 3, 2, 2, 1, 1, 1, 1, 1}, true},
      {1, 6, 6, 5, 7, 1, {3, 3, 2, 2, 1, 1, 0, 0, 1}, true},
      // A kws-like first layer: 10x4 over one channel, stride 2, uneven padding.
      {1, 49, 10, 1, 16, 1, {10, 4, 2, 2, 1, 1, 4, 1, 1}, true},
      // Windows larger than the input, so some clip on both sides or miss entirely.
      {1, 3, 3, 4, 6, 1, {5, 5, 1, 1, 1, 1, 3, 3, 3}, true},
      {1, 2, 2, 2, 3, 1, {3, 3, 3, 3, 1, 1, 2, 2, 2}, true},
      // Dilation, alone and with padding.
      {1, 9, 9, 6, 5, 1, {3, 3, 1, 1, 2, 2, 2, 2, 2}, true},
      {1, 7, 8, 4, 4, 1, {2, 3, 1, 2, 3, 1, 0, 1, 1}, true},
      // Groups: 2, 4 and 3 groups, odd outputs per group.
      {1, 5, 5, 8, 6, 2, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 4, 6, 12, 12, 4, {1, 3, 1, 1, 1, 1, 0, 1, 1}, true},
      {1, 5, 4, 6, 9, 3, {2, 2, 1, 1, 1, 1, 0, 0, 1}, true},
      // Batches.
      {3, 4, 4, 5, 4, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      // Pointwise over maps one pixel wide, narrowing and widening.
      {1, 2, 1, 8, 4, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 3, 1, 4, 8, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      // Runs longer than a block of 256 values: 1x1 over 600 channels, 3x3 over 100.
      {1, 1, 2, 600, 3, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 3, 3, 100, 5, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
  };
  for (const ConvCase& shape : shapes) {
    for (const BiasKind bias : kBiasKinds) {
      const Conv16Case c{shape, bias, Operands::kRandom};
      EXPECT_EQ(optimized::self_check::CheckConv16(c, random, *ws), Outcome::kSame) << Describe(c);
      // (kTooLarge: input and output at D do not fit the workspace together.)
      EXPECT_NE(optimized::self_check::CheckConv16(c, random, *ws, Placement::kOverlapped), Outcome::kDifferent)
          << Describe(c) << ", overlapped";
    }
  }
}

// Sums of 576 to 1200 products of 2^22: the int32 sums wrap (the reference's
// WrappingAdd), the int64 ones pass 2^31.
TEST(FastConvInt16Test, MatchesTheReferenceOnLongSums) {
  Random random{3};
  auto ws = NewWorkspace();
  const ConvCase shapes[] = {
      {1, 1, 2, 600, 3, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 3, 3, 64, 4, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 1, 2, 1200, 1, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
  };
  int compared = 0;
  for (const ConvCase& shape : shapes) {
    for (const BiasKind bias : kBiasKinds) {
      const Conv16Case c{shape, bias, Operands::kExtreme};
      ASSERT_EQ(optimized::self_check::CheckConv16(c, random, *ws), Outcome::kSame) << Describe(c);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 9);
}

TEST(FastConvInt16Test, MatchesTheReferenceOnRandomShapes) {
  Random random{7};
  auto ws = NewWorkspace();
  int compared = 0;
  int compared_overlapped = 0;
  for (int trial = 0; trial < 500; ++trial) {
    Conv16Case c{};
    if (!optimized::self_check::RandomConv16Case(random, &c)) continue;
    const Outcome outcome = optimized::self_check::CheckConv16(c, random, *ws);
    if (outcome == Outcome::kTooLarge) continue;
    ASSERT_EQ(outcome, Outcome::kSame) << Describe(c);
    ++compared;
    const Outcome overlapped = optimized::self_check::CheckConv16(c, random, *ws, Placement::kOverlapped);
    if (overlapped == Outcome::kTooLarge) continue;
    ASSERT_EQ(overlapped, Outcome::kSame) << Describe(c) << ", overlapped";
    ++compared_overlapped;
  }
  EXPECT_GT(compared, 350);
  EXPECT_GT(compared_overlapped, 100);
}

TEST(FastDepthwiseConvInt16Test, MatchesTheReferenceOnEveryShapeClass) {
  Random random{1204};
  auto ws = NewWorkspace();
  const DepthwiseCase shapes[] = {
      // 3x3 SAME, stride 1 and 2, channel counts around the 4- and 16-channel blocks.
      {1, 25, 5, 16, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 12, 12, 8, 1, {3, 3, 2, 2, 1, 1, 0, 0, 1}, true},
      {1, 7, 6, 19, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 5, 5, 3, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 6, 5, 33, 1, {5, 3, 2, 1, 1, 1, 2, 1, 2}, true},
      // Windows clipped on both sides or missing the input.
      {1, 2, 3, 4, 1, {5, 5, 2, 2, 1, 1, 3, 3, 3}, true},
      // Dilation, depth multipliers, batches.
      {1, 9, 9, 5, 1, {3, 3, 1, 1, 2, 3, 2, 3, 2}, true},
      {1, 6, 6, 3, 2, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 5, 7, 4, 3, {2, 2, 2, 1, 1, 2, 0, 1, 1}, true},
      {1, 4, 4, 2, 9, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {2, 4, 4, 8, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
  };
  for (const DepthwiseCase& shape : shapes) {
    for (const bool bias : {false, true}) {
      Depthwise16Case c{shape, Operands::kRandom};
      c.shape.bias = bias;
      EXPECT_EQ(optimized::self_check::CheckDepthwise16(c, random, *ws), Outcome::kSame) << Describe(c);
      EXPECT_NE(optimized::self_check::CheckDepthwise16(c, random, *ws, Placement::kOverlapped), Outcome::kDifferent)
          << Describe(c) << ", overlapped";
    }
  }
}

// Windows of 256 taps (the longest summed in int32 first) and 289 (taken
// product by product), with and without a depth multiplier: int64 sums past 2^31.
TEST(FastDepthwiseConvInt16Test, MatchesTheReferenceOnLongSums) {
  Random random{5};
  auto ws = NewWorkspace();
  const DepthwiseCase shapes[] = {
      {1, 16, 16, 5, 1, {16, 16, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 17, 17, 6, 1, {17, 17, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 16, 16, 2, 3, {16, 16, 1, 1, 1, 1, 0, 0, 0}, false},
      {1, 17, 18, 2, 2, {17, 17, 1, 1, 1, 1, 0, 0, 0}, true},
  };
  for (const DepthwiseCase& shape : shapes) {
    const Depthwise16Case c{shape, Operands::kExtreme};
    EXPECT_EQ(optimized::self_check::CheckDepthwise16(c, random, *ws), Outcome::kSame) << Describe(c);
  }
}

TEST(FastDepthwiseConvInt16Test, MatchesTheReferenceOnRandomShapes) {
  Random random{11};
  auto ws = NewWorkspace();
  int compared = 0;
  int compared_overlapped = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Depthwise16Case c{};
    if (!optimized::self_check::RandomDepthwise16Case(random, &c)) continue;
    const Outcome outcome = optimized::self_check::CheckDepthwise16(c, random, *ws);
    if (outcome == Outcome::kTooLarge) continue;
    ASSERT_EQ(outcome, Outcome::kSame) << Describe(c);
    ++compared;
    const Outcome overlapped = optimized::self_check::CheckDepthwise16(c, random, *ws, Placement::kOverlapped);
    if (overlapped == Outcome::kTooLarge) continue;
    ASSERT_EQ(overlapped, Outcome::kSame) << Describe(c) << ", overlapped";
    ++compared_overlapped;
  }
  EXPECT_GT(compared, 250);
  EXPECT_GT(compared_overlapped, 80);
}

TEST(FastFullyConnectedInt16Test, MatchesTheReference) {
  Random random{9};
  auto ws = NewWorkspace();
  // Depths around the 4-value words and the 256-value blocks, units around
  // the blocks of 4, batches; then long sums of extreme operands.
  const FullyConnectedCase shapes[] = {{1, 640, 4, true}, {1, 60, 40, true}, {1, 128, 8, true}, {1, 7, 5, true},
                                       {1, 1, 1, true},   {3, 33, 10, true}, {2, 250, 3, true}, {1, 513, 7, true}};
  for (const bool per_channel : {false, true}) {
    for (FullyConnectedCase shape : shapes) {
      shape.per_channel = per_channel;
      for (const BiasKind bias : kBiasKinds) {
        const FullyConnected16Case c{shape, bias, Operands::kRandom};
        EXPECT_EQ(optimized::self_check::CheckFullyConnected16(c, random, *ws), Outcome::kSame) << Describe(c);
      }
    }
  }
  const FullyConnectedCase long_shapes[] = {{1, 3000, 2, true}, {1, 1000, 6, true}, {2, 700, 5, true}};
  for (const FullyConnectedCase& shape : long_shapes) {
    for (const BiasKind bias : kBiasKinds) {
      const FullyConnected16Case c{shape, bias, Operands::kExtreme};
      EXPECT_EQ(optimized::self_check::CheckFullyConnected16(c, random, *ws), Outcome::kSame) << Describe(c);
    }
  }
  for (int trial = 0; trial < 300; ++trial) {
    FullyConnected16Case c{};
    optimized::self_check::RandomFullyConnected16Case(random, &c);
    ASSERT_EQ(optimized::self_check::CheckFullyConnected16(c, random, *ws), Outcome::kSame) << Describe(c);
  }
}

}  // namespace
}  // namespace microarena
