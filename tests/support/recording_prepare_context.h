// RecordingPrepareContext: runs one op's prepare outside the interpreter.
// Persistent memory comes from the heap and lives as long as the context;
// every scratch request is recorded (nothing is planned). KernelHarness runs
// kernels with it; tests that compare a kernel's requests with TFLM's read
// what it recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "microarena/kernels/kernel.h"
#include "microarena/model/model_view.h"

namespace microarena::testing {

class RecordingPrepareContext final : public PrepareContext {
 public:
  // Op `op_index` of subgraph 0 of `model`, which must outlive the context.
  RecordingPrepareContext(const ModelView& model, int32_t op_index) : model_(model), op_index_(op_index) {}

  const ModelView& model() const override { return model_; }
  SubgraphView subgraph() const override { return model_.subgraph(0); }
  OperatorView op() const override { return subgraph().op(static_cast<size_t>(op_index_)); }
  void* AllocatePersistent(size_t bytes, size_t /*alignment*/) override {
    // uint64_t storage: aligned for anything the kernels keep.
    persistent_.emplace_back(new uint64_t[bytes / sizeof(uint64_t) + 1]());
    persistent_bytes_ += bytes;
    return persistent_.back().get();
  }
  Status OutOfMemory() const override { return Status::Error(ErrorCode::kOutOfMemory, "the heap never runs out"); }
  Status RequestScratch(size_t bytes, int32_t* scratch_index) override {
    *scratch_index = static_cast<int32_t>(scratch_sizes_.size());
    scratch_sizes_.push_back(bytes);
    return OkStatus();
  }

  int32_t op_index() const { return op_index_; }
  // The bytes of each scratch request in order (the index is its handle).
  const std::vector<size_t>& scratch_sizes() const { return scratch_sizes_; }
  // Persistent bytes asked for, as asked (not rounded).
  size_t persistent_bytes() const { return persistent_bytes_; }

 private:
  const ModelView& model_;
  int32_t op_index_;
  std::vector<std::unique_ptr<uint64_t[]>> persistent_;
  size_t persistent_bytes_ = 0;
  std::vector<size_t> scratch_sizes_;
};

}  // namespace microarena::testing
