// Differential tests of PACK, UNPACK, SPLIT, SPLIT_V, SLICE, GATHER,
// GATHER_ND and REVERSE_V2 against TFLM itself (../shared/tools/
// tflm_oracle): one-op models in every type TFLM's kernels accept, several
// ranks and axes (negative ones too), run by both; every output's bytes must
// be equal. Expected values come from the oracle only; each op's refused
// types and bad indices are refused by both where TFLM refuses them.
#include <gtest/gtest.h>

#include <cstdint>
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

using testing::Name;

using testing::Int32s;

// The shape with `axis` (already resolved) removed, or with `extent` inserted there.
std::vector<int32_t> Without(std::vector<int32_t> shape, size_t axis) {
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
  return shape;
}
std::vector<int32_t> With(std::vector<int32_t> shape, size_t axis, int32_t extent) {
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), extent);
  return shape;
}

const TensorType kPackTypes[] = {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16, TensorType::kInt32,
                                 TensorType::kInt64};
const TensorType kSplitTypes[] = {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16, TensorType::kInt32};

TEST(DataMovementOracleTest, PackEveryAxis) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<int32_t> shape = {2, 3, 4};
  int n = 0;
  for (TensorType type : kPackTypes) {
    for (int32_t axis : {0, 1, 2, 3, -1, -4}) {
      const int32_t count = 3;
      const size_t resolved = static_cast<size_t>(axis < 0 ? axis + 4 : axis);
      tflite::PackOptionsT options;
      options.values_count = count;
      options.axis = axis;
      ExpectSameAsOracle("pack_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kPack, MakeBuiltinOptions(options),
                                 {{type, shape}, {type, shape}, {type, shape}}, {{type, With(shape, resolved, count)}}),
                         {Values(type, 24, 1), Values(type, 24, 2), Values(type, 24, 3)}, kSmallArena);
    }
  }
  // Scalars into a vector.
  tflite::PackOptionsT options;
  options.values_count = 2;
  ExpectSameAsOracle("pack_scalars",
                     OpModel(BuiltinOp::kPack, MakeBuiltinOptions(options),
                             {{TensorType::kFloat32, {}}, {TensorType::kFloat32, {}}}, {{TensorType::kFloat32, {2}}}),
                     {Values(TensorType::kFloat32, 1, 1), Values(TensorType::kFloat32, 1, 2)}, kSmallArena);
  // No PackOptions: values_count 0, as TFLM parses it. TFLM runs the model
  // but packs nothing (the output is left as the arena held it); refused here.
  const Bytes no_options = OpModel(BuiltinOp::kPack, {}, {{TensorType::kInt8, {4}}, {TensorType::kInt8, {4}}},
                                   {{TensorType::kInt8, {2, 4}}});
  const std::vector<Bytes> inputs = {Values(TensorType::kInt8, 4, 1), Values(TensorType::kInt8, 4, 2)};
  EXPECT_TRUE(testing::RunOracleOn("pack_no_options", no_options, inputs, kSmallArena).ok);
  ExpectWeRefuse(no_options, inputs, "values_count is 0 but the op has 2 inputs (the op has no PackOptions)");
}

TEST(DataMovementOracleTest, UnpackEveryAxis) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<int32_t> shape = {2, 3, 4};
  int n = 0;
  for (TensorType type : kSplitTypes) {
    for (int32_t axis : {0, 1, 2, -1, -3}) {
      const size_t resolved = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      const int32_t num = shape[resolved];
      tflite::UnpackOptionsT options;
      options.num = num;
      options.axis = axis;
      std::vector<Operand> outputs(static_cast<size_t>(num), Operand{type, Without(shape, resolved)});
      ExpectSameAsOracle("unpack_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kUnpack, MakeBuiltinOptions(options), {{type, shape}}, outputs),
                         {Values(type, 24, 4)}, kSmallArena);
    }
  }
}

