#include "microarena/plan/greedy.h"

#include <algorithm>
#include <cstdint>

#include "microarena/base/align.h"
#include "microarena/base/checked_math.h"
#include "microarena/base/heap_sort.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/plan/time_index.h"

namespace microarena {
namespace {

constexpr size_t kUnplaced = SIZE_MAX;

enum class Order : uint8_t { kSizeTflm, kSize, kLength, kArea, kConflict, kStart, kLatestStart };
enum class GapRule : uint8_t { kFirstFit, kBestFit };

struct Pass {
  Order order;
  GapRule gap_rule;
};

constexpr Pass kPasses[] = {
    {Order::kSizeTflm, GapRule::kFirstFit}, {Order::kSize, GapRule::kBestFit},
    {Order::kLength, GapRule::kFirstFit},   {Order::kLength, GapRule::kBestFit},
    {Order::kArea, GapRule::kFirstFit},     {Order::kArea, GapRule::kBestFit},
    {Order::kConflict, GapRule::kFirstFit}, {Order::kConflict, GapRule::kBestFit},
    {Order::kStart, GapRule::kFirstFit},    {Order::kStart, GapRule::kBestFit},
};

// Extra passes for problems with overlap permissions: latest first_op first
// (then latest end_op), so that an op's output is placed before its input, which can then sit a
// displacement D above it, reaching into it (placed the other way round, an
// input already placed low leaves its output no room below it).
constexpr Pass kOverlapPasses[] = {
    {Order::kLatestStart, GapRule::kFirstFit},
    {Order::kLatestStart, GapRule::kBestFit},
};

// Above this many buffers only the first kPassesForMany passes run, to keep
// planning time near-linear for very large problems.
constexpr size_t kManyBuffers = 10000;
constexpr size_t kPassesForMany = 2;

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  return CheckedMul64(a, b, &product) ? product : UINT64_MAX;
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return CheckedAdd64(a, b, &sum) ? sum : UINT64_MAX;
}

// Everything one pass needs, carved from the workspace.
struct Work {
  Span<const BufferRequest> buffers;
  Span<const OverlapPermission> overlaps;
  size_t alignment = 1;
  const TimeIndex* index = nullptr;
  uint32_t* order = nullptr;
  uint32_t* gathered = nullptr;
  uint64_t* key = nullptr;
  size_t* offsets = nullptr;  // trial offsets of the running pass
};

// The D of `permission` rounded up to the alignment (saturating): offsets
// are aligned, so their difference is too.
size_t AlignedDisplacement(const OverlapPermission& permission, size_t alignment) {
  size_t displacement = permission.min_displacement_bytes;
  return AlignUp(displacement, alignment, &displacement) ? displacement : SIZE_MAX;
}

// How a placed neighbour `other` blocks the buffer `id` being placed: `id`
// may start at x only when x + size(id) <= begin or x >= end, with
//   no permission:               begin = offset(other), end = offset(other) + size(other);
//   id is the output, other the input (id may start D below other):
//                                begin = offset(other) + size(id) - min(size(id), D);
//   id is the input, other the output (id may start D above other):
//                                end = offset(other) + min(size(other), D).
// (begin may exceed end: then only starts at or above end, or at or below
// begin - size(id), are allowed.) work.key[other] names the permission.
size_t BlockedBegin(const Work& work, uint32_t id, uint32_t other) {
  const size_t offset = work.offsets[other];
  if (work.key[other] == 0) return offset;
  const OverlapPermission& permission = work.overlaps[static_cast<size_t>(work.key[other] - 1)];
  if (permission.output_buffer != id) return offset;
  const size_t size = work.buffers[id].size_bytes;
  const size_t displacement = AlignedDisplacement(permission, work.alignment);
  const size_t lifted = size - std::min(size, displacement);
  return offset > SIZE_MAX - lifted ? SIZE_MAX : offset + lifted;
}

// Writes the end of the blocked range (above); false on overflow.
bool BlockedEnd(const Work& work, uint32_t id, uint32_t other, size_t* end) {
  size_t extent = work.buffers[other].size_bytes;
  if (work.key[other] != 0) {
    const OverlapPermission& permission = work.overlaps[static_cast<size_t>(work.key[other] - 1)];
    if (permission.input_buffer == id) extent = std::min(extent, AlignedDisplacement(permission, work.alignment));
  }
  return CheckedAdd(work.offsets[other], extent, end);
}

// Fills work.key for `order` (larger key = placed earlier). Its own frame:
// its index walk recurses, and does not need the sort's locals below it.
[[gnu::noinline]] void ComputeKeys(const Work& work, Order order) {
  const size_t count = work.buffers.size();
  for (uint32_t i = 0; i < count; ++i) {
    const BufferRequest& buffer = work.buffers[i];
    const uint64_t length = static_cast<uint64_t>(buffer.lifetime.length());
    switch (order) {
      case Order::kSizeTflm:
      case Order::kSize: work.key[i] = buffer.size_bytes; break;
      case Order::kLength: work.key[i] = length; break;
      case Order::kArea: work.key[i] = SaturatingMul(buffer.size_bytes, length); break;
      case Order::kConflict: {
        uint64_t total = 0;
        work.index->ForEachOverlapping(buffer.lifetime, [&](uint32_t other) {
          total = SaturatingAdd(total, work.buffers[other].size_bytes);
        });
        work.key[i] = total;
        break;
      }
      case Order::kStart:
        work.key[i] = static_cast<uint64_t>(INT32_MAX - buffer.lifetime.first_op);
        break;
      case Order::kLatestStart:
        // Then the latest end_op: a subgraph input starts at step 0 with the
        // output of the first op, which must still come first.
        work.key[i] = (static_cast<uint64_t>(buffer.lifetime.first_op) << 32) |
                      static_cast<uint64_t>(static_cast<uint32_t>(buffer.lifetime.end_op));
        break;
    }
  }
}

// Fills work.order for `pass`: the fixed buffers, then the others sorted.
// Sorts without recursion (HeapSort): the planner runs inside
// AllocateTensors, whose stack a device budgets.
[[gnu::noinline]] void OrderBuffers(const Work& work, const Pass& pass) {
  const Span<const BufferRequest> buffers = work.buffers;
  const size_t count = buffers.size();
  ComputeKeys(work, pass.order);
  size_t fixed_count = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (buffers[i].fixed_offset_bytes != kNoFixedOffset) work.order[fixed_count++] = i;
  }
  size_t next = fixed_count;
  for (uint32_t i = 0; i < count; ++i) {
    if (buffers[i].fixed_offset_bytes == kNoFixedOffset) work.order[next++] = i;
  }
  const uint64_t* key = work.key;
  const bool tflm_ties = pass.order == Order::kSizeTflm;
  // A strict total order (ties by index): any sort gives the same order.
  HeapSort(work.order + fixed_count, count - fixed_count, [&](uint32_t a, uint32_t b) {
    if (key[a] != key[b]) return key[a] > key[b];
    if (buffers[a].size_bytes != buffers[b].size_bytes) {
      return buffers[a].size_bytes > buffers[b].size_bytes;
    }
    return tflm_ties ? a > b : a < b;
  });
}

