// CIRCULAR_BUFFER, TFLM's custom streaming op. The oracle build has no
// kernel for it, so the expected bytes are worked out by hand from the op's
// definition: each Invoke moves the slots one towards the start (dropping
// the oldest) and writes the input into the last slot; the rest of the model
// runs every cycles_max-th Invoke only.
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/interpreter.h"
#include "tests/support/kernel_harness.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes CyclesMaxOptions(int64_t cycles_max) {
  flexbuffers::Builder builder;
  builder.Map([&] { builder.Int("cycles_max", cycles_max); });
  builder.Finish();
  return builder.GetBuffer();
}

struct StreamModel {
  Bytes bytes;
  int32_t buffer_output = 0;  // graph output 0
  int32_t after_output = 0;   // graph output 1: the op after the buffer
};

// in [1, 1, 1, depth] -> CIRCULAR_BUFFER -> [1, slots, 1, depth] (a variable,
// so its slots live across Invokes) -> RESHAPE -> [slots * depth].
StreamModel BufferThenReshape(int32_t slots, int32_t depth, const Bytes& options, int64_t zero_point) {
  ModelBuilder builder;
  const auto q = QuantizationSpec::PerTensor(0.5f, zero_point);
  const int32_t in = builder.AddTensor({"in", TensorType::kInt8, {1, 1, 1, depth}, 0, q});
  TensorSpec buffer{"buffer", TensorType::kInt8, {1, slots, 1, depth}, 0, q};
  buffer.is_variable = true;
  const int32_t out = builder.AddTensor(buffer);
  const int32_t shape =
      builder.AddConstantTensor({"shape", TensorType::kInt32, {1}, 0, {}}, BytesOf<int32_t>({slots * depth}));
  const int32_t flat = builder.AddTensor({"flat", TensorType::kInt8, {slots * depth}, 0, q});
  OperatorSpec circular;
  circular.op = BuiltinOp::kCustom;
  circular.custom_name = "CIRCULAR_BUFFER";
  circular.inputs = {in};
  circular.outputs = {out};
  circular.custom_options = options;
  builder.AddOperator(std::move(circular));
  OperatorSpec reshape;
  reshape.op = BuiltinOp::kReshape;
  reshape.inputs = {out, shape};
  reshape.outputs = {flat};
  builder.AddOperator(std::move(reshape));
  builder.SetInputs({in});
  builder.SetOutputs({out, flat});
  return {builder.Build(), out, flat};
}

Bytes Read(Interpreter& interpreter, size_t output) {
  const EvalTensor* tensor = interpreter.output(output);
  const auto* data = tensor->As<const uint8_t>();
  return Bytes(data, data + interpreter.output_bytes(output));
}

void Write(Interpreter& interpreter, const std::vector<int8_t>& values) {
  std::memcpy(interpreter.input(0)->As<int8_t>(), values.data(), values.size());
}

Bytes Int8s(std::initializer_list<int> values) {
  Bytes out;
  for (int v : values) out.push_back(static_cast<uint8_t>(static_cast<int8_t>(v)));
  return out;
}

TEST(CircularBufferTest, ShiftsInTheInputAndRunsTheRestEveryCyclesMaxInvokes) {
  const StreamModel model = BufferThenReshape(3, 2, CyclesMaxOptions(2), -3);
  alignas(16) static uint8_t arena[8192];
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.bytes.data(), model.bytes.size()));
  ASSERT_TRUE(view.ok()) << view.status().message();
  Interpreter interpreter(*view, AllOpsResolver(), arena, sizeof(arena));
  ASSERT_TRUE(interpreter.AllocateTensors().ok()) << interpreter.AllocateTensors().message();
  // The variable starts at its zero point (-3), as TFLM resets it.
  Write(interpreter, {1, 2});
  Status first = interpreter.Invoke();
  EXPECT_EQ(first.code(), ErrorCode::kStoppedEarly) << first.message();
  EXPECT_NE(std::string(first.message()).find("op 0 (CIRCULAR_BUFFER)"), std::string::npos) << first.message();
  EXPECT_EQ(Read(interpreter, 0), Int8s({-3, -3, -3, -3, 1, 2}));

  Write(interpreter, {3, 4});
  ASSERT_TRUE(interpreter.Invoke().ok());
  EXPECT_EQ(Read(interpreter, 0), Int8s({-3, -3, 1, 2, 3, 4}));
  EXPECT_EQ(Read(interpreter, 1), Int8s({-3, -3, 1, 2, 3, 4}));  // the rest ran

  Write(interpreter, {5, 6});
  EXPECT_EQ(interpreter.Invoke().code(), ErrorCode::kStoppedEarly);
  EXPECT_EQ(Read(interpreter, 0), Int8s({1, 2, 3, 4, 5, 6}));

  Write(interpreter, {7, -8});
  ASSERT_TRUE(interpreter.Invoke().ok());
  EXPECT_EQ(Read(interpreter, 1), Int8s({3, 4, 5, 6, 7, -8}));
}