TEST(DataMovementOracleTest, SplitAndSplitV) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<int32_t> shape = {4, 6, 2};
  int n = 0;
  for (TensorType type : kSplitTypes) {
    for (int32_t axis : {0, 1, 2, -2}) {
      const size_t resolved = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      const int32_t parts = 2;
      std::vector<int32_t> part_shape = shape;
      part_shape[resolved] /= parts;
      tflite::SplitOptionsT options;
      options.num_splits = parts;
      ExpectSameAsOracle("split_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kSplit, MakeBuiltinOptions(options),
                                 {{TensorType::kInt32, {}, 0, 0, Int32s({axis})}, {type, shape}},
                                 {{type, part_shape}, {type, part_shape}}),
                         {Values(type, 48, 5)}, kSmallArena);
    }
    // SPLIT_V along axis 1: 6 = 1 + 3 + 2 and 6 = 4 + 1 + 1.
    for (const std::vector<int32_t>& sizes : std::vector<std::vector<int32_t>>{{1, 3, 2}, {4, 1, 1}}) {
      std::vector<Operand> outputs;
      for (int32_t s : sizes) outputs.push_back({type, {4, s, 2}});
      // No options: SPLIT_V's num_splits is not in microarena's schema subset,
      // and TFLM reads the part sizes from the outputs anyway.
      ExpectSameAsOracle("split_v_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kSplitV, {},
                                 {{type, shape},
                                  {TensorType::kInt32, {3}, 0, 0, Int32s(sizes)},
                                  {TensorType::kInt32, {}, 0, 0, Int32s({-2})}},
                                 outputs),
                         {Values(type, 48, 6)}, kSmallArena);
    }
  }
}

TEST(DataMovementOracleTest, SliceConstantAndComputedBounds) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> shape;
    std::vector<int32_t> begin;
    std::vector<int32_t> size;
    std::vector<int32_t> out;
  };
  const Case cases[] = {
      {{10}, {3}, {4}, {4}},
      {{4, 5}, {1, 0}, {2, -1}, {2, 5}},
      {{3, 4, 5}, {0, 1, 2}, {3, 2, 3}, {3, 2, 3}},
      {{2, 3, 4, 5}, {1, 1, 1, 1}, {-1, 2, 3, 4}, {1, 2, 3, 4}},
      {{2, 2, 3, 2, 3}, {0, 1, 1, 0, 2}, {2, 1, 2, 2, 1}, {2, 1, 2, 2, 1}},
  };
  const TensorType types[] = {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16, TensorType::kInt32,
                              TensorType::kBool};
  int n = 0;
  for (TensorType type : types) {
    for (const Case& c : cases) {
      const auto rank = static_cast<int32_t>(c.shape.size());
      ExpectSameAsOracle("slice_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kSlice, {},
                                 {{type, c.shape},
                                  {TensorType::kInt32, {rank}, 0, 0, Int32s(c.begin)},
                                  {TensorType::kInt32, {rank}, 0, 0, Int32s(c.size)}},
                                 {{type, c.out}}),
                         {Values(type, Count(c.shape), 7)}, kSmallArena);
      // INT64 bounds given as graph inputs (computed at run time).
      ExpectSameAsOracle(
          "slice_dyn_" + Name(type) + "_" + std::to_string(n++),
          OpModel(BuiltinOp::kSlice, {}, {{type, c.shape}, {TensorType::kInt64, {rank}}, {TensorType::kInt64, {rank}}},
                  {{type, c.out}}),
          {Values(type, Count(c.shape), 8), BytesOf(std::vector<int64_t>(c.begin.begin(), c.begin.end())),
           BytesOf(std::vector<int64_t>(c.size.begin(), c.size.end()))},
          kSmallArena);
    }
  }
  ExpectBothRefuse("slice_int64_input",
                   OpModel(BuiltinOp::kSlice, {},
                           {{TensorType::kInt64, {4}},
                            {TensorType::kInt32, {1}, 0, 0, Int32s({1})},
                            {TensorType::kInt32, {1}, 0, 0, Int32s({2})}},
                           {{TensorType::kInt64, {2}}}),
                   {Values(TensorType::kInt64, 4, 1)}, "(SLICE): input tensor 0 'in0' is INT64");
  // A slice past the end: TFLM reads out of bounds; microarena fails.
  ExpectWeRefuse(OpModel(BuiltinOp::kSlice, {},
                         {{TensorType::kFloat32, {4}}, {TensorType::kInt32, {1}}, {TensorType::kInt32, {1}}},
                         {{TensorType::kFloat32, {3}}}),
                 {Values(TensorType::kFloat32, 4, 1), Int32s({2}), Int32s({3})}, "does not fit the input");
  // An INT64 begin near its maximum with a size matching the output: begin +
  // size wraps in int64, and the begin cut to int32 is -1 (a read before the
  // input). Refused, however the sum would come out.
  for (int64_t begin : {INT64_MAX, INT64_MAX - 2, int64_t{1} << 32, INT64_MIN}) {
    ExpectWeRefuse(OpModel(BuiltinOp::kSlice, {},
                           {{TensorType::kInt8, {4, 4}}, {TensorType::kInt64, {2}}, {TensorType::kInt64, {2}}},
                           {{TensorType::kInt8, {1, 4}}}),
                   {Values(TensorType::kInt8, 16, 1), BytesOf(std::vector<int64_t>{begin, 0}),
                    BytesOf(std::vector<int64_t>{1, 4})},
                   "does not fit the input");
  }
  // The same with size -1 ("to the end"), which subtracted the begin.
  ExpectWeRefuse(OpModel(BuiltinOp::kSlice, {},
                         {{TensorType::kInt8, {4, 4}}, {TensorType::kInt64, {2}}, {TensorType::kInt64, {2}}},
                         {{TensorType::kInt8, {1, 4}}}),
                 {Values(TensorType::kInt8, 16, 1), BytesOf(std::vector<int64_t>{INT64_MIN, 0}),
                  BytesOf(std::vector<int64_t>{-1, 4})},
                 "does not fit the input");
}

