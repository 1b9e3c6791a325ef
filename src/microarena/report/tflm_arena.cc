#include "microarena/report/tflm_arena.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/builtin_op.h"
#include "microarena/report/format.h"
#include "microarena/report/model_plan.h"
#include "microarena/runtime/host_runner.h"

namespace microarena::report {
namespace {

// TFLM's MicroArenaBufferAlignment(): tensors, op data, the plan.
constexpr size_t kArenaAlignment = 16;
// Scratch requests one op may make; the head keeps room for that many more.
constexpr size_t kMaxScratchBuffersPerOp = 12;
// GreedyMemoryPlanner's arrays per buffer: requirements (16), two sort
// arrays (4 + 4), a list entry (12) and the offset (4).
constexpr size_t kPlannerBytesPerBuffer = 40;
// Any address far from 0, 16-byte aligned: the replay works on addresses so
// that alignment behaves as in TFLM.
constexpr uint64_t kBase = uint64_t{1} << 32;

uint64_t AlignUp(uint64_t value, size_t alignment) { return (value + alignment - 1) / alignment * alignment; }
uint64_t AlignDown(uint64_t value, size_t alignment) { return value / alignment * alignment; }

// TFLM's SingleArenaBufferAllocator on addresses: each call says whether it
// succeeded; the replay stops at the first failure.
class ArenaModel {
 public:
  // `usable_bytes`: the arena's bytes from its first 16-byte boundary on.
  explicit ArenaModel(size_t usable_bytes)
      : buffer_tail_(kBase + usable_bytes), head_(kBase), tail_(kBase + usable_bytes), temp_(kBase) {}

  // Tail allocation; returns the bytes the tail grew by (padding included).
  bool Persistent(size_t bytes, size_t alignment, size_t* grew) {
    if (tail_ - kBase < bytes) return false;
    const uint64_t result = AlignDown(tail_ - bytes, alignment);
    if (result < head_) return false;
    *grew = static_cast<size_t>(tail_ - result);
    tail_ = result;
    return true;
  }
  // A Prepare's persistent allocation while temporary tensors are live.
  // TFLM checks it against the head only, so it may run into the temps; at
  // TFLM's minimum arena it does, as far as the bytes written
  // ([result, result + bytes), padding not written) leave intact what
  // TFLM still reads: the last temp tensor's TfLiteTensor and the
  // zero-point pointer of its TfLiteAffineQuantization (the pointers it
  // frees; the scale pointer and what follows the zero-point pointer are
  // not read again). Deeper, freeing the temps fails.
  bool PersistentOverTemps(size_t bytes, size_t alignment, size_t pointer_bytes, size_t* grew) {
    if (tail_ - kBase < bytes) return false;
    const uint64_t result = AlignDown(tail_ - bytes, alignment);
    if (result < head_) return false;
    if (result < temp_) {
      const uint64_t a = last_affine_;  // 0: no quantized temp, no overlap allowed
      const uint64_t end = result + bytes;
      const bool in_scale_pointer = a != 0 && result >= a && end <= a + pointer_bytes;
      const bool above_zero_points = a != 0 && result >= a + 2 * pointer_bytes;
      if (!in_scale_pointer && !above_zero_points) return false;
    }
    *grew = static_cast<size_t>(tail_ - result);
    tail_ = result;
    return true;
  }
  // Where the last temp tensor's TfLiteAffineQuantization starts (just
  // allocated, `struct_bytes` long); 0 bytes: the last temp has none.
  void MarkTempQuantization(size_t struct_bytes) { last_affine_ = struct_bytes == 0 ? 0 : temp_ - struct_bytes; }
  bool Temp(size_t bytes, size_t alignment) {
    const uint64_t result = AlignUp(temp_, alignment);
    if (result > tail_ || tail_ - result < bytes) return false;
    temp_ = result + bytes;
    peak_ = std::max(peak_, temp_);
    return true;
  }
  void ResetTemp() {
    temp_ = head_;
    last_affine_ = 0;
  }
  // The one resizable buffer at the start of the arena (needs temp reset).
  bool ResizeHead(size_t bytes, size_t alignment) {
    const uint64_t start = AlignUp(kBase, alignment);
    if (start > tail_ || tail_ - start < bytes) return false;
    head_ = start + bytes;
    temp_ = head_;
    peak_ = std::max(peak_, head_);
    return true;
  }
  // GetAvailableMemory(alignment); false when temp has run past the tail.
  bool Available(size_t alignment, size_t* bytes) const {
    const uint64_t from = AlignUp(temp_, alignment);
    const uint64_t to = AlignDown(tail_, alignment);
    if (from > to) return false;
    *bytes = static_cast<size_t>(to - from);
    return true;
  }
  size_t tail_bytes() const { return static_cast<size_t>(buffer_tail_ - tail_); }
  size_t head_bytes() const { return static_cast<size_t>(head_ - kBase); }
  size_t temp_end_bytes() const { return static_cast<size_t>(temp_ - kBase); }
  // Largest of head and temp end since the last TakePeak, from the arena start.
  size_t TakePeak() {
    const size_t peak = static_cast<size_t>(peak_ - kBase);
    peak_ = std::max(head_, temp_);
    return peak;
  }

