#include "microarena/runtime/host_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <utility>

#include "microarena/analysis/lifetimes.h"
#include "microarena/runtime/input_generator.h"

namespace microarena {

// 64 bytes more than asked, to start at a 64-byte boundary.
HostArena::HostArena(size_t size_bytes)
    : storage_((size_bytes <= kMaxBytes ? size_bytes : 0) + 64), size_bytes_(size_bytes <= kMaxBytes ? size_bytes : 0) {
  auto address = reinterpret_cast<uintptr_t>(storage_.data());
  data_ = storage_.data() + ((64 - (address & 63)) & 63);
}

namespace {

// A PrepareContext that takes persistent memory from the heap and records
// scratch requests.
class RecordingPrepareContext final : public PrepareContext {
 public:
  RecordingPrepareContext(const ModelView& model, size_t subgraph_index, size_t op_index, PrepareRequests& requests,
                          std::vector<std::unique_ptr<uint64_t[]>>& memory, GraphContext& graph)
      : model_(model),
        subgraph_index_(subgraph_index),
        op_index_(op_index),
        requests_(requests),
        memory_(memory),
        graph_(graph) {}
  const ModelView& model() const override { return model_; }
  SubgraphView subgraph() const override { return model_.subgraph(subgraph_index_); }
  GraphContext* graph() override { return &graph_; }
  OperatorView op() const override { return subgraph().op(op_index_); }
  void* AllocatePersistent(size_t bytes, size_t /*alignment*/) override {
    memory_.emplace_back(new uint64_t[bytes / sizeof(uint64_t) + 1]());
    return memory_.back().get();
  }
  Status OutOfMemory() const override { return Error(ErrorCode::kInternal, "heap allocation reported as failed"); }
  Status RequestScratch(size_t bytes, int32_t* scratch_index) override {
    *scratch_index = static_cast<int32_t>(requests_.scratch.size());
    requests_.scratch.push_back(
        ScratchRequest{static_cast<int32_t>(op_index_), bytes, static_cast<int32_t>(subgraph_index_)});
    return OkStatus();
  }
  Status AllowOutputOverlap(size_t input, size_t output, size_t min_displacement_bytes) override {
    // As the interpreter: no overlap in a model with several subgraphs.
    if (model_.subgraph_count() != 1) return OkStatus();
    requests_.overlaps.push_back(OverlapDeclaration{static_cast<int32_t>(op_index_), input_index(input),
                                                    output_index(output), min_displacement_bytes});
    return OkStatus();
  }

 private:
  const ModelView& model_;
  size_t subgraph_index_;
  size_t op_index_;
  PrepareRequests& requests_;
  std::vector<std::unique_ptr<uint64_t[]>>& memory_;
  GraphContext& graph_;
};

// The graph services prepare uses, on the heap: EvalTensors without data
// and resource variables by name.
class RecordingGraph final : public GraphContext {
 public:
  explicit RecordingGraph(const ModelView& model) : tensors_(TotalTensorCount(model)), model_(model) {}
  EvalTensor* tensor(size_t subgraph, size_t tensor) override {
    return &tensors_[FirstTensorOf(model_, subgraph) + tensor];
  }
  Status InvokeSubgraph(size_t subgraph) override {
    return Status::Error(ErrorCode::kInternal, "subgraph %zu cannot run while requests are collected", subgraph);
  }
  Result<int32_t> FindOrCreateResource(const char* container, const char* shared_name) override {
    for (size_t r = 0; r < names_.size(); ++r) {
      if (names_[r] == std::string(container) + '\n' + shared_name) return static_cast<int32_t>(r);
    }
    names_.push_back(std::string(container) + '\n' + shared_name);
    buffers_.emplace_back();
    return static_cast<int32_t>(names_.size() - 1);
  }
  Status AllocateResource(int32_t id, size_t bytes, uint8_t fill) override {
    if (id < 0 || static_cast<size_t>(id) >= buffers_.size()) {
      return Status::Error(ErrorCode::kInvalidArgument, "resource variable %d does not exist", id);
    }
    if (buffers_[static_cast<size_t>(id)].empty()) buffers_[static_cast<size_t>(id)].assign(bytes, fill);
    return OkStatus();
  }
  const ModelView& model() const override { return model_; }
  Span<uint8_t> resource(int32_t id) override {
    if (id < 0 || static_cast<size_t>(id) >= buffers_.size()) return {};
    auto& buffer = buffers_[static_cast<size_t>(id)];
    return Span<uint8_t>(buffer.data(), buffer.size());
  }