// DYNAMIC_UPDATE_SLICE: start indices inside, below 0 and past the end
// (TFLM clamps them), constant INT32 and computed INT64, ranks 1 to 6, and
// an update the operand's size (the output is the update, whatever the
// indices).
TEST(DataMovementOracleTest, DynamicUpdateSliceClampsItsStart) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> operand;
    std::vector<int32_t> update;
    std::vector<int32_t> start;
  };
  const Case cases[] = {
      {{10}, {4}, {3}},
      {{10}, {4}, {9}},
      {{4, 5}, {2, 3}, {-1, 1}},
      {{4, 5}, {4, 5}, {2, 2}},
      {{3, 4, 5}, {1, 2, 3}, {1, 100, 2}},
      {{2, 3, 4, 5}, {1, 2, 1, 4}, {1, 0, 3, -7}},
      {{2, 2, 3, 2, 3, 2}, {1, 2, 2, 1, 2, 2}, {1, 0, 1, 1, 1, 0}},
  };
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16, TensorType::kInt32}) {
    for (const Case& c : cases) {
      const auto rank = static_cast<int32_t>(c.operand.size());
      ExpectSameAsOracle("dus_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kDynamicUpdateSlice, {},
                                 {{type, c.operand}, {type, c.update}, {TensorType::kInt32, {rank}, 0, 0, Int32s(c.start)}},
                                 {{type, c.operand}}),
                         {Values(type, Count(c.operand), 7), Values(type, Count(c.update), 8)}, kSmallArena);
      ExpectSameAsOracle("dus_dyn_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kDynamicUpdateSlice, {},
                                 {{type, c.operand}, {type, c.update}, {TensorType::kInt64, {rank}}},
                                 {{type, c.operand}}),
                         {Values(type, Count(c.operand), 9), Values(type, Count(c.update), 10),
                          BytesOf(std::vector<int64_t>(c.start.begin(), c.start.end()))},
                         kSmallArena);
    }
  }
  // Extreme INT64 starts clamp too.
  ExpectSameAsOracle("dus_int64_extremes",
                     OpModel(BuiltinOp::kDynamicUpdateSlice, {},
                             {{TensorType::kInt8, {6, 7}}, {TensorType::kInt8, {2, 3}}, {TensorType::kInt64, {2}}},
                             {{TensorType::kInt8, {6, 7}}}),
                     {Values(TensorType::kInt8, 42, 1), Values(TensorType::kInt8, 6, 2),
                      BytesOf(std::vector<int64_t>{INT64_MAX, INT64_MIN})},
                     kSmallArena);
  // Refused by both: an update larger than the operand, indices of the
  // wrong count, a type TFLM has no case for, mixed types.
  const Bytes a = Values(TensorType::kInt8, 12, 1);
  ExpectBothRefuse("dus_update_larger",
                   OpModel(BuiltinOp::kDynamicUpdateSlice, {},
                           {{TensorType::kInt8, {3, 4}}, {TensorType::kInt8, {4, 2}},
                            {TensorType::kInt32, {2}, 0, 0, Int32s({0, 0})}},
                           {{TensorType::kInt8, {3, 4}}}),
                   {a, Values(TensorType::kInt8, 8, 2)}, "update 1 'in1' [4,2] does not fit in operand 0 'in0' [3,4]");
  ExpectBothRefuse("dus_index_count",
                   OpModel(BuiltinOp::kDynamicUpdateSlice, {},
                           {{TensorType::kInt8, {3, 4}}, {TensorType::kInt8, {1, 2}},
                            {TensorType::kInt32, {3}, 0, 0, Int32s({0, 0, 0})}},
                           {{TensorType::kInt8, {3, 4}}}),
                   {a, Values(TensorType::kInt8, 2, 2)}, "must be 1-D with 2 values");
  ExpectBothRefuse("dus_int64",
                   OpModel(BuiltinOp::kDynamicUpdateSlice, {},
                           {{TensorType::kInt64, {3, 4}}, {TensorType::kInt64, {1, 2}},
                            {TensorType::kInt32, {2}, 0, 0, Int32s({0, 0})}},
                           {{TensorType::kInt64, {3, 4}}}),
                   {Values(TensorType::kInt64, 12, 1), Values(TensorType::kInt64, 2, 2)}, "not supported");
  ExpectBothRefuse("dus_mixed",
                   OpModel(BuiltinOp::kDynamicUpdateSlice, {},
                           {{TensorType::kInt8, {3, 4}}, {TensorType::kInt32, {1, 2}},
                            {TensorType::kInt32, {2}, 0, 0, Int32s({0, 0})}},
                           {{TensorType::kInt8, {3, 4}}}),
                   {a, Values(TensorType::kInt32, 2, 2)}, "not supported");
}

