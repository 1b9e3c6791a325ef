// The row arithmetic of tiled execution by hand: which input rows a band of
// output rows reads, and how many rows each window needs on vww_96_int8's
// first ops (the end-to-end proof is tests/tiled_execution_test.cc).
#include "microarena/analysis/tiling.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microarena/model/model_file.h"
#include "microarena/model/quantized_layers.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

TEST(TilingTest, InputRowsOfAWindowClipToTheInput) {
  // 3x3, stride 1, one row of padding above: output rows [r, r + 2) read
  // rows [r - 1, r + 3), clipped to the 10 rows there are.
  BandOp conv{BandOpKind::kWindow, 1, 1, 3, 1};
  EXPECT_EQ(InputRowsOf(conv, {4, 6}, 10).first, 3);
  EXPECT_EQ(InputRowsOf(conv, {4, 6}, 10).end, 7);
  EXPECT_EQ(InputRowsOf(conv, {0, 1}, 10).first, 0);  // row -1 is padding
  EXPECT_EQ(InputRowsOf(conv, {0, 1}, 10).end, 2);
  EXPECT_EQ(InputRowsOf(conv, {9, 10}, 10).end, 10);  // row 10 is padding
  // 3x3, stride 2, no padding above (TFLite's SAME on an even height puts
  // the odd padding row below): output row r reads rows [2r, 2r + 3).
  BandOp strided{BandOpKind::kWindow, 2, 0, 3, 1};
  EXPECT_EQ(InputRowsOf(strided, {3, 5}, 20).first, 6);
  EXPECT_EQ(InputRowsOf(strided, {3, 5}, 20).end, 11);
  // Dilation 2 on a 3-tap filter: an extent of 5 rows.
  BandOp dilated{BandOpKind::kWindow, 1, 2, 5, 1};
  EXPECT_EQ(InputRowsOf(dilated, {5, 6}, 20).first, 3);
  EXPECT_EQ(InputRowsOf(dilated, {5, 6}, 20).end, 8);
  // PAD with 1 row above: output rows [0, 3) read input rows [0, 2).
  BandOp pad{BandOpKind::kPad, 1, 1, 1, 1};
  EXPECT_EQ(InputRowsOf(pad, {0, 3}, 8).first, 0);
  EXPECT_EQ(InputRowsOf(pad, {0, 3}, 8).end, 2);
  EXPECT_TRUE(InputRowsOf(pad, {9, 9}, 8).empty());
  BandOp add{BandOpKind::kElementwise, 1, 0, 1, 3};
  EXPECT_EQ(InputRowsOf(add, {2, 5}, 8).first, 2);
  EXPECT_EQ(InputRowsOf(add, {2, 5}, 8).end, 5);
}

// vww ops 0-1: CONV_2D 3x3 stride 2 (96 -> 48 rows) into DEPTHWISE_CONV_2D
// 3x3 stride 1 SAME (48 -> 48). The depthwise output rows [r, r + b) read
// conv rows [r - 1, r + b + 1): a window of b + 2 rows (2 for b = 1 at the
// top, where row -1 is padding, but 3 from the second band on).
TEST(TilingTest, WindowRowsOnVwwByHand) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  for (int32_t band : {1, 2, 4, 48}) {
    BoundedSegmentWalk walk;
    ASSERT_TRUE(walk.Start(file->view(), TiledSegment{0, 1, band}).ok());
    ASSERT_EQ(walk.tensors().size(), 3u);  // input, the conv's output, the sink
    ASSERT_TRUE(WindowRowsOf(walk).ok());
    const Span<int32_t> rows = walk.window_rows();
    const int32_t window = walk.SlotOf(58);
    ASSERT_GE(window, 0);
    EXPECT_EQ(walk.tensors()[static_cast<size_t>(window)].role, SegmentRole::kWindow);
    EXPECT_EQ(rows[static_cast<size_t>(window)], band >= 48 ? 48 : band + 2) << band << " rows per band";
    EXPECT_EQ(walk.tensors()[static_cast<size_t>(walk.SlotOf(0))].role, SegmentRole::kInput);
    EXPECT_EQ(walk.tensors()[static_cast<size_t>(walk.SlotOf(59))].role, SegmentRole::kSink);
  }
}

