#include "microarena/plan/optimal.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <utility>
#include <vector>

#include "microarena/base/align.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/lower_bound.h"

namespace microarena {
namespace {

using Clock = std::chrono::steady_clock;

// True when [low, low + size) ends at or below `capacity`.
bool Fits(size_t low, size_t size, size_t capacity) {
  return size <= capacity && low <= capacity - size;
}

double Seconds(Clock::duration duration) {
  return std::chrono::duration<double>(duration).count();
}

// The branch and bound over canonical plans (see optimal.h). Buffers of size
// zero take no part: they go at their fixed offset or at 0.
class Search {
 public:
  enum class Outcome {
    kContinue,  // this subtree holds no (better) plan: keep searching
    kFound,     // stop: a plan within the capacity (decision) or at the lower bound
    kLimit,     // stop: the time or node limit ran out
  };

  Search(const PlanningProblem& problem, const OptimalOptions& options, Clock::time_point start)
      : problem_(problem), options_(options), start_(start) {
    const Span<const BufferRequest> buffers = problem.buffers;
    for (uint32_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i].size_bytes > 0) {
        global_.push_back(i);
      } else if (buffers[i].fixed_offset_bytes != kNoFixedOffset) {
        zero_size_top_ =
            std::max(zero_size_top_, static_cast<size_t>(buffers[i].fixed_offset_bytes));
      }
    }
    const size_t count = global_.size();
    // Sections: the intervals between consecutive distinct lifetime ends.
    std::vector<int32_t> points;
    for (uint32_t g : global_) {
      points.push_back(buffers[g].lifetime.first_op);
      points.push_back(buffers[g].lifetime.end_op);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const size_t section_count = points.empty() ? 0 : points.size() - 1;
    auto section_of = [&points](int32_t step) {
      return static_cast<uint32_t>(std::lower_bound(points.begin(), points.end(), step) -
                                   points.begin());
    };
    size_.resize(count);
    fixed_.resize(count);
    length_.resize(count);
    span_begin_.resize(count);
    span_end_.resize(count);
    total_load_.assign(section_count, 0);
    for (uint32_t i = 0; i < count; ++i) {
      const BufferRequest& buffer = buffers[global_[i]];
      size_[i] = buffer.size_bytes;
      fixed_[i] = buffer.fixed_offset_bytes;
      length_[i] = buffer.lifetime.length();
      span_begin_[i] = section_of(buffer.lifetime.first_op);
      span_end_[i] = section_of(buffer.lifetime.end_op);
      for (uint32_t s = span_begin_[i]; s < span_end_[i]; ++s) total_load_[s] += size_[i];
    }
    // Time-overlap lists, by a sweep over the buffers sorted by first_op.
    overlaps_.resize(count);
    fixed_neighbours_.resize(count);
    std::vector<uint32_t> by_first(count);
    std::iota(by_first.begin(), by_first.end(), 0U);
    std::sort(by_first.begin(), by_first.end(), [this](uint32_t a, uint32_t b) {
      return span_begin_[a] != span_begin_[b] ? span_begin_[a] < span_begin_[b] : a < b;
    });
    for (size_t x = 0; x < count; ++x) {
      const uint32_t a = by_first[x];
      for (size_t y = x + 1; y < count && span_begin_[by_first[y]] < span_end_[a]; ++y) {
        const uint32_t b = by_first[y];
        overlaps_[a].push_back(b);
        overlaps_[b].push_back(a);
        if (fixed_[b] != kNoFixedOffset) fixed_neighbours_[a].push_back(b);
        if (fixed_[a] != kNoFixedOffset) fixed_neighbours_[b].push_back(a);
      }
    }
    floor_.resize(section_count);
    min_low_.resize(section_count);
    load_.resize(section_count);
    fm_.resize(count);
    offset_.resize(count);
    placed_.resize(count);
    low_.resize(count);
    blocked_.resize(count);
  }

  size_t searched_buffers() const { return global_.size(); }
  uint64_t nodes() const { return nodes_; }