tflite::BuiltinOptionsUnion GatherOptions(int32_t axis, int32_t batch_dims) {
  tflite::GatherOptionsT options;
  options.axis = axis;
  options.batch_dims = batch_dims;
  return MakeBuiltinOptions(options);
}

TEST(DataMovementOracleTest, GatherAxesAndBatchDims) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> params;
    std::vector<int32_t> indices_shape;
    std::vector<int32_t> indices;
    int32_t axis;
    int32_t batch_dims;
    std::vector<int32_t> out;
  };
  const Case cases[] = {
      {{5}, {3}, {4, 0, 4}, 0, 0, {3}},
      {{4, 3}, {2, 2}, {3, 0, 1, 1}, 0, 0, {2, 2, 3}},
      {{4, 3}, {5}, {2, 2, 0, 1, 2}, 1, 0, {4, 5}},
      {{2, 3, 4}, {2}, {3, 0}, -1, 0, {2, 3, 2}},
      {{2, 5, 3}, {2, 2}, {4, 0, 1, 3}, 1, 1, {2, 2, 3}},
      {{2, 3, 4}, {2, 3}, {0, 3, 1, 2, 2, 0}, 2, -1, {2, 3, 3}},
      {{3, 4}, {}, {2}, 0, 0, {4}},
  };
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
    for (const Case& c : cases) {
      ExpectSameAsOracle("gather_" + Name(type) + "_" + std::to_string(n++),
                         OpModel(BuiltinOp::kGather, GatherOptions(c.axis, c.batch_dims),
                                 {{type, c.params}, {TensorType::kInt32, c.indices_shape}}, {{type, c.out}}),
                         {Values(type, Count(c.params), 9), Int32s(c.indices)}, kSmallArena);
    }
  }
}

