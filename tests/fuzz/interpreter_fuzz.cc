// Fuzz target: the runtime on any model bytes: LoadModel, then
// Interpreter::AllocateTensors in a bounded arena (kArenaBytes), then, when
// that succeeds, inputs from the golden input generator and Invoke (twice,
// resetting variables between, as a device loop would); a model with an
// offline plan runs again with the plan trusted (trust_offline_plan); a
// model that fits runs once more with a precomputed plan (the host's, with
// offsets, counts and head size changed by the input's bytes), which the
// device checks only for bounds; a model carrying kernel data
// (runtime/kernel_data.h) runs once more with the blob's payload hash made
// to match whatever the input holds, so mutated entry tables and data reach
// the table checks and the byte comparison at Prepare. Errors are fine;
// crashes, sanitizer reports, leaks and writes outside the arena are not
// (the arena is a separate heap block, so ASan sees overruns past it).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/input_generator.h"
#include "microarena/runtime/interpreter.h"
#include "microarena/runtime/kernel_data.h"
#include "microarena/runtime/precomputed_plan.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_targets.h"

namespace {
// Holds the small shared models (kws_ref_model needs 24 KB) so they reach
// Invoke; the big ones (vww, resnet: 55-100 KB and 100+ M instructions per
// Invoke) stop at "arena too small", which keeps executions fast.
constexpr size_t kArenaBytes = 32 * 1024;
}  // namespace

