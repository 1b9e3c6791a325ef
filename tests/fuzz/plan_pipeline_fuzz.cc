// Fuzz target: the planning pipeline on any model bytes:
//   LoadModel -> kernel Prepare (scratch requests) -> AnalyzeLifetimes
//   -> every device planner -> CheckPlan (independent checker) + lower bound.
// Each stage may reject the input with an error; a planner that succeeds must
// produce a plan the checker accepts, with a head no smaller than the lower
// bound (device planners never overlap buffers).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "microarena/analysis/lifetimes.h"
#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_targets.h"

int microarena::fuzz::PlanPipelineOneInput(const uint8_t* data, size_t size) {
  using namespace microarena;
  fuzz::AlignedBytes bytes(data, size);
  Result<ModelView> model = LoadModel(bytes.span());
  if (!model.ok()) return 0;
  if (model->subgraph_count() != 1) return 0;
  Result<std::vector<ScratchRequest>> scratch = CollectScratchRequests(*model, AllOpsResolver());
  if (!scratch.ok()) {
    fuzz::RequireMessage(scratch.status(), "kernel Prepare error without a message");
    return 0;
  }
  Result<Span<const int32_t>> offline = ReadOfflinePlan(*model);
  SubgraphView subgraph = model->subgraph(0);
  std::vector<BufferRequest> requests(LifetimeCapacity(subgraph, scratch->size()));
  for (size_t alignment : {size_t{16}, size_t{4}}) {
    for (bool use_offline : {false, true}) {
      if (use_offline && (!offline.ok() || offline->empty())) continue;
      LifetimeOptions options;
      options.alignment_bytes = alignment;
      if (use_offline) options.fixed_offsets_bytes = *offline;
      Result<size_t> count =
          AnalyzeLifetimes(*model, 0, Span<const ScratchRequest>(scratch->data(), scratch->size()), options,
                           Span<BufferRequest>(requests.data(), requests.size()));
      if (!count.ok()) {
        fuzz::RequireMessage(count.status(), "AnalyzeLifetimes error without a message");
        continue;
      }
      fuzz::PlanWithEveryPlanner(Span<const BufferRequest>(requests.data(), *count), alignment);
    }
  }
  return 0;
}

MICROARENA_FUZZ_ENTRY_POINT(PlanPipelineOneInput)