  // Searches for a plan with head <= capacity: kFound (written to
  // *best_offsets / *best_head when better than *best_head), kContinue
  // (proven: none exists) or kLimit.
  Outcome Run(size_t capacity, Clock::time_point deadline, bool has_deadline,
              std::vector<size_t>* best_offsets, size_t* best_head,
              const std::function<size_t()>& lower_bound_now) {
    capacity_ = capacity;
    deadline_ = deadline;
    has_deadline_ = has_deadline;
    best_head_ = best_head;
    lower_bound_now_ = &lower_bound_now;
    std::fill(floor_.begin(), floor_.end(), 0);
    load_ = total_load_;
    std::fill(fm_.begin(), fm_.end(), 0);
    std::fill(placed_.begin(), placed_.end(), false);
    level_ = 0;
    last_ = kNone;
    candidates_.clear();
    fm_undo_.clear();
    floor_undo_.clear();
    log_.clear();
    pool_.resize(global_.size());
    std::iota(pool_.begin(), pool_.end(), 0U);
    if (zero_size_top_ > capacity_) return Outcome::kContinue;
    const Outcome outcome = Solve(0, pool_.size());
    if (outcome == Outcome::kFound) {
      size_t head = zero_size_top_;
      for (size_t i = 0; i < global_.size(); ++i) head = std::max(head, offset_[i] + size_[i]);
      if (head < *best_head_) {
        *best_head_ = head;
        std::vector<size_t>& offsets = *best_offsets;
        for (size_t i = 0; i < problem_.buffers.size(); ++i) {
          const int64_t fixed = problem_.buffers[i].fixed_offset_bytes;
          offsets[i] = fixed == kNoFixedOffset ? 0 : static_cast<size_t>(fixed);
        }
        for (size_t i = 0; i < global_.size(); ++i) offsets[global_[i]] = offset_[i];
      }
    }
    return outcome;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Candidate {
    uint32_t id;
    size_t low;
  };
  // What Place() changed, so that UndoTo() can restore it.
  struct LogEntry {
    uint32_t id;
    uint32_t old_last;
    size_t old_level;
    size_t fm_mark;
    size_t floor_mark;
  };

  bool LimitReached() {
    if (options_.node_limit != 0 && nodes_ >= options_.node_limit) return true;
    if ((nodes_ & 255) != 0) return false;
    const Clock::time_point now = Clock::now();
    if (options_.progress && now >= next_progress_) {
      next_progress_ = now + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(options_.progress_interval_seconds));
      OptimalProgress progress;
      progress.elapsed_seconds = Seconds(now - start_);
      progress.best_head_bytes = *best_head_;
      progress.lower_bound_bytes = (*lower_bound_now_)();
      progress.nodes = nodes_;
      options_.progress(progress);
    }
    return has_deadline_ && now >= deadline_;
  }

