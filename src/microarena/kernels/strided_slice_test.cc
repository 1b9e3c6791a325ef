// STRIDED_SLICE: negative indices and strides, masks, shrink_axis, clamping;
// prepare errors. in[i] = 10 + i for the 1-D cases.
#include <gtest/gtest.h>

#include "microarena/kernels/shape_op_test_util.h"

namespace microarena::shape_op_test {
namespace {

struct Slice1d {
  int32_t begin;
  int32_t end;
  int32_t stride;
  int32_t begin_mask;
  int32_t end_mask;
  int32_t output_size;
};

Status RunSlice1d(const Slice1d& s, std::vector<int8_t>* out) {
  OneOp op(BuiltinOp::kStridedSlice);
  op.Input(Int8("in", {8}, 0.5f, 0), Bytes<int8_t>({10, 11, 12, 13, 14, 15, 16, 17}));
  op.Constant(Plain("begin", TensorType::kInt32, {1}), Bytes<int32_t>({s.begin}));
  op.Constant(Plain("end", TensorType::kInt32, {1}), Bytes<int32_t>({s.end}));
  op.Constant(Plain("strides", TensorType::kInt32, {1}), Bytes<int32_t>({s.stride}));
  op.Output(Int8("out", {s.output_size}, 0.5f, 0));
  tflite::StridedSliceOptionsT options;
  options.begin_mask = s.begin_mask;
  options.end_mask = s.end_mask;
  op.Options(options);
  Status status = op.Run();
  if (status.ok()) *out = op.Output<int8_t>();
  return status;
}

TEST(StridedSliceKernelTest, OneDimensionalCases) {
  std::vector<int8_t> out;
  // begin -3 -> 5, end 8: indices 5, 6, 7.
  ASSERT_TRUE(RunSlice1d({-3, 8, 1, 0, 0, 3}, &out).ok());
  EXPECT_EQ(out, (std::vector<int8_t>{15, 16, 17}));
  // begin -1 -> 7, end 0, stride -2: 7, 5, 3, 1 (ceil(-7 / -2) = 4).
  ASSERT_TRUE(RunSlice1d({-1, 0, -2, 0, 0, 4}, &out).ok());
  EXPECT_EQ(out, (std::vector<int8_t>{17, 15, 13, 11}));
  // begin_mask with stride -3 starts at the last element (7); end -6 -> 2: 7, 4.
  ASSERT_TRUE(RunSlice1d({0, -6, -3, 1, 0, 2}, &out).ok());
  EXPECT_EQ(out, (std::vector<int8_t>{17, 14}));
  // end 100 clamps to 8; begin 2: indices 2..7.
  ASSERT_TRUE(RunSlice1d({2, 100, 1, 0, 0, 6}, &out).ok());
  EXPECT_EQ(out, (std::vector<int8_t>{12, 13, 14, 15, 16, 17}));
  // end_mask with stride -1 runs to the first element; begin -100 would clamp to
  // -1 (empty), so begin 3: 3, 2, 1, 0.
  ASSERT_TRUE(RunSlice1d({3, 5, -1, 0, 1, 4}, &out).ok());
  EXPECT_EQ(out, (std::vector<int8_t>{13, 12, 11, 10}));
  // begin past end with a positive stride: empty.
  ASSERT_TRUE(RunSlice1d({6, 2, 1, 0, 0, 0}, &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(StridedSliceKernelTest, ShrinkAxisDropsTheDimension) {
  // in[i][j] = 10 i + j, shape [3,4]. Row -1 (= 2, shrunk; its end is ignored),
  // columns 0..3 step 2: {20, 22}.
  OneOp op(BuiltinOp::kStridedSlice);
  op.Input(Plain("in", TensorType::kFloat32, {3, 4}),
           Bytes<float>({0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}));
  op.Constant(Plain("begin", TensorType::kInt32, {2}), Bytes<int32_t>({-1, 0}));
  op.Constant(Plain("end", TensorType::kInt32, {2}), Bytes<int32_t>({0, 4}));
  op.Constant(Plain("strides", TensorType::kInt32, {2}), Bytes<int32_t>({1, 2}));
  op.Output(Plain("out", TensorType::kFloat32, {2}));
  tflite::StridedSliceOptionsT options;
  options.shrink_axis_mask = 1;
  op.Options(options);
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{20, 22}));
}

TEST(StridedSliceKernelTest, FourDimensionsWithMasks) {
  // in[n][h][w][c] = 8n + 4h + 2w + c, shape [2,2,2,2]. begin_mask on n and end
  // mask on c keep them whole; h = 1 only; w reversed (1, 0).
  OneOp op(BuiltinOp::kStridedSlice);
  std::vector<int16_t> values;
  for (int16_t v = 0; v < 16; ++v) values.push_back(v);
  TensorSpec in = Plain("in", TensorType::kInt16, {2, 2, 2, 2});
  TensorSpec out = Plain("out", TensorType::kInt16, {2, 1, 2, 2});
  op.Input(in, Bytes<int16_t>(values));
  op.Constant(Plain("begin", TensorType::kInt32, {4}), Bytes<int32_t>({1, 1, -1, 0}));
  op.Constant(Plain("end", TensorType::kInt32, {4}), Bytes<int32_t>({1, 2, -3, 0}));
  op.Constant(Plain("strides", TensorType::kInt32, {4}), Bytes<int32_t>({1, 1, -1, 1}));
  op.Output(out);
  tflite::StridedSliceOptionsT options;
  options.begin_mask = 1;
  options.end_mask = 1 | 8;
  op.Options(options);
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  // n = 0: h = 1: w = 1: 6, 7; w = 0: 4, 5.  n = 1: 14, 15, 12, 13.
  EXPECT_EQ(op.Output<int16_t>(), (std::vector<int16_t>{6, 7, 4, 5, 14, 15, 12, 13}));
}

TEST(StridedSliceKernelTest, PrepareRejectsBadSlices) {
  std::vector<int8_t> out;
  ExpectError(RunSlice1d({0, 8, 0, 0, 0, 8}, &out), ErrorCode::kInvalidArgument, "strides 'strides' is 0");
  ExpectError(RunSlice1d({0, 8, 2, 0, 0, 3}, &out), ErrorCode::kInvalidArgument,
              "output 'out' has shape [3]; the slice of input 'in' [8] gives [4]");
  {
    OneOp op(BuiltinOp::kStridedSlice);
    op.Input(Int8("in", {8}, 0.5f, 0), Bytes<int8_t>({0, 1, 2, 3, 4, 5, 6, 7}));
    op.Constant(Plain("begin", TensorType::kInt32, {1}), Bytes<int32_t>({8}));
    op.Constant(Plain("end", TensorType::kInt32, {1}), Bytes<int32_t>({9}));
    op.Constant(Plain("strides", TensorType::kInt32, {1}), Bytes<int32_t>({1}));
    op.Output(Int8("out", {}, 0.5f, 0));
    tflite::StridedSliceOptionsT options;
    options.shrink_axis_mask = 1;
    op.Options(options);
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "selects index 8 of dimension 0, which has size 8");
  }
  {
    OneOp op(BuiltinOp::kStridedSlice);
    op.Input(Int8("in", {8}, 0.5f, 0), Bytes<int8_t>({0, 1, 2, 3, 4, 5, 6, 7}));
    op.Input(Plain("begin", TensorType::kInt32, {1}), Bytes<int32_t>({0}));
    op.Constant(Plain("end", TensorType::kInt32, {1}), Bytes<int32_t>({8}));
    op.Constant(Plain("strides", TensorType::kInt32, {1}), Bytes<int32_t>({1}));
    op.Output(Int8("out", {8}, 0.5f, 0));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "begin 'begin' must be a constant");
  }
  {
    OneOp op(BuiltinOp::kStridedSlice);
    op.Input(Int8("in", {8}, 0.5f, 0), Bytes<int8_t>({0, 1, 2, 3, 4, 5, 6, 7}));
    op.Constant(Plain("begin", TensorType::kInt32, {1}), Bytes<int32_t>({0}));
    op.Constant(Plain("end", TensorType::kInt32, {1}), Bytes<int32_t>({8}));
    op.Constant(Plain("strides", TensorType::kInt32, {1}), Bytes<int32_t>({1}));
    op.Output(Int8("out", {8}, 0.5f, 0));
    tflite::StridedSliceOptionsT options;
    options.ellipsis_mask = 1;
    op.Options(options);
    ExpectError(op.Run(), ErrorCode::kUnsupported, "ellipsis_mask 1");
  }
}

}  // namespace
}  // namespace microarena::shape_op_test
