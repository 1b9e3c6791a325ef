// Differential tests of SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX, ARG_MIN and
// ADD_N against TFLM itself (../shared/tools/tflm_oracle): one-op models in
// every type TFLM's kernels accept, over several ranks, axis sets (negative,
// repeated, empty) and keep_dims, run by both; output bytes must be equal.
// Expected values come from the oracle only; refused types and parameters
// are refused by both where TFLM refuses them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "tests/support/op_oracle_util.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

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

using testing::kSmallArena;
using testing::ReduceCase;
using testing::ReducedShape;

using testing::Name;

tflite::BuiltinOptionsUnion Reducer(bool keep_dims) {
  tflite::ReducerOptionsT options;
  options.keep_dims = keep_dims;
  return MakeBuiltinOptions(options);
}

Bytes ReduceModel(BuiltinOp op, const ReduceCase& c, bool keep_dims, const Operand& in, const Operand& out) {
  Operand input = in;
  input.shape = c.shape;
  Operand output = out;
  output.shape = ReducedShape(c, keep_dims);
  return OpModel(op, Reducer(keep_dims),
                 {input, {TensorType::kInt32, {static_cast<int32_t>(c.axes.size())}, 0, 0, BytesOf(c.axes)}}, {output});
}

// Axes of at most 2 distinct values (SUM's limit) over ranks 1 to 5.
const ReduceCase kSumCases[] = {
    {{10}, {0}},         {{4, 6}, {1}},   {{4, 6}, {-2}},         {{2, 3, 4}, {0, 2}},
    {{2, 3, 4}, {1, 1}}, {{2, 3, 4}, {}}, {{2, 3, 4, 5}, {1, 2}}, {{2, 2, 3, 2, 3}, {4, 0}},
    {{300}, {0}},
};

// The inputs keep infinities (inf + -inf gives the one default NaN) but no
// NaN of their own: when two different NaNs meet in a sum, IEEE 754 leaves
// open which one comes out, and compilers order the operands of a
// commutative add as they please (g++ -O2 and -O3 differ), so the sign of
// such a NaN says nothing about the kernel.
Bytes WithoutNans(Bytes bytes) {
  for (size_t i = 0; i + sizeof(float) <= bytes.size(); i += sizeof(float)) {
    float value;
    std::memcpy(&value, bytes.data() + i, sizeof(value));
    if (std::isnan(value)) {
      value = 5.5f;
      std::memcpy(bytes.data() + i, &value, sizeof(value));
    }
  }
  return bytes;
}

TEST(ReduceOracleTest, SumFloat) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (const ReduceCase& c : kSumCases) {
    for (bool keep : {false, true}) {
      ExpectSameAsOracle("sum_float_" + std::to_string(n++),
                         ReduceModel(BuiltinOp::kSum, c, keep, {TensorType::kFloat32, {}}, {TensorType::kFloat32, {}}),
                         {WithoutNans(Values(TensorType::kFloat32, Count(c.shape), 3))}, kSmallArena);
    }
  }
}

TEST(ReduceOracleTest, SumQuantizedRescales) {
  MICROARENA_REQUIRE_ORACLE();
  struct Scales {
    float in;
    int64_t in_zp;
    float out;
    int64_t out_zp;
  };
  // Same parameters; a coarser output (sums fit); a finer one (saturates).
  const Scales int8_scales[] = {{0.1f, 0, 0.1f, 0}, {0.05f, -7, 0.8f, 3}, {0.3f, 100, 0.02f, -128}};
  const Scales int16_scales[] = {{0.001f, 0, 0.001f, 0}, {0.002f, 5, 0.05f, -3}, {0.01f, -300, 0.0001f, 0}};
  int n = 0;
  for (TensorType type : {TensorType::kInt8, TensorType::kInt16}) {
    for (const Scales& s : type == TensorType::kInt8 ? int8_scales : int16_scales) {
      for (const ReduceCase& c : kSumCases) {
        const bool keep = n % 2 == 0;
        ExpectSameAsOracle(
            "sum_" + Name(type) + "_" + std::to_string(n++),
            ReduceModel(BuiltinOp::kSum, c, keep, {type, {}, s.in, s.in_zp}, {type, {}, s.out, s.out_zp}),
            {Values(type, Count(c.shape), 4)}, kSmallArena);
      }
    }
  }
}