 private:
  std::vector<EvalTensor> tensors_;
  const ModelView& model_;
  std::vector<std::string> names_;
  std::vector<std::vector<uint8_t>> buffers_;
};

}  // namespace

Result<std::vector<ScratchRequest>> CollectScratchRequests(const ModelView& model, const OpResolver& resolver) {
  MICROARENA_ASSIGN_OR_RETURN(PrepareRequests requests, CollectPrepareRequests(model, resolver));
  return std::move(requests.scratch);
}

Result<PrepareRequests> CollectPrepareRequests(const ModelView& model, const OpResolver& resolver) {
  PrepareRequests requests;
  std::vector<std::unique_ptr<uint64_t[]>> memory;
  RecordingGraph graph(model);
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    char where[32] = "";
    if (s != 0) std::snprintf(where, sizeof(where), "subgraph %zu, ", s);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      const KernelRegistration* kernel = resolver.Find(subgraph.op(o));
      if (kernel == nullptr && subgraph.op(o).is_custom()) {
        return Status::Error(ErrorCode::kUnsupported, "%sop %zu (custom op '%s'): no kernel is registered for it",
                             where, o, subgraph.op(o).name());
      }
      if (kernel == nullptr) {
        return Status::Error(ErrorCode::kUnsupported, "%sop %zu (%s): no kernel for this op", where, o,
                             subgraph.op(o).name());
      }
      RecordingPrepareContext context(model, s, o, requests, memory, graph);
      const void* op_data = nullptr;
      MICROARENA_RETURN_IF_ERROR(kernel->prepare(context, &op_data));
    }
  }
  return requests;
}

Result<SharedArenaFigures> MeasureSharedArena(const std::vector<const ModelView*>& models, const OpResolver& resolver,
                                              const InterpreterOptions& options) {
  if (options.figures_for != nullptr) {
    return Status::Error(ErrorCode::kUnsupported,
                         "figures for target '%s' are counted for one model at a time, not for a shared arena",
                         options.figures_for->name);
  }
  size_t size = size_t{1} << 20;
  for (;;) {
    HostArena buffer(size);
    SharedArena arena(buffer.data(), buffer.size(), options.alignment_bytes);
    std::vector<std::unique_ptr<Interpreter>> interpreters;
    SharedArenaFigures figures;
    Status status;
    for (size_t m = 0; m < models.size() && status.ok(); ++m) {
      interpreters.push_back(std::make_unique<Interpreter>(*models[m], resolver, arena, options));
      status = interpreters.back()->AllocateTensors();
      if (!status.ok()) {
        char where[32];
        std::snprintf(where, sizeof(where), "model %zu", m + 1);
        status.Prefix(where);
        break;
      }
      ArenaFigures model_figures;
      model_figures.persistent_bytes = interpreters.back()->arena_persistent_size();
      model_figures.head_bytes = interpreters.back()->arena_scratch_size();
      model_figures.temp_peak_bytes = interpreters.back()->arena_temp_peak();
      model_figures.scratch_buffers = interpreters.back()->scratch_buffer_count();
      model_figures.planner = interpreters.back()->planner_used();
      model_figures.kernel_data = interpreters.back()->kernel_data_use();
      // A model's own minimum, as if it were alone (its padding is the arena's).
      model_figures.used_bytes = arena.used_bytes() - arena.persistent_bytes() + model_figures.persistent_bytes -
                                 std::max(arena.head_bytes(), arena.temp_peak_bytes()) +
                                 std::max(model_figures.head_bytes, model_figures.temp_peak_bytes);
      figures.models.push_back(model_figures);
    }
    if (status.ok()) {
      figures.used_bytes = arena.used_bytes();
      figures.persistent_bytes = arena.persistent_bytes();
      figures.head_bytes = arena.head_bytes();
      figures.temp_peak_bytes = arena.temp_peak_bytes();
      return figures;
    }
    if (status.code() != ErrorCode::kOutOfMemory || size >= (size_t{1} << 31)) return status;
    size *= 4;
  }
}

namespace {

// AllocateTensors (with `precomputed` when given) in a generous heap arena,
// then `use(interpreter)`. Starts from a size that holds most MCU models and
// grows on "out of memory".
template <typename Use>
Status WithAllocatedInterpreter(const ModelView& model, const OpResolver& resolver, const InterpreterOptions& options,
                                const PrecomputedPlan* precomputed, Use&& use) {
  size_t size = size_t{1} << 20;
  for (;;) {
    HostArena arena(size);
    Interpreter interpreter(model, resolver, arena.data(), arena.size(), options);
    Status status = precomputed != nullptr ? interpreter.AllocateTensors(*precomputed) : interpreter.AllocateTensors();
    if (status.ok()) {
      use(interpreter);
      return OkStatus();
    }
    if (status.code() != ErrorCode::kOutOfMemory || size >= (size_t{1} << 31)) return status;
    size *= 4;
  }
}

}  // namespace