// Placing buffer `id` takes three steps, each in its own frame (noinline),
// so that the index walk's recursion and the sort never run below each
// other's locals: the planner runs inside AllocateTensors.

// Writes the placed buffers live alongside `id` to work.gathered and sets
// their keys to 1 + the index of their permission with `id` (0 for none);
// returns how many.
[[gnu::noinline]] size_t GatherPlacedNeighbours(const Work& work, uint32_t id) {
  const size_t* offsets = work.offsets;
  size_t neighbours = 0;
  work.index->ForEachOverlapping(work.buffers[id].lifetime, [&](uint32_t other) {
    if (offsets[other] != kUnplaced) work.gathered[neighbours++] = other;
  });
  // The keys are free once the order is sorted.
  for (size_t n = 0; n < neighbours; ++n) work.key[work.gathered[n]] = 0;
  for (size_t p = 0; p < work.overlaps.size(); ++p) {
    const OverlapPermission& permission = work.overlaps[p];
    if (permission.output_buffer == id) work.key[permission.input_buffer] = p + 1;
    if (permission.input_buffer == id) work.key[permission.output_buffer] = p + 1;
  }
  return neighbours;
}

// Sorts the `neighbours` gathered buffers by where they start blocking `id`.
[[gnu::noinline]] void SortNeighbours(const Work& work, uint32_t id, size_t neighbours) {
  HeapSort(work.gathered, neighbours, [&](uint32_t a, uint32_t b) {
    const size_t begin_a = BlockedBegin(work, id, a);
    const size_t begin_b = BlockedBegin(work, id, b);
    return begin_a != begin_b ? begin_a < begin_b : a < b;
  });
}

