// Differential tests of ELU, PRELU, LOG_SOFTMAX, L2_NORMALIZATION,
// L2_POOL_2D, CUMSUM and EMBEDDING_LOOKUP against TFLM itself
// (../shared/tools/tflm_oracle): one-op models over shapes, options,
// quantization parameters (extreme scales and zero points too) and every
// type TFLM's kernels accept, run by both; every output byte must be equal.
// Expected values come from the oracle only; models TFLM refuses are
// refused by both.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "tests/op_oracle_util.h"
#include "tests/oracle_support.h"
#include "tests/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::Count;
using testing::ExpectBothRefuse;
using testing::ExpectSameAsOracle;
using testing::ExpectWeRefuse;
using testing::Operand;
using testing::OpModel;
using testing::Values;

constexpr size_t kSmallArena = size_t{1} << 20;

const tflite::BuiltinOptionsUnion kNoOptions{};

// Every int8 value, repeated to fill `n` elements.
Bytes EveryInt8(size_t n) {
  Bytes bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i + 128);
  return bytes;
}

struct Quant {
  float in_scale;
  int64_t in_zp;
  float out_scale;
  int64_t out_zp;
};

// Ordinary, asymmetric, and extreme parameters: tiny and huge scales (the
// rescaled value leaves int32), zero points at both ends of the range.
const Quant kInt8Quants[] = {
    {0.1f, 0, 0.1f, 0},     {0.05f, -128, 0.02f, 127}, {0.02f, 127, 0.05f, -128}, {0.37f, 12, 0.0123f, -3},
    {1e-6f, 5, 1e3f, 0},    {100.0f, -7, 1e-6f, 3},    {1e-3f, 50, 1.0f, -100},   {3.0f, -128, 0.5f, 127},
    {1e-30f, 0, 1e-30f, 0}, {1e20f, 1, 1e-20f, -1},
};

// ---- ELU -----------------------------------------------------------------

TEST(ActivationNormOracleTest, EluFloat) {
  MICROARENA_REQUIRE_ORACLE();
  for (const std::vector<int32_t>& shape : std::vector<std::vector<int32_t>>{{300}, {2, 3, 4, 5}, {1}}) {
    Operand f{TensorType::kFloat32, shape};
    Bytes values = Values(TensorType::kFloat32, Count(shape), 11);
    ExpectSameAsOracle("elu_float_" + std::to_string(shape.size()), OpModel(BuiltinOp::kElu, kNoOptions, {f}, {f}),
                       {values}, kSmallArena);
  }
  // Small negatives, where expm1 and exp - 1 differ.
  std::vector<float> small;
  for (int i = 1; i <= 200; ++i) small.push_back(-1e-4f * static_cast<float>(i * i));
  Operand f{TensorType::kFloat32, {200}};
  ExpectSameAsOracle("elu_float_small", OpModel(BuiltinOp::kElu, kNoOptions, {f}, {f}), {BytesOf(small)}, kSmallArena);
}

TEST(ActivationNormOracleTest, EluInt8Table) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (const Quant& q : kInt8Quants) {
    Operand in{TensorType::kInt8, {2, 128}, q.in_scale, q.in_zp};
    Operand out{TensorType::kInt8, {2, 128}, q.out_scale, q.out_zp};
    ExpectSameAsOracle("elu_int8_" + std::to_string(n++), OpModel(BuiltinOp::kElu, kNoOptions, {in}, {out}),
                       {EveryInt8(256)}, kSmallArena);
  }
}

TEST(ActivationNormOracleTest, EluRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  // INT16 (TFLM's eval refuses it) and a type change.
  Operand i16{TensorType::kInt16, {8}, 0.01f, 0};
  ExpectBothRefuse("elu_int16", OpModel(BuiltinOp::kElu, kNoOptions, {i16}, {i16}), {Values(TensorType::kInt16, 8, 1)},
                   "INT16", kSmallArena);
  Operand i8{TensorType::kInt8, {8}, 0.1f, 0};
  Operand f{TensorType::kFloat32, {8}};
  ExpectBothRefuse("elu_int8_to_float", OpModel(BuiltinOp::kElu, kNoOptions, {i8}, {f}),
                   {Values(TensorType::kInt8, 8, 1)}, "FLOAT32", kSmallArena);
}

}  // namespace
}  // namespace microarena