TEST(DataMovementOracleTest, GatherRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Bytes model = OpModel(BuiltinOp::kGather, GatherOptions(0, 0),
                              {{TensorType::kFloat32, {4}}, {TensorType::kInt32, {2}}}, {{TensorType::kFloat32, {2}}});
  // Indices out of range: TFLM at the pinned commit reads outside the
  // params; microarena fails the Invoke.
  for (int32_t bad : {4, -1}) {
    ExpectWeRefuse(model, {Values(TensorType::kFloat32, 4, 1), Int32s({0, bad})}, "is outside [0, 4)");
  }
  ExpectBothRefuse("gather_int32_params",
                   OpModel(BuiltinOp::kGather, GatherOptions(0, 0),
                           {{TensorType::kInt32, {4}}, {TensorType::kInt32, {2}}}, {{TensorType::kInt32, {2}}}),
                   {Values(TensorType::kInt32, 4, 1), Int32s({0, 1})}, "(GATHER): params tensor 0 'in0' is INT32");
  ExpectBothRefuse("gather_int64_indices",
                   OpModel(BuiltinOp::kGather, GatherOptions(0, 0),
                           {{TensorType::kFloat32, {4}}, {TensorType::kInt64, {2}}}, {{TensorType::kFloat32, {2}}}),
                   {Values(TensorType::kFloat32, 4, 1), BytesOf(std::vector<int64_t>{0, 1})},
                   "indices tensor 1 'in1' is INT64");
  ExpectBothRefuse(
      "gather_bad_axis",
      OpModel(BuiltinOp::kGather, GatherOptions(2, 0), {{TensorType::kFloat32, {4, 2}}, {TensorType::kInt32, {2}}},
              {{TensorType::kFloat32, {4, 2}}}),
      {Values(TensorType::kFloat32, 8, 1), Int32s({0, 1})}, "axis 2 and batch_dims 0 do not fit");
}

TEST(DataMovementOracleTest, GatherNdSlicesAndElements) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> params;
    std::vector<int32_t> indices_shape;
    std::vector<int32_t> indices;
    std::vector<int32_t> out;
  };
  const Case cases[] = {
      {{4, 3}, {2, 2}, {3, 2, 0, 1}, {2}},
      {{4, 3}, {3, 1}, {2, 0, 3}, {3, 3}},
      {{2, 3, 4}, {2, 2, 2}, {1, 2, 0, 0, 1, 1, 0, 2}, {2, 2, 4}},
      {{2, 3, 4}, {1, 3}, {1, 2, 3}, {1}},
      {{5}, {1}, {4}, {}},
  };
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
    for (const Case& c : cases) {
      ExpectSameAsOracle(
          "gather_nd_" + Name(type) + "_" + std::to_string(n++),
          OpModel(BuiltinOp::kGatherNd, {}, {{type, c.params}, {TensorType::kInt32, c.indices_shape}}, {{type, c.out}}),
          {Values(type, Count(c.params), 10), Int32s(c.indices)}, kSmallArena);
    }
  }
  ExpectBothRefuse("gather_nd_int16",
                   OpModel(BuiltinOp::kGatherNd, {}, {{TensorType::kInt16, {4}}, {TensorType::kInt32, {1, 1}}},
                           {{TensorType::kInt16, {1}}}),
                   {Values(TensorType::kInt16, 4, 1), Int32s({1})}, "(GATHER_ND): params tensor 0 'in0' is INT16");
  ExpectBothRefuse("gather_nd_too_deep",
                   OpModel(BuiltinOp::kGatherNd, {}, {{TensorType::kFloat32, {4}}, {TensorType::kInt32, {1, 2}}},
                           {{TensorType::kFloat32, {1}}}),
                   {Values(TensorType::kFloat32, 4, 1), Int32s({1, 1})}, "exceeds the params' rank");
  // An index outside its axis: TFLM reads out of bounds; microarena fails.
  ExpectWeRefuse(OpModel(BuiltinOp::kGatherNd, {}, {{TensorType::kFloat32, {4, 3}}, {TensorType::kInt32, {1, 2}}},
                         {{TensorType::kFloat32, {1}}}),
                 {Values(TensorType::kFloat32, 12, 1), Int32s({0, 3})}, "index row 0 points outside the params");
}