// A window read after its segment is refused with the tensor and the op
// named: in the MLPerf ResNet, op 0's output feeds op 1 and the ADD at op 3,
// so ops 0-1 alone would leave it a window that op 3 still reads; ops 0-3
// take the whole residual block and are fine. A model output is never a
// window; RESHAPE cannot run in bands at all.
TEST(TilingTest, RefusalsNameTheTensorAndTheOp) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> resnet = ModelFile::Open(testing::SharedDir() + "/models/pretrainedResnet_quant.tflite");
  ASSERT_TRUE(resnet.ok()) << resnet.status().message();
  BoundedSegmentWalk walk;
  const Status open_block = walk.Start(resnet->view(), TiledSegment{0, 1, 1});
  ASSERT_FALSE(open_block.ok());
  EXPECT_NE(std::string(open_block.message()).find("tensor 22, made inside, is read by op 3 (ADD) after the segment"),
            std::string::npos)
      << open_block.message();
  EXPECT_TRUE(walk.Start(resnet->view(), TiledSegment{0, 3, 1}).ok());
  const Status reshape = walk.Start(resnet->view(), TiledSegment{12, 13, 1});
  ASSERT_FALSE(reshape.ok());
  EXPECT_NE(std::string(reshape.message()).find("op 13 (RESHAPE) cannot run in bands"), std::string::npos)
      << reshape.message();
}

// A request for tensor `tensor` of `bytes` live over op steps [first, end).
BufferRequest TensorBuffer(int32_t tensor, size_t bytes, int32_t first, int32_t end) {
  BufferRequest request;
  request.owner_index = tensor;
  request.size_bytes = bytes;
  request.lifetime = Lifetime{first, end};
  return request;
}

// ApplyTiling by hand on vww ops 0-1 with one row per band: the model input
// (tensor 0, read by op 0) lives to the segment's end, the window (tensor 58,
// 48 rows of 48 x 8 B) shrinks to 3 rows = 1,152 B, the sink (tensor 59)
// lives from the segment's start, and a buffer for a tensor an op of the
// segment reads as a whole (op 0's filter, tensor 44, as if it were made at
// run time) lives through the segment too: every op runs again in every band.
TEST(TilingTest, ApplyTilingResizesWindowsAndStretchesLifetimes) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  std::vector<BufferRequest> buffers = {TensorBuffer(0, 27648, 0, 1), TensorBuffer(58, 18432, 0, 2), TensorBuffer(59, 18432, 1, 3),
                                        TensorBuffer(44, 216, 0, 1), TensorBuffer(60, 36864, 2, 4)};
  const TiledSegment segment{0, 1, 1};
  ASSERT_TRUE(ApplyTiling(file->view(), Span<const TiledSegment>(&segment, 1), 16,
                          Span<BufferRequest>(buffers.data(), buffers.size()))
                  .ok());
  EXPECT_EQ(buffers[0].lifetime.end_op, 2);  // input: until op 1
  EXPECT_EQ(buffers[0].size_bytes, 27648u);
  EXPECT_EQ(buffers[1].size_bytes, 1152u);   // 3 rows x 48 x 8
  EXPECT_EQ(buffers[1].lifetime.first_op, 0);
  EXPECT_EQ(buffers[1].lifetime.end_op, 2);
  EXPECT_EQ(buffers[2].lifetime.first_op, 0);  // sink: from op 0
  EXPECT_EQ(buffers[2].size_bytes, 18432u);
  EXPECT_EQ(buffers[3].lifetime.end_op, 2);    // read by op 0, which runs until op 1 is done
  EXPECT_EQ(buffers[4].lifetime.first_op, 2);  // op 2's output: outside, untouched
  EXPECT_EQ(buffers[4].lifetime.end_op, 4);
}


