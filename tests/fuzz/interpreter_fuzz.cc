// Fuzz target: the runtime on any model bytes: LoadModel, then
// Interpreter::AllocateTensors in a bounded arena (kArenaBytes), then, when
// that succeeds, inputs from the golden input generator and Invoke (twice,
// resetting variables between, as a device loop would); a model with an
// offline plan runs again with the plan trusted (trust_offline_plan). Errors are fine;
// crashes, sanitizer reports, leaks and writes outside the arena are not
// (the arena is a separate heap block, so ASan sees overruns past it).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/input_generator.h"
#include "microarena/runtime/interpreter.h"
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

void AllocateAndInvoke(const ModelView& model, const InterpreterOptions& options) {
  std::vector<uint8_t> arena(kArenaBytes);
  Interpreter interpreter(model, AllOpsResolver(), arena.data(), arena.size(), options);
  Status allocated = interpreter.AllocateTensors();
  if (!allocated.ok()) {
    RequireMessage(allocated, "AllocateTensors error without a message");
    Require(interpreter.input(0) == nullptr, "input() after a failed AllocateTensors");
    Require(!interpreter.Invoke().ok(), "Invoke succeeded after a failed AllocateTensors");
    return;
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
      return;
    }
    Status reset = interpreter.ResetVariableTensors();
    Require(reset.ok(), "ResetVariableTensors failed after AllocateTensors", reset);
  }
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
  fuzz::AllocateAndInvoke(*model, options);
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
