#include "microarena/plan/reorder.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "microarena/base/align.h"
#include "microarena/plan/lower_bound.h"

namespace microarena {

namespace {

constexpr size_t kNoValue = static_cast<size_t>(-1);

// The subgraph as a dependency graph with byte counts per op.
struct OpGraph {
  size_t op_count = 0;
  std::vector<std::vector<int32_t>> predecessors;  // per op, distinct
  std::vector<std::vector<int32_t>> reads;         // planned tensors read, distinct
  std::vector<std::vector<int32_t>> writes;        // planned tensors written, distinct
  std::vector<size_t> scratch_bytes;               // per op, aligned
  std::vector<size_t> tensor_bytes;                // per tensor, aligned; 0 when not planned
  std::vector<int32_t> reader_count;               // per tensor: distinct ops reading it
  std::vector<bool> is_output;                     // subgraph outputs (live to the end)
  size_t initial_resident = 0;  // inputs that some op reads or that are outputs
  size_t first_step_extra = 0;  // inputs nobody reads: live at step 0 only
  bool reorderable = true;
  std::string note;
};

void AddDistinct(std::vector<int32_t>& list, int32_t value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

Result<OpGraph> BuildGraph(const ModelView& model, Span<const ScratchRequest> scratch, size_t alignment) {
  SubgraphView subgraph = model.subgraph(0);
  OpGraph graph;
  graph.op_count = subgraph.operator_count();
  const size_t tensor_count = subgraph.tensor_count();
  graph.predecessors.resize(graph.op_count);
  graph.reads.resize(graph.op_count);
  graph.writes.resize(graph.op_count);
  graph.scratch_bytes.assign(graph.op_count, 0);
  graph.tensor_bytes.assign(tensor_count, 0);
  graph.reader_count.assign(tensor_count, 0);
  graph.is_output.assign(tensor_count, false);

  std::vector<bool> is_input(tensor_count, false);
  for (int32_t t : subgraph.inputs()) is_input[static_cast<size_t>(t)] = true;
  for (int32_t t : subgraph.outputs()) graph.is_output[static_cast<size_t>(t)] = true;
  for (size_t t = 0; t < tensor_count; ++t) {
    TensorView tensor = subgraph.tensor(t);
    if (tensor.is_constant() || tensor.is_variable()) continue;
    if (!AlignUp(tensor.byte_size(), alignment, &graph.tensor_bytes[t])) {
      return Status::Error(ErrorCode::kMalformedModel, "tensor %zu: %zu bytes overflow when aligned", t,
                           tensor.byte_size());
    }
  }
  for (const ScratchRequest& request : scratch) {
    if (request.op_index < 0 || static_cast<size_t>(request.op_index) >= graph.op_count) {
      return Status::Error(ErrorCode::kInvalidArgument, "a scratch request names op %d, outside [0, %zu)",
                           request.op_index, graph.op_count);
    }
    size_t bytes = 0;
    if (!AlignUp(request.size_bytes, alignment, &bytes)) {
      return Status::Error(ErrorCode::kInvalidArgument, "op %d: scratch of %zu bytes overflows when aligned",
                           request.op_index, request.size_bytes);
    }
    graph.scratch_bytes[static_cast<size_t>(request.op_index)] += bytes;
  }

  // A tensor some op reads but no op writes (e.g. Vela's scratch areas) is
  // open at the start (analysis/lifetimes.h rule 10): live from step 0 like
  // an input, whatever the order.
  std::vector<bool> written(tensor_count, false);
  for (size_t o = 0; o < graph.op_count; ++o) {
    for (int32_t t : subgraph.op(o).outputs()) written[static_cast<size_t>(t)] = true;
  }
  for (size_t o = 0; o < graph.op_count; ++o) {
    for (int32_t t : subgraph.op(o).inputs()) {
      if (t >= 0 && !written[static_cast<size_t>(t)]) is_input[static_cast<size_t>(t)] = true;
    }
  }

  std::vector<int32_t> writer(tensor_count, -1);
  std::vector<int32_t> last_variable_user(tensor_count, -1);
  for (size_t o = 0; o < graph.op_count; ++o) {
    OperatorView op = subgraph.op(o);
    const auto index = static_cast<int32_t>(o);
    for (int32_t t : op.inputs()) {
      if (t < 0) continue;
      const auto tu = static_cast<size_t>(t);
      TensorView tensor = subgraph.tensor(tu);
      if (tensor.is_variable()) {
        if (last_variable_user[tu] >= 0) AddDistinct(graph.predecessors[o], last_variable_user[tu]);
        last_variable_user[tu] = index;
        continue;
      }
      if (tensor.is_constant()) continue;
      if (writer[tu] >= 0) {
        AddDistinct(graph.predecessors[o], writer[tu]);
      } else if (!is_input[tu]) {
        // Read before a later op writes it: the read does not count (rule
        // 10) and depends on the order in a way the live-set model does
        // not capture. Keep the stored order.
        graph.reorderable = false;
        graph.note = "tensor " + std::to_string(t) + " is read before the op that writes it";
        continue;
      }
      AddDistinct(graph.reads[o], t);
    }
    for (int32_t t : op.outputs()) {
      const auto tu = static_cast<size_t>(t);
      TensorView tensor = subgraph.tensor(tu);
      if (tensor.is_variable()) {
        if (last_variable_user[tu] >= 0 && last_variable_user[tu] != index) {
          AddDistinct(graph.predecessors[o], last_variable_user[tu]);
        }
        last_variable_user[tu] = index;
        continue;
      }
      if (tensor.is_constant()) continue;
      if (writer[tu] >= 0 || is_input[tu] ||
          std::find(graph.reads[o].begin(), graph.reads[o].end(), t) != graph.reads[o].end()) {
        // Written twice, or an input overwritten: order-sensitive in ways the
        // live-set model does not capture. Keep the stored order.
        graph.reorderable = false;
        graph.note = "tensor " + std::to_string(t) + " is written by more than one op or is also an input";
      }
      writer[tu] = index;
      AddDistinct(graph.writes[o], t);
    }
  }
  for (size_t o = 0; o < graph.op_count; ++o) {
    for (int32_t t : graph.reads[o]) ++graph.reader_count[static_cast<size_t>(t)];
  }
  for (size_t tu = 0; tu < tensor_count; ++tu) {
    if (!is_input[tu] || graph.tensor_bytes[tu] == 0) continue;
    if (graph.reader_count[tu] > 0 || graph.is_output[tu]) {
      graph.initial_resident += graph.tensor_bytes[tu];
    } else {
      graph.first_step_extra += graph.tensor_bytes[tu];
    }
  }
  return graph;
}

// Executes ops one at a time and keeps the live bytes between steps.
class Execution {
 public:
  explicit Execution(const OpGraph& graph)
      : graph_(graph),
        done_(graph.op_count, false),
        missing_predecessors_(graph.op_count),
        readers_left_(graph.reader_count),
        resident_(graph.initial_resident),
        key_((graph.op_count + 63) / 64, 0) {
    for (size_t o = 0; o < graph.op_count; ++o) {
      missing_predecessors_[o] = static_cast<int32_t>(graph.predecessors[o].size());
    }
    successors_.resize(graph.op_count);
    for (size_t o = 0; o < graph.op_count; ++o) {
      for (int32_t p : graph.predecessors[o]) successors_[static_cast<size_t>(p)].push_back(static_cast<int32_t>(o));
    }
  }

  bool Ready(size_t o) const { return !done_[o] && missing_predecessors_[o] == 0; }
  size_t done_count() const { return done_count_; }
  size_t resident() const { return resident_; }
  const std::vector<uint64_t>& key() const { return key_; }

  // Bytes live while op `o` runs next.
  size_t StepBytes(size_t o) const {
    size_t bytes = resident_ + graph_.scratch_bytes[o];
    for (int32_t t : graph_.writes[o]) bytes += graph_.tensor_bytes[static_cast<size_t>(t)];
    if (done_count_ == 0) bytes += graph_.first_step_extra;
    return bytes;
  }

  // Bytes that stop being live once `o` has run (for the greedy tie-break).
  size_t FreedBy(size_t o) const {
    size_t freed = 0;
    for (int32_t t : graph_.reads[o]) {
      const auto tu = static_cast<size_t>(t);
      if (readers_left_[tu] == 1 && !graph_.is_output[tu]) freed += graph_.tensor_bytes[tu];
    }
    return freed;
  }

  void Run(size_t o) {
    done_[o] = true;
    ++done_count_;
    key_[o / 64] |= uint64_t{1} << (o % 64);
    for (int32_t s : successors_[o]) --missing_predecessors_[static_cast<size_t>(s)];
    for (int32_t t : graph_.writes[o]) {
      const auto tu = static_cast<size_t>(t);
      if (graph_.reader_count[tu] > 0 || graph_.is_output[tu]) resident_ += graph_.tensor_bytes[tu];
    }
    for (int32_t t : graph_.reads[o]) {
      const auto tu = static_cast<size_t>(t);
      if (--readers_left_[tu] == 0 && !graph_.is_output[tu]) resident_ -= graph_.tensor_bytes[tu];
    }
  }

  void Undo(size_t o) {
    for (int32_t t : graph_.reads[o]) {
      const auto tu = static_cast<size_t>(t);
      if (readers_left_[tu]++ == 0 && !graph_.is_output[tu]) resident_ += graph_.tensor_bytes[tu];
    }
    for (int32_t t : graph_.writes[o]) {
      const auto tu = static_cast<size_t>(t);
      if (graph_.reader_count[tu] > 0 || graph_.is_output[tu]) resident_ -= graph_.tensor_bytes[tu];
    }
    for (int32_t s : successors_[o]) ++missing_predecessors_[static_cast<size_t>(s)];
    key_[o / 64] &= ~(uint64_t{1} << (o % 64));
    --done_count_;
    done_[o] = false;
  }

 private:
  const OpGraph& graph_;
  std::vector<std::vector<int32_t>> successors_;
  std::vector<bool> done_;
  std::vector<int32_t> missing_predecessors_;
  std::vector<int32_t> readers_left_;
  size_t resident_;
  size_t done_count_ = 0;
  std::vector<uint64_t> key_;
};

// Peak of a given order under the live-set model.
size_t PeakOf(const OpGraph& graph, const std::vector<int32_t>& order) {
  Execution run(graph);
  size_t peak = 0;
  for (int32_t o : order) {
    peak = std::max(peak, run.StepBytes(static_cast<size_t>(o)));
    run.Run(static_cast<size_t>(o));
  }
  return peak;
}

std::vector<int32_t> GreedyOrder(const OpGraph& graph) {
  Execution run(graph);
  std::vector<int32_t> order;
  order.reserve(graph.op_count);
  while (order.size() < graph.op_count) {
    size_t best = graph.op_count;
    for (size_t o = 0; o < graph.op_count; ++o) {
      if (!run.Ready(o)) continue;
      if (best == graph.op_count) {
        best = o;
        continue;
      }
      const size_t step = run.StepBytes(o);
      const size_t best_step = run.StepBytes(best);
      if (step < best_step || (step == best_step && run.FreedBy(o) > run.FreedBy(best))) best = o;
    }
    order.push_back(static_cast<int32_t>(best));
    run.Run(best);
  }
  return order;
}

struct KeyHash {
  size_t operator()(const std::vector<uint64_t>& key) const {
    uint64_t hash = 0x9E3779B97F4A7C15ull;
    for (uint64_t word : key) hash = (hash ^ word) * 0xBF58476D1CE4E5B9ull + (hash >> 29);
    return static_cast<size_t>(hash);
  }
};

// The memoised search over executed-op sets. Values at or above `ceiling`
// (an order known to reach it exists) are recorded as `ceiling`: only orders
// strictly below it are looked for.
class ExactSearch {
 public:
  ExactSearch(const OpGraph& graph, size_t ceiling, const ReorderOptions& options)
      : graph_(graph), run_(graph), ceiling_(ceiling), options_(options), start_(std::chrono::steady_clock::now()) {}

  // f(empty set); kNoValue when a limit stopped the search.
  size_t Solve() { return Value(); }

  // The order that reaches Solve()'s value (call after a complete Solve).
  std::vector<int32_t> Order() {
    std::vector<int32_t> order;
    const size_t target = Value();
    while (run_.done_count() < graph_.op_count) {
      size_t chosen = graph_.op_count;
      for (size_t o = 0; o < graph_.op_count && chosen == graph_.op_count; ++o) {
        if (!run_.Ready(o)) continue;
        const size_t step = run_.StepBytes(o);
        if (step > target) continue;
        run_.Run(o);
        const size_t rest = Value();
        if (std::max(step, rest) <= target) {
          chosen = o;
        } else {
          run_.Undo(o);
        }
      }
      if (chosen == graph_.op_count) return {};  // cannot happen after a complete search
      order.push_back(static_cast<int32_t>(chosen));
    }
    return order;
  }

  size_t states() const { return memo_.size(); }
  bool stopped() const { return stopped_; }

 private:
  size_t Value() {
    if (run_.done_count() == graph_.op_count) return 0;
    auto found = memo_.find(run_.key());
    if (found != memo_.end()) return found->second;
    if (stopped_ || OverLimit()) {
      stopped_ = true;
      return kNoValue;
    }
    size_t best = ceiling_;
    for (size_t o = 0; o < graph_.op_count; ++o) {
      if (!run_.Ready(o)) continue;
      const size_t step = run_.StepBytes(o);
      if (step >= best) continue;  // max(step, ...) cannot beat best
      run_.Run(o);
      const size_t rest = Value();
      run_.Undo(o);
      if (rest == kNoValue) return kNoValue;
      best = std::min(best, std::max(step, rest));
    }
    memo_.emplace(run_.key(), best);
    return best;
  }

  bool OverLimit() {
    if (memo_.size() >= options_.max_states) return true;
    if (options_.time_limit_seconds <= 0 || (++calls_ & 1023) != 0) return false;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return elapsed > options_.time_limit_seconds;
  }

  const OpGraph& graph_;
  Execution run_;
  size_t ceiling_;
  ReorderOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::unordered_map<std::vector<uint64_t>, size_t, KeyHash> memo_;
  size_t calls_ = 0;
  bool stopped_ = false;
};

}  // namespace

Result<ReorderResult> FindBestOrder(const ModelView& model, Span<const ScratchRequest> scratch,
                                    const ReorderOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  // Validates the model and the stored order exactly as planning would.
  Result<size_t> stored_peak = PeakLiveBytes(model, scratch, {}, options.alignment_bytes);
  if (!stored_peak.ok()) return stored_peak.status();
  MICROARENA_ASSIGN_OR_RETURN(OpGraph graph, BuildGraph(model, scratch, options.alignment_bytes));

  ReorderResult result;
  result.stored_peak_bytes = *stored_peak;
  result.order.resize(graph.op_count);
  for (size_t o = 0; o < graph.op_count; ++o) result.order[o] = static_cast<int32_t>(o);
  result.peak_bytes = result.stored_peak_bytes;
  auto finish = [&]() {
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (!graph.reorderable) {
    result.method = "stored";
    result.note = graph.note;
    return finish();
  }
  if (graph.op_count <= 1) {
    result.method = "stored";
    result.proven_optimal = true;  // one order only
    return finish();
  }
  if (PeakOf(graph, result.order) != result.stored_peak_bytes) {
    return Status::Error(ErrorCode::kInternal, "reorder: live-set peak %zu of the stored order differs from the "
                         "lower bound %zu", PeakOf(graph, result.order), result.stored_peak_bytes);
  }

  std::vector<int32_t> greedy = GreedyOrder(graph);
  const size_t greedy_peak = PeakOf(graph, greedy);
  result.method = "heuristic";
  if (greedy_peak < result.peak_bytes) {
    result.order = greedy;
    result.peak_bytes = greedy_peak;
  }

  ExactSearch search(graph, result.peak_bytes, options);
  const size_t best = search.Solve();
  result.states = search.states();
  if (best == kNoValue) {
    result.note = search.states() >= options.max_states ? "state limit reached" : "time limit reached";
    return finish();
  }
  result.method = "exact";
  result.proven_optimal = true;
  if (best < result.peak_bytes) {
    std::vector<int32_t> order = search.Order();
    if (order.size() != graph.op_count || PeakOf(graph, order) != best) {
      return Status::Error(ErrorCode::kInternal, "reorder: could not rebuild the order of peak %zu", best);
    }
    result.order = std::move(order);
    result.peak_bytes = best;
  }
  return finish();
}

Result<size_t> PeakLiveBytes(const ModelView& model, Span<const ScratchRequest> scratch,
                             const std::vector<int32_t>& order, size_t alignment_bytes) {
  if (model.subgraph_count() != 1) {
    return Status::Error(ErrorCode::kUnsupported, "the model has %zu subgraphs (control flow): reordering ops is supported for one subgraph only",
                         model.subgraph_count());
  }
  std::vector<BufferRequest> requests(LifetimeCapacity(model.subgraph(0), scratch.size()));
  LifetimeOptions lifetime_options;
  lifetime_options.alignment_bytes = alignment_bytes;
  lifetime_options.order = Span<const int32_t>(order.data(), order.size());
  MICROARENA_ASSIGN_OR_RETURN(size_t count,
                              AnalyzeLifetimes(model, 0, scratch, lifetime_options,
                                               Span<BufferRequest>(requests.data(), requests.size())));
  std::vector<uint8_t> workspace(LowerBoundWorkspaceBytes(count));
  size_t peak = 0;
  MICROARENA_RETURN_IF_ERROR(ComputeLowerBound(Span<const BufferRequest>(requests.data(), count),
                                               Span<uint8_t>(workspace.data(), workspace.size()), &peak));
  return peak;
}

}  // namespace microarena
