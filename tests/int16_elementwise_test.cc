// Differential tests of the int16 ("16x8") paths of ADD, SUB and LEAKY_RELU
// against TFLM itself (../shared/tools/tflm_oracle): one-op models built
// here, run in microarena and in the oracle, must give the same bytes.
// Every expected value comes from the oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::ExpectSameAsOracle;

using testing::kSmallArena;
using testing::OneOp;
using testing::Outcome;
using testing::RunOracleOn;
using testing::RunOursOn;

constexpr size_t kCount = 512;

// n int16 values: the type's extremes and small values first, then a
// deterministic spread over the whole range (`seed` varies the order).
Bytes Int16Values(size_t n, uint32_t seed) {
  std::vector<int16_t> values = {-32768, 32767, 0, 1, -1, 2, -2, 16384, -16384, 32766, -32767};
  uint32_t state = seed * 2654435761u + 1;
  while (values.size() < n) {
    state = state * 1664525u + 1013904223u;
    const auto v = static_cast<int16_t>(state >> 16);
    // Every third value small, where rounding ties are most frequent.
    values.push_back(values.size() % 3 == 0 ? static_cast<int16_t>(v % 64) : v);
  }
  values.resize(n);
  return BytesOf(values);
}

size_t ShapeElementCount(const std::vector<int32_t>& shape) {
  size_t n = 1;
  for (int32_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

struct BinarySpec {
  std::vector<int32_t> shape1;
  std::vector<int32_t> shape2;
  std::vector<int32_t> out_shape;
  float scale1;
  float scale2;
  float out_scale;
  int64_t zp1 = 0;
  int64_t zp2 = 0;
  int64_t out_zp = 0;
};

Bytes BinaryModel(BuiltinOp op, tflite::ActivationFunctionType activation, const BinarySpec& s,
                  bool pot_scale_int16 = false) {
  OneOp m;
  m.Input(TensorType::kInt16, s.shape1, s.scale1, s.zp1);
  m.Input(TensorType::kInt16, s.shape2, s.scale2, s.zp2);
  tflite::BuiltinOptionsUnion options;
  if (op == BuiltinOp::kAdd) {
    tflite::AddOptionsT add;
    add.fused_activation_function = activation;
    add.pot_scale_int16 = pot_scale_int16;
    options = MakeBuiltinOptions(add);
  } else {
    tflite::SubOptionsT sub;
    sub.fused_activation_function = activation;
    sub.pot_scale_int16 = pot_scale_int16;
    options = MakeBuiltinOptions(sub);
  }
  return m.Finish(op, std::move(options), TensorType::kInt16, s.out_shape, s.out_scale, s.out_zp);
}

void ExpectBinarySameAsOracle(const std::string& name, BuiltinOp op, tflite::ActivationFunctionType activation,
                              const BinarySpec& s, bool pot_scale_int16 = false) {
  ExpectSameAsOracle(name, BinaryModel(op, activation, s, pot_scale_int16),
                     {Int16Values(ShapeElementCount(s.shape1), 1), Int16Values(ShapeElementCount(s.shape2), 2)}, kSmallArena);
}

const BuiltinOp kAddSub[] = {BuiltinOp::kAdd, BuiltinOp::kSub};
const char* OpName(BuiltinOp op) { return op == BuiltinOp::kAdd ? "add" : "sub"; }

TEST(Int16ElementwiseTest, AddSubScalesAndActivations) {
  MICROARENA_REQUIRE_ORACLE();
  struct Scales {
    float s1, s2, out;
  };
  // Equal scales; scales a little apart (float and double multipliers may
  // round differently); far apart; an output scale much finer than the
  // inputs' (output multiplier near its upper limit) and much coarser.
  const Scales scales[] = {
      {1.0f / 1024, 1.0f / 1024, 1.0f / 512},   {0.000585250091f, 0.000806929602f, 0.00102444214f},
      {0.3f, 0.0007f, 0.25f},                   {1e-5f, 1.0f, 6.2e-5f},
      {0.01f, 0.013f, 0.0013f},                 {0.5f, 0.5f, 40.0f},
  };
  const tflite::ActivationFunctionType activations[] = {tflite::ActivationFunctionType::NONE,
                                                        tflite::ActivationFunctionType::RELU,
                                                        tflite::ActivationFunctionType::RELU6,
                                                        tflite::ActivationFunctionType::RELU_N1_TO_1};
  int cases = 0;
  for (BuiltinOp op : kAddSub) {
    for (const Scales& sc : scales) {
      for (tflite::ActivationFunctionType activation : activations) {
        BinarySpec s{{1, 2, 256}, {1, 2, 256}, {1, 2, 256}, sc.s1, sc.s2, sc.out};
        ExpectBinarySameAsOracle(std::string("i16_") + OpName(op) + "_" + std::to_string(cases++), op, activation,
                                 s);
      }
    }
  }
}

TEST(Int16ElementwiseTest, AddSubBroadcast) {
  MICROARENA_REQUIRE_ORACLE();
  struct Shapes {
    std::vector<int32_t> a, b, out;
  };
  const Shapes shapes[] = {
      {{2, 3, 64}, {64}, {2, 3, 64}},
      {{64}, {2, 3, 64}, {2, 3, 64}},
      {{2, 1, 32}, {1, 4, 1}, {2, 4, 32}},
      {{1}, {4, 128}, {4, 128}},
      {{1, 2, 1, 3, 1, 8}, {2, 1, 4, 1, 5, 1}, {2, 2, 4, 3, 5, 8}},
  };
  int cases = 0;
  for (BuiltinOp op : kAddSub) {
    for (const Shapes& sh : shapes) {
      BinarySpec s{sh.a, sh.b, sh.out, 0.002f, 0.0007f, 0.003f};
      ExpectBinarySameAsOracle(std::string("i16_bcast_") + OpName(op) + "_" + std::to_string(cases++), op,
                               tflite::ActivationFunctionType::RELU6, s);
    }
  }
}

// TFLM's int16 ADD ignores pot_scale_int16 and its SUB has no such path:
// power-of-two scales with the flag set still take the general rescaling.
TEST(Int16ElementwiseTest, AddSubPowerOfTwoScalesUseGeneralPath) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (BuiltinOp op : kAddSub) {
    for (bool pot : {false, true}) {
      BinarySpec s{{4, 128}, {4, 128}, {4, 128}, 1.0f / 32768, 1.0f / 8192, 1.0f / 8192};
      ExpectBinarySameAsOracle(std::string("i16_pot_") + OpName(op) + "_" + std::to_string(cases++), op,
                               tflite::ActivationFunctionType::NONE, s, pot);
    }
  }
}

// TFLM's int16 ADD and SUB do not require zero points of 0 (TFLite's
// does): they run the general path with the offsets, and so does microarena.
// |q - zp| <= 65535 keeps (q - zp) << 15 within int32.
TEST(Int16ElementwiseTest, AddSubNonZeroZeroPoints) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (BuiltinOp op : kAddSub) {
    for (int64_t zp : {int64_t{-32768}, int64_t{-5}, int64_t{7}, int64_t{32767}}) {
      BinarySpec s{{2, 256}, {2, 256}, {2, 256}, 0.001f, 0.0004f, 0.0015f, zp, -zp - 1, zp / 2};
      ExpectBinarySameAsOracle(std::string("i16_zp_") + OpName(op) + "_" + std::to_string(cases++), op,
                               tflite::ActivationFunctionType::RELU, s);
    }
  }
}