TEST(CircularBufferTest, CyclesMaxOfOneRunsEveryInvoke) {
  const StreamModel model = BufferThenReshape(2, 3, CyclesMaxOptions(1), 0);
  alignas(16) static uint8_t arena[8192];
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.bytes.data(), model.bytes.size()));
  ASSERT_TRUE(view.ok()) << view.status().message();
  Interpreter interpreter(*view, AllOpsResolver(), arena, sizeof(arena));
  ASSERT_TRUE(interpreter.AllocateTensors().ok());
  Write(interpreter, {1, 2, 3});
  ASSERT_TRUE(interpreter.Invoke().ok());
  Write(interpreter, {4, 5, 6});
  ASSERT_TRUE(interpreter.Invoke().ok());
  EXPECT_EQ(Read(interpreter, 1), Int8s({1, 2, 3, 4, 5, 6}));
}

// Runs op `op_index` alone `invokes` times and returns which Evals stopped
// the model early (1) or let it go on (0).
std::vector<int> StopPattern(const Bytes& bytes, int32_t op_index, int invokes) {
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  EXPECT_TRUE(model.ok());
  testing::KernelHarness harness(*model, op_index, AllOpsResolver());
  Status prepared = harness.Prepare();
  EXPECT_TRUE(prepared.ok()) << prepared.message();
  std::vector<int> pattern;
  for (int i = 0; i < invokes; ++i) {
    const Status status = harness.Eval();
    EXPECT_TRUE(status.ok() || status.code() == ErrorCode::kStoppedEarly) << status.message();
    pattern.push_back(status.code() == ErrorCode::kStoppedEarly ? 1 : 0);
  }
  return pattern;
}