namespace microarena::fuzz {
namespace {

// Allocates with `plan` (null: the interpreter plans) and invokes; false
// when AllocateTensors refused.
bool AllocateAndInvoke(const ModelView& model, const InterpreterOptions& options,
                       const PrecomputedPlan* plan = nullptr) {
  std::vector<uint8_t> arena(kArenaBytes);
  Interpreter interpreter(model, AllOpsResolver(), arena.data(), arena.size(), options);
  Status allocated = plan != nullptr ? interpreter.AllocateTensors(*plan) : interpreter.AllocateTensors();
  if (!allocated.ok()) {
    RequireMessage(allocated, "AllocateTensors error without a message");
    Require(interpreter.input(0) == nullptr, "input() after a failed AllocateTensors");
    Require(!interpreter.Invoke().ok(), "Invoke succeeded after a failed AllocateTensors");
    return false;
  }
  Require(interpreter.arena_used_bytes() <= kArenaBytes, "arena_used_bytes beyond the arena");
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    EvalTensor* input = interpreter.input(i);
    Require(input != nullptr, "input() null after AllocateTensors");
    // A constant input points into the model: leave it alone.
    if (model.subgraph(0).tensor(static_cast<size_t>(model.subgraph(0).inputs()[i])).is_constant()) continue;
    GenerateInput(1, input->type, static_cast<uint8_t*>(input->data), interpreter.input_bytes(i));
  }
  for (int run = 0; run < 2; ++run) {
    Status invoked = interpreter.Invoke();
    if (!invoked.ok()) {
      RequireMessage(invoked, "Invoke error without a message");
      return true;
    }
    Status reset = interpreter.ResetVariableTensors();
    Require(reset.ok(), "ResetVariableTensors failed after AllocateTensors", reset);
  }
  return true;
}

// The host's precomputed plan for `model`, changed by `data`: each byte
// picks what happens to one offset (kept, moved to the head's end or
// past the arena, misaligned, or taken out of the head), and the last byte
// may change the head size and the counts. The device checks bounds, not
// overlaps (a plan from `plan` is verified on the host), so no mutation
// moves a buffer onto another inside the head: it must refuse the plan or
// stay inside the arena.
void RunMutatedPrecomputedPlan(const ModelView& model, const InterpreterOptions& options, const uint8_t* data,
                               size_t size) {
  Result<PrecomputedPlanData> host = PrecomputePlan(model, AllOpsResolver(), options);
  if (!host.ok() || size == 0) return;
  std::vector<uint32_t> tensors = host->tensor_offsets;
  std::vector<uint32_t> scratch = host->scratch_offsets;
  size_t head_bytes = host->head_bytes;
  auto mutate = [&](std::vector<uint32_t>& offsets, size_t salt) {
    for (size_t i = 0; i < offsets.size(); ++i) {
      const uint8_t byte = data[(i * 7 + salt) % size];
      switch (byte % 8) {
        case 0: offsets[i] = static_cast<uint32_t>(head_bytes) + (byte & 0xF0u); break;  // at or past the head's end
        case 1: offsets[i] = PrecomputedPlan::kNotInHead; break;
        case 2: offsets[i] = static_cast<uint32_t>(kArenaBytes) - byte; break;  // near or past the arena's end
        case 3: offsets[i] += 1; break;                                         // misaligned
        default: break;                                                         // kept
      }
    }
  };
  mutate(tensors, 0);
  mutate(scratch, 3);
  const uint8_t last = data[size - 1];
  if (last % 5 == 0) head_bytes = head_bytes / 2;  // buffers past the head's end
  if (last % 7 == 0 && !tensors.empty()) tensors.pop_back();
  if (last % 11 == 0) scratch.push_back(0);
  PrecomputedPlan plan;
  plan.tensor_offsets = tensors.data();
  plan.tensor_count = tensors.size();
  plan.scratch_offsets = scratch.data();
  plan.scratch_count = scratch.size();
  plan.head_bytes = head_bytes;
  AllocateAndInvoke(model, options, &plan);
}

// The model with its kernel data's payload hash recomputed over the bytes
// the input holds (a hash check no longer refuses it).
void RunRehashedKernelData(const uint8_t* data, size_t size, const InterpreterOptions& options) {
  AlignedBytes bytes(data, size);
  Result<ModelView> model = LoadModel(bytes.span());
  if (!model.ok()) return;
  Span<const uint8_t> blob = model->metadata(kKernelDataMetadataName);
  if (blob.size() < kKernelDataHeaderBytes) return;
  std::vector<uint8_t> copy(data, data + size);
  const size_t at = static_cast<size_t>(blob.data() - bytes.span().data());
  const uint64_t hash = Fnv1a64(copy.data() + at + kKernelDataHeaderBytes, blob.size() - kKernelDataHeaderBytes);
  std::memcpy(copy.data() + at + 24, &hash, sizeof(hash));
  AlignedBytes rehashed(copy.data(), copy.size());
  Result<ModelView> again = LoadModel(rehashed.span());
  if (again.ok()) AllocateAndInvoke(*again, options);
}

}  // namespace
}  // namespace microarena::fuzz

int microarena::fuzz::InterpreterOneInput(const uint8_t* data, size_t size) {
  using namespace microarena;
  fuzz::AlignedBytes bytes(data, size);
  Result<ModelView> model = LoadModel(bytes.span());
  if (!model.ok()) return 0;
  // A WHILE that never ends would hang the fuzzer (TFLM's too): bounded here.
  InterpreterOptions options;
  options.max_loop_iterations = 256;
  const bool fits = fuzz::AllocateAndInvoke(*model, options);
  if (fits) fuzz::RunMutatedPrecomputedPlan(*model, options, data, size);
  if (model->has_metadata(kKernelDataMetadataName)) fuzz::RunRehashedKernelData(data, size, options);
  // A model with its own offline plan runs once more with that plan trusted
  // (overlaps the model asks for, as Vela's do): any offsets the file holds
  // must still keep every access inside the arena.
  Result<Span<const int32_t>> offline = ReadOfflinePlan(*model);
  if (offline.ok() && !offline->empty()) {
    InterpreterOptions trusted = options;
    trusted.trust_offline_plan = true;
    fuzz::AllocateAndInvoke(*model, trusted);
  }
  return 0;
}

MICROARENA_FUZZ_ENTRY_POINT(InterpreterOneInput)