Result<ArenaFigures> MeasureArena(const ModelView& model, const OpResolver& resolver, const InterpreterOptions& options,
                                  const PrecomputedPlan* precomputed) {
  ArenaFigures figures;
  MICROARENA_RETURN_IF_ERROR(
      WithAllocatedInterpreter(model, resolver, options, precomputed, [&](Interpreter& interpreter) {
        figures.persistent_bytes = interpreter.arena_persistent_size();
        for (size_t u = 0; u < kPersistentUseCount; ++u) {
          figures.persistent_by_use[u] = interpreter.arena_persistent_size(static_cast<PersistentUse>(u));
        }
        figures.persistent_requested_bytes = interpreter.arena_persistent_requested_size();
        figures.head_bytes = interpreter.arena_scratch_size();
        figures.temp_peak_bytes = interpreter.arena_temp_peak();
        figures.used_bytes = interpreter.arena_used_bytes();
        figures.scratch_buffers = interpreter.scratch_buffer_count();
        figures.planner = interpreter.planner_used();
        figures.kernel_data = interpreter.kernel_data_use();
        figures.stored_plan_used = interpreter.stored_plan_used();
        if (options.figures_for != nullptr) {
          // The device's figures: only the persistent area and temp differ.
          const TargetArenaFigures target = interpreter.target_figures();
          figures.target = options.figures_for->name;
          figures.persistent_bytes = target.persistent_bytes;
          for (size_t u = 0; u < kPersistentUseCount; ++u) figures.persistent_by_use[u] = target.persistent_by_use[u];
          figures.persistent_requested_bytes = target.persistent_requested_bytes;
          figures.temp_peak_bytes = target.temp_peak_bytes;
          figures.used_bytes = target.used_bytes;
        }
      }));
  return figures;
}

PrecomputedPlan PrecomputedPlanData::plan() const {
  PrecomputedPlan plan;
  plan.tensor_offsets = tensor_offsets.data();
  plan.tensor_count = tensor_offsets.size();
  plan.scratch_offsets = scratch_offsets.data();
  plan.scratch_count = scratch_offsets.size();
  plan.head_bytes = head_bytes;
  plan.tiled = tiled;
  return plan;
}

Result<PrecomputedPlanData> PrecomputePlan(const ModelView& model, const OpResolver& resolver,
                                           const InterpreterOptions& options) {
  if (model.subgraph_count() != 1) {
    return Status::Error(ErrorCode::kUnsupported,
                         "a precomputed plan is for models with one subgraph; this one has %zu (plan on the device)",
                         model.subgraph_count());
  }
  // Plan once on the host (its own layout: the head is the same on every
  // target, and the offsets do not depend on the arena's size).
  InterpreterOptions host_options = options;
  host_options.figures_for = nullptr;
  PrecomputedPlanData data;
  MICROARENA_RETURN_IF_ERROR(
      WithAllocatedInterpreter(model, resolver, host_options, nullptr, [&](Interpreter& interpreter) {
        data.head_bytes = interpreter.arena_scratch_size();
        data.tiled = options.tiling != nullptr;
        data.planned_with = interpreter.planner_used();
        data.planner_name =
            options.custom_planner != nullptr ? options.custom_planner->name() : PlannerChoiceName(data.planned_with);
        for (size_t t = 0; t < interpreter.tensors_size(); ++t) {
          const size_t offset = interpreter.tensor_offset_bytes(t);
          data.tensor_offsets.push_back(offset == SIZE_MAX ? PrecomputedPlan::kNotInHead
                                                           : static_cast<uint32_t>(offset));
        }
        for (size_t s = 0; s < interpreter.scratch_buffer_count(); ++s) {
          data.scratch_offsets.push_back(static_cast<uint32_t>(interpreter.scratch_offset_bytes(s)));
        }
      }));
  // The figures of allocating with it, where the device would.
  const PrecomputedPlan plan = data.plan();
  MICROARENA_ASSIGN_OR_RETURN(data.figures, MeasureArena(model, resolver, options, &plan));
  return data;
}

Result<size_t> MeasureArenaBytes(const ModelView& model, const OpResolver& resolver,
                                 const InterpreterOptions& options) {
  MICROARENA_ASSIGN_OR_RETURN(ArenaFigures figures, MeasureArena(model, resolver, options));
  return figures.used_bytes;
}