// REDUCE_MAX/MIN take any number of axes and any rank.
const ReduceCase kMinMaxCases[] = {
    {{10}, {0}},
    {{4, 6}, {1}},
    {{2, 3, 4}, {0, 2}},
    {{2, 3, 4}, {2, 0, 1}},
    {{2, 3, 4}, {}},
    {{3, 2, 2, 3}, {-1, 1, 0}},
    {{2, 1, 2, 3, 1, 2}, {0, 3, 5}},
    {{2, 3, 4}, {1, -2}},
};

TEST(ReduceOracleTest, ReduceMaxMin) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kReduceMax, BuiltinOp::kReduceMin}) {
    for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
      const float scale = type == TensorType::kInt8 ? 0.25f : 0.0f;
      for (const ReduceCase& c : kMinMaxCases) {
        for (bool keep : {false, true}) {
          ExpectSameAsOracle(
              std::string(op == BuiltinOp::kReduceMax ? "rmax_" : "rmin_") + Name(type) + "_" + std::to_string(n++),
              ReduceModel(op, c, keep, {type, {}, scale, -3}, {type, {}, scale, -3}), {Values(type, Count(c.shape), 5)},
              kSmallArena);
        }
      }
    }
  }
  // Rows of NaN and infinities: NaN never wins over the start value.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const ReduceCase row = {{3, 4}, {1}};
  for (BuiltinOp op : {BuiltinOp::kReduceMax, BuiltinOp::kReduceMin}) {
    ExpectSameAsOracle(
        "rminmax_specials", ReduceModel(op, row, false, {TensorType::kFloat32, {}}, {TensorType::kFloat32, {}}),
        {BytesOf(std::vector<float>{nan, nan, nan, nan, nan, 1.0f, nan, -2.0f, inf, -inf, -0.0f, 0.0f})}, kSmallArena);
  }
}

// REDUCE_ALL: BOOL only, any axes (repeated, negative, none) up to rank 6.
TEST(ReduceOracleTest, ReduceAll) {
  MICROARENA_REQUIRE_ORACLE();
  const ReduceCase cases[] = {
      {{10}, {0}},           {{4, 6}, {1}},          {{4, 6}, {-2}},          {{2, 3, 4}, {0, 2}},
      {{2, 3, 4}, {1, 1}},   {{2, 3, 4}, {}},        {{2, 3, 4, 5}, {1, 2, 3}}, {{2, 2, 3, 2, 3}, {4, 0, 2}},
      {{2, 1, 3, 2, 2, 3}, {0, 1, 2, 3, 4, 5}},
  };
  int n = 0;
  for (const ReduceCase& c : cases) {
    for (bool keep : {false, true}) {
      // Random values, and one false in seven (so some outputs stay true).
      Bytes sparse_false(Count(c.shape));
      for (size_t i = 0; i < sparse_false.size(); ++i) sparse_false[i] = i % 7 == 3 ? 0 : 1;
      for (const Bytes& input : {Values(TensorType::kBool, Count(c.shape), 4), sparse_false}) {
        ExpectSameAsOracle("rall_" + std::to_string(n++),
                           ReduceModel(BuiltinOp::kReduceAll, c, keep, {TensorType::kBool, {}},
                                       {TensorType::kBool, {}}),
                           {input}, kSmallArena);
      }
    }
  }
  const ReduceCase c = {{2, 3}, {1}};
  for (TensorType type : {TensorType::kInt8, TensorType::kFloat32}) {
    ExpectBothRefuse("rall_" + Name(type),
                     ReduceModel(BuiltinOp::kReduceAll, c, false, {type, {}}, {type, {}}), {Values(type, 6, 1)},
                     "not supported (BOOL");
  }
}

