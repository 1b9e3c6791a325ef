#include "microarena/report/plan_details.h"

#include <fmt/format.h>

#include <algorithm>

namespace microarena::report {

int32_t OpIndexAtStep(const ModelPlan& plan, int32_t step) {
  if (!plan.steps.empty()) {
    return step >= 0 && static_cast<size_t>(step) < plan.steps.size() ? plan.steps[static_cast<size_t>(step)].op : -1;
  }
  if (step >= 0 && static_cast<size_t>(step) < plan.order.size()) return plan.order[static_cast<size_t>(step)];
  return step;
}

int32_t SubgraphAtStep(const ModelPlan& plan, int32_t step) {
  if (step >= 0 && static_cast<size_t>(step) < plan.steps.size()) return plan.steps[static_cast<size_t>(step)].subgraph;
  return 0;
}

std::string OwnerLabel(const BufferRequest& buffer) {
  const std::string prefix = buffer.subgraph_index == 0 ? "" : fmt::format("s{}:", buffer.subgraph_index);
  return prefix + fmt::format(buffer.kind == BufferKind::kTensor ? "t{}" : "op{}", buffer.owner_index);
}

std::string StepLabel(const ModelView& model, const ModelPlan& plan, int32_t step) {
  const int32_t op = OpIndexAtStep(plan, step);
  const int32_t subgraph_index = SubgraphAtStep(plan, step);
  SubgraphView subgraph = model.subgraph(static_cast<size_t>(subgraph_index));
  if (!plan.steps.empty()) {
    if (static_cast<size_t>(step) >= plan.steps.size()) return fmt::format("step {}", step);
    if (op < 0) return fmt::format("enter subgraph {} '{}'", subgraph_index, subgraph.name());
    return fmt::format("s{} op {} {}", subgraph_index, op, subgraph.op(static_cast<size_t>(op)).name());
  }
  if (op < 0 || static_cast<size_t>(op) >= subgraph.operator_count()) return fmt::format("step {}", step);
  return fmt::format("op {} {}", op, subgraph.op(static_cast<size_t>(op)).name());
}

std::string BufferLabel(const ModelView& model, const BufferRequest& buffer) {
  SubgraphView subgraph = model.subgraph(static_cast<size_t>(buffer.subgraph_index));
  if (buffer.kind == BufferKind::kScratch) {
    return fmt::format("{} {} scratch", OwnerLabel(buffer), subgraph.op(static_cast<size_t>(buffer.owner_index)).name());
  }
  return fmt::format("{} {}", OwnerLabel(buffer), subgraph.tensor(static_cast<size_t>(buffer.owner_index)).name());
}

PlanDetails AnalyzePlan(const ModelView& model, const ModelPlan& plan) {
  PlanDetails details;
  int32_t end = 0;
  for (const BufferRequest& b : plan.buffers) end = std::max(end, b.lifetime.end_op);
  SubgraphView subgraph = model.subgraph(0);
  details.step_count = std::max({static_cast<size_t>(end), subgraph.operator_count(), plan.steps.size()});
  details.steps.resize(details.step_count);
  for (size_t s = 0; s < details.step_count; ++s) {
    details.steps[s].step = static_cast<int32_t>(s);
    details.steps[s].op_index = OpIndexAtStep(plan, static_cast<int32_t>(s));
    details.steps[s].subgraph = SubgraphAtStep(plan, static_cast<int32_t>(s));
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    for (int32_t s = b.lifetime.first_op; s < b.lifetime.end_op; ++s) {
      StepLive& step = details.steps[static_cast<size_t>(s)];
      (b.kind == BufferKind::kTensor ? step.tensor_bytes : step.scratch_bytes) += b.size_bytes;
    }
    const size_t requested = i < plan.requested_bytes.size() ? plan.requested_bytes[i] : b.size_bytes;
    details.head_requested_bytes += requested;
    details.head_padding_bytes += b.size_bytes - std::min(requested, b.size_bytes);
    if (b.kind == BufferKind::kScratch &&
        (details.largest_scratch_buffer < 0 ||
         b.size_bytes > plan.buffers[static_cast<size_t>(details.largest_scratch_buffer)].size_bytes)) {
      details.largest_scratch_buffer = static_cast<int64_t>(i);
    }
  }
  // Peaks: the first step reaching the maximum.
  for (const StepLive& step : details.steps) {
    if (step.tensor_bytes > details.activation_peak_bytes) {
      details.activation_peak_bytes = step.tensor_bytes;
      details.activation_peak_step = step.step;
    }
    if (step.scratch_bytes > details.scratch_peak_bytes) {
      details.scratch_peak_bytes = step.scratch_bytes;
      details.scratch_peak_step = step.step;
    }
    if (step.total_bytes() > details.live_peak_bytes) {
      details.live_peak_bytes = step.total_bytes();
      details.live_peak_step = step.step;
    }
  }
  if (details.activation_peak_step >= 0) {
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const BufferRequest& b = plan.buffers[i];
      if (b.kind == BufferKind::kTensor && b.lifetime.Contains(details.activation_peak_step)) {
        details.activation_peak_buffers.push_back(i);
      }
    }
    std::stable_sort(details.activation_peak_buffers.begin(), details.activation_peak_buffers.end(),
                     [&](size_t a, size_t b) { return plan.buffers[a].size_bytes > plan.buffers[b].size_bytes; });
  }

  if (plan.has_runtime) {
    for (size_t u = 0; u < kPersistentUseCount; ++u) {
      details.persistent.push_back({static_cast<PersistentUse>(u), plan.runtime.persistent_by_use[u]});
    }
    details.persistent_padding_bytes =
        plan.runtime.persistent_bytes - std::min(plan.runtime.persistent_requested_bytes, plan.runtime.persistent_bytes);
  }

  ModelSummary summary = Summarize(model, "", model.bytes().size());
  // Every subgraph's layers, one after the other, and their sum.
  details.read_only_total.op_index = -1;
  details.read_only_total.op = "total";
  for (const auto& part : summary.subgraphs) {
    details.read_only_layers.insert(details.read_only_layers.end(), part.layers.begin(), part.layers.end());
    details.read_only_total.weights_bytes += part.flash_total.weights_bytes;
    details.read_only_total.bias_bytes += part.flash_total.bias_bytes;
    details.read_only_total.quantization_bytes += part.flash_total.quantization_bytes;
    details.read_only_unreferenced_bytes += part.unreferenced_constant_bytes;
  }
  return details;
}

}  // namespace microarena::report