// Without options TFLM's rule applies: 1 for outputs of 5, 13 or 25 slots,
// else 2.
TEST(CircularBufferTest, WithoutOptionsTheSlotCountPicksTheCycle) {
  EXPECT_EQ(StopPattern(BufferThenReshape(5, 4, {}, 0).bytes, 0, 3), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(StopPattern(BufferThenReshape(13, 4, {}, 0).bytes, 0, 3), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(StopPattern(BufferThenReshape(4, 4, {}, 0).bytes, 0, 4), (std::vector<int>{1, 0, 1, 0}));
  // A non-positive cycles_max counts as absent.
  EXPECT_EQ(StopPattern(BufferThenReshape(4, 4, CyclesMaxOptions(0), 0).bytes, 0, 2), (std::vector<int>{1, 0}));
  EXPECT_EQ(StopPattern(BufferThenReshape(4, 4, CyclesMaxOptions(3), 0).bytes, 0, 6),
            (std::vector<int>{1, 1, 0, 1, 1, 0}));
}

// ... and the fifth option-less buffer in prepare order whose output is
// [., ., 2, 96] gets 1 (TFLM's second streaming example).
TEST(CircularBufferTest, TheFifthBufferOfTwoByNinetySixRunsEveryInvoke) {
  ModelBuilder builder;
  const auto q = QuantizationSpec::PerTensor(1.0f, 0);
  const int32_t in = builder.AddTensor({"in", TensorType::kInt8, {1, 1, 2, 96}, 0, q});
  std::vector<int32_t> outs;
  for (int i = 0; i < 6; ++i) {
    outs.push_back(builder.AddTensor({"buffer" + std::to_string(i), TensorType::kInt8, {1, 3, 2, 96}, 0, q}));
    OperatorSpec op;
    op.op = BuiltinOp::kCustom;
    op.custom_name = "CIRCULAR_BUFFER";
    op.inputs = {in};
    op.outputs = {outs.back()};
    // Op 2 has its own cycles_max and does not count.
    if (i == 2) op.custom_options = CyclesMaxOptions(2);
    builder.AddOperator(std::move(op));
  }
  builder.SetInputs({in});
  builder.SetOutputs(outs);
  const Bytes bytes = builder.Build();
  // Ops 0, 1, 3, 4 are option-less buffers 1-4 (cycle 2); op 5 is the fifth.
  for (int32_t op : {0, 1, 2, 3, 4}) EXPECT_EQ(StopPattern(bytes, op, 2), (std::vector<int>{1, 0})) << "op " << op;
  EXPECT_EQ(StopPattern(bytes, 5, 2), (std::vector<int>{0, 0}));
}

TEST(CircularBufferTest, RefusesWhatTflmRefusesAndBrokenOptions) {
  auto prepare = [](const Bytes& bytes) {
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    EXPECT_TRUE(model.ok());
    testing::KernelHarness harness(*model, 0, AllOpsResolver());
    return harness.Prepare();
  };
  auto one_op = [](TensorType type, std::vector<int32_t> in_shape, std::vector<int32_t> out_shape, Bytes options) {
    ModelBuilder builder;
    const auto q = QuantizationSpec::PerTensor(1.0f, 0);
    const int32_t in = builder.AddTensor({"in", type, std::move(in_shape), 0, q});
    const int32_t out = builder.AddTensor({"out", type, std::move(out_shape), 0, q});
    OperatorSpec op;
    op.op = BuiltinOp::kCustom;
    op.custom_name = "CIRCULAR_BUFFER";
    op.inputs = {in};
    op.outputs = {out};
    op.custom_options = std::move(options);
    builder.AddOperator(std::move(op));
    builder.SetInputs({in});
    builder.SetOutputs({out});
    return builder.Build();
  };
  EXPECT_TRUE(prepare(one_op(TensorType::kInt8, {1, 1, 1, 8}, {1, 4, 1, 8}, {})).ok());
  const Status int16 = prepare(one_op(TensorType::kInt16, {1, 1, 1, 8}, {1, 4, 1, 8}, {}));
  EXPECT_EQ(int16.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(int16.message()).find("INT16"), std::string::npos) << int16.message();
  const Status shape = prepare(one_op(TensorType::kInt8, {1, 2, 1, 8}, {1, 4, 1, 8}, {}));
  EXPECT_EQ(shape.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(shape.message()).find("[1, 2, 1, 8]"), std::string::npos) << shape.message();
  EXPECT_EQ(prepare(one_op(TensorType::kInt8, {1, 1, 8}, {1, 4, 8}, {})).code(), ErrorCode::kInvalidArgument);
  // Options that are not a FlexBuffers map, or a cycles_max of the wrong type.
  const Status garbage = prepare(one_op(TensorType::kInt8, {1, 1, 1, 8}, {1, 4, 1, 8}, {1, 2, 3, 4, 5}));
  EXPECT_EQ(garbage.code(), ErrorCode::kInvalidArgument) << garbage.message();
  flexbuffers::Builder text;
  text.Map([&] { text.String("cycles_max", "two"); });
  text.Finish();
  const Status wrong_type = prepare(one_op(TensorType::kInt8, {1, 1, 1, 8}, {1, 4, 1, 8}, text.GetBuffer()));
  EXPECT_EQ(wrong_type.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(wrong_type.message()).find("cycles_max"), std::string::npos) << wrong_type.message();
  // Every truncation of valid options is refused or read within bounds
  // (ASan runs this too).
  const Bytes valid = CyclesMaxOptions(2);
  for (size_t n = 0; n < valid.size(); ++n) {
    const Status status =
        prepare(one_op(TensorType::kInt8, {1, 1, 1, 8}, {1, 4, 1, 8}, Bytes(valid.begin(), valid.begin() + n)));
    EXPECT_TRUE(status.ok() || status.code() == ErrorCode::kInvalidArgument) << n << ": " << status.message();
  }
}

// AllOpsResolver runs it; `inspect` counts it as supported; `embed
// --resolver` writes a table holding microarena's kernel for it, and a
// program built with that header finds the kernel by the model's name.
TEST(CircularBufferTest, ToolsKnowTheCustomOp) {
  const std::string dir = testing::TempDir("circular_buffer_tools");
  const std::string model = dir + "/stream.tflite";
  testing::WriteFile(model, BufferThenReshape(3, 2, CyclesMaxOptions(2), 0).bytes);
  const auto inspect = testing::RunCli({"inspect", model, "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.stderr_text;
  EXPECT_NE(inspect.stdout_text.find("\"missing_ops\": []"), std::string::npos) << inspect.stdout_text;

  const auto embed = testing::RunCli({"embed", model, "--source", dir + "/m.cc", "--header", dir + "/m.h", "--resolver",
                                      dir + "/resolver.h", "--resolver-namespace", "stream_ops"});
  ASSERT_EQ(embed.exit_code, 0) << embed.stderr_text;
  std::ofstream(dir + "/program.cc")
      << "#include \"resolver.h\"\n"
         "int main() {\n"
         "  const auto& r = stream_ops::ModelOpResolver();\n"
         "  return r.FindCustom(\"CIRCULAR_BUFFER\") == &microarena::kCircularBufferKernel &&\n"
         "         r.kernels().size() == 1 ? 0 : 1;\n"
         "}\n";
  const std::string binary = dir + "/program";
  const std::string command = std::string(MICROARENA_CXX_COMPILER) + " -std=c++17 " + MICROARENA_CORE_DEFINES +
                              " -Wall -Werror -I" + dir + " -I" +
                              MICROARENA_SOURCE_DIR + "/src -I" + MICROARENA_BINARY_DIR + "/generated " + dir +
                              "/program.cc " + MICROARENA_CORE_LIBS + " -o " +
                              binary + " " + MICROARENA_LINK_FLAGS + " > " + dir + "/compile.log 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << [&] {
    std::ifstream log(dir + "/compile.log");
    std::stringstream text;
    text << log.rdbuf();
    return text.str();
  }();
  EXPECT_EQ(std::system(binary.c_str()), 0);
}

}  // namespace
}  // namespace microarena