// TilingOverlaps by hand on vww (input 96x96x3: rows of 288 B; op 0 CONV_2D
// 3x3 stride 2 SAME -> 48x48x8, rows of 384 B, no padding above (the one
// padded row is below), so output row j reads input rows [2j, 2j+3);
// op 1 DEPTHWISE 3x3 stride 1 SAME, one padded row above: row j reads
// [j-1, j+2)). D is the largest (sink bytes written by the end of a step -
// first input byte the step reads):
//   ops 0-0, 1 row:  step j: (j+1) x 384 - 2j x 288 = 384 - 192j  -> 384 (j = 0)
//   ops 0-0, 2 rows: step k: (2k+2) x 384 - 4k x 288 = 768 - 384k -> 768 (k = 0)
//   ops 1-1, 1 row:  j = 0: 384 - 0; j >= 1: (j+1) x 384 - (j-1) x 384 = 768 -> 768
//   ops 0-3, 1 row:  the input is read only by op 0, and op 0's rows for
//     sink row s come before the sink's row s: its first step reads row 0
//     with no sink row written (0), every later one reads rows 4s+4 on
//     with s sink rows written (384s - 288(4s+4) < 0)       -> 0
TEST(TilingTest, SinkOverConsumedInputRowsByHand) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  struct Case {
    TiledSegment segment;
    size_t input_buffer;
    size_t sink_buffer;
    size_t displacement;
  };
  // Buffers 0-4: tensors 0 (input), 58, 59, 60, 61 with their untiled lifetimes.
  const Case cases[] = {
      {{0, 0, 1}, 0, 1, 384},
      {{0, 0, 2}, 0, 1, 768},
      {{1, 1, 1}, 1, 2, 768},
      {{0, 3, 1}, 0, 4, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("ops " + std::to_string(c.segment.first_op) + "-" + std::to_string(c.segment.last_op) + ", " +
                 std::to_string(c.segment.band_rows) + " rows per band");
    std::vector<BufferRequest> buffers = {TensorBuffer(0, 27648, 0, 1), TensorBuffer(58, 18432, 0, 2), TensorBuffer(59, 18432, 1, 3),
                                          TensorBuffer(60, 36864, 2, 4), TensorBuffer(61, 9216, 3, 5)};
    const Span<const TiledSegment> tiling(&c.segment, 1);
    ASSERT_TRUE(ApplyTiling(file->view(), tiling, 16, Span<BufferRequest>(buffers.data(), buffers.size())).ok());
    Result<size_t> most = TilingOverlapCount(file->view(), tiling);
    ASSERT_TRUE(most.ok()) << most.status().message();
    EXPECT_EQ(*most, 1u);  // one input each
    OverlapPermission permissions[2];
    Result<size_t> count = TilingOverlaps(file->view(), tiling, Span<const BufferRequest>(buffers.data(), buffers.size()),
                                          Span<OverlapPermission>(permissions, 2));
    ASSERT_TRUE(count.ok()) << count.status().message();
    ASSERT_EQ(*count, 1u);
    EXPECT_EQ(permissions[0].input_buffer, c.input_buffer);
    EXPECT_EQ(permissions[0].output_buffer, c.sink_buffer);
    EXPECT_EQ(permissions[0].min_displacement_bytes, c.displacement);

    // An input read after the segment keeps its bytes: no permission.
    buffers[c.input_buffer].lifetime.end_op = c.segment.last_op + 2;
    count = TilingOverlaps(file->view(), tiling, Span<const BufferRequest>(buffers.data(), buffers.size()),
                           Span<OverlapPermission>(permissions, 2));
    ASSERT_TRUE(count.ok()) << count.status().message();
    EXPECT_EQ(*count, 0u);
    // Too little room is an error, not a write past the end.
    buffers[c.input_buffer].lifetime.end_op = c.segment.last_op + 1;
    count = TilingOverlaps(file->view(), tiling, Span<const BufferRequest>(buffers.data(), buffers.size()),
                           Span<OverlapPermission>());
    ASSERT_FALSE(count.ok());
  }
}

