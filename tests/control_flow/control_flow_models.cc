#include "tests/control_flow/control_flow_models.h"

#include <cstring>
#include <utility>

#include "microarena/model/model_builder.h"

namespace microarena::control_flow {
namespace {

TensorSpec Int8(const std::string& name, std::vector<int32_t> shape, float scale, int64_t zero_point) {
  return TensorSpec{name, TensorType::kInt8, std::move(shape), 0, QuantizationSpec::PerTensor(scale, zero_point)};
}
TensorSpec Plain(const std::string& name, TensorType type, std::vector<int32_t> shape) {
  return TensorSpec{name, type, std::move(shape), 0, {}};
}

void AddOp(ModelBuilder& builder, BuiltinOp op, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
           size_t subgraph, tflite::BuiltinOptionsUnion options = {}) {
  OperatorSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.outputs = std::move(outputs);
  spec.options = std::move(options);
  builder.AddOperator(std::move(spec), subgraph);
}

Bytes Int8Bytes(std::vector<int8_t> values) {
  Bytes bytes(values.size());
  std::memcpy(bytes.data(), values.data(), values.size());
  return bytes;
}

tflite::BuiltinOptionsUnion VarHandle(const std::string& name) {
  tflite::VarHandleOptionsT options;
  options.container = "";
  options.shared_name = name;
  return MakeBuiltinOptions(std::move(options));
}

}  // namespace

ControlFlowModel IfModel(bool condition) {
  ModelBuilder builder;
  const size_t then_graph = builder.AddSubgraph("then");
  const size_t else_graph = builder.AddSubgraph("else");
  // main: y = IF(cond, x); z = ADD(y, x)
  const int32_t cond = builder.AddTensor(Plain("cond", TensorType::kBool, {1}));
  const int32_t x = builder.AddTensor(Int8("x", {1, 8}, 0.5f, -3));
  const int32_t y = builder.AddTensor(Int8("y", {1, 8}, 0.75f, 4));
  const int32_t z = builder.AddTensor(Int8("z", {1, 8}, 1.0f, -1));
  tflite::IfOptionsT if_options;
  if_options.then_subgraph_index = static_cast<int32_t>(then_graph);
  if_options.else_subgraph_index = static_cast<int32_t>(else_graph);
  AddOp(builder, BuiltinOp::kIf, {cond, x}, {y}, 0, MakeBuiltinOptions(if_options));
  AddOp(builder, BuiltinOp::kAdd, {y, x}, {z}, 0, MakeBuiltinOptions(tflite::AddOptionsT{}));
  builder.SetInputs({cond, x});
  builder.SetOutputs({z});
  // then: b = ADD(a, a)
  const int32_t a = builder.AddTensor(Int8("a", {1, 8}, 0.5f, -3), then_graph);
  const int32_t b = builder.AddTensor(Int8("b", {1, 8}, 0.75f, 4), then_graph);
  AddOp(builder, BuiltinOp::kAdd, {a, a}, {b}, then_graph, MakeBuiltinOptions(tflite::AddOptionsT{}));
  builder.SetInputs({a}, then_graph);
  builder.SetOutputs({b}, then_graph);
  // else: e = MUL(RELU(c), c)
  const int32_t c = builder.AddTensor(Int8("c", {1, 8}, 0.5f, -3), else_graph);
  const int32_t r = builder.AddTensor(Int8("r", {1, 8}, 0.25f, -128), else_graph);
  const int32_t e = builder.AddTensor(Int8("e", {1, 8}, 0.75f, 4), else_graph);
  AddOp(builder, BuiltinOp::kRelu, {c}, {r}, else_graph);
  AddOp(builder, BuiltinOp::kMul, {r, c}, {e}, else_graph, MakeBuiltinOptions(tflite::MulOptionsT{}));
  builder.SetInputs({c}, else_graph);
  builder.SetOutputs({e}, else_graph);
  ControlFlowModel model;
  model.name = condition ? "if_then" : "if_else";
  model.model = builder.Build();
  model.inputs = {Bytes{static_cast<uint8_t>(condition ? 1 : 0)}, Int8Bytes({-128, -60, -7, -3, 0, 9, 77, 127})};
  return model;
}

ControlFlowModel CallOnceModel() {
  ModelBuilder builder;
  const size_t init_graph = builder.AddSubgraph("init");
  // main: CALL_ONCE(init); v = READ(acc); s = ADD(v, x); ASSIGN(acc, s); output s
  const int32_t x = builder.AddTensor(Int8("x", {1, 8}, 0.5f, -3));
  const int32_t handle = builder.AddTensor(Plain("acc_handle", TensorType::kResource, {}));
  const int32_t v = builder.AddTensor(Int8("v", {1, 8}, 0.5f, 1));
  const int32_t s = builder.AddTensor(Int8("s", {1, 8}, 0.5f, 1));
  tflite::CallOnceOptionsT call_once;
  call_once.init_subgraph_index = static_cast<int32_t>(init_graph);
  AddOp(builder, BuiltinOp::kCallOnce, {}, {}, 0, MakeBuiltinOptions(call_once));
  AddOp(builder, BuiltinOp::kVarHandle, {}, {handle}, 0, VarHandle("acc"));
  AddOp(builder, BuiltinOp::kReadVariable, {handle}, {v}, 0);
  AddOp(builder, BuiltinOp::kAdd, {v, x}, {s}, 0, MakeBuiltinOptions(tflite::AddOptionsT{}));
  AddOp(builder, BuiltinOp::kAssignVariable, {handle, s}, {}, 0);
  builder.SetInputs({x});
  builder.SetOutputs({s});
  // init: ASSIGN(acc, constant)
  const int32_t init_handle = builder.AddTensor(Plain("acc_handle", TensorType::kResource, {}), init_graph);
  const int32_t start = builder.AddConstantTensor(Int8("start", {1, 8}, 0.5f, 1),
                                                  Int8Bytes({10, -20, 30, -40, 50, -60, 70, -80}), init_graph);
  AddOp(builder, BuiltinOp::kVarHandle, {}, {init_handle}, init_graph, VarHandle("acc"));
  AddOp(builder, BuiltinOp::kAssignVariable, {init_handle, start}, {}, init_graph);
  ControlFlowModel model;
  model.name = "call_once";
  model.model = builder.Build();
  model.inputs = {Int8Bytes({-128, -60, -7, -3, 0, 9, 77, 127})};
  return model;
}

ControlFlowModel StreamingModel() {
  ModelBuilder builder;
  // main: v = READ(state); s = ADD(v, x); ASSIGN(state, s); output s
  const int32_t x = builder.AddTensor(Plain("x", TensorType::kFloat32, {1, 4}));
  const int32_t handle = builder.AddTensor(Plain("state_handle", TensorType::kResource, {}));
  const int32_t v = builder.AddTensor(Plain("v", TensorType::kFloat32, {1, 4}));
  const int32_t s = builder.AddTensor(Plain("s", TensorType::kFloat32, {1, 4}));
  const int32_t zero =
      builder.AddConstantTensor(Plain("zero", TensorType::kFloat32, {1, 4}), BytesOf(std::vector<float>{0, 0, 0, 0}));
  const int32_t init_value = builder.AddTensor(Plain("init_value", TensorType::kFloat32, {1, 4}));
  AddOp(builder, BuiltinOp::kVarHandle, {}, {handle}, 0, VarHandle("state"));
  // The first ASSIGN sizes the variable (at prepare); it assigns the value the
  // variable already has, so the state survives every Invoke.
  AddOp(builder, BuiltinOp::kReadVariable, {handle}, {init_value}, 0);
  AddOp(builder, BuiltinOp::kAdd, {init_value, zero}, {v}, 0, MakeBuiltinOptions(tflite::AddOptionsT{}));
  const int32_t v2 = builder.AddTensor(Plain("v2", TensorType::kFloat32, {1, 4}));
  AddOp(builder, BuiltinOp::kAdd, {v, x}, {v2}, 0, MakeBuiltinOptions(tflite::AddOptionsT{}));
  AddOp(builder, BuiltinOp::kAssignVariable, {handle, v2}, {}, 0);
  AddOp(builder, BuiltinOp::kAdd, {v2, zero}, {s}, 0, MakeBuiltinOptions(tflite::AddOptionsT{}));
  builder.SetInputs({x});
  builder.SetOutputs({s});
  ControlFlowModel model;
  model.name = "streaming";
  model.model = builder.Build();
  model.inputs = {BytesOf(std::vector<float>{1.0f, -2.0f, 0.5f, 3.0f})};
  return model;
}

ControlFlowModel WhileModel(int32_t limit) {
  ModelBuilder builder;
  const size_t cond_graph = builder.AddSubgraph("cond");
  const size_t body_graph = builder.AddSubgraph("body");
  // main: (n, y) = WHILE(i, x); z = ADD(y, x)
  const int32_t i = builder.AddTensor(Plain("i", TensorType::kFloat32, {1}));
  const int32_t x = builder.AddTensor(Int8("x", {1, 8}, 0.5f, -3));
  const int32_t n = builder.AddTensor(Plain("n", TensorType::kFloat32, {1}));
  const int32_t y = builder.AddTensor(Int8("y", {1, 8}, 0.5f, -3));
  const int32_t z = builder.AddTensor(Int8("z", {1, 8}, 1.0f, 5));
  tflite::WhileOptionsT while_options;
  while_options.cond_subgraph_index = static_cast<int32_t>(cond_graph);
  while_options.body_subgraph_index = static_cast<int32_t>(body_graph);
  AddOp(builder, BuiltinOp::kWhile, {i, x}, {n, y}, 0, MakeBuiltinOptions(while_options));
  AddOp(builder, BuiltinOp::kAdd, {y, x}, {z}, 0, MakeBuiltinOptions(tflite::AddOptionsT{}));
  builder.SetInputs({i, x});
  builder.SetOutputs({n, z});
  // cond: LESS(ci, limit)
  const int32_t ci = builder.AddTensor(Plain("ci", TensorType::kFloat32, {1}), cond_graph);
  const int32_t cx = builder.AddTensor(Int8("cx", {1, 8}, 0.5f, -3), cond_graph);
  const int32_t bound = builder.AddConstantTensor(Plain("limit", TensorType::kFloat32, {1}),
                                                  BytesOf(std::vector<float>{static_cast<float>(limit)}), cond_graph);
  const int32_t flag = builder.AddTensor(Plain("flag", TensorType::kBool, {1}), cond_graph);
  AddOp(builder, BuiltinOp::kLess, {ci, bound}, {flag}, cond_graph);
  builder.SetInputs({ci, cx}, cond_graph);
  builder.SetOutputs({flag}, cond_graph);
  // body: (bi + 1, bx + step)
  const int32_t bi = builder.AddTensor(Plain("bi", TensorType::kFloat32, {1}), body_graph);
  const int32_t bx = builder.AddTensor(Int8("bx", {1, 8}, 0.5f, -3), body_graph);
  const int32_t one =
      builder.AddConstantTensor(Plain("one", TensorType::kFloat32, {1}), BytesOf(std::vector<float>{1.0f}), body_graph);
  const int32_t step =
      builder.AddConstantTensor(Int8("step", {1, 8}, 0.25f, 0), Int8Bytes({1, -2, 3, -4, 5, -6, 7, 9}), body_graph);
  const int32_t bi2 = builder.AddTensor(Plain("bi2", TensorType::kFloat32, {1}), body_graph);
  const int32_t bx2 = builder.AddTensor(Int8("bx2", {1, 8}, 0.5f, -3), body_graph);
  AddOp(builder, BuiltinOp::kAdd, {bi, one}, {bi2}, body_graph, MakeBuiltinOptions(tflite::AddOptionsT{}));
  AddOp(builder, BuiltinOp::kAdd, {bx, step}, {bx2}, body_graph, MakeBuiltinOptions(tflite::AddOptionsT{}));
  builder.SetInputs({bi, bx}, body_graph);
  builder.SetOutputs({bi2, bx2}, body_graph);
  ControlFlowModel model;
  model.name = "while_" + std::to_string(limit);
  model.model = builder.Build();
  model.inputs = {BytesOf(std::vector<float>{0.0f}), Int8Bytes({-128, -60, -7, -3, 0, 9, 77, 127})};
  return model;
}

ControlFlowModel CallOnceEquivalent(int invokes) {
  ModelBuilder builder;
  const int32_t x = builder.AddTensor(Int8("x", {1, 8}, 0.5f, -3));
  int32_t sum =
      builder.AddConstantTensor(Int8("start", {1, 8}, 0.5f, 1), Int8Bytes({10, -20, 30, -40, 50, -60, 70, -80}));
  for (int k = 0; k < invokes; ++k) {
    const int32_t next = builder.AddTensor(Int8("s" + std::to_string(k), {1, 8}, 0.5f, 1));
    AddOp(builder, BuiltinOp::kAdd, {sum, x}, {next}, 0, MakeBuiltinOptions(tflite::AddOptionsT{}));
    sum = next;
  }
  builder.SetInputs({x});
  builder.SetOutputs({sum});
  ControlFlowModel model;
  model.name = "call_once_equivalent_" + std::to_string(invokes);
  model.model = builder.Build();
  model.inputs = CallOnceModel().inputs;
  return model;
}

std::vector<ControlFlowModel> OracleControlFlowModels() {
  return {IfModel(true), IfModel(false), WhileModel(0), WhileModel(1), WhileModel(5)};
}

std::vector<ControlFlowModel> AllControlFlowModels() {
  std::vector<ControlFlowModel> models = OracleControlFlowModels();
  models.push_back(CallOnceModel());
  models.push_back(StreamingModel());
  return models;
}

}  // namespace microarena::control_flow