 private:
  uint64_t buffer_tail_;
  uint64_t head_;
  uint64_t tail_;
  uint64_t temp_;
  uint64_t peak_ = kBase;
  uint64_t last_affine_ = 0;
};

struct TensorQuantization {
  bool allocated = false;  // TFLM copies quantization only with both scales and zero points
  size_t channels = 0;
};

TensorQuantization QuantizationOf(const TensorView& tensor) {
  const tflite::QuantizationParameters* q = tensor.raw()->quantization();
  TensorQuantization result;
  if (q != nullptr && q->scale() != nullptr && q->scale()->size() > 0 && q->zero_point() != nullptr &&
      q->zero_point()->size() > 0) {
    result.allocated = true;
    result.channels = q->scale()->size();
  }
  return result;
}

struct OpRef {
  size_t subgraph = 0;
  size_t op = 0;
};

// Everything the replay needs, computed once per model.
struct Replay {
  const ModelView* model = nullptr;
  const TflmLayout* layout = nullptr;
  std::vector<OpRef> ops;          // every op, subgraph after subgraph (TFLM's order)
  std::vector<TflmOpFacts> facts;  // one per entry of ops
  size_t head_bytes = 0;           // the planned head
  size_t planned_buffers = 0;      // tensors + scratch
  size_t scratch_count = 0;
  size_t start_offset_bytes = 0;  // the arena start's distance past a 16-byte boundary
};

struct ReplayResult {
  bool ok = false;
  std::string failed_at;  // the step that did not fit
  TflmArenaPrediction prediction;
};

size_t TotalTensors(const ModelView& model) {
  size_t count = 0;
  for (size_t s = 0; s < model.subgraph_count(); ++s) count += model.subgraph(s).tensor_count();
  return count;
}

// One TfLiteTensor with its quantization, in temp or in the tail.
bool TensorStruct(ArenaModel& arena, const TflmLayout& layout, const TensorView& tensor, bool temp, size_t* struct_grew,
                  size_t* quantization_grew) {
  const size_t align = layout.pointer_bytes;
  size_t grew = 0;
  if (temp ? !arena.Temp(layout.tflite_tensor_bytes, align)
           : !arena.Persistent(layout.tflite_tensor_bytes, align, &grew)) {
    return false;
  }
  if (temp) arena.MarkTempQuantization(0);  // none yet: this tensor's struct is the last temp
  *struct_grew += grew;
  const TensorQuantization q = QuantizationOf(tensor);
  if (!q.allocated) return true;
  // TfLiteAffineQuantization, then its zero points as a TfLiteIntArray.
  if (temp ? !arena.Temp(layout.affine_quantization_bytes, align)
           : !arena.Persistent(layout.affine_quantization_bytes, align, &grew)) {
    return false;
  }
  if (temp) arena.MarkTempQuantization(layout.affine_quantization_bytes);
  *quantization_grew += grew;
  const size_t zero_points = 4 + 4 * q.channels;
  if (temp ? !arena.Temp(zero_points, 4) : !arena.Persistent(zero_points, 4, &grew)) return false;
  *quantization_grew += grew;
  return true;
}

ReplayResult Run(const Replay& replay, size_t arena_bytes) {
  ReplayResult r;
  TflmArenaPrediction& p = r.prediction;
  const TflmLayout& layout = *replay.layout;
  const size_t ptr = layout.pointer_bytes;
  const ModelView& model = *replay.model;
  const SubgraphView subgraph = model.subgraph(0);
  size_t grew = 0;
  auto fail = [&r](const std::string& where) {
    r.ok = false;
    r.failed_at = where;
    return r;
  };
  // TFLM aligns the arena start up to 16 bytes; the bytes before are lost.
  const size_t lost = (kArenaAlignment - replay.start_offset_bytes % kArenaAlignment) % kArenaAlignment;
  if (arena_bytes < lost) return fail("arena start alignment");
  ArenaModel arena(arena_bytes - lost);

  // MicroInterpreter's constructor: the allocator objects live in the tail.
  if (!arena.Persistent(layout.arena_allocator_bytes, ptr, &grew)) return fail("allocator objects");
  p.tail.allocator_object_bytes += grew;
  if (!arena.Persistent(layout.memory_planner_bytes, ptr, &grew)) return fail("allocator objects");
  p.tail.allocator_object_bytes += grew;
  if (!arena.Persistent(layout.micro_allocator_bytes, ptr, &grew)) return fail("allocator objects");
  p.tail.allocator_object_bytes += grew;

  // AllocateTensors: model allocation starts.
  if (!arena.Persistent(layout.builtin_allocator_bytes, ptr, &grew)) return fail("allocator objects");
  p.tail.allocator_object_bytes += grew;
  if (!arena.ResizeHead(layout.scratch_request_bytes * kMaxScratchBuffersPerOp, ptr)) {
    return fail("scratch request area");
  }
  if (!arena.Persistent(layout.subgraph_allocations_bytes * replay.model->subgraph_count(), ptr, &grew)) {
    return fail("subgraph table");
  }
  p.tail.allocator_object_bytes += grew;
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    if (!arena.Persistent(layout.eval_tensor_bytes * model.subgraph(s).tensor_count(), ptr, &grew)) {
      return fail("eval tensors");
    }
    p.tail.eval_tensor_bytes += grew;
  }
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    if (!arena.Persistent(layout.node_and_registration_bytes * model.subgraph(s).operator_count(), ptr, &grew)) {
      return fail("node and registration array");
    }
    p.tail.node_and_registration_bytes += grew;
  }

