// Test helpers for the elementwise kernel tests: one-op models built with
// ModelBuilder and run through KernelHarness. Test-only (host).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "tests/support/kernel_harness.h"

namespace microarena::elementwise_test {

// A one-op model: tensors 0..n-1 are the inputs, tensor n the output.
class OneOpModel {
 public:
  OneOpModel(BuiltinOp op, std::vector<TensorSpec> inputs, TensorSpec output,
             tflite::BuiltinOptionsUnion options = {}) {
    ModelBuilder builder;
    OperatorSpec spec;
    spec.op = op;
    for (TensorSpec& input : inputs) spec.inputs.push_back(builder.AddTensor(input));
    spec.outputs.push_back(builder.AddTensor(output));
    spec.options = std::move(options);
    builder.SetInputs(spec.inputs);
    builder.SetOutputs(spec.outputs);
    input_count_ = spec.inputs.size();
    builder.AddOperator(std::move(spec));
    bytes_ = builder.Build();
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes_.data(), bytes_.size()));
    EXPECT_TRUE(model.ok()) << model.status().message();
    model_ = std::make_unique<ModelView>(*model);
    harness_ = std::make_unique<testing::KernelHarness>(*model_, 0, AllOpsResolver());
  }

  Status Prepare() { return harness_->Prepare(); }

  // Sets input `i` from typed values.
  template <typename T>
  void SetInput(size_t i, const std::vector<T>& values) {
    harness_->SetTensorBytes(static_cast<int32_t>(i), BytesOf(values));
  }

  // Prepares, runs and returns the output as T values (empty on failure).
  template <typename T>
  std::vector<T> Run() {
    Status prepared = harness_->Prepare();
    EXPECT_TRUE(prepared.ok()) << prepared.message();
    if (!prepared.ok()) return {};
    Status evaluated = harness_->Eval();
    EXPECT_TRUE(evaluated.ok()) << evaluated.message();
    std::vector<uint8_t> bytes = harness_->TensorBytes(static_cast<int32_t>(input_count_));
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
  }

 private:
  std::vector<uint8_t> bytes_;
  std::unique_ptr<ModelView> model_;
  std::unique_ptr<testing::KernelHarness> harness_;
  size_t input_count_ = 0;
};

inline TensorSpec Tensor(TensorType type, std::vector<int32_t> shape, float scale = 0.0f, int64_t zero_point = 0) {
  TensorSpec spec;
  spec.name = "t";
  spec.type = type;
  spec.shape = std::move(shape);
  if (scale != 0.0f) spec.quantization = QuantizationSpec::PerTensor(scale, zero_point);
  return spec;
}

}  // namespace microarena::elementwise_test