TEST(DataMovementOracleTest, ReverseV2AdjacentAxes) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<int32_t> shape = {2, 3, 4, 2};
  const std::vector<std::vector<int32_t>> axes = {{0}, {1}, {3}, {-1}, {1, 2}, {2, 1}, {0, 1, 2, 3}, {-2, -3}};
  const TensorType types[] = {TensorType::kFloat32, TensorType::kInt32, TensorType::kUInt8, TensorType::kInt8,
                              TensorType::kInt16,   TensorType::kInt64, TensorType::kBool};
  int n = 0;
  for (TensorType type : types) {
    for (const auto& a : axes) {
      ExpectSameAsOracle(
          "reverse_" + Name(type) + "_" + std::to_string(n++),
          OpModel(BuiltinOp::kReverseV2, {},
                  {{type, shape}, {TensorType::kInt32, {static_cast<int32_t>(a.size())}, 0, 0, Int32s(a)}},
                  {{type, shape}}),
          {Values(type, Count(shape), 11)}, kSmallArena);
    }
  }
  ExpectBothRefuse("reverse_not_adjacent",
                   OpModel(BuiltinOp::kReverseV2, {},
                           {{TensorType::kFloat32, shape}, {TensorType::kInt32, {2}, 0, 0, Int32s({0, 2})}},
                           {{TensorType::kFloat32, shape}}),
                   {Values(TensorType::kFloat32, Count(shape), 1)}, "axes must be distinct and adjacent");
  ExpectBothRefuse(
      "reverse_uint16",
      OpModel(BuiltinOp::kReverseV2, {}, {{TensorType::kUInt16, {4}}, {TensorType::kInt32, {1}, 0, 0, Int32s({0})}},
              {{TensorType::kUInt16, {4}}}),
      {Values(TensorType::kUInt16, 4, 1)}, "(REVERSE_V2): input tensor 0 'in0' is UINT16");
}

TEST(DataMovementOracleTest, TypeRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  tflite::PackOptionsT pack;
  pack.values_count = 2;
  ExpectBothRefuse("pack_uint8",
                   OpModel(BuiltinOp::kPack, MakeBuiltinOptions(pack),
                           {{TensorType::kUInt8, {2}}, {TensorType::kUInt8, {2}}}, {{TensorType::kUInt8, {2, 2}}}),
                   {Values(TensorType::kUInt8, 2, 1), Values(TensorType::kUInt8, 2, 2)},
                   "(PACK): input tensor 0 'in0' is UINT8");
  tflite::UnpackOptionsT unpack;
  unpack.num = 2;
  ExpectBothRefuse("unpack_int64",
                   OpModel(BuiltinOp::kUnpack, MakeBuiltinOptions(unpack), {{TensorType::kInt64, {2, 3}}},
                           {{TensorType::kInt64, {3}}, {TensorType::kInt64, {3}}}),
                   {Values(TensorType::kInt64, 6, 1)}, "(UNPACK): input tensor 0 'in0' is INT64");
  tflite::SplitOptionsT split;
  split.num_splits = 2;
  ExpectBothRefuse("split_int64",
                   OpModel(BuiltinOp::kSplit, MakeBuiltinOptions(split),
                           {{TensorType::kInt32, {}, 0, 0, Int32s({0})}, {TensorType::kInt64, {4}}},
                           {{TensorType::kInt64, {2}}, {TensorType::kInt64, {2}}}),
                   {Values(TensorType::kInt64, 4, 1)}, "(SPLIT): input tensor 1 'in1' is INT64");
  ExpectBothRefuse("split_v_int64",
                   OpModel(BuiltinOp::kSplitV, {},
                           {{TensorType::kInt64, {4}},
                            {TensorType::kInt32, {2}, 0, 0, Int32s({1, 3})},
                            {TensorType::kInt32, {}, 0, 0, Int32s({0})}},
                           {{TensorType::kInt64, {1}}, {TensorType::kInt64, {3}}}),
                   {Values(TensorType::kInt64, 4, 1)}, "(SPLIT_V): input tensor 0 'in0' is INT64");
}

}  // namespace
}  // namespace microarena