  p.ops.resize(replay.ops.size());
  for (size_t i = 0; i < replay.ops.size(); ++i) {
    p.ops[i].subgraph_index = static_cast<int32_t>(replay.ops[i].subgraph);
    p.ops[i].op_index = static_cast<int32_t>(replay.ops[i].op);
    p.ops[i].op_name = BuiltinOpName(model.subgraph(replay.ops[i].subgraph).op(replay.ops[i].op).code());
  }
  // Parsing the options of every op.
  for (size_t i = 0; i < replay.facts.size(); ++i) {
    const TflmOpFacts& f = replay.facts[i];
    if (f.builtin_data_bytes == 0) continue;
    if (!arena.Persistent(f.builtin_data_bytes, f.builtin_data_align, &grew)) return fail("builtin data");
    p.tail.builtin_data_bytes += grew;
    p.ops[i].builtin_data_bytes += grew;
  }
  // Init of every op.
  for (size_t i = 0; i < replay.facts.size(); ++i) {
    const TflmOpFacts& f = replay.facts[i];
    if (f.init_bytes == 0) continue;
    if (!arena.Persistent(f.init_bytes, kArenaAlignment, &grew)) return fail("op data (Init)");
    p.tail.op_data_bytes += grew;
    p.ops[i].op_data_bytes += grew;
  }
  // Prepare of every op; temp is freed and the scratch request area grows after each.
  size_t scratch_count = 0;
  arena.TakePeak();
  for (size_t i = 0; i < replay.facts.size(); ++i) {
    const SubgraphView op_subgraph = model.subgraph(replay.ops[i].subgraph);
    const OperatorView op = op_subgraph.op(replay.ops[i].op);
    const std::string where =
        "Prepare of op " + std::to_string(replay.ops[i].op) +
        (replay.ops[i].subgraph == 0 ? "" : " of subgraph " + std::to_string(replay.ops[i].subgraph)) + " (" +
        p.ops[i].op_name + ")";
    const size_t temp_start = arena.temp_end_bytes();
    size_t ignored = 0;
    for (const TflmPrepareStep& step : replay.facts[i].prepare) {
      switch (step.kind) {
        case TflmPrepareStep::Kind::kTempInput:
        case TflmPrepareStep::Kind::kTempOutput: {
          const Span<const int32_t> slots = step.kind == TflmPrepareStep::Kind::kTempInput ? op.inputs() : op.outputs();
          if (step.index < 0 || static_cast<size_t>(step.index) >= slots.size()) break;
          const int32_t tensor = slots[static_cast<size_t>(step.index)];
          if (tensor < 0) break;
          if (!TensorStruct(arena, layout, op_subgraph.tensor(static_cast<size_t>(tensor)), true, &ignored, &ignored)) {
            return fail(where);
          }
          break;
        }
        case TflmPrepareStep::Kind::kPersistent:
          if (!arena.PersistentOverTemps(step.bytes, kArenaAlignment, ptr, &grew)) return fail(where);
          p.tail.op_data_bytes += grew;
          p.ops[i].op_data_bytes += grew;
          break;
        case TflmPrepareStep::Kind::kScratch:
          ++scratch_count;
          ++p.ops[i].scratch_buffers;
          p.ops[i].scratch_bytes += step.bytes;
          break;
      }
    }
    p.ops[i].prepare_temp_bytes = arena.temp_end_bytes() - temp_start;
    const size_t peak = arena.TakePeak();
    if (peak > p.prepare_peak_bytes) {
      p.prepare_peak_bytes = peak;
      p.prepare_peak_op = static_cast<int32_t>(i);
    }
    arena.ResetTemp();
    if (!arena.ResizeHead(layout.scratch_request_bytes * (scratch_count + kMaxScratchBuffersPerOp), ptr)) {
      return fail("scratch request area after " + where);
    }
  }