TEST(ReduceOracleTest, ReduceRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const ReduceCase c = {{2, 3}, {1}};
  ExpectBothRefuse("sum_int32",
                   ReduceModel(BuiltinOp::kSum, c, false, {TensorType::kInt32, {}}, {TensorType::kInt32, {}}),
                   {Values(TensorType::kInt32, 6, 1)}, "(SUM): input INT32 -> output INT32 not supported");
  ExpectBothRefuse("rmax_int16",
                   ReduceModel(BuiltinOp::kReduceMax, c, false, {TensorType::kInt16, {}, 0.1f, 0},
                               {TensorType::kInt16, {}, 0.1f, 0}),
                   {Values(TensorType::kInt16, 6, 1)}, "(REDUCE_MAX): input INT16 -> output INT16 not supported");
  ExpectBothRefuse("rmin_int16",
                   ReduceModel(BuiltinOp::kReduceMin, c, false, {TensorType::kInt16, {}, 0.1f, 0},
                               {TensorType::kInt16, {}, 0.1f, 0}),
                   {Values(TensorType::kInt16, 6, 1)}, "(REDUCE_MIN): input INT16 -> output INT16 not supported");
  ExpectBothRefuse(
      "rmin_int8_rescale",
      ReduceModel(BuiltinOp::kReduceMin, c, false, {TensorType::kInt8, {}, 0.1f, 0}, {TensorType::kInt8, {}, 0.2f, 0}),
      {Values(TensorType::kInt8, 6, 1)}, "must be equal (as in TFLM)");
  // Three distinct axes overflow TFLM's SUM index arrays: refused here.
  ExpectWeRefuse(ReduceModel(BuiltinOp::kSum, {{2, 2, 2}, {0, 1, 2}}, false, {TensorType::kFloat32, {}},
                             {TensorType::kFloat32, {}}),
                 {Values(TensorType::kFloat32, 8, 1)}, "names 3 distinct axes; at most 2");
}

Bytes ArgModel(BuiltinOp op, TensorType type, const std::vector<int32_t>& shape, int32_t axis, bool constant_axis,
               TensorType axis_type = TensorType::kInt32, TensorType out_type = TensorType::kInt32) {
  std::vector<int32_t> out = shape;
  const auto resolved = static_cast<size_t>(axis < 0 ? axis + static_cast<int32_t>(shape.size()) : axis);
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(resolved));
  const Bytes axis_bytes =
      axis_type == TensorType::kInt64 ? BytesOf(std::vector<int64_t>{axis}) : BytesOf(std::vector<int32_t>{axis});
  const float scale = type == TensorType::kInt8 ? 0.5f : 0.0f;
  return OpModel(op, {}, {{type, shape, scale, 0}, {axis_type, {1}, 0, 0, constant_axis ? axis_bytes : Bytes{}}},
                 {{out_type, out}});
}

TEST(ReduceOracleTest, ArgMaxArgMin) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> shape;
    int32_t axis;
  };
  const Case cases[] = {{{9}, 0}, {{4, 6}, 1}, {{4, 6}, 0}, {{2, 3, 4}, -1}, {{2, 3, 4}, 1}, {{2, 2, 3, 5}, 2}};
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kArgMax, BuiltinOp::kArgMin}) {
    for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
      for (const Case& c : cases) {
        const std::string name = std::string(op == BuiltinOp::kArgMax ? "argmax_" : "argmin_") + Name(type) + "_";
        // INT8 values repeat often: ties keep the first index.
        ExpectSameAsOracle(name + std::to_string(n++), ArgModel(op, type, c.shape, c.axis, true),
                           {Values(type, Count(c.shape), 6)}, kSmallArena);
        // The axis as a graph input.
        ExpectSameAsOracle(name + std::to_string(n++), ArgModel(op, type, c.shape, c.axis, false),
                           {Values(type, Count(c.shape), 8), BytesOf(std::vector<int32_t>{c.axis})}, kSmallArena);
      }
    }
  }
  // NaN, ties and signed zeros along rows.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> special = {nan,   1.0f, 3.0f, 3.0f,  nan,  nan, nan,  nan,
                                      -0.0f, 0.0f, nan,  -1.0f, 2.0f, nan, 2.0f, -5.0f};
  for (BuiltinOp op : {BuiltinOp::kArgMax, BuiltinOp::kArgMin}) {
    ExpectSameAsOracle("arg_specials", ArgModel(op, TensorType::kFloat32, {4, 4}, 1, true), {BytesOf(special)},
                       kSmallArena);
  }
}

