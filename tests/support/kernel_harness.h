// KernelHarness: runs one op of a model through its kernel's prepare and eval,
// outside the interpreter, with every tensor in its own heap buffer. Kernel
// tests use it to compare one layer with TFLM's tensor dumps, or to check a
// small hand-built model op by op.
//
//   KernelHarness harness(model, op_index, AllOpsResolver());
//   harness.SetTensorBytes(input_tensor, bytes);
//   ASSERT_TRUE(harness.Prepare().ok());
//   ASSERT_TRUE(harness.Eval().ok());
//   std::vector<uint8_t> out = harness.TensorBytes(output_tensor);
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "microarena/kernels/kernel.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "tests/support/recording_prepare_context.h"

namespace microarena::testing {

class KernelHarness {
 public:
  // Variable tensors start as TFLM resets them: int8 state at its zero point,
  // everything else 0. The model must outlive the harness.
  KernelHarness(const ModelView& model, int32_t op_index, const OpResolver& resolver);
  ~KernelHarness();

  // Whether the resolver has a kernel for this op.
  bool has_kernel() const { return kernel_ != nullptr; }
  // Replaces a non-constant tensor's bytes (size must equal its byte size).
  void SetTensorBytes(int32_t tensor_index, const std::vector<uint8_t>& bytes);
  Status Prepare();
  Status Eval();
  std::vector<uint8_t> TensorBytes(int32_t tensor_index) const;
  size_t persistent_bytes() const;
  size_t scratch_bytes() const;

 private:
  class Eval_;
  const ModelView& model_;
  int32_t op_index_;
  const KernelRegistration* kernel_;
  std::vector<EvalTensor> tensors_;
  std::vector<std::unique_ptr<uint64_t[]>> storage_;
  // The last Prepare's context: it holds the op's persistent memory.
  std::unique_ptr<RecordingPrepareContext> prepared_;
  std::vector<std::unique_ptr<uint64_t[]>> scratch_;
  const void* op_data_ = nullptr;
};

}  // namespace microarena::testing