  // FinishModelAllocation: scratch handles and variable tensors in the tail.
  if (scratch_count > 0) {
    if (!arena.Persistent(layout.scratch_handle_bytes * scratch_count, ptr, &grew)) return fail("scratch handles");
    p.tail.scratch_handle_bytes += grew;
  }
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    for (size_t t = 0; t < model.subgraph(s).tensor_count(); ++t) {
      const TensorView tensor = model.subgraph(s).tensor(t);
      if (!tensor.is_variable()) continue;
      if (!arena.Persistent(tensor.byte_size(), kArenaAlignment, &grew)) return fail("variable tensors");
      p.tail.variable_tensor_bytes += grew;
    }
  }

  // Planning: allocation info in temp, then all free memory to the planner.
  arena.TakePeak();
  const size_t info_start = arena.temp_end_bytes();
  if (!arena.Temp(ptr * replay.model->subgraph_count(), ptr)) return fail("planning info");
  if (!arena.Temp(layout.allocation_info_bytes * (TotalTensors(model) + scratch_count), ptr)) {
    return fail("planning info");
  }
  p.planning_info_bytes = arena.temp_end_bytes() - info_start;
  size_t available = 0;
  if (!arena.Available(kArenaAlignment, &available)) return fail("planning info");
  p.planner_working_bytes = kPlannerBytesPerBuffer * replay.planned_buffers;
  if (available / kPlannerBytesPerBuffer < replay.planned_buffers) return fail("planner working memory");
  p.planning_peak_bytes =
      static_cast<size_t>(AlignUp(arena.temp_end_bytes(), kArenaAlignment)) + p.planner_working_bytes;
  arena.ResetTemp();
  if (!arena.ResizeHead(0, 1) || !arena.ResizeHead(replay.head_bytes, kArenaAlignment)) return fail("head");

  // The interpreter's persistent TfLiteTensors for inputs and outputs.
  for (const Span<const int32_t>& list : {subgraph.inputs(), subgraph.outputs()}) {
    if (!arena.Persistent(ptr * list.size(), kArenaAlignment, &grew)) return fail("input/output tensors");
    p.tail.io_tensor_bytes += grew;
    for (int32_t t : list) {
      if (!TensorStruct(arena, layout, subgraph.tensor(static_cast<size_t>(t)), false, &p.tail.io_tensor_bytes,
                        &p.tail.io_quantization_bytes)) {
        return fail("input/output tensors");
      }
    }
  }

  r.ok = true;
  p.head_bytes = arena.head_bytes();
  p.tail_bytes = arena.tail_bytes();
  p.arena_used_bytes = p.head_bytes + p.tail_bytes;
  return r;
}

}  // namespace