// An output scale below 2 * max input scale / 2^15 needs an output
// multiplier >= 1, which TFLM's Prepare cannot represent (it aborts);
// microarena refuses it with a message instead.
TEST(Int16ElementwiseTest, AddSubOutputMultiplierAboveOneIsRefused) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (BuiltinOp op : kAddSub) {
    BinarySpec s{{4}, {4}, {4}, 1.0f, 1.0f, 1.0f / 32768};
    const Bytes model = BinaryModel(op, tflite::ActivationFunctionType::NONE, s);
    const std::vector<Bytes> inputs = {Int16Values(4, 1), Int16Values(4, 2)};
    const std::string name = std::string("i16_big_multiplier_") + OpName(op) + "_" + std::to_string(cases++);
    EXPECT_FALSE(RunOracleOn(name, model, inputs, size_t{1} << 20).ok) << name;
    const Outcome ours = RunOursOn(model, inputs);
    ASSERT_FALSE(ours.ok) << name;
    EXPECT_NE(ours.error.find("output multiplier"), std::string::npos) << ours.error;
  }
}

// Mixed int16/int8 operands are not a TFLM kernel variant; refused by type.
TEST(Int16ElementwiseTest, AddMixedInt16Int8IsRefused) {
  OneOp m;
  m.Input(TensorType::kInt16, {4}, 0.01f, 0);
  m.Input(TensorType::kInt16, {4}, 0.01f, 0);
  const Bytes model =
      m.Finish(BuiltinOp::kAdd, MakeBuiltinOptions(tflite::AddOptionsT{}), TensorType::kInt8, {4}, 0.02f, 0);
  const Outcome ours = RunOursOn(model, {Int16Values(4, 1), Int16Values(4, 2)});
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find("INT16, INT16 -> INT8 not supported"), std::string::npos) << ours.error;
}

Bytes LeakyReluModel(float alpha, float in_scale, int64_t in_zp, float out_scale, int64_t out_zp) {
  OneOp m;
  m.Input(TensorType::kInt16, {2, 256}, in_scale, in_zp);
  tflite::LeakyReluOptionsT options;
  options.alpha = alpha;
  return m.Finish(BuiltinOp::kLeakyRelu, MakeBuiltinOptions(options), TensorType::kInt16, {2, 256}, out_scale,
                  out_zp);
}

TEST(Int16ElementwiseTest, LeakyReluAlphas) {
  MICROARENA_REQUIRE_ORACLE();
  struct Scales {
    float in, out;
  };
  const Scales scales[] = {{0.00174882344f, 0.00174882344f}, {0.001f, 0.003f}, {0.004f, 0.0005f}};
  int cases = 0;
  for (const Scales& sc : scales) {
    for (float alpha : {0.0f, 0.01f, 0.2f, 0.3f, 0.999f, 1.0f, 1.5f, 3.0f, 100.0f, -0.5f, -2.0f}) {
      ExpectSameAsOracle("i16_leaky_" + std::to_string(cases++), LeakyReluModel(alpha, sc.in, 0, sc.out, 0),
                         {Int16Values(512, 3)}, kSmallArena);
    }
  }
}

// As for ADD and SUB, TFLM's int16 LEAKY_RELU accepts any zero points.
TEST(Int16ElementwiseTest, LeakyReluNonZeroZeroPoints) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (int64_t zp : {int64_t{-32768}, int64_t{-3}, int64_t{100}, int64_t{32767}}) {
    for (float alpha : {0.2f, 2.5f, -0.7f}) {
      ExpectSameAsOracle("i16_leaky_zp_" + std::to_string(cases++), LeakyReluModel(alpha, 0.001f, zp, 0.002f, -zp / 2),
                         {Int16Values(512, 4)}, kSmallArena);
    }
  }
}

}  // namespace
}  // namespace microarena
