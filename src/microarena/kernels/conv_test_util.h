// Test helpers for the convolution, pooling, fully-connected and reshape
// kernel tests: build a one-op model with ModelBuilder, run it through
// KernelHarness with those kernels, read the output back. Host tests only.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "tests/kernel_harness.h"

namespace microarena::conv_test {

inline const OpResolver& Resolver() {
  static constexpr const KernelRegistration* kKernels[] = {
      &kAveragePool2dKernel, &kConv2dKernel,    &kDepthwiseConv2dKernel,
      &kFullyConnectedKernel, &kMaxPool2dKernel, &kReshapeKernel,
  };
  static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kKernels)};
  return resolver;
}

inline TensorSpec Int8(const std::string& name, std::vector<int32_t> shape, float scale, int64_t zero_point) {
  return {name, TensorType::kInt8, std::move(shape), 0, QuantizationSpec::PerTensor(scale, zero_point), false};
}
inline TensorSpec PerChannel(const std::string& name, std::vector<int32_t> shape, std::vector<float> scales,
                             int32_t dimension) {
  std::vector<int64_t> zero_points(scales.size(), 0);
  return {name, TensorType::kInt8, std::move(shape), 0,
          QuantizationSpec::PerChannel(std::move(scales), std::move(zero_points), dimension), false};
}
inline TensorSpec Int32Bias(const std::string& name, std::vector<int32_t> shape, float scale) {
  return {name, TensorType::kInt32, std::move(shape), 0, QuantizationSpec::PerTensor(scale, 0), false};
}
inline TensorSpec Plain(const std::string& name, TensorType type, std::vector<int32_t> shape) {
  return {name, type, std::move(shape), 0, QuantizationSpec(), false};
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& values) {
  return BytesOf(values);
}

// One op, built and run:
//   OneOp op(BuiltinOp::kConv2d);
//   op.Input(Int8("in", {1, 2, 2, 1}, 0.5f, 0), Bytes<int8_t>({...}));
//   op.Constant(PerChannel("filter", {...}, {...}, 0), Bytes<int8_t>({...}));
//   op.Output(Int8("out", {1, 2, 2, 2}, 1.0f, 3));
//   op.Options(conv_options);
//   ASSERT_TRUE(op.Run().ok());
class OneOp {
 public:
  explicit OneOp(BuiltinOp op) { spec_.op = op; }

  // A non-constant input filled with `bytes` before eval.
  int32_t Input(const TensorSpec& spec, std::vector<uint8_t> bytes) {
    const int32_t index = builder_.AddTensor(spec);
    spec_.inputs.push_back(index);
    feeds_.emplace_back(index, std::move(bytes));
    return index;
  }
  int32_t Constant(const TensorSpec& spec, std::vector<uint8_t> bytes) {
    const int32_t index = builder_.AddConstantTensor(spec, std::move(bytes));
    spec_.inputs.push_back(index);
    return index;
  }
  // An omitted optional input (-1).
  void Omitted() { spec_.inputs.push_back(-1); }
  int32_t Output(const TensorSpec& spec) {
    output_ = builder_.AddTensor(spec);
    spec_.outputs.push_back(output_);
    return output_;
  }
  template <typename OptionsT>
  void Options(OptionsT options) {
    spec_.options = MakeBuiltinOptions(std::move(options));
  }

  // Builds, prepares and (when prepare succeeds) evaluates the op; the first error.
  Status Run() {
    std::vector<int32_t> graph_inputs;
    for (const auto& feed : feeds_) graph_inputs.push_back(feed.first);
    builder_.SetInputs(graph_inputs);
    builder_.SetOutputs({output_});
    builder_.AddOperator(std::move(spec_));
    bytes_ = builder_.Build();
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes_.data(), bytes_.size()));
    if (!model.ok()) return model.status();
    model_.reset(new ModelView(*model));
    harness_.reset(new testing::KernelHarness(*model_, 0, Resolver()));
    for (const auto& feed : feeds_) harness_->SetTensorBytes(feed.first, feed.second);
    Status prepared = harness_->Prepare();
    if (!prepared.ok()) return prepared;
    return harness_->Eval();
  }

  template <typename T>
  std::vector<T> Output() const {
    const std::vector<uint8_t> bytes = harness_->TensorBytes(output_);
    std::vector<T> values(bytes.size() / sizeof(T));
    if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
  }
  size_t persistent_bytes() const { return harness_->persistent_bytes(); }
  size_t scratch_bytes() const { return harness_->scratch_bytes(); }

 private:
  ModelBuilder builder_;
  OperatorSpec spec_;
  std::vector<std::pair<int32_t, std::vector<uint8_t>>> feeds_;
  int32_t output_ = -1;
  std::vector<uint8_t> bytes_;
  std::unique_ptr<ModelView> model_;
  std::unique_ptr<testing::KernelHarness> harness_;
};

// Expects `status` to fail with `code` and a message containing `fragment`.
inline void ExpectError(const Status& status, ErrorCode code, const std::string& fragment) {
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(static_cast<int>(status.code()), static_cast<int>(code)) << status.message();
  EXPECT_NE(std::string(status.message()).find(fragment), std::string::npos)
      << "message: " << status.message() << "\nexpected to contain: " << fragment;
}

inline tflite::Conv2DOptionsT ConvOptions(tflite::Padding padding, int32_t stride, int32_t dilation,
                                          tflite::ActivationFunctionType activation) {
  tflite::Conv2DOptionsT options;
  options.padding = padding;
  options.stride_h = options.stride_w = stride;
  options.dilation_h_factor = options.dilation_w_factor = dilation;
  options.fused_activation_function = activation;
  return options;
}

inline tflite::DepthwiseConv2DOptionsT DepthwiseOptions(tflite::Padding padding, int32_t stride, int32_t dilation,
                                                        int32_t depth_multiplier,
                                                        tflite::ActivationFunctionType activation) {
  tflite::DepthwiseConv2DOptionsT options;
  options.padding = padding;
  options.stride_h = options.stride_w = stride;
  options.dilation_h_factor = options.dilation_w_factor = dilation;
  options.depth_multiplier = depth_multiplier;
  options.fused_activation_function = activation;
  return options;
}

inline tflite::Pool2DOptionsT PoolOptions(tflite::Padding padding, int32_t stride, int32_t filter,
                                          tflite::ActivationFunctionType activation) {
  tflite::Pool2DOptionsT options;
  options.padding = padding;
  options.stride_h = options.stride_w = stride;
  options.filter_height = options.filter_width = filter;
  options.fused_activation_function = activation;
  return options;
}

}  // namespace microarena::conv_test