Result<TflmArenaPrediction> PredictTflmArena(const ModelView& model, const TflmLayout& layout,
                                             size_t arena_start_offset_bytes) {
  const SubgraphView subgraph = model.subgraph(0);
  Replay replay;
  replay.model = &model;
  replay.layout = &layout;
  replay.start_offset_bytes = arena_start_offset_bytes;
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    for (size_t i = 0; i < model.subgraph(s).operator_count(); ++i) replay.ops.push_back(OpRef{s, i});
  }
  MICROARENA_ASSIGN_OR_RETURN(Span<const int32_t> offline, ReadOfflinePlan(model));
  // TFLM keeps variable tensors in the tail unless the offline plan places them.
  for (size_t t = 0; t < subgraph.tensor_count() && t < offline.size(); ++t) {
    if (subgraph.tensor(t).is_variable() && offline[t] >= 0) {
      return Status::Error(ErrorCode::kUnsupported,
                           "TFLM's arena when the offline plan places variable tensor %zu is not modelled", t);
    }
  }

  // TFLM's scratch requests match microarena's kernels for the recurrent ops
  // (recurrent_scratch_parity_test.cc); only those are taken from them.
  std::vector<std::vector<size_t>> kernel_scratch(replay.ops.size());
  bool need_kernel_scratch = false;
  for (const OpRef& ref : replay.ops) {
    const BuiltinOp code = model.subgraph(ref.subgraph).op(ref.op).code();
    need_kernel_scratch |= code == BuiltinOp::kSvdf || code == BuiltinOp::kUnidirectionalSequenceLstm;
  }
  if (need_kernel_scratch) {
    Result<PrepareRequests> requests = CollectPrepareRequests(model, AllOpsResolver());
    if (!requests.ok()) {
      return Status::Error(ErrorCode::kUnsupported, "TFLM's scratch requests for this model are unknown: %s",
                           requests.status().message());
    }
    for (const ScratchRequest& s : requests->scratch) {
      for (size_t i = 0; i < replay.ops.size(); ++i) {
        if (replay.ops[i].subgraph == static_cast<size_t>(s.subgraph_index) &&
            replay.ops[i].op == static_cast<size_t>(s.op_index)) {
          kernel_scratch[i].push_back(s.size_bytes);
        }
      }
    }
  }

  std::string unknown;
  for (size_t i = 0; i < replay.ops.size(); ++i) {
    const OpRef& ref = replay.ops[i];
    TflmOpFacts facts = TflmFactsForOp(model, ref.subgraph, ref.op, layout, kernel_scratch[i]);
    if (!facts.known) {
      if (!unknown.empty()) unknown += "; ";
      unknown += "op " + std::to_string(ref.op) +
                 (ref.subgraph == 0 ? "" : " of subgraph " + std::to_string(ref.subgraph)) + " (" +
                 BuiltinOpName(model.subgraph(ref.subgraph).op(ref.op).code()) + "): " + facts.unknown_reason;
    }
    replay.facts.push_back(std::move(facts));
  }
  if (!unknown.empty()) {
    return Status::Error(ErrorCode::kUnsupported, "TFLM's arena cannot be predicted exactly: unknown %s",
                         unknown.c_str());
  }

  // The head: TFLM's greedy plan of the tensors and the scratch requests.
  ModelPlanOptions plan_options;
  plan_options.planner = offline.empty() ? "greedy-tflm" : "offline";
  plan_options.alignment_bytes = kArenaAlignment;
  plan_options.compare = false;
  for (size_t i = 0; i < replay.facts.size(); ++i) {
    for (const TflmPrepareStep& step : replay.facts[i].prepare) {
      if (step.kind != TflmPrepareStep::Kind::kScratch) continue;
      ScratchRequest request;
      request.subgraph_index = static_cast<int32_t>(replay.ops[i].subgraph);
      request.op_index = static_cast<int32_t>(replay.ops[i].op);
      request.size_bytes = step.bytes;
      plan_options.scratch.push_back(request);
    }
  }
  if (model.subgraph_count() > 1 && !plan_options.scratch.empty()) {
    return Status::Error(ErrorCode::kUnsupported,
                         "TFLM's arena for several subgraphs with scratch buffers is not modelled");
  }
  MICROARENA_ASSIGN_OR_RETURN(ModelPlan plan, PlanModel(model, plan_options));
  replay.head_bytes = plan.head_bytes;
  replay.planned_buffers = plan.buffers.size();
  replay.scratch_count = plan_options.scratch.size();

  // The smallest arena that fits: search from the used bytes of a roomy
  // arena (a lower bound), then re-check the 256 bytes below as TFLM's own
  // measurement does, since alignment can make success non-monotone.
  ReplayResult roomy = Run(replay, size_t{1} << 30);
  if (!roomy.ok) {
    return Status::Error(ErrorCode::kInternal, "the TFLM arena replay failed in a 1 GiB arena at %s",
                         roomy.failed_at.c_str());
  }
  size_t low = roomy.prediction.arena_used_bytes > 256 ? roomy.prediction.arena_used_bytes - 256 : 0;
  size_t high = low;
  while (!Run(replay, high).ok) high = high * 2 + 16;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    if (Run(replay, mid).ok) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  size_t best = high;
  for (size_t below = 1; below <= 256 && below <= high; ++below) {
    if (Run(replay, high - below).ok) best = high - below;
  }
  ReplayResult at_min = Run(replay, best);
  TflmArenaPrediction prediction = at_min.prediction;
  prediction.target = layout.name;
  prediction.pointer_bytes = layout.pointer_bytes;
  prediction.tensor_count = TotalTensors(model);
  prediction.op_count = replay.ops.size();
  prediction.min_arena_bytes = best;
  prediction.planned_scratch_buffers = replay.scratch_count;
  prediction.planned_tensor_buffers = replay.planned_buffers - replay.scratch_count;
  ReplayResult below = Run(replay, best - 1);
  prediction.limited_by = below.ok ? "" : below.failed_at;
  return prediction;
}