// Chooses the offset of `id` among its sorted neighbours under `gap_rule`.
// False when the head size overflows.
[[gnu::noinline]] bool ChooseOffset(const Work& work, GapRule gap_rule, uint32_t id, size_t neighbours,
                                    size_t* chosen_offset) {
  const BufferRequest& wanted = work.buffers[id];
  const uint32_t* gathered = work.gathered;
  size_t candidate = 0;
  size_t chosen = kUnplaced;
  size_t chosen_gap = SIZE_MAX;
  for (size_t n = 0; n < neighbours; ++n) {
    const size_t other_offset = BlockedBegin(work, id, gathered[n]);
    if (other_offset >= candidate && other_offset - candidate >= wanted.size_bytes) {
      const size_t gap = other_offset - candidate;
      if (gap < chosen_gap) {
        chosen = candidate;
        chosen_gap = gap;
      }
      if (gap_rule == GapRule::kFirstFit || gap == wanted.size_bytes) break;
    }
    size_t other_end = 0;
    if (!BlockedEnd(work, id, gathered[n], &other_end) || !AlignUp(other_end, work.alignment, &other_end)) {
      return false;
    }
    candidate = std::max(candidate, other_end);
  }
  if (chosen == kUnplaced) chosen = candidate;
  size_t end = 0;
  if (!CheckedAdd(chosen, wanted.size_bytes, &end)) return false;
  *chosen_offset = chosen;
  return true;
}

// Off the success path, in its own frame.
[[gnu::noinline, gnu::cold]] Status HeadOverflow(uint32_t id) {
  return Status::Error(ErrorCode::kInvalidArgument, "greedy planner: buffer %u: the head size overflows", id);
}

// Runs one pass into work.offsets. Fails only on size overflow. Ordering and
// each step of placing have their own frames: one at a time is on the stack.
[[gnu::noinline]] Status RunPass(const Work& work, const Pass& pass) {
  const size_t count = work.buffers.size();
  OrderBuffers(work, pass);
  size_t* offsets = work.offsets;
  for (size_t i = 0; i < count; ++i) offsets[i] = kUnplaced;
  for (size_t position = 0; position < count; ++position) {
    const uint32_t id = work.order[position];
    const BufferRequest& wanted = work.buffers[id];
    if (wanted.fixed_offset_bytes != kNoFixedOffset) {
      offsets[id] = static_cast<size_t>(wanted.fixed_offset_bytes);
      continue;
    }
    const size_t neighbours = GatherPlacedNeighbours(work, id);
    SortNeighbours(work, id, neighbours);
    size_t chosen = 0;
    if (!ChooseOffset(work, pass.gap_rule, id, neighbours, &chosen)) return HeadOverflow(id);
    offsets[id] = chosen;
  }
  return OkStatus();
}

}  // namespace

namespace {

// What Plan() carves, with size_t of `size_t_bytes` (its size and alignment).
size_t WorkspaceBytesWithSizeT(size_t buffer_count, size_t size_t_bytes) {
  const size_t main = WorkspaceCarver::BytesFor<uint32_t>(buffer_count) * 3 +
                      WorkspaceCarver::BytesFor<int32_t>(buffer_count) +
                      WorkspaceCarver::BytesFor<uint64_t>(buffer_count) + buffer_count * size_t_bytes +
                      size_t_bytes - 1;
  return std::max(main, LowerBoundWorkspaceBytes(buffer_count));
}

}  // namespace