  // Places every buffer in pool_[begin, end) (the remaining buffers of this
  // subproblem). On kFound they stay placed; otherwise the state is as before.
  Outcome Solve(size_t begin, size_t end) {
    ++nodes_;
    if (LimitReached()) return Outcome::kLimit;
    if (begin == end) return Outcome::kFound;
    const size_t alignment = problem_.alignment_bytes;

    // Step 3: lowest offsets, and pruning.
    size_t first_top = SIZE_MAX;
    size_t second_top = SIZE_MAX;
    uint32_t first_id = kNone;
    for (size_t k = begin; k < end; ++k) {
      const uint32_t c = pool_[k];
      size_t low = 0;
      bool blocked = false;
      if (fixed_[c] != kNoFixedOffset) {
        low = static_cast<size_t>(fixed_[c]);
        if (low < level_ || fm_[c] > low) return Outcome::kContinue;
      } else {
        low = AlignUpUnchecked(std::max(level_, fm_[c]), alignment);
        for (uint32_t f : fixed_neighbours_[c]) {
          if (placed_[f]) continue;
          const size_t f_low = static_cast<size_t>(fixed_[f]);
          if (f_low < low + size_[c] && low < f_low + size_[f]) {
            blocked = true;
            break;
          }
        }
      }
      if (!Fits(low, size_[c], capacity_)) return Outcome::kContinue;
      low_[c] = low;
      blocked_[c] = blocked;
      if (blocked) continue;
      const size_t top = low + size_[c];
      if (top < first_top) {
        second_top = first_top;
        first_top = top;
        first_id = c;
      } else if (top < second_top) {
        second_top = top;
      }
    }
    // In each section, the remaining buffers crossing it stack up from their
    // lowest offsets: taking them by increasing `low`, each starts at or above
    // both its low and the top of the ones before (a release-date bound).
    by_low_.assign(pool_.begin() + static_cast<std::ptrdiff_t>(begin),
                   pool_.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(by_low_.begin(), by_low_.end(), [this](uint32_t x, uint32_t y) {
      return low_[x] != low_[y] ? low_[x] < low_[y] : x < y;
    });
    for (uint32_t c : by_low_) {
      for (uint32_t s = span_begin_[c]; s < span_end_[c]; ++s) min_low_[s] = 0;
    }
    for (uint32_t c : by_low_) {
      const size_t low = low_[c];
      for (uint32_t s = span_begin_[c]; s < span_end_[c]; ++s) {
        const size_t start_at = std::max(min_low_[s], low);
        if (!Fits(start_at, size_[c], capacity_)) return Outcome::kContinue;
        min_low_[s] = start_at + size_[c];
      }
    }
    // Decomposition: buffers not live together with any other group's
    // buffers form independent subproblems, solved one after the other.
    const size_t sorted_begin = pool_.size();
    pool_.insert(pool_.end(), pool_.begin() + static_cast<std::ptrdiff_t>(begin),
                 pool_.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(pool_.begin() + static_cast<std::ptrdiff_t>(sorted_begin), pool_.end(),
              [this](uint32_t a, uint32_t b) {
                return span_begin_[a] != span_begin_[b] ? span_begin_[a] < span_begin_[b] : a < b;
              });
    std::vector<std::pair<size_t, size_t>> groups;  // [begin, end) in pool_
    uint32_t reach = 0;
    for (size_t k = sorted_begin; k < pool_.size(); ++k) {
      const uint32_t c = pool_[k];
      if (groups.empty() || span_begin_[c] >= reach) groups.emplace_back(k, k);
      groups.back().second = k + 1;
      reach = std::max(reach, span_end_[c]);
    }
    Outcome outcome = Outcome::kContinue;
    if (groups.size() > 1) {
      // Hardest group first (least slack), so a failure is found early.
      std::vector<std::pair<size_t, size_t>> order;  // (slack, group)
      for (size_t g = 0; g < groups.size(); ++g) {
        size_t slack = SIZE_MAX;
        for (size_t k = groups[g].first; k < groups[g].second; ++k) {
          const uint32_t c = pool_[k];
          for (uint32_t s = span_begin_[c]; s < span_end_[c]; ++s) {
            slack = std::min(slack, capacity_ - min_low_[s]);
          }
        }
        order.emplace_back(slack, g);
      }
      std::sort(order.begin(), order.end());
      const size_t mark = log_.size();
      const size_t start_level = level_;
      const uint32_t start_last = last_;
      outcome = Outcome::kFound;
      for (const auto& entry : order) {
        level_ = start_level;
        last_ = kNone;
        outcome = Solve(groups[entry.second].first, groups[entry.second].second);
        if (outcome != Outcome::kFound) break;
      }
      if (outcome != Outcome::kFound) UndoTo(mark);
      level_ = start_level;
      last_ = start_last;
      pool_.resize(sorted_begin);
      return outcome;
    }

    // Step 4: candidates (dominance and symmetry), best first.
    const size_t cand_base = candidates_.size();
    const Span<const BufferRequest> buffers = problem_.buffers;
    for (size_t k = begin; k < end; ++k) {
      const uint32_t c = pool_[k];
      if (blocked_[c]) continue;
      const size_t others_top = c == first_id ? second_top : first_top;
      if (low_[c] >= others_top) continue;
      if (last_ != kNone && low_[c] == offset_[last_] && c < last_ &&
          !buffers[global_[c]].lifetime.Overlaps(buffers[global_[last_]].lifetime)) {
        continue;
      }
      candidates_.push_back({c, low_[c]});
    }
    std::sort(candidates_.begin() + static_cast<std::ptrdiff_t>(cand_base), candidates_.end(),
              [this](const Candidate& x, const Candidate& y) {
                if (x.low != y.low) return x.low < y.low;
                const uint64_t area_x = static_cast<uint64_t>(length_[x.id]) * size_[x.id];
                const uint64_t area_y = static_cast<uint64_t>(length_[y.id]) * size_[y.id];
                if (area_x != area_y) return area_x > area_y;
                return x.id < y.id;
              });
    // The child's remaining buffers: this slice without the candidate.
    const size_t child_begin = pool_.size();
    const size_t cand_end = candidates_.size();
    for (size_t i = cand_base; i < cand_end && outcome == Outcome::kContinue; ++i) {
      const Candidate candidate = candidates_[i];
      pool_.resize(child_begin);
      for (size_t k = begin; k < end; ++k) {
        if (pool_[k] != candidate.id) pool_.push_back(pool_[k]);
      }
      const size_t mark = log_.size();
      Place(candidate.id, candidate.low);
      outcome = Solve(child_begin, pool_.size());
      if (outcome != Outcome::kFound) UndoTo(mark);
    }
    candidates_.resize(cand_base);
    pool_.resize(sorted_begin);
    return outcome;
  }

  void Place(uint32_t id, size_t offset) {
    log_.push_back({id, last_, level_, fm_undo_.size(), floor_undo_.size()});
    offset_[id] = offset;
    placed_[id] = true;
    const size_t top = offset + size_[id];
    for (uint32_t s = span_begin_[id]; s < span_end_[id]; ++s) {
      floor_undo_.emplace_back(s, floor_[s]);
      floor_[s] = top;
      load_[s] -= size_[id];
    }
    for (uint32_t d : overlaps_[id]) {
      if (!placed_[d] && fm_[d] < top) {
        fm_undo_.emplace_back(d, fm_[d]);
        fm_[d] = top;
      }
    }
    level_ = offset;
    last_ = id;
  }

  // Takes back every placement made since log_ had `mark` entries.
  void UndoTo(size_t mark) {
    while (log_.size() > mark) {
      const LogEntry entry = log_.back();
      log_.pop_back();
      while (fm_undo_.size() > entry.fm_mark) {
        fm_[fm_undo_.back().first] = fm_undo_.back().second;
        fm_undo_.pop_back();
      }
      while (floor_undo_.size() > entry.floor_mark) {
        floor_[floor_undo_.back().first] = floor_undo_.back().second;
        load_[floor_undo_.back().first] += size_[entry.id];
        floor_undo_.pop_back();
      }
      placed_[entry.id] = false;
      level_ = entry.old_level;
      last_ = entry.old_last;
    }
  }

  const PlanningProblem& problem_;
  const OptimalOptions& options_;
  const Clock::time_point start_;

  // The buffers searched (size > 0), as indices into problem_.buffers.
  std::vector<uint32_t> global_;
  size_t zero_size_top_ = 0;  // largest fixed offset of a zero-size buffer
  std::vector<size_t> size_;
  std::vector<int64_t> fixed_;
  std::vector<int32_t> length_;
  std::vector<uint32_t> span_begin_;  // sections [span_begin_, span_end_) of each buffer
  std::vector<uint32_t> span_end_;
  std::vector<size_t> total_load_;
  std::vector<std::vector<uint32_t>> overlaps_;
  std::vector<std::vector<uint32_t>> fixed_neighbours_;

  // Search state.
  size_t capacity_ = 0;
  Clock::time_point deadline_;
  bool has_deadline_ = false;
  Clock::time_point next_progress_;
  size_t* best_head_ = nullptr;
  const std::function<size_t()>* lower_bound_now_ = nullptr;
  uint64_t nodes_ = 0;
  std::vector<size_t> floor_;
  std::vector<size_t> load_;
  std::vector<size_t> min_low_;  // per section: least top of the remaining buffers stacked in it
  std::vector<uint32_t> by_low_;
  std::vector<size_t> fm_;  // highest floor over each buffer's sections
  std::vector<size_t> offset_;
  std::vector<bool> placed_;
  std::vector<uint32_t> pool_;  // stacked slices of remaining buffers
  std::vector<LogEntry> log_;
  std::vector<size_t> low_;
  std::vector<bool> blocked_;
  size_t level_ = 0;
  uint32_t last_ = kNone;
  std::vector<Candidate> candidates_;
  std::vector<std::pair<uint32_t, size_t>> fm_undo_;
  std::vector<std::pair<uint32_t, size_t>> floor_undo_;
};

}  // namespace

const char* CapacityOutcomeName(CapacityOutcome outcome) {
  switch (outcome) {
    case CapacityOutcome::kNotAsked: return "not asked";
    case CapacityOutcome::kFits: return "fits";
    case CapacityOutcome::kInfeasible: return "infeasible";
    case CapacityOutcome::kUnknown: return "unknown";
  }
  return "?";
}

Result<OptimalResult> OptimalPlanner::Solve(const PlanningProblem& problem,
                                            Span<size_t> offsets_bytes) const {
  const Clock::time_point start = Clock::now();
  const size_t count = problem.buffers.size();
  PlanSummary unused;
  MICROARENA_RETURN_IF_ERROR(
      ValidatePlanArguments(name(), problem, 0, Span<uint8_t>(), offsets_bytes, &unused));
  OptimalResult result;

  // Step 1: bounds.
  std::vector<uint8_t> workspace(
      std::max(LowerBoundWorkspaceBytes(count), GreedyPlanner().WorkspaceBytes(count)));
  size_t lower_bound = 0;
  MICROARENA_RETURN_IF_ERROR(ComputeLowerBound(
      problem.buffers, Span<uint8_t>(workspace.data(), workspace.size()), &lower_bound));
  std::vector<size_t> best_offsets(count);
  PlanSummary greedy_summary;
  MICROARENA_RETURN_IF_ERROR(GreedyPlanner().Plan(
      problem, Span<uint8_t>(workspace.data(), workspace.size()),
      Span<size_t>(best_offsets.data(), count), &greedy_summary));
  size_t best_head = greedy_summary.head_bytes;

  const bool has_capacity = options_.capacity_bytes != kNoCapacity;
  const bool has_deadline = options_.time_limit_seconds > 0;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(has_deadline ? options_.time_limit_seconds : 0));
  Search search(problem, options_, start);
  const bool searchable = search.searched_buffers() <= kMaxSearchBuffers;
  const std::function<size_t()> bound_now = [&lower_bound]() { return lower_bound; };