namespace {

void Append(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void Append(std::string& out, const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  out += line;
}

}  // namespace

std::string TflmArenaText(const std::string& model_label, const TflmArenaPrediction& p) {
  std::string out;
  auto b = [](size_t bytes) { return Bytes(bytes); };
  Append(out, "model        %s\n", model_label.c_str());
  Append(out,
         "runtime      TFLM (tflite-micro 90b983c2): reference kernels, GreedyMemoryPlanner, MicroMutableOpResolver\n");
  Append(out, "target       %s (%zu-byte pointers), arena start 16-byte aligned\n", p.target.c_str(), p.pointer_bytes);
  Append(out, "\n");
  Append(out, "min arena    %-12s the smallest tensor_arena for which AllocateTensors() succeeds\n",
         b(p.min_arena_bytes).c_str());
  Append(out, "arena used   %-12s arena_used_bytes() = head %s + tail %s\n", b(p.arena_used_bytes).c_str(),
         b(p.head_bytes).c_str(), b(p.tail_bytes).c_str());
  Append(out, "head         %-12s planned: %zu tensor buffers, %zu scratch buffers\n", b(p.head_bytes).c_str(),
         p.planned_tensor_buffers, p.planned_scratch_buffers);
  Append(out, "tail         %-12s persistent, by use (alignment padding counted with the allocation after it):\n",
         b(p.tail_bytes).c_str());
  const TflmTailBreakdown& t = p.tail;
  Append(out, "  eval tensors                %12s  (%zu TfLiteEvalTensor)\n", b(t.eval_tensor_bytes).c_str(),
         p.tensor_count);
  Append(out, "  input/output TfLiteTensors  %12s  (persistent structs + pointer arrays)\n",
         b(t.io_tensor_bytes).c_str());
  Append(out, "  input/output quantization   %12s\n", b(t.io_quantization_bytes).c_str());
  Append(out, "  kernel op data              %12s  (Init op data, per-channel multipliers/shifts)\n",
         b(t.op_data_bytes).c_str());
  Append(out, "  op options (builtin data)   %12s\n", b(t.builtin_data_bytes).c_str());
  Append(out, "  variable tensors            %12s\n", b(t.variable_tensor_bytes).c_str());
  Append(out, "  node and registration       %12s  (%zu ops)\n", b(t.node_and_registration_bytes).c_str(), p.op_count);
  Append(out, "  scratch buffer handles      %12s\n", b(t.scratch_handle_bytes).c_str());
  Append(out, "  allocator objects           %12s  (arena allocator, planner, MicroAllocator, ...)\n",
         b(t.allocator_object_bytes).c_str());
  Append(out, "\n");
  Append(out, "temporary    freed before AllocateTensors() returns; why min arena can exceed arena used:\n");
  if (p.prepare_peak_op >= 0) {
    Append(out, "  Prepare peak   %12s  at op %d (%s): scratch requests + temp TfLiteTensors\n",
           b(p.prepare_peak_bytes).c_str(), p.prepare_peak_op,
           p.ops[static_cast<size_t>(p.prepare_peak_op)].op_name.c_str());
  }
  Append(out, "  planning peak  %12s  scratch requests + plan info %s + planner working memory %s\n",
         b(p.planning_peak_bytes).c_str(), b(p.planning_info_bytes).c_str(), b(p.planner_working_bytes).c_str());
  Append(out, "  limited by     %s (one byte less fails there)\n", p.limited_by.empty() ? "-" : p.limited_by.c_str());
  Append(out, "\n");
  // Ops of called subgraphs (control flow) are numbered "subgraph:op".
  Append(out, "%6s  %-30s %10s %10s %12s %8s\n", "op", "name", "options", "op data", "prepare temp", "scratch");
  for (const TflmOpArena& op : p.ops) {
    const std::string label = op.subgraph_index == 0
                                  ? std::to_string(op.op_index)
                                  : std::to_string(op.subgraph_index) + ":" + std::to_string(op.op_index);
    Append(out, "%6s  %-30s %10s %10s %12s %8zu\n", label.c_str(), Clip(op.op_name, 30).c_str(),
           Thousands(op.builtin_data_bytes).c_str(), Thousands(op.op_data_bytes).c_str(),
           Thousands(op.prepare_temp_bytes).c_str(), op.scratch_buffers);
  }
  return out;
}

nlohmann::json TflmArenaJson(const std::string& model_label, const TflmArenaPrediction& p) {
  nlohmann::json ops = nlohmann::json::array();
  for (const TflmOpArena& op : p.ops) {
    ops.push_back({{"subgraph_index", op.subgraph_index},
                   {"op_index", op.op_index},
                   {"name", op.op_name},
                   {"builtin_data_bytes", op.builtin_data_bytes},
                   {"op_data_bytes", op.op_data_bytes},
                   {"prepare_temp_bytes", op.prepare_temp_bytes},
                   {"scratch_buffers", op.scratch_buffers},
                   {"scratch_bytes", op.scratch_bytes}});
  }
  const TflmTailBreakdown& t = p.tail;
  return {{"model", model_label},
          {"runtime", "tflm"},
          {"tflm_commit", "90b983c2"},
          {"target", p.target},
          {"pointer_bytes", p.pointer_bytes},
          {"min_arena_bytes", p.min_arena_bytes},
          {"arena_used_bytes", p.arena_used_bytes},
          {"head_bytes", p.head_bytes},
          {"tail_bytes", p.tail_bytes},
          {"planned_tensor_buffers", p.planned_tensor_buffers},
          {"planned_scratch_buffers", p.planned_scratch_buffers},
          {"tail",
           {{"eval_tensor_bytes", t.eval_tensor_bytes},
            {"io_tensor_bytes", t.io_tensor_bytes},
            {"io_quantization_bytes", t.io_quantization_bytes},
            {"op_data_bytes", t.op_data_bytes},
            {"builtin_data_bytes", t.builtin_data_bytes},
            {"variable_tensor_bytes", t.variable_tensor_bytes},
            {"node_and_registration_bytes", t.node_and_registration_bytes},
            {"scratch_handle_bytes", t.scratch_handle_bytes},
            {"allocator_object_bytes", t.allocator_object_bytes}}},
          {"temporary",
           {{"prepare_peak_bytes", p.prepare_peak_bytes},
            {"prepare_peak_op", p.prepare_peak_op},
            {"planning_peak_bytes", p.planning_peak_bytes},
            {"planning_info_bytes", p.planning_info_bytes},
            {"planner_working_bytes", p.planner_working_bytes},
            {"limited_by", p.limited_by}}},
          {"ops", ops}};
}

}  // namespace microarena::report