size_t GreedyPlanner::WorkspaceBytes(size_t buffer_count) const {
  static_assert(WorkspaceCarver::BytesFor<size_t>(1) == sizeof(size_t) + alignof(size_t) - 1);
  return WorkspaceBytesWithSizeT(buffer_count, sizeof(size_t));
}

size_t GreedyPlanner::TargetWorkspaceBytesFor(const PlanningProblem& problem, size_t size_t_bytes) const {
  return WorkspaceBytesWithSizeT(problem.buffers.size(), size_t_bytes);
}

namespace {

// Plan's checks and step 1, in their own frame (not under the passes').
[[gnu::noinline]] Status ValidateAndBound(const GreedyPlanner& planner, const PlanningProblem& problem,
                                          Span<uint8_t> workspace, Span<size_t> offsets_bytes, PlanSummary* summary,
                                          size_t* lower_bound_bytes) {
  MICROARENA_RETURN_IF_ERROR(ValidatePlanArguments(
      planner.name(), problem, planner.WorkspaceBytes(problem.buffers.size()), workspace, offsets_bytes, summary));
  // 1. The lower bound, computed first in the same workspace (with overlap
  // permissions, the overlap-aware one).
  return ComputeOverlapLowerBound(problem, workspace, lower_bound_bytes);
}

}  // namespace

Status GreedyPlanner::Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                           Span<size_t> offsets_bytes, PlanSummary* summary) const {
  const size_t count = problem.buffers.size();
  size_t lower_bound_bytes = 0;
  MICROARENA_RETURN_IF_ERROR(ValidateAndBound(*this, problem, workspace, offsets_bytes, summary, &lower_bound_bytes));

  WorkspaceCarver carver(workspace);
  uint32_t* by_start = carver.Take<uint32_t>(count);
  int32_t* max_end = carver.Take<int32_t>(count);
  Work work;
  work.buffers = problem.buffers;
  work.overlaps = problem.overlaps;
  work.alignment = problem.alignment_bytes;
  work.order = carver.Take<uint32_t>(count);
  work.gathered = carver.Take<uint32_t>(count);
  work.key = carver.Take<uint64_t>(count);
  work.offsets = carver.Take<size_t>(count);
  if (!carver.ok()) return Status::Error(ErrorCode::kInternal, "greedy: workspace carving");
  const TimeIndex index(problem.buffers, by_start, max_end);
  work.index = &index;

  // 2-4. Every pass; keep the smallest head. With overlap permissions the
  // passes run twice, with them and then without them: a permission changes
  // where a pass puts buffers and can make its head larger, and a plan that
  // shares no bytes is valid under any permissions, so the head with
  // permissions is never larger than without (same workspace, reused).
  size_t best_head = SIZE_MAX;
  const size_t pass_count = count > kManyBuffers ? kPassesForMany : sizeof(kPasses) / sizeof(kPasses[0]);
  const size_t overlap_pass_count = problem.overlaps.empty() ? 0 : sizeof(kOverlapPasses) / sizeof(kOverlapPasses[0]);
  const size_t rounds = problem.overlaps.empty() ? 1 : 2;
  for (size_t round = 0; round < rounds && best_head > lower_bound_bytes; ++round) {
    work.overlaps = round == 0 ? problem.overlaps : Span<const OverlapPermission>();
    const size_t round_passes = pass_count + (round == 0 ? overlap_pass_count : 0);
    for (size_t p = 0; p < round_passes; ++p) {
      const Pass& pass = p < pass_count ? kPasses[p] : kOverlapPasses[p - pass_count];
      MICROARENA_RETURN_IF_ERROR(RunPass(work, pass));
      const size_t head = HeadBytes(problem.buffers, Span<const size_t>(work.offsets, count));
      if (head < best_head) {
        best_head = head;
        std::copy(work.offsets, work.offsets + count, offsets_bytes.begin());
      }
      if (best_head <= lower_bound_bytes) break;
    }
  }
  summary->head_bytes = count == 0 ? 0 : best_head;
  summary->proven_optimal = summary->head_bytes <= lower_bound_bytes;
  return OkStatus();
}

}  // namespace microarena