namespace {

// Every non-constant tensor with memory (planned, or a variable in the
// persistent area); tensors no op touches have none.
void CaptureTensors(const ModelView& model, Interpreter& interpreter, std::vector<CapturedTensor>* tensors) {
  size_t g = 0;
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    for (size_t t = 0; t < subgraph.tensor_count(); ++t, ++g) {
      const TensorView view = subgraph.tensor(t);
      const EvalTensor* tensor = interpreter.tensor(g);
      if (view.is_constant() || tensor == nullptr || tensor->data == nullptr) continue;
      // A VAR_HANDLE output points at the op's data: it holds an id, not a value.
      if (view.type() == TensorType::kResource) continue;
      tensors->push_back({s, t, std::vector<uint8_t>(tensor->data, tensor->data + view.byte_size())});
    }
  }
}

}  // namespace

Result<RunResult> RunModel(const ModelView& model, const OpResolver& resolver, const RunOptions& options) {
  RunResult result;
  result.arena_bytes = options.arena_bytes;
  if (result.arena_bytes == 0) {
    MICROARENA_ASSIGN_OR_RETURN(ArenaFigures figures,
                                MeasureArena(model, resolver, options.interpreter, options.precomputed_plan));
    result.arena_bytes = figures.used_bytes;
  }
  if (result.arena_bytes > HostArena::kMaxBytes) {
    return Status::Error(ErrorCode::kInvalidArgument, "an arena of %zu B is larger than a host run takes (at most %zu B)",
                         result.arena_bytes, HostArena::kMaxBytes);
  }
  std::optional<HostArena> arena_memory;
  try {
    arena_memory.emplace(result.arena_bytes);
  } catch (const std::bad_alloc&) {
    return Status::Error(ErrorCode::kIoError, "cannot allocate an arena of %zu B on the host", result.arena_bytes);
  }
  HostArena& arena = *arena_memory;
  Interpreter interpreter(model, resolver, arena.data(), arena.size(), options.interpreter);
  MICROARENA_RETURN_IF_ERROR(options.precomputed_plan != nullptr
                                 ? interpreter.AllocateTensors(*options.precomputed_plan)
                                 : interpreter.AllocateTensors());
  result.used_bytes = interpreter.arena_used_bytes();
  result.persistent_bytes = interpreter.arena_persistent_size();
  result.head_bytes = interpreter.arena_scratch_size();
  result.temp_peak_bytes = interpreter.arena_temp_peak();
  result.lower_bound_bytes = interpreter.lower_bound_bytes();
  result.overlap_permissions = interpreter.overlap_permission_count();
  result.planner = interpreter.planner_used();
  result.kernel_data = interpreter.kernel_data_use();
  result.stored_plan_used = interpreter.stored_plan_used();

  if (options.inputs.size() > interpreter.inputs_size()) {
    return Status::Error(ErrorCode::kInvalidArgument, "%zu input files given but the model has %zu inputs",
                         options.inputs.size(), interpreter.inputs_size());
  }
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    const size_t bytes = interpreter.input_bytes(i);
    std::vector<uint8_t> data(bytes);
    if (i < options.inputs.size()) {
      if (options.inputs[i].size() != bytes) {
        return Status::Error(ErrorCode::kInvalidArgument, "input %zu: %zu bytes given but the tensor holds %zu", i,
                             options.inputs[i].size(), bytes);
      }
      data = options.inputs[i];
    } else {
      GenerateInput(options.seed, interpreter.input(i)->type, data.data(), data.size());
    }
    result.inputs.push_back(data);
  }

  const int repeat = options.repeat < 1 ? 1 : options.repeat;
  double total = 0.0;
  for (int r = 0; r < repeat; ++r) {
    MICROARENA_RETURN_IF_ERROR(interpreter.ResetVariableTensors());
    for (size_t i = 0; i < result.inputs.size(); ++i) {
      if (!result.inputs[i].empty())
        std::memcpy(interpreter.input(i)->data, result.inputs[i].data(), result.inputs[i].size());
    }
    auto start = std::chrono::steady_clock::now();
    MICROARENA_RETURN_IF_ERROR(interpreter.Invoke());
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total += seconds;
    if (r == 0 || seconds < result.invoke_seconds_min) result.invoke_seconds_min = seconds;
    if (r == 0) {
      for (size_t o = 0; o < interpreter.outputs_size(); ++o) {
        const uint8_t* data = interpreter.output(o)->data;
        const size_t bytes = interpreter.output_bytes(o);
        result.outputs.emplace_back(data, data + bytes);
      }
      if (options.capture_tensors) CaptureTensors(model, interpreter, &result.tensors);
    }
  }
  result.invoke_seconds = total / repeat;
  return result;
}

}  // namespace microarena
