// Test helpers for kernel unit tests: build a one-op model with ModelBuilder,
// run it through KernelHarness (tests/support/kernel_harness.h) with a given set of
// kernels, read the output back as typed values. Host tests only.
// conv_test_util.h and shape_op_test_util.h bind it to their kernels.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "tests/support/kernel_harness.h"

namespace microarena::kernel_test {

// A resolver of exactly the listed kernels, so a test cannot reach others:
//   KernelResolver<&kPadKernel, &kMeanKernel>()
template <const KernelRegistration*... kKernels>
const OpResolver& KernelResolver() {
  static constexpr const KernelRegistration* kList[] = {kKernels...};
  static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kList)};
  return resolver;
}

inline TensorSpec Int8(const std::string& name, std::vector<int32_t> shape, float scale, int64_t zero_point) {
  return {name, TensorType::kInt8, std::move(shape), 0, QuantizationSpec::PerTensor(scale, zero_point), false};
}

inline TensorSpec Plain(const std::string& name, TensorType type, std::vector<int32_t> shape) {
  return {name, type, std::move(shape), 0, QuantizationSpec(), false};
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& values) {
  return BytesOf(values);
}

template <typename T>
std::vector<T> Values(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// One op, built and run with the kernels of `resolver` (which must outlive it):
//   OneOp op(BuiltinOp::kPad, resolver);
//   int32_t in = op.Input(Int8("in", {2}, 0.5f, 0), Bytes<int8_t>({1, 2}));
//   op.Constant(Plain("paddings", TensorType::kInt32, {1, 2}), Bytes<int32_t>({1, 0}));
//   op.Output(Int8("out", {3}, 0.5f, 0));
//   ASSERT_TRUE(op.Run().ok());
//   op.Output<int8_t>() == {...}
class OneOp {
 public:
  OneOp(BuiltinOp op, const OpResolver& resolver) : resolver_(resolver) { spec_.op = op; }

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

  // Builds, prepares and (when prepare succeeds) evaluates the op. Returns
  // the first error.
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
    harness_.reset(new testing::KernelHarness(*model_, 0, resolver_));
    for (const auto& feed : feeds_) harness_->SetTensorBytes(feed.first, feed.second);
    Status prepared = harness_->Prepare();
    if (!prepared.ok()) return prepared;
    return harness_->Eval();
  }

  template <typename T>
  std::vector<T> Output() const {
    return Values<T>(harness_->TensorBytes(output_));
  }
  size_t persistent_bytes() const { return harness_->persistent_bytes(); }
  size_t scratch_bytes() const { return harness_->scratch_bytes(); }

 private:
  const OpResolver& resolver_;
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

}  // namespace microarena::kernel_test