  if (has_capacity) {
    const size_t capacity = options_.capacity_bytes;
    if (best_head <= capacity) {
      result.capacity_outcome = CapacityOutcome::kFits;
    } else if (lower_bound > capacity) {
      result.capacity_outcome = CapacityOutcome::kInfeasible;
    } else if (!searchable) {
      result.capacity_outcome = CapacityOutcome::kUnknown;
    } else {
      switch (search.Run(capacity, deadline, has_deadline, &best_offsets, &best_head,
                         bound_now)) {
        case Search::Outcome::kFound: result.capacity_outcome = CapacityOutcome::kFits; break;
        case Search::Outcome::kContinue:
          result.capacity_outcome = CapacityOutcome::kInfeasible;
          lower_bound = std::max(lower_bound, capacity + 1);
          break;
        case Search::Outcome::kLimit:
          result.capacity_outcome = CapacityOutcome::kUnknown;
          result.limit_reached = true;
          break;
      }
    }
  } else if (best_head > lower_bound && searchable) {
    // Step 5, phase 1: a plan at the lower bound, with half of the time.
    const Clock::time_point half =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(options_.time_limit_seconds / 2));
    const Search::Outcome at_bound =
        search.Run(lower_bound, half, has_deadline, &best_offsets, &best_head, bound_now);
    if (at_bound == Search::Outcome::kContinue) lower_bound += 1;
    // Phase 2: plans below the best head, until none exists or time runs out.
    while (best_head > lower_bound) {
      if (options_.node_limit != 0 && search.nodes() >= options_.node_limit) {
        result.limit_reached = true;
        break;
      }
      const Search::Outcome below =
          search.Run(best_head - 1, deadline, has_deadline, &best_offsets, &best_head, bound_now);
      if (below == Search::Outcome::kContinue) lower_bound = best_head;
      if (below == Search::Outcome::kLimit) {
        result.limit_reached = true;
        break;
      }
    }
  }
  if (best_head <= lower_bound) lower_bound = best_head;