TEST(ReduceOracleTest, ArgRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  ExpectBothRefuse(
      "argmax_int64_out",
      ArgModel(BuiltinOp::kArgMax, TensorType::kFloat32, {2, 3}, 1, true, TensorType::kInt32, TensorType::kInt64),
      {Values(TensorType::kFloat32, 6, 1)}, "(ARG_MAX): output INT64 not supported (INT32 only)");
  ExpectBothRefuse("argmax_int64_axis",
                   ArgModel(BuiltinOp::kArgMax, TensorType::kFloat32, {2, 3}, 1, true, TensorType::kInt64),
                   {Values(TensorType::kFloat32, 6, 1)}, "(ARG_MAX): axis tensor 1 must hold one INT32 value");
  ExpectBothRefuse("argmin_int32_in", ArgModel(BuiltinOp::kArgMin, TensorType::kInt32, {2, 3}, 1, true),
                   {Values(TensorType::kInt32, 6, 1)}, "(ARG_MIN): input INT32 not supported");
  ExpectBothRefuse("argmax_uint8_in", ArgModel(BuiltinOp::kArgMax, TensorType::kUInt8, {2, 3}, 1, true),
                   {Values(TensorType::kUInt8, 6, 1)}, "(ARG_MAX): input UINT8 not supported");
}

TEST(ReduceOracleTest, AddN) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (size_t inputs : {2, 3, 5}) {
    const std::vector<int32_t> shape = {3, 7};
    std::vector<Operand> in(inputs, Operand{TensorType::kFloat32, shape});
    std::vector<Bytes> data;
    for (size_t i = 0; i < inputs; ++i) data.push_back(Values(TensorType::kFloat32, 21, static_cast<uint32_t>(i + 1)));
    ExpectSameAsOracle("add_n_float_" + std::to_string(n++),
                       OpModel(BuiltinOp::kAddN, {}, in, {{TensorType::kFloat32, shape}}), data, kSmallArena);
    struct Scales {
      float in;
      int64_t zp;
      float out;
      int64_t out_zp;
    };
    for (const Scales& s : {Scales{0.1f, 0, 0.1f, 0}, Scales{0.05f, -20, 0.2f, 10}, Scales{0.02f, 127, 0.01f, -128},
                            Scales{0.5f, -128, 1.5f, 0}}) {
      std::vector<Operand> qin(inputs, Operand{TensorType::kInt8, {64}, s.in, s.zp});
      std::vector<Bytes> qdata;
      for (size_t i = 0; i < inputs; ++i) qdata.push_back(Values(TensorType::kInt8, 64, static_cast<uint32_t>(i + 9)));
      ExpectSameAsOracle("add_n_int8_" + std::to_string(n++),
                         OpModel(BuiltinOp::kAddN, {}, qin, {{TensorType::kInt8, {64}, s.out, s.out_zp}}), qdata,
                         kSmallArena);
    }
  }
}

TEST(ReduceOracleTest, AddNRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  ExpectBothRefuse(
      "add_n_int16",
      OpModel(BuiltinOp::kAddN, {}, {{TensorType::kInt16, {4}, 0.1f, 0}, {TensorType::kInt16, {4}, 0.1f, 0}},
              {{TensorType::kInt16, {4}, 0.1f, 0}}),
      {Values(TensorType::kInt16, 4, 1), Values(TensorType::kInt16, 4, 2)},
      "(ADD_N): input INT16 -> output INT16 not supported");
  ExpectBothRefuse("add_n_int8_mixed_scales",
                   OpModel(BuiltinOp::kAddN, {}, {{TensorType::kInt8, {4}, 0.1f, 0}, {TensorType::kInt8, {4}, 0.2f, 0}},
                           {{TensorType::kInt8, {4}, 0.1f, 0}}),
                   {Values(TensorType::kInt8, 4, 1), Values(TensorType::kInt8, 4, 2)},
                   "has another scale or zero point than input 0");
  ExpectBothRefuse("add_n_shapes",
                   OpModel(BuiltinOp::kAddN, {}, {{TensorType::kFloat32, {4}}, {TensorType::kFloat32, {2, 2}}},
                           {{TensorType::kFloat32, {4}}}),
                   {Values(TensorType::kFloat32, 4, 1), Values(TensorType::kFloat32, 4, 2)},
                   "differs from input 0 in type or shape");
}

}  // namespace
}  // namespace microarena
