// The fast recurrent paths against their oracle, the reference kernels: the
// same output and state bytes on named cases (input sizes not multiples of
// 4, one to many filters and units, ranks 1-3, memories of 1 to many,
// batches, no bias, zero points at both ends of int8 and int16, int8 and
// int16 state; the LSTM's 8x8->16 and 16x8->16 gate matmuls), then on
// random ones from fixed seeds
// (optimized/self_check_recurrent.h, which the Cortex-M firmware
// examples/cortex_m/kernel_check.cc runs too).
#include "microarena/kernels/optimized/recurrent_int8.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/self_check_recurrent.h"

namespace microarena {
namespace {

using optimized::self_check::LstmGateCase;
using optimized::self_check::Outcome;
using optimized::self_check::Random;
using optimized::self_check::RecurrentWorkspace;
using optimized::self_check::SvdfCase;

template <typename Case>
std::string Describe(const Case& c) {
  char text[192];
  optimized::self_check::Describe(c, text, sizeof(text));
  return text;
}

// 13 KB: on the heap, not on the test's stack.
std::unique_ptr<RecurrentWorkspace> NewWorkspace() { return std::make_unique<RecurrentWorkspace>(); }

TEST(FastSvdfInt8Test, MatchesTheReferenceOnNamedCases) {
  Random random{2024};
  auto ws = NewWorkspace();
  // batches, input, units, rank, memory, int16 state, bias, zero points (input, state, output), steps.
  const SvdfCase cases[] = {
      // keyword_scrambled_8bit's three SVDF shapes (int8 state), then with int16 state.
      {1, 96, 16, 4, 8, false, true, -128, 0, -128, 3},
      {1, 16, 16, 4, 8, false, true, -128, 0, 0, 3},
      {1, 16, 32, 1, 32, false, true, 0, 0, -128, 3},
      {1, 96, 16, 4, 8, true, true, -128, 0, -128, 3},
      {1, 16, 32, 1, 32, true, true, 0, 0, -128, 3},
      // Input sizes that are not multiples of 4, down to one value.
      {1, 1, 1, 1, 1, false, true, 0, 0, 0, 2},
      {1, 3, 5, 1, 4, true, true, 127, -32768, 127, 2},
      {1, 7, 6, 2, 3, false, false, -128, 127, -128, 2},
      {1, 13, 9, 1, 7, true, false, 5, 32767, -3, 2},
      // Filter counts around the blocks of 4 and 2 (units x rank).
      {1, 16, 1, 3, 5, false, true, 0, -128, 127, 1},
      {1, 16, 7, 2, 5, true, true, 0, 300, 0, 1},
      {2, 33, 11, 1, 9, false, true, -7, 3, 4, 2},
      // Memory of one, and long memories (many words, odd tails).
      {1, 20, 4, 1, 1, true, true, -128, 0, 0, 3},
      {1, 20, 3, 1, 33, true, true, 0, -1000, 0, 2},
      {1, 20, 3, 1, 31, false, true, -128, -128, 0, 2},
      // Batches; rank above 1 with no bias.
      {3, 25, 5, 2, 6, true, false, -128, 0, -128, 2},
      {3, 25, 5, 3, 6, false, false, 127, 127, 127, 2},
  };
  for (const SvdfCase& c : cases) {
    EXPECT_EQ(optimized::self_check::CheckSvdf(c, random, *ws), Outcome::kSame) << Describe(c);
  }
}

TEST(FastSvdfInt8Test, MatchesTheReferenceOnRandomShapes) {
  Random random{31};
  auto ws = NewWorkspace();
  int compared = 0;
  int int16_state = 0;
  for (int trial = 0; trial < 400; ++trial) {
    SvdfCase c{};
    if (!optimized::self_check::RandomSvdfCase(random, &c)) continue;
    ASSERT_EQ(optimized::self_check::CheckSvdf(c, random, *ws), Outcome::kSame) << Describe(c);
    ++compared;
    int16_state += c.int16_state ? 1 : 0;
  }
  EXPECT_GT(compared, 300);
  EXPECT_GT(int16_state, 100);
}

TEST(FastLstmGateInt8Test, MatchesTheReferenceOnNamedCases) {
  Random random{404};
  auto ws = NewWorkspace();
  // rows, input, units, input zero point, bias, int16 input (16x8).
  const LstmGateCase cases[] = {
      // trained_lstm_int8's gates: 28 inputs, 20 units, and its recurrent 20 x 20.
      {1, 28, 20, -128, true, false},
      {1, 20, 20, 0, false, false},
      // Depths not multiples of 4, units around the blocks of 4.
      {1, 1, 1, 127, true, false},
      {1, 3, 2, -128, true, false},
      {1, 5, 3, 0, false, false},
      {1, 9, 5, 17, true, false},
      {1, 64, 7, -5, true, false},
      // Rows (time-major batches).
      {3, 11, 6, -128, true, false},
      {2, 100, 30, 127, false, false},
      // 16x8: depths around the int32 runs of 255 products, zero points at both ends of int16.
      {1, 20, 20, 0, true, true},
      {1, 7, 9, 5, true, true},
      {1, 255, 4, 32767, false, true},
      {1, 256, 3, -32768, true, true},
      {2, 256, 5, -300, true, true},
  };
  for (const LstmGateCase& c : cases) {
    EXPECT_EQ(optimized::self_check::CheckLstmGate(c, random, *ws), Outcome::kSame) << Describe(c);
  }
}

TEST(FastLstmGateInt8Test, MatchesTheReferenceOnRandomShapes) {
  Random random{43};
  auto ws = NewWorkspace();
  int compared = 0;
  int int16_input = 0;
  for (int trial = 0; trial < 400; ++trial) {
    LstmGateCase c{};
    if (!optimized::self_check::RandomLstmGateCase(random, &c)) continue;
    ASSERT_EQ(optimized::self_check::CheckLstmGate(c, random, *ws), Outcome::kSame) << Describe(c);
    ++compared;
    int16_input += c.int16_input ? 1 : 0;
  }
  EXPECT_GT(compared, 350);
  EXPECT_GT(int16_input, 60);
}

// An int16 state's time sums wrap as the reference's. After the shift, 39
// of each filter's 40 products are -32768 x 65535 (about -2^31) and the
// newest is -32768 x 32767 (the feature sum saturates to 32767, plus the
// zero point -32768: -1). The bias cancels the wrapped sum down to 1000,
// so the output is 1000 / 2 / 8, rounded: 63.
TEST(FastSvdfInt8Test, WrapsLongInt16TimeSumsAsTheReference) {
  reference::SvdfShape shape;
  shape.batches = 1;
  shape.input_size = 5;
  shape.filters = 2;
  shape.units = 1;
  shape.rank = 2;
  shape.memory_size = 40;
  reference::SvdfIntegerParams params;
  params.input_zero_point = -128;
  params.state_zero_point = -32768;
  params.feature_multiplier = 1 << 30;  // 0.5
  params.feature_shift = 0;
  params.output_multiplier = 1 << 30;  // 0.5 / 8
  params.output_shift = -3;
  const int64_t products = 2 * (39 * int64_t{-32768} * 65535 + int64_t{-32768} * 32767);
  const auto wrapped = static_cast<uint32_t>(products);  // modulo 2^32
  const std::vector<int32_t> bias = {static_cast<int32_t>(1000U - wrapped)};
  const std::vector<int8_t> input(5, 127);
  const std::vector<int8_t> weights_feature(10, 127);
  const std::vector<int16_t> weights_time(80, -32768);
  std::vector<int16_t> expected_state(80, 32767);
  std::vector<int16_t> actual_state = expected_state;
  std::vector<int32_t> scratch(2), scratch_output(1);
  int8_t expected = 0;
  int8_t actual = 0;
  reference::SvdfInteger<int16_t>(params, shape, input.data(), weights_feature.data(), weights_time.data(),
                                  bias.data(), expected_state.data(), scratch.data(), scratch_output.data(), &expected);
  optimized::SvdfInteger<int16_t>(params, shape, input.data(), weights_feature.data(), weights_time.data(),
                                  bias.data(), actual_state.data(), scratch.data(), scratch_output.data(), &actual);
  EXPECT_EQ(expected, 63);
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(actual_state, expected_state);
}

// The 16x8 gate's int64 sum: 600 products of -128 x -65535 (8,388,480 each)
// sum to 5,033,088,000, beyond int32; the runs of 255 must not wrap. The
// scale 2^-18 (16384 / 2^(15 + 17) after the 64-bit rescale's reduction)
// gives 19,199.8, rounded: 19,200.
TEST(FastLstmGateInt8Test, SumsBeyondInt32In16x8AsTheReference) {
  const std::vector<int16_t> input(600, -32768);
  const std::vector<int8_t> weights(600, -128);
  reference::LstmMultiplier scale;
  scale.multiplier = 1 << 30;
  scale.shift = -17;
  const int32_t offset = -32767;  // zero point 32767
  int16_t expected = 0;
  int16_t actual = 0;
  reference::FullyConnectedInt16ToInt16(scale, offset, 1, 600, 1, input.data(), weights.data(), nullptr, &expected);
  optimized::FullyConnectedInt16ToInt16(scale, offset, 1, 600, 1, input.data(), weights.data(), nullptr, &actual);
  EXPECT_EQ(expected, 19200);
  EXPECT_EQ(actual, expected);
}

}  // namespace
}  // namespace microarena