  std::copy(best_offsets.begin(), best_offsets.end(), offsets_bytes.begin());
  result.head_bytes = best_head;
  result.lower_bound_bytes = lower_bound;
  result.proven_optimal = best_head == lower_bound;
  result.nodes = search.nodes();
  result.elapsed_seconds = Seconds(Clock::now() - start);
  return result;
}

Status OptimalPlanner::Plan(const PlanningProblem& problem, Span<uint8_t> /*workspace*/,
                            Span<size_t> offsets_bytes, PlanSummary* summary) const {
  if (summary == nullptr) {
    return Status::Error(ErrorCode::kInvalidArgument, "optimal planner: summary is null");
  }
  Result<OptimalResult> result = Solve(problem, offsets_bytes);
  if (!result.ok()) return result.status();
  summary->head_bytes = result->head_bytes;
  summary->proven_optimal = result->proven_optimal;
  if (result->capacity_outcome == CapacityOutcome::kInfeasible) {
    return Status::Error(ErrorCode::kInfeasible,
                         "optimal planner: no plan fits in %zu bytes (proven; the lower bound "
                         "is %zu bytes)",
                         options_.capacity_bytes, result->lower_bound_bytes);
  }
  if (result->capacity_outcome == CapacityOutcome::kUnknown) {
    return Status::Error(ErrorCode::kTimeout,
                         "optimal planner: no plan within %zu bytes found before the limit "
                         "(best %zu bytes, lower bound %zu bytes)",
                         options_.capacity_bytes, result->head_bytes, result->lower_bound_bytes);
  }
  return OkStatus();
}

}  // namespace microarena