// An input that is also a model output keeps every byte: a model whose
// outputs are X = conv(input) and Y = conv(X), the segment [1, 1] (X -> Y)
// gets no permission even though X dies at the segment's end in the
// lifetimes given here; with X not an output it gets one.
TEST(TilingTest, NoSinkOverAModelOutput) {
  for (bool x_is_output : {true, false}) {
    SCOPED_TRACE(x_is_output ? "X is a model output" : "X is not");
    QuantizedModelWriter writer(5);
    const QuantizedActivation input = writer.AddInput("input", {1, 16, 16, 4}, -1.0, 1.0, 0.5);
    const QuantizedActivation x =
        writer.AddConv2d("x", input, {3, 3, 1, tflite::Padding::SAME, 8, tflite::ActivationFunctionType::RELU});
    const QuantizedActivation y =
        writer.AddConv2d("y", x, {3, 3, 1, tflite::Padding::SAME, 8, tflite::ActivationFunctionType::RELU});
    const std::vector<uint8_t> bytes =
        x_is_output ? writer.Finish(std::vector<QuantizedActivation>{x, y}, "two outputs") : writer.Finish(y, "one");
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    std::vector<BufferRequest> buffers = {TensorBuffer(x.tensor_index, 2048, 0, 2),
                                          TensorBuffer(y.tensor_index, 2048, 1, 2)};
    const TiledSegment segment{1, 1, 1};
    OverlapPermission permissions[1];
    Result<size_t> count = TilingOverlaps(*model, Span<const TiledSegment>(&segment, 1),
                                          Span<const BufferRequest>(buffers.data(), buffers.size()),
                                          Span<OverlapPermission>(permissions, 1));
    ASSERT_TRUE(count.ok()) << count.status().message();
    EXPECT_EQ(*count, x_is_output ? 0u : 1u);
  }
}

// The walk's memory for vww ops 0-3 (CONV_2D, DEPTHWISE_CONV_2D, CONV_2D,
// DEPTHWISE_CONV_2D, a chain), counted by hand: 4 ops; maps: op 0's input
// (the model input) and output, and the outputs of ops 1-3 (each reads the
// one before; filters and biases are constants) = 5. Per op a WalkOp, per
// map a SegmentTensor, an int32 of window rows and an int16 producer (10 B,
// rounded to 12). A walk in exactly that memory gives the same windows as
// one on the stack; in one byte less it has no memory and says so.
TEST(TilingTest, WalkMemoryForVwwByHand) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const TiledSegment segments[] = {{0, 3, 1}};
  const size_t expected = 4 * sizeof(WalkOp) + 5 * sizeof(SegmentTensor) + 5 * sizeof(int32_t) + 12;
  ASSERT_EQ(TilingStateBytes(file->view(), segments), expected);
  EXPECT_EQ(TilingStateBytes(file->view(), Span<const TiledSegment>()), 0u);

  std::vector<uint32_t> storage(expected / 4);
  const Span<uint8_t> bytes(reinterpret_cast<uint8_t*>(storage.data()), expected);
  const WalkMemory memory = WalkMemoryIn(bytes, file->view(), segments);
  EXPECT_EQ(memory.ops.size(), 4u);
  EXPECT_EQ(memory.tensors.size(), 5u);
  SegmentWalk walk(memory);
  ASSERT_TRUE(walk.Start(file->view(), segments[0]).ok());
  ASSERT_TRUE(WindowRowsOf(walk).ok());
  BoundedSegmentWalk reference;
  ASSERT_TRUE(reference.Start(file->view(), segments[0]).ok());
  ASSERT_TRUE(WindowRowsOf(reference).ok());
  ASSERT_EQ(walk.tensors().size(), reference.tensors().size());
  for (size_t s = 0; s < walk.tensors().size(); ++s) {
    EXPECT_EQ(walk.tensors()[s].tensor, reference.tensors()[s].tensor);
    EXPECT_EQ(walk.window_rows()[s], reference.window_rows()[s]);
  }
  for (size_t s = 0; s < walk.tensors().size(); ++s) {
    const size_t whole = file->view().subgraph(0).tensor(static_cast<size_t>(walk.tensors()[s].tensor)).byte_size();
    EXPECT_EQ(TiledBufferBytes(file->view(), segments, walk.tensors()[s].tensor, 16, &memory),
              TiledBufferBytes(file->view(), segments, walk.tensors()[s].tensor, 16))
        << "tensor " << walk.tensors()[s].tensor << " of " << whole << " B";
  }

  const WalkMemory short_memory = WalkMemoryIn(Span<uint8_t>(bytes.data(), expected - 1), file->view(), segments);
  SegmentWalk starved(short_memory);
  const Status status = starved.Start(file->view(), segments[0]);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("tiled segment ops 0-3 has more than 0 ops"), std::string::npos)
      << status.message();
  EXPECT_EQ(TiledBufferBytes(file->view(), segments, walk.tensors()[1].tensor, 16, &short_memory), SIZE_MAX);
}

}  // namespace
}  // namespace microarena
