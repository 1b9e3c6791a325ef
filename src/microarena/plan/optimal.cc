#include "microarena/plan/optimal.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <iterator>
#include <memory>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include "microarena/base/align.h"
#include "microarena/base/checked_math.h"
#include "microarena/base/split_mix64.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/guillotine.h"
#include "microarena/plan/lower_bound.h"

namespace microarena {
namespace {

using Clock = std::chrono::steady_clock;

// The tighter capacities asked about in each round of restarts under a
// capacity above the lower bound (see Solve), in quarters of the way from
// the lower bound up to the capacity, in the order asked.
constexpr size_t kTighterCapacities[] = {3, 0};
// Each round of restarts under a capacity gives the guillotine search
// (guillotine.h) this many times the round's per-attempt node budget: a
// round asks up to seven orders under each of three capacities. Measured on
// like-a-f problems (10 s limit): at 4 the one it solves (seed 54) took
// over 10 s, at 8 5.3 s, at 16 2.4 s, while three the branch and bound
// solves late took 4.5-7.5 s at 8 and up to 9.2 s at 16.
constexpr uint64_t kGuillotineBudgetFactor = 8;
// Minimising, the descent asks for a plan this fraction of the gap between
// the lower bound and the best head below the best head (see Solve, step 6).
constexpr size_t kDescentStepDivisor = 16;

// True when [low, low + size) ends at or below `capacity`.
bool Fits(size_t low, size_t size, size_t capacity) {
  return size <= capacity && low <= capacity - size;
}

double Seconds(Clock::duration duration) {
  return std::chrono::duration<double>(duration).count();
}

// A last-in-first-out log of (index, old value) pairs, for undoing the
// search's placements. Every value logged is at most the capacity, so
// under 2^32 an entry is one 64-bit word (index above, value below): half
// the memory of an (index, size_t) pair, where the logs were most of the
// fresh pages a searched problem touched (29 of the search's 58 on a
// 159-buffer one). Above, an entry takes two words. Set per capacity, while
// empty.
class UndoLog {
 public:
  void SetWide(bool wide) {
    assert(words_.empty());
    wide_ = wide;
  }
  void Reserve(size_t entries) { words_.reserve(wide_ ? 2 * entries : entries); }
  size_t size() const { return words_.size(); }  // a mark to undo back to
  void Push(uint32_t index, size_t value) {
    assert(wide_ || value <= UINT32_MAX);
    if (!wide_) {
      words_.push_back(uint64_t{index} << 32 | value);
    } else {
      words_.push_back(value);
      words_.push_back(index);
    }
  }
  // Takes back the entries after `mark`, newest first, calling
  // restore(index, value) for each.
  template <typename Restore>
  void UndoTo(size_t mark, Restore restore) {
    if (!wide_) {
      while (words_.size() > mark) {
        const uint64_t word = words_.back();
        words_.pop_back();
        restore(static_cast<uint32_t>(word >> 32), static_cast<size_t>(word & 0xFFFFFFFFu));
      }
      return;
    }
    while (words_.size() > mark) {
      const uint32_t index = static_cast<uint32_t>(words_.back());
      words_.pop_back();
      restore(index, static_cast<size_t>(words_.back()));
      words_.pop_back();
    }
  }

 private:
  std::vector<uint64_t> words_;
  bool wide_ = false;
};

// The branch and bound over canonical plans (see optimal.h). Buffers of size
// zero take no part: they go at their fixed offset or at 0.
//
// Terms: a buffer's `fm` is the highest top among the placed buffers live
// with it; its candidate offset is fm aligned up (a fixed buffer's is its
// fixed offset). The `level` is the offset of the buffer placed last in the
// current partition; `rank` is the buffer's position in the current order (a
// static heuristic's, re-sorted per part or learned; ties at one offset are
// placed in rank order only).
class Search {
 public:
  enum class Outcome {
    kNone,    // proven: no plan within the capacity
    kFound,   // a plan within the capacity (written out)
    kBudget,  // the node budget of this attempt ran out
    kLimit,   // the time or node limit of the options ran out
  };

  Search(const PlanningProblem& problem, const OptimalOptions& options, Clock::time_point start)
      : problem_(problem), options_(options), start_(start) {
    const Span<const BufferRequest> buffers = problem.buffers;
    global_.reserve(buffers.size());
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
    points.reserve(2 * count);
    for (uint32_t g : global_) {
      points.push_back(buffers[g].lifetime.first_op);
      points.push_back(buffers[g].lifetime.end_op);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    section_count_ = points.empty() ? 0 : static_cast<uint32_t>(points.size() - 1);
    auto section_of = [&points](int32_t step) {
      return static_cast<uint32_t>(std::lower_bound(points.begin(), points.end(), step) -
                                   points.begin());
    };
    size_.resize(count);
    fixed_.resize(count);
    span_begin_.resize(count);
    span_end_.resize(count);
    std::vector<size_t> total(section_count_, 0);  // bytes live in each section
    initial_cuts_.assign(section_count_, 0);
    for (uint32_t i = 0; i < count; ++i) {
      const BufferRequest& buffer = buffers[global_[i]];
      size_[i] = buffer.size_bytes;
      fixed_[i] = buffer.fixed_offset_bytes;
      has_fixed_ |= fixed_[i] != kNoFixedOffset;
      span_begin_[i] = section_of(buffer.lifetime.first_op);
      span_end_[i] = section_of(buffer.lifetime.end_op);
      for (uint32_t s = span_begin_[i]; s < span_end_[i]; ++s) {
        live_overflows_ |= !CheckedAdd(total[s], size_[i], &total[s]);
      }
      for (uint32_t s = span_begin_[i]; s + 1 < span_end_[i]; ++s) ++initial_cuts_[s];
    }
    // Overlap permissions between searched buffers: D rounded up to the
    // alignment, by (input, output) in searched indices.
    std::vector<uint32_t> searched_index(buffers.size(), kNone);
    for (uint32_t i = 0; i < count; ++i) searched_index[global_[i]] = i;
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, size_t>> permitted;
    no_stack_bound_.assign(section_count_, 0);
    for (const OverlapPermission& permission : problem.overlaps) {
      const uint32_t input = searched_index[permission.input_buffer];
      const uint32_t output = searched_index[permission.output_buffer];
      if (input == kNone || output == kNone) continue;  // a zero-size buffer shares nothing
      size_t displacement = permission.min_displacement_bytes;
      if (!AlignUp(displacement, problem.alignment_bytes, &displacement)) displacement = SIZE_MAX;
      permitted.push_back({{input, output}, displacement});
      // Where both live, the buffers need not stack: no stacking bound there.
      const uint32_t from = std::max(span_begin_[input], span_begin_[output]);
      const uint32_t to = std::min(span_end_[input], span_end_[output]);
      for (uint32_t sec = from; sec < to; ++sec) no_stack_bound_[sec] = 1;
      any_no_stack_bound_ |= from < to;
      // An in-place pair (D = 0) may share an offset; the rank rule at one
      // offset may then miss the order output-then-input, and the fixed-
      // buffer blocking uses whole sizes: "no plan" is not a proof then.
      if (displacement == 0) proofs_ = false;
    }
    if (!permitted.empty() && has_fixed_) proofs_ = false;
    // Trusted fixed buffers that overlap (a model's own offline plan): the
    // search places fixed buffers as any other, so a pair that overlaps
    // fails every path; Solve does not search such a problem.
    if (problem.trust_fixed_overlaps && has_fixed_) {
      std::vector<uint32_t> fixed;
      for (uint32_t i = 0; i < count; ++i) {
        if (fixed_[i] != kNoFixedOffset) fixed.push_back(i);
      }
      for (size_t x = 0; x < fixed.size() && !trusted_overlap_; ++x) {
        for (size_t y = x + 1; y < fixed.size() && !trusted_overlap_; ++y) {
          const uint32_t a = fixed[x];
          const uint32_t b = fixed[y];
          const size_t a_low = static_cast<size_t>(fixed_[a]);
          const size_t b_low = static_cast<size_t>(fixed_[b]);
          trusted_overlap_ = span_begin_[a] < span_end_[b] && span_begin_[b] < span_end_[a] &&
                             a_low < b_low + size_[b] && b_low < a_low + size_[a];
        }
      }
    }
    has_permissions_ = !permitted.empty();
    const auto permission_between = [&permitted](uint32_t a, uint32_t b) -> const std::pair<std::pair<uint32_t, uint32_t>, size_t>* {
      for (const auto& entry : permitted) {
        if ((entry.first.first == a && entry.first.second == b) || (entry.first.first == b && entry.first.second == a)) {
          return &entry;
        }
      }
      return nullptr;
    };
    // Time-overlap lists, by a sweep over the buffers sorted by first section,
    // in one array (a list per buffer was one allocation per buffer, a tenth
    // of a small problem's allocations).
    fixed_neighbours_.resize(count);
    std::vector<uint32_t> by_first(count);
    std::iota(by_first.begin(), by_first.end(), 0U);
    std::sort(by_first.begin(), by_first.end(), [this](uint32_t a, uint32_t b) {
      return span_begin_[a] != span_begin_[b] ? span_begin_[a] < span_begin_[b] : a < b;
    });
    // Counted first, then filled in the same order. Not for a problem the
    // search will not take (too many buffers or pairs): the lists would be
    // its largest allocation (8 bytes a pair: 3.6 GB for 30,000 buffers
    // live together) and only the greedy plan is made.
    overlap_begin_.assign(count + 1, 0);
    searchable_ = count <= OptimalPlanner::kMaxSearchBuffers;
    uint64_t pairs_counted = 0;
    for (size_t x = 0; x < count && searchable_; ++x) {
      const uint32_t a = by_first[x];
      for (size_t y = x + 1; y < count && span_begin_[by_first[y]] < span_end_[a]; ++y) {
        ++overlap_begin_[a + 1];
        ++overlap_begin_[by_first[y] + 1];
        ++pairs_counted;
      }
      searchable_ = pairs_counted <= options.max_search_pairs;
    }
    if (!searchable_) overlap_begin_.assign(count + 1, 0);
    for (uint32_t a = 0; a < count; ++a) overlap_begin_[a + 1] += overlap_begin_[a];
    overlap_list_.resize(overlap_begin_[count]);
    std::vector<size_t> filled(overlap_begin_.begin(), overlap_begin_.end() - 1);
    for (size_t x = 0; x < count && searchable_; ++x) {
      const uint32_t a = by_first[x];
      for (size_t y = x + 1; y < count && span_begin_[by_first[y]] < span_end_[a]; ++y) {
        const uint32_t b = by_first[y];
        overlap_list_[filled[a]++] = b;
        overlap_list_[filled[b]++] = a;
        if (fixed_[b] != kNoFixedOffset) fixed_neighbours_[a].push_back(b);
        if (fixed_[a] != kNoFixedOffset) fixed_neighbours_[b].push_back(a);
      }
    }
    // The extent of each buffer as its time neighbours see it from above:
    // its size, except an output under its permitted input, which the input
    // may sit on D bytes above the output's start (min(D, size)). Without
    // permissions every extent is the size: no table (it would be the
    // largest one here, and memory first touched is most of a small solve).
    if (!permitted.empty()) extents_.resize(overlap_list_.size());
    for (uint32_t a = 0; a < count && !permitted.empty(); ++a) {
      for (size_t k = overlap_begin_[a]; k < overlap_begin_[a + 1]; ++k) {
        extents_[k] = size_[a];
        const auto* entry = permission_between(a, overlap_list_[k]);
        if (entry != nullptr && entry->first.second == a) extents_[k] = std::min(size_[a], entry->second);
      }
    }
    // The permitted pairs, for PrepareSearch.
    for (const auto& entry : permitted) {
      permitted_pairs_.push_back({std::min(entry.first.first, entry.first.second),
                                  std::max(entry.first.first, entry.first.second)});
    }
    std::sort(permitted_pairs_.begin(), permitted_pairs_.end());
    // Orders (MiniMalloc's preordering heuristics): W = lifetime length,
    // A = area (size x length), T = the most bytes live in any of the
    // buffer's sections; each descending, then by index.
    // (Each sorted when first asked for, by StaticRanks: a plan the first
    // dive finds needs one.)
    width_.resize(count);
    area_.resize(count);
    most_live_.resize(count);
    for (uint32_t i = 0; i < count && searchable_; ++i) {
      width_[i] = static_cast<uint64_t>(buffers[global_[i]].lifetime.length());
      // Saturates: a wrapped product would rank a huge buffer as a small one.
      if (!CheckedMul64(width_[i], size_[i], &area_[i])) area_[i] = UINT64_MAX;
      size_t most = 0;
      for (uint32_t s = span_begin_[i]; s < span_end_[i]; ++s) most = std::max(most, total[s]);
      most_live_[i] = most;
    }
    for (const size_t live : total) most_live_bytes_ = std::max(most_live_bytes_, live);
    unplaced_live_ = std::move(total);
    cuts_ = initial_cuts_;
    part_most_live_.assign(count, 0);
    placed_top_.assign(section_count_, 0);
    prunes_.assign(section_count_, 0);
    stack_top_.resize(section_count_);
    at_risk_.reserve(section_count_);
    at_risk_from_.resize(section_count_ + 1);
    next_unset_.resize(section_count_ + 1);
    moved_.reserve(count);
    dive_solution_.resize(count);
  }

  size_t searched_buffers() const { return global_.size(); }
  // False when the problem has more buffers or pairs live together than
  // the search takes (OptimalPlanner::kMaxSearchBuffers,
  // OptimalOptions::max_search_pairs): then only the greedy plan is made.
  bool searchable() const { return searchable_; }
  // The most bytes live at one step (the lower bound without overlap
  // permissions); false when that sum overflows.
  bool MostLiveBytes(size_t* bytes) const {
    *bytes = most_live_bytes_;
    return !live_overflows_;
  }
  // The buffers live with buffer a (searched indices).
  Span<const uint32_t> Overlaps(uint32_t a) const {
    return Span<const uint32_t>(overlap_list_.data() + overlap_begin_[a], overlap_begin_[a + 1] - overlap_begin_[a]);
  }
  // What the greedy passes cost, in search nodes: the passes pay about
  // k log k per buffer (k: the buffers live alongside it) and a node about
  // the number of buffers. Measured on a generated 155-buffer problem (k 62
  // on average): the ten passes took 30 M instructions, a node 11 k, so
  // 7 Σ k log2(k + 2) / n puts them at 2,700 nodes there.
  uint64_t GreedyCostInNodes() const {
    if (global_.empty()) return 0;
    double sum = 0;
    for (uint32_t a = 0; a < global_.size(); ++a) {
      const double k = static_cast<double>(overlap_begin_[a + 1] - overlap_begin_[a]);
      sum += k * std::log2(k + 2);
    }
    return static_cast<uint64_t>(7 * sum / static_cast<double>(global_.size()));
  }
  // False when an exhausted search does not prove that no plan exists (see
  // the constructor): then only found plans count.
  bool proofs() const { return proofs_; }
  // True when two fixed buffers overlap, trusted (see the constructor).
  bool trusted_overlap() const { return trusted_overlap_; }
  uint64_t nodes() const { return nodes_; }
  // Each attempt's node budget in the first round of restarts.
  uint64_t FirstRoundBudget() const { return std::max<uint64_t>(64, 2 * global_.size()); }
  const OptimalSearchStats& stats() const { return stats_; }

  // Where the anytime search stands, for the progress callback.
  void Track(const size_t* best_head, const size_t* lower_bound) {
    best_head_ = best_head;
    lower_bound_ = lower_bound;
  }

  // Swaps the prune counts the learned order reads with *prunes (empty:
  // none yet), so that decisions under different capacities learn apart:
  // where the bounds prune depends on the capacity.
  void SwapPrunes(std::vector<uint64_t>* prunes) {
    if (prunes->empty()) prunes->assign(section_count_, 0);
    prunes_.swap(*prunes);
  }

  void CountFoundUnderTighterCapacity() { ++stats_.found_tighter_capacity; }

  // Searches for a plan with head <= capacity, trying the orders in turn
  // with a node budget that doubles each round (restarts), up to
  // `max_attempt_nodes` per attempt (0: no cap), from `first_budget` (0:
  // FirstRoundBudget(); a later round's budget continues a search that
  // stopped after its earlier rounds). kFound writes the plan to *offsets
  // (one per problem buffer) and its head to *head.
  Outcome Decide(size_t capacity, Clock::time_point deadline, bool has_deadline,
                 uint64_t max_attempt_nodes, uint64_t first_budget, std::vector<size_t>* offsets,
                 size_t* head) {
    capacity_ = capacity;
    // Every value the undo logs keep is at most the capacity (and they are
    // empty between attempts).
    fm_undo_.SetWide(capacity > UINT32_MAX);
    top_undo_.SetWide(capacity > UINT32_MAX);
    deadline_ = deadline;
    has_deadline_ = has_deadline;
    if (zero_size_top_ > capacity_) return Outcome::kNone;
    uint64_t budget = first_budget != 0 ? first_budget : FirstRoundBudget();
    if (max_attempt_nodes != 0) budget = std::min(budget, max_attempt_nodes);
    while (true) {
      for (size_t order = 0; order < kOrders; ++order) {
        // Orders kStaticOrders.. are the static ones again, with each
        // independent part re-sorted when it splits off (SolvePart).
        const size_t h = order % kStaticOrders;
        heuristic_ = h;
        sort_parts_ = order >= kStaticOrders;
        ranks_now_ = StaticRanks(h);
        const Outcome outcome = Attempt(budget, offsets, head);
        if (outcome == Outcome::kFound && sort_parts_) ++stats_.found_sorting_parts;
        if (outcome != Outcome::kBudget) return outcome;
      }
      // Then the order learned from where the attempts so far failed.
      if (options_.learn_order && LearnOrder()) {
        sort_parts_ = false;
        const Outcome outcome = Attempt(budget, offsets, head);
        if (outcome == Outcome::kFound) ++stats_.found_learned_order;
        if (outcome != Outcome::kBudget) return outcome;
      }
      if (max_attempt_nodes != 0 && budget >= max_attempt_nodes) return Outcome::kBudget;
      budget = budget > UINT64_MAX / 4 ? UINT64_MAX / 2 : 2 * budget;
      if (max_attempt_nodes != 0) budget = std::min(budget, max_attempt_nodes);
    }
  }

 private:
  // What only the search needs, made when it first runs: a plan the dive
  // finds needs none of it, and fresh memory is much of what a small solve
  // costs (about 10 us a page on a VM; a 192-buffer problem the dive
  // answers touched 24 pages more than a one-buffer one).
  // Twins: free buffers with the same lifetime, whose sizes keep offsets
  // aligned (so that two stacked twins may swap places); never a permitted
  // pair, whose two sides differ (finding them was a tenth of the
  // instructions of a 192-buffer problem the dive answers). The cheap,
  // rarely true test first: the eligibility of each buffer is computed
  // once, where a remainder per pair was a fifth of the set-up's
  // instructions.
  void PrepareSearch() {
    const uint32_t count = static_cast<uint32_t>(global_.size());
    // The stacks, reserved for the deepest path at once: reserved pages
    // cost nothing until written, while growing by doubling writes each
    // entry again into fresh pages.
    // fm_undo_: at most one entry per pair live together (the one placed
    // second is never raised); top_undo_: each placed buffer's sections;
    // stack_: per depth, at most three lists of the unplaced buffers
    // (Node's, and SolveParts' with its first part's). Each capped at 4 Mi
    // entries (beyond, they grow): a problem too large to search reserves
    // no gigabytes it never uses.
    constexpr size_t kMostReserved = size_t{1} << 22;
    size_t most_tops = 0;
    for (uint32_t i = 0; i < count; ++i) most_tops += span_end_[i] - span_begin_[i];
    const size_t pairs = overlap_list_.size() / 2;
    fm_undo_.Reserve(std::min(pairs, kMostReserved));
    top_undo_.Reserve(std::min(most_tops, kMostReserved));
    top_marks_.reserve(std::min<size_t>(count, kMostReserved));
    stack_.reserve(count > 2048 ? kMostReserved : std::min(3 * size_t{count} * (count + 1) / 2 + count, kMostReserved));
    fm_.assign(count, 0);
    cand_.resize(count);
    placed_.assign(count, false);
    blocked_.assign(count, false);
    solution_.resize(count);
    place_depth_.resize(count);
    twins_.assign(count, {});
    const size_t alignment = problem_.alignment_bytes;
    std::vector<uint8_t> may_twin(count);
    for (uint32_t a = 0; a < count; ++a) {
      may_twin[a] = fixed_[a] == kNoFixedOffset && size_[a] % alignment == 0;
    }
    for (uint32_t a = 0; a < count; ++a) {
      if (!may_twin[a]) continue;
      for (uint32_t b : Overlaps(a)) {
        if (span_begin_[a] != span_begin_[b] || span_end_[a] != span_end_[b] || !may_twin[b]) continue;
        if (!permitted_pairs_.empty() &&
            std::binary_search(permitted_pairs_.begin(), permitted_pairs_.end(),
                               std::make_pair(std::min(a, b), std::max(a, b)))) {
          continue;
        }
        twins_[a].push_back(b);
      }
    }
    search_prepared_ = true;
  }

  // One search from the root under ranks_now_ with a budget of `budget`
  // nodes; kFound writes the plan as Decide says.
  Outcome Attempt(uint64_t budget, std::vector<size_t>* offsets, size_t* head) {
    if (!search_prepared_) PrepareSearch();
    rank_ = ranks_now_.data();
    budget_end_ = nodes_ + budget;
    ++stats_.attempts;
    const Outcome outcome = Root();
    if (outcome == Outcome::kFound) {
      size_t top = zero_size_top_;
      for (size_t i = 0; i < global_.size(); ++i) top = std::max(top, solution_[i] + size_[i]);
      *head = top;
      for (size_t i = 0; i < problem_.buffers.size(); ++i) {
        const int64_t fixed = problem_.buffers[i].fixed_offset_bytes;
        (*offsets)[i] = fixed == kNoFixedOffset ? 0 : static_cast<size_t>(fixed);
      }
      for (size_t i = 0; i < global_.size(); ++i) (*offsets)[global_[i]] = solution_[i];
    }
    return outcome;
  }

 public:
  // A plan within `capacity` without search, if the simplest one fits:
  // repeatedly the unplaced buffer with the lowest candidate offset (ties:
  // an order) goes there, on top of the placed buffers live with it. That
  // is the path the search takes first wherever no bound prunes it, at O(n)
  // per buffer instead of O(n + sections) per node plus the node's stacks:
  // on a generated 192-buffer problem that the search solved without a
  // backtrack, 4.2 M instructions and 53 fresh pages. Any plan it ends with
  // is valid (each buffer lies above every placed buffer live with it); a
  // buffer that cannot fit ends a dive. kDiveRounds rounds, each a dive
  // under each static order, the buffer that did not fit moved to the
  // front of its order for the next (as in squeaky-wheel optimisation).
  // Measured on the 200 like-a-f problems: 94 answered in one round, 114 in
  // two, 117 in three, 124 in eight; a round that fails costs about 0.75 M
  // instructions on a 159-buffer problem, about what 40 nodes of search do.
  // Not with fixed buffers or overlap permissions (their rules), nor when a
  // candidate and a rank do not fit one 64-bit key: a candidate is at most
  // the capacity aligned up (the top of a buffer that fit, aligned), a rank
  // below the buffer count.
  bool Dive(size_t capacity, std::vector<size_t>* offsets, size_t* head) {
    if (has_fixed_ || has_permissions_ || zero_size_top_ > capacity) return false;
    int shift = 1;
    while (shift < 64 && (uint64_t{1} << shift) < global_.size()) ++shift;
    size_t most_candidate = 0;
    if (!AlignUp(capacity, problem_.alignment_bytes, &most_candidate) || shift >= 64 ||
        (static_cast<uint64_t>(most_candidate) >> (64 - shift)) != 0) {
      return false;
    }
    for (int round = 0; round < kDiveRounds; ++round) {
      for (size_t h = 0; h < kStaticOrders; ++h) {
        std::vector<uint32_t>& rank = dive_ranks_[h];
        if (round == 0) rank = StaticRanks(h);
        uint32_t failed = kNone;
        if (DiveUnder(rank.data(), capacity, shift, offsets, head, &failed)) {
          stats_.found_by_dive = 1;
          return true;
        }
        const uint32_t last = rank[failed];
        for (uint32_t& other : rank) other += other < last ? 1 : 0;
        rank[failed] = 0;
      }
    }
    return false;
  }

 private:
  // One dive under `rank` (a permutation); on failure *failed is the
  // buffer that did not fit. Each step takes the unplaced buffer with the
  // least (candidate, rank), held as one key per buffer (the candidate
  // shifted above the rank, `shift` bits: see Dive) in an array beside the
  // list of the unplaced buffers: a step scans the keys, O(n) (O(n^2) a
  // dive), a raise rewrites one key. Comparing (candidate, rank) pairs read
  // through the buffers' indices took 2.2x the instructions of the key scan
  // on a 192-buffer problem (230 k against 103 k a dive); an indexed heap
  // paid O(log n) per raise, a raised buffer sinking to the bottom (5x the
  // pairs' scan on 159 buffers where each lives with a third of the
  // others).
  bool DiveUnder(const uint32_t* rank, size_t capacity, int shift, std::vector<size_t>* offsets,
                 size_t* head, uint32_t* failed) {
    const uint32_t count = static_cast<uint32_t>(global_.size());
    const size_t alignment = problem_.alignment_bytes;
    std::vector<uint64_t>& key = dive_key_;            // by position in `unplaced`
    std::vector<uint32_t>& unplaced = dive_unplaced_;
    std::vector<uint32_t>& position = dive_position_;  // of each unplaced buffer in `unplaced`
    std::vector<uint8_t>& placed = dive_placed_;
    key.resize(count);
    unplaced.resize(count);
    position.resize(count);
    placed.assign(count, 0);
    for (uint32_t i = 0; i < count; ++i) {
      unplaced[i] = i;
      position[i] = i;
      key[i] = rank[i];  // candidate 0
    }
    size_t top = zero_size_top_;
    for (size_t left = count; left > 0; --left) {
      uint64_t least = key[0];
      for (size_t k = 1; k < left; ++k) least = std::min(least, key[k]);
      size_t best = 0;
      while (key[best] != least) ++best;  // keys differ: the ranks do
      const uint32_t id = unplaced[best];
      const size_t offset = static_cast<size_t>(least >> shift);
      if (!Fits(offset, size_[id], capacity)) {
        *failed = id;
        return false;
      }
      unplaced[best] = unplaced[left - 1];
      key[best] = key[left - 1];
      position[unplaced[best]] = static_cast<uint32_t>(best);
      placed[id] = 1;
      dive_solution_[id] = offset;
      const size_t raised = AlignUpUnchecked(offset + size_[id], alignment);
      const uint64_t raised_key = static_cast<uint64_t>(raised) << shift;
      top = std::max(top, offset + size_[id]);
      for (const uint32_t d : Overlaps(id)) {
        if (placed[d]) continue;
        uint64_t& other = key[position[d]];
        // other < raised_key exactly when d's candidate is below `raised`.
        if (other < raised_key) other = raised_key | (other & ((uint64_t{1} << shift) - 1));
      }
    }
    *head = top;
    // Zero-size buffers at their fixed offsets (or 0), as Attempt writes them.
    for (size_t i = 0; i < problem_.buffers.size(); ++i) {
      const int64_t fixed = problem_.buffers[i].fixed_offset_bytes;
      (*offsets)[i] = fixed == kNoFixedOffset ? 0 : static_cast<size_t>(fixed);
    }
    for (uint32_t i = 0; i < count; ++i) (*offsets)[global_[i]] = dive_solution_[i];
    return true;
  }

  // The learned order: buffers live in the sections where the section
  // bounds of Node pruned most often so far (in every attempt, under every
  // order; the tighter capacities of Solve count apart, see SwapPrunes; the
  // check before a split, PartFitsAbove, is not counted) first, the most
  // prunes in any of a buffer's sections deciding; then by area, then
  // index. The sections that keep overflowing are where the plan is
  // decided: their buffers placed first meet the conflict near the root,
  // where the static keys may leave them for deep in the tree (what a
  // restart with learned variable activity does in a SAT solver).
  // False while no section has pruned (nothing learned yet).
  bool LearnOrder() {
    const size_t count = global_.size();
    learned_key_.assign(count, 0);
    bool any = false;
    for (uint32_t i = 0; i < count; ++i) {
      uint64_t most = 0;
      for (uint32_t s = span_begin_[i]; s < span_end_[i]; ++s) most = std::max(most, prunes_[s]);
      learned_key_[i] = most;
      any |= most != 0;
    }
    if (!any) return false;
    learned_order_.resize(count);
    std::iota(learned_order_.begin(), learned_order_.end(), 0U);
    std::sort(learned_order_.begin(), learned_order_.end(), [this](uint32_t a, uint32_t b) {
      if (learned_key_[a] != learned_key_[b]) return learned_key_[a] > learned_key_[b];
      if (area_[a] != area_[b]) return area_[a] > area_[b];
      return a < b;
    });
    ranks_now_.resize(count);
    for (uint32_t r = 0; r < count; ++r) ranks_now_[learned_order_[r]] = r;
    return true;
  }

  // Three static orders, then the same three with every part re-sorted.
  static constexpr size_t kStaticOrders = 3;
  static constexpr size_t kOrders = 2 * kStaticOrders;
  static constexpr uint32_t kNone = UINT32_MAX;

  static constexpr size_t kMinCachedPart = 3;
  static constexpr int kDiveRounds = 2;
  static constexpr size_t kMaxCacheBytes = size_t{256} << 20;
  static constexpr size_t kMinDeadStates = size_t{1} << 12;  // 96 KiB
  static constexpr size_t kMaxDeadStates = size_t{1} << 22;  // 96 MiB

  struct DeadState {
    uint64_t low = 0;
    uint64_t high = 0;    // 0: empty slot
    size_t capacity = 0;  // the capacity it was proven dead under
  };

  struct CachedPart {
    bool found = false;
    size_t capacity = 0;          // the capacity it was answered under
    std::vector<size_t> offsets;  // when found: per buffer of the part, in key order
  };
  struct KeyHash {
    size_t operator()(const std::vector<uint64_t>& key) const {
      uint64_t hash = 1469598103934665603ULL;
      for (uint64_t value : key) hash = (hash ^ value) * 1099511628211ULL;
      return static_cast<size_t>(hash ^ (hash >> 29));
    }
  };

  struct Candidate {
    uint32_t id;
    size_t offset;
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
      progress.best_head_bytes = best_head_ != nullptr ? *best_head_ : 0;
      progress.lower_bound_bytes = lower_bound_ != nullptr ? *lower_bound_ : 0;
      progress.nodes = nodes_;
      options_.progress(progress);
    }
    return has_deadline_ && now >= deadline_;
  }

  // The whole problem: its independent parts, from the empty state.
  Outcome Root() {
    stack_.resize(global_.size());
    std::iota(stack_.begin(), stack_.end(), 0U);
    const Outcome outcome = SolveParts(0, stack_.size(), 0, section_count_);
    stack_.clear();
    return outcome;
  }

  // The unplaced buffers of stack_[part_begin, part_end), all inside
  // sections [lo, hi), split where no unplaced buffer crosses from one
  // section to the next; each part is solved on its own, from level 0.
  Outcome SolveParts(size_t part_begin, size_t part_end, uint32_t lo, uint32_t hi) {
    const size_t sorted_begin = stack_.size();
    for (size_t k = part_begin; k < part_end; ++k) {
      if (!placed_[stack_[k]]) stack_.push_back(stack_[k]);
    }
    const size_t sorted_end = stack_.size();
    std::sort(stack_.begin() + static_cast<std::ptrdiff_t>(sorted_begin), stack_.end(),
              [this](uint32_t a, uint32_t b) {
                return span_begin_[a] != span_begin_[b] ? span_begin_[a] < span_begin_[b] : a < b;
              });
    Outcome outcome = Outcome::kFound;
    size_t k = sorted_begin;
    uint32_t start = lo;
    for (uint32_t boundary = lo + 1; boundary <= hi && outcome == Outcome::kFound; ++boundary) {
      if (boundary < hi && cuts_[boundary - 1] != 0) continue;
      const size_t group_begin = k;
      while (k < sorted_end && span_begin_[stack_[k]] < boundary) ++k;
      if (k > group_begin) outcome = SolvePart(group_begin, k, start, boundary);
      start = boundary;
    }
    stack_.resize(sorted_begin);
    return outcome;
  }

  // One independent part (all its buffers unplaced), through the cache: a
  // part is fully described by its buffers and their fm values, so a part
  // seen before has the same answer under the same capacity (and a plan
  // found fits a larger one, a "no" holds for a smaller one).
  Outcome SolvePart(size_t part_begin, size_t part_end, uint32_t lo, uint32_t hi) {
    const size_t outer_part_depth = part_depth_;
    part_depth_ = depth_;
    const size_t saved_begin = saved_ranks_.size();
    if (sort_parts_ && part_end - part_begin > 1) SortPart(part_begin, part_end);
    const Outcome outcome = CachedNode(part_begin, part_end, lo, hi);
    if (saved_ranks_.size() > saved_begin) {
      for (size_t k = part_begin; k < part_end; ++k) {
        ranks_now_[stack_[k]] = saved_ranks_[saved_begin + (k - part_begin)];
      }
      saved_ranks_.resize(saved_begin);
    }
    part_depth_ = outer_part_depth;
    return outcome;
  }

  // Re-sorts the buffers of a part that just split off by the current
  // heuristic, with T counted over the bytes still unplaced (as MiniMalloc
  // orders each sub-partition): the placements so far have changed which
  // sections are the crowded ones. The part's buffers take the part's own
  // ranks in the new order, so ranks stay distinct; the old ones are saved
  // (saved_ranks_) and put back when the part is done.
  void SortPart(size_t part_begin, size_t part_end) {
    part_order_.clear();
    for (size_t k = part_begin; k < part_end; ++k) {
      const uint32_t c = stack_[k];
      saved_ranks_.push_back(ranks_now_[c]);
      part_order_.push_back(c);
      size_t most = 0;
      for (uint32_t s = span_begin_[c]; s < span_end_[c]; ++s) most = std::max(most, unplaced_live_[s]);
      part_most_live_[c] = most;
    }
    part_ranks_.assign(saved_ranks_.end() - static_cast<std::ptrdiff_t>(part_end - part_begin),
                       saved_ranks_.end());
    std::sort(part_ranks_.begin(), part_ranks_.end());
    SortByHeuristic(heuristic_, part_most_live_, &part_order_);
    for (size_t k = 0; k < part_order_.size(); ++k) ranks_now_[part_order_[k]] = part_ranks_[k];
  }

  // The ranks of static order h (see SortByHeuristic), sorted when first
  // asked for.
  const std::vector<uint32_t>& StaticRanks(size_t h) {
    std::vector<uint32_t>& ranks = ranks_[h];
    const uint32_t count = static_cast<uint32_t>(global_.size());
    if (ranks.size() == count) return ranks;
    std::vector<uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0U);
    SortByHeuristic(h, most_live_, &order);
    ranks.resize(count);
    for (uint32_t r = 0; r < count; ++r) ranks[order[r]] = r;
    return ranks;
  }

  // Sorts `ids` by heuristic h (0: W A T, 1: T A W, 2: T W A; each key
  // descending, then by index), with T from `most_live` (by buffer).
  void SortByHeuristic(size_t h, const std::vector<uint64_t>& most_live,
                       std::vector<uint32_t>* ids) const {
    std::sort(ids->begin(), ids->end(), [&](uint32_t a, uint32_t b) {
      const uint64_t key_a[3] = {width_[a], area_[a], most_live[a]};
      const uint64_t key_b[3] = {width_[b], area_[b], most_live[b]};
      static constexpr int kKeyOrder[kStaticOrders][3] = {{0, 1, 2}, {2, 1, 0}, {2, 0, 1}};
      for (const int key : kKeyOrder[h]) {
        if (key_a[key] != key_b[key]) return key_a[key] > key_b[key];
      }
      return a < b;
    });
  }

  Outcome CachedNode(size_t part_begin, size_t part_end, uint32_t lo, uint32_t hi) {
    if (part_end - part_begin < kMinCachedPart) {
      return Node(part_begin, part_end, lo, hi, 0, kNone);
    }
    key_.clear();
    for (size_t k = part_begin; k < part_end; ++k) {
      key_.push_back(stack_[k]);
      key_.push_back(fm_[stack_[k]]);
    }
    // A plan found under a capacity fits every larger one; a part proven
    // to have none has none under every smaller one.
    const auto hit = cache_.find(key_);
    if (hit != cache_.end() && (hit->second.found ? hit->second.capacity <= capacity_
                                                  : hit->second.capacity >= capacity_)) {
      ++stats_.cache_hits;
      if (!hit->second.found) return Outcome::kNone;
      for (size_t k = part_begin; k < part_end; ++k) {
        solution_[stack_[k]] = hit->second.offsets[k - part_begin];
      }
      return Outcome::kFound;
    }
    const Outcome outcome = Node(part_begin, part_end, lo, hi, 0, kNone);
    if (outcome == Outcome::kFound || outcome == Outcome::kNone) {
      CachedPart entry;
      entry.found = outcome == Outcome::kFound;
      entry.capacity = capacity_;
      if (entry.found) {
        for (size_t k = part_begin; k < part_end; ++k) entry.offsets.push_back(solution_[stack_[k]]);
      }
      // Recompute the key: the search below reused key_.
      std::vector<uint64_t> key;
      for (size_t k = part_begin; k < part_end; ++k) {
        key.push_back(stack_[k]);
        key.push_back(fm_[stack_[k]]);
      }
      const auto entry_bytes = [](const std::vector<uint64_t>& k, const CachedPart& e) {
        return (k.size() + e.offsets.size()) * sizeof(uint64_t) + 64;
      };
      const auto [slot, inserted] = cache_.try_emplace(std::move(key));
      // Not inserted: answered under another capacity, replaced.
      if (!inserted) cache_bytes_ -= entry_bytes(slot->first, slot->second);
      cache_bytes_ += entry_bytes(slot->first, entry);
      slot->second = std::move(entry);
      if (cache_bytes_ > kMaxCacheBytes) {
        cache_.clear();
        cache_bytes_ = 0;
      }
    }
    return outcome;
  }

  // Places every unplaced buffer of stack_[part_begin, part_end) (one part:
  // sections [lo, hi)), in order of non-decreasing offset from `level`.
  // On kFound the plan is in solution_; the state is always restored.
  Outcome Node(size_t part_begin, size_t part_end, uint32_t lo, uint32_t hi, size_t level,
               uint32_t last_rank) {
    ++nodes_;
    if (nodes_ >= budget_end_) return Outcome::kBudget;
    if (LimitReached()) return Outcome::kLimit;
    // First the cheap form of the per-section bound below, from running
    // sums: most nodes fail it.
    if (!SectionsFitAbove(lo, hi, level)) {
      ++stats_.pruned_section_bound;
      return Outcome::kNone;
    }
    const size_t alignment = problem_.alignment_bytes;
    const size_t u_begin = stack_.size();
    for (size_t k = part_begin; k < part_end; ++k) {
      if (!placed_[stack_[k]]) stack_.push_back(stack_[k]);
    }
    const size_t u_end = stack_.size();
    if (u_begin == u_end) return Outcome::kFound;
    const auto fail = [this, u_begin](uint64_t* counter) {
      ++*counter;
      stack_.resize(u_begin);
      return Outcome::kNone;
    };
    stats_.deepest = std::max<uint64_t>(stats_.deepest, depth_);

    // Candidate offsets; a buffer that cannot fit prunes the node.
    size_t min_fixed = SIZE_MAX;
    for (size_t k = u_begin; k < u_end; ++k) {
      const uint32_t c = stack_[k];
      size_t offset = 0;
      if (fixed_[c] != kNoFixedOffset) {
        offset = static_cast<size_t>(fixed_[c]);
        if (offset < level || fm_[c] > offset) return fail(&stats_.pruned_fixed);
        min_fixed = std::min(min_fixed, offset);
      } else {
        offset = AlignUpUnchecked(fm_[c], alignment);
      }
      if (!Fits(offset, size_[c], capacity_)) return fail(&stats_.pruned_too_high);
      cand_[c] = offset;
    }
    // A free buffer whose candidate range meets an unplaced fixed buffer
    // live with it cannot go there (it will sit higher, once that one is
    // placed).
    if (has_fixed_) {
      for (size_t k = u_begin; k < u_end; ++k) {
        const uint32_t c = stack_[k];
        blocked_[c] = BlockedByFixed(c, cand_[c]);
      }
    }
    // Increasing candidate offset, then rank: the order the children are
    // tried in, and the release order of the per-section bound below.
    SortNearlySorted(u_begin, u_end);
    // Per section: the unplaced buffers live there stack up from the level,
    // each at or above its candidate (a release-date bound). Prune when the
    // stack cannot stay within the capacity.
    const bool stacks_fit = any_no_stack_bound_ ? StacksFit<true>(u_begin, u_end, lo, hi, level)
                                                : StacksFit<false>(u_begin, u_end, lo, hi, level);
    if (!stacks_fit) return fail(&stats_.pruned_section_bound);
    // A state that failed before (in this attempt or an earlier one)
    // fails again: skip it.
    DeadState state;
    const bool keyed = StateKey(u_begin, u_end, level, last_rank, &state);
    if (keyed && IsDead(state)) {
      ++stats_.dead_state_hits;
      stack_.resize(u_begin);
      return Outcome::kNone;
    }
    // Dominance: a buffer whose candidate range ends at or below offset o
    // would have to sit in an empty slot under o; so nothing goes at o.
    size_t first_top = SIZE_MAX;
    size_t second_top = SIZE_MAX;
    uint32_t first_id = kNone;
    for (size_t k = u_begin; k < u_end; ++k) {
      const uint32_t c = stack_[k];
      if (has_fixed_ && blocked_[c]) continue;
      const size_t top = cand_[c] + size_[c];
      if (top < first_top) {
        second_top = first_top;
        first_top = top;
        first_id = c;
      } else if (top < second_top) {
        second_top = top;
      }
    }
    // The children, in the order of stack_[u_begin, u_end), read as they
    // are tried: every child works above u_end and restores what it changes
    // (fm_, placed_, ranks), except cand_ and blocked_, so those are
    // recomputed here. (A list copied out per depth was 40 % of the memory a
    // small solve touched, and a fresh page costs about 14 us on a VM: more
    // than the search of a 192-buffer problem that needs no backtracking.)
    Outcome outcome = Outcome::kNone;
    for (size_t k = u_begin; k < u_end; ++k) {
      const uint32_t id = stack_[k];
      const size_t offset = CandidateOffset(id);
      if (offset < level) continue;  // canonical: it can only go higher, atop another
      if (offset >= (id == first_id ? second_top : first_top)) break;
      if (offset > min_fixed) break;
      if (has_fixed_ && BlockedByFixed(id, offset)) continue;
      if (offset == level && last_rank != kNone && rank_[id] < last_rank) continue;
      if (!twins_[id].empty() && OnWrongTwin(id, offset)) continue;
      const size_t mark = Place(id, offset);
      bool split = false;
      for (uint32_t s = span_begin_[id]; s + 1 < span_end_[id]; ++s) split |= --cuts_[s] == 0;
      if (!split) {
        outcome = Node(u_begin, u_end, lo, hi, offset, rank_[id]);
      } else if (!PartFitsAbove(u_begin, u_end, lo, hi, offset)) {
        outcome = Outcome::kNone;
      } else {
        outcome = SolveParts(u_begin, u_end, lo, hi);
      }
      for (uint32_t s = span_begin_[id]; s + 1 < span_end_[id]; ++s) ++cuts_[s];
      Unplace(id, mark);
      if (outcome != Outcome::kNone) break;
    }
    if (outcome == Outcome::kNone) {
      ++stats_.dead_ends;
      if (keyed) MarkDead(state);
    }
    stack_.resize(u_begin);
    return outcome;
  }

  // Sorts stack_[begin, end) by Before. Inside a part the input is the
  // parent node's order, which placing one buffer disturbs only where it
  // raised a candidate (the buffers live with it). So: from the back, keep
  // each buffer that comes before the one kept after it; sort the few others
  // (the raised ones) apart and merge them back. O(n + k log k) for k
  // raised, where an insertion sort paid for every position a raised buffer
  // moved (8 % of a whole small solve's instructions). (A part's first node
  // gets SolveParts' order: more move, and it is still a sort.)
  void SortNearlySorted(size_t begin, size_t end) {
    moved_.clear();
    size_t kept = end;  // stack_[kept, end): the kept buffers, in order
    for (size_t k = end; k-- > begin;) {
      const uint32_t c = stack_[k];
      if (kept == end || Before(c, stack_[kept])) {
        stack_[--kept] = c;
      } else {
        moved_.push_back(c);
      }
    }
    if (moved_.empty()) return;
    std::sort(moved_.begin(), moved_.end(), [this](uint32_t a, uint32_t b) { return Before(a, b); });
    // Merge from the front: the write position never passes the next kept
    // buffer (kept - begin == moved_.size() slots are free before it).
    size_t out = begin;
    size_t m = 0;
    while (m < moved_.size()) {
      if (kept < end && Before(stack_[kept], moved_[m])) {
        stack_[out++] = stack_[kept++];
      } else {
        stack_[out++] = moved_[m++];
      }
    }
  }

  // Per section of [lo, hi): the unplaced buffers of stack_[u_begin, u_end)
  // live there stack up from the level, each at or above its candidate, in
  // the order of the stack (a release-date bound). False when a stack cannot
  // stay within the capacity; the section that overflowed gets a prune in
  // prunes_ (the learned order reads them). kSkips: some sections have no
  // such bound (a permitted pair lives there) and are passed over; without
  // any, the loop does not look. Every buffer's size is at most the capacity
  // (Node's candidate loop has checked it), so capacity_ - size cannot wrap.
  //
  // Where few sections can overflow, only those are stacked. A section's
  // stack ends at most at its floor (the level, or the highest candidate
  // among its buffers if higher) plus its unplaced bytes, so where those fit
  // it cannot overflow. The floors come from the buffers in descending
  // candidate order, each setting the sections of its span that no higher
  // one has set (next_unset_: a union-find of the next section still unset),
  // O(buffers + sections). The sections left are listed in at_risk_, and
  // each buffer visits only the listed sections of its span. Same verdict
  // and same first overflow as stacking every section. On a generated
  // 192-buffer problem the nodes stacked 9 % of their sections; on E, 75 %,
  // where the floors cost more than they save: so every 64th call measures
  // the share, and the calls up to the next measure take the floors only
  // while it is under half.
  template <bool kSkips>
  bool StacksFit(size_t u_begin, size_t u_end, uint32_t lo, uint32_t hi, size_t level) {
    if (options_.stack_every_section) return StackSections<kSkips, false>(u_begin, u_end, level, lo, hi);
    const bool measure = (++stacks_calls_ & 63) == 1;
    if (measure || use_floors_) {
      SetAtRiskSections<kSkips>(u_begin, u_end, lo, hi, level);
      if (measure) use_floors_ = 2 * at_risk_.size() < hi - lo;
      return StackSections<kSkips, true>(u_begin, u_end, level);
    }
    return StackSections<kSkips, false>(u_begin, u_end, level, lo, hi);
  }

  // at_risk_: the sections of [lo, hi) whose stack may overflow (see
  // StacksFit), ascending, each with its stack_top_ set to the level;
  // at_risk_from_[s]: the first index of at_risk_ at or after section s.
  template <bool kSkips>
  void SetAtRiskSections(size_t u_begin, size_t u_end, uint32_t lo, uint32_t hi, size_t level) {
    uint32_t* const next_unset = next_unset_.data();
    size_t* const floor = stack_top_.data();  // the floors first, then the stacks
    for (uint32_t s = lo; s <= hi; ++s) next_unset[s] = s;
    for (uint32_t s = lo; s < hi; ++s) floor[s] = level;
    const auto find = [next_unset](uint32_t s) {
      while (next_unset[s] != s) {
        next_unset[s] = next_unset[next_unset[s]];
        s = next_unset[s];
      }
      return s;
    };
    for (size_t k = u_end; k-- > u_begin;) {
      const uint32_t c = stack_[k];
      const size_t offset = cand_[c];
      if (offset <= level) break;  // the rest are at or below the level too
      for (uint32_t s = find(span_begin_[c]), s_end = span_end_[c]; s < s_end; s = find(s + 1)) {
        floor[s] = offset;
        next_unset[s] = s + 1;
      }
    }
    at_risk_.clear();
    for (uint32_t s = lo; s < hi; ++s) {
      at_risk_from_[s] = static_cast<uint32_t>(at_risk_.size());
      if (kSkips && no_stack_bound_[s]) continue;
      // floor[s] <= capacity: the level and every candidate fit
      if (unplaced_live_[s] > capacity_ - floor[s]) {
        at_risk_.push_back(s);
        floor[s] = level;
      }
    }
    at_risk_from_[hi] = static_cast<uint32_t>(at_risk_.size());
  }

  // The stacks of StacksFit: kListed, over the sections of at_risk_ only;
  // else over every section of [lo, hi).
  template <bool kSkips, bool kListed>
  bool StackSections(size_t u_begin, size_t u_end, size_t level, uint32_t lo = 0, uint32_t hi = 0) {
    size_t* const top = stack_top_.data();
    if (!kListed) {
      for (uint32_t s = lo; s < hi; ++s) top[s] = level;
    } else if (at_risk_.empty()) {
      return true;
    }
    const uint32_t* const at_risk = at_risk_.data();
    const uint32_t* const from = at_risk_from_.data();
    for (size_t k = u_begin; k < u_end; ++k) {
      const uint32_t c = stack_[k];
      const size_t offset = cand_[c];
      const size_t size = size_[c];
      const size_t highest_start = capacity_ - size;
      const uint32_t begin = kListed ? from[span_begin_[c]] : span_begin_[c];
      const uint32_t end = kListed ? from[span_end_[c]] : span_end_[c];
      for (uint32_t i = begin; i < end; ++i) {
        const uint32_t s = kListed ? at_risk[i] : i;
        if (!kListed && kSkips && no_stack_bound_[s]) continue;
        const size_t start_at = std::max(top[s], offset);
        if (start_at > highest_start) {
          ++prunes_[s];
          return false;
        }
        top[s] = start_at + size;
      }
    }
    return true;
  }

  // Per section of [lo, hi): the unplaced buffers live there lie above the
  // level and above every placed buffer live there (they cannot overlap it),
  // so their bytes must fit between that and the capacity. Kept by Place and
  // Unplace (unplaced_live_, placed_top_), so a node pays O(sections), not
  // the full bound's O(buffers + their sections). Skips sections where a
  // permitted pair lives, as the full bound does.
  bool SectionsFitAbove(uint32_t lo, uint32_t hi, size_t level) {
    for (uint32_t s = lo; s < hi; ++s) {
      if (unplaced_live_[s] == 0 || no_stack_bound_[s]) continue;
      if (!Fits(std::max(level, placed_top_[s]), unplaced_live_[s], capacity_)) {
        ++prunes_[s];
        return false;
      }
    }
    return true;
  }

  // The bounds of Node for the part's unplaced buffers at `level`, checked
  // when a placement splits the part: the parts are then searched on their
  // own, each from level 0, but a plan of the whole part reached along a
  // path of non-decreasing offsets has every buffer still unplaced at or
  // above this placement's offset, the parts that split off included. (As
  // MiniMalloc checks its sections before it decomposes.) Without this, the
  // parts may take plans with buffers below the level, which the search
  // also reaches along the path that places them first: the same plans are
  // searched again under every placement that splits, and refuting such a
  // placement costs as much as solving the parts (MiniMalloc's problem H).
  bool PartFitsAbove(size_t part_begin, size_t part_end, uint32_t lo, uint32_t hi, size_t level) {
    const size_t alignment = problem_.alignment_bytes;
    split_check_.clear();
    for (size_t k = part_begin; k < part_end; ++k) {
      const uint32_t c = stack_[k];
      if (placed_[c]) continue;
      size_t offset = AlignUpUnchecked(fm_[c], alignment);
      if (fixed_[c] != kNoFixedOffset) {
        offset = static_cast<size_t>(fixed_[c]);
        if (offset < level || fm_[c] > offset) {
          ++stats_.pruned_fixed;
          return false;
        }
      }
      if (!Fits(offset, size_[c], capacity_)) {
        ++stats_.pruned_too_high;
        return false;
      }
      split_check_.push_back({c, offset});
    }
    std::sort(split_check_.begin(), split_check_.end(),
              [](const Candidate& a, const Candidate& b) { return a.offset < b.offset; });
    for (uint32_t s = lo; s < hi; ++s) stack_top_[s] = level;
    for (const Candidate& entry : split_check_) {
      for (uint32_t s = span_begin_[entry.id]; s < span_end_[entry.id]; ++s) {
        if (no_stack_bound_[s]) continue;
        const size_t start_at = std::max(stack_top_[s], entry.offset);
        if (!Fits(start_at, size_[entry.id], capacity_)) {
          ++stats_.pruned_section_bound;
          return false;
        }
        stack_top_[s] = start_at + size_[entry.id];
      }
    }
    return true;
  }

  // Everything the plans below a node depend on, hashed to 128 bits: the
  // level, and per unplaced buffer its id, its floor, whether the rank rule
  // keeps it off the level, and the tops of the buffers already placed in
  // this part that it may not sit directly on (OnWrongTwin). A subtree
  // searched to the end without a plan proves every equal state dead, under
  // any order (static, re-sorted per part or learned): the orders change the
  // sequence in which buffers at one offset are placed, never which
  // arrangements are reached (the twin rule does not read the order). (Two different states share a key with
  // probability about 2^-128 per pair; at most kMaxDeadStates are stored.)
  // Not used with fixed buffers or overlap permissions (model problems,
  // which the search settles in few nodes): their rules read more state.
  bool StateKey(size_t u_begin, size_t u_end, size_t level, uint32_t last_rank,
                DeadState* state) {
    if (has_fixed_ || has_permissions_ || u_end - u_begin < kMinCachedPart) return false;
    if (dead_states_.empty()) {
      if (nodes_ < options_.dead_states_after_nodes) return false;
      dead_states_.resize(kMinDeadStates);
    }
    uint64_t low = 0x243F6A8885A308D3ULL ^ Mix(level);
    uint64_t high = 0x13198A2E03707344ULL ^ Mix(level * 0xD6E8FEB86659FD93ULL + 1);
    for (size_t k = u_begin; k < u_end; ++k) {
      const uint32_t c = stack_[k];
      const bool excluded = cand_[c] == level && last_rank != kNone && rank_[c] < last_rank;
      uint64_t item = (uint64_t{c} << 1 | (excluded ? 1 : 0)) * 0xA0761D6478BD642FULL ^ fm_[c];
      for (uint32_t x : twins_[c]) {
        if (!placed_[x] || place_depth_[x] < part_depth_) continue;
        if (WrongTwin(x, c)) {
          item = Mix(item) ^ (solution_[x] + size_[x]);
        }
      }
      // Sums: the same set in any order gives the same key.
      low += Mix(item);
      high += Mix(item ^ 0x5851F42D4C957F2DULL);
    }
    state->low = low;
    state->high = high | 1;  // never the empty slot's 0
    return true;
  }

  static uint64_t Mix(uint64_t z) { return SplitMix64::Mix(z); }

  // A direct-mapped table: a new dead state replaces whatever was in its
  // slot (losing a state costs only a repeated search, never a wrong answer).
  // It grows 4x (keeping its states) once it has taken twice its slots,
  // up to kMaxDeadStates. A state dead under a capacity is dead under every
  // smaller one.
  bool IsDead(const DeadState& state) const {
    const DeadState& slot = dead_states_[state.low & (dead_states_.size() - 1)];
    return slot.low == state.low && slot.high == state.high && slot.capacity >= capacity_;
  }
  void MarkDead(DeadState state) {
    state.capacity = capacity_;
    if (++dead_states_stored_ > 2 * dead_states_.size() && dead_states_.size() < kMaxDeadStates) {
      std::vector<DeadState> larger(dead_states_.size() * 4);
      for (const DeadState& kept : dead_states_) {
        if (kept.high != 0) larger[kept.low & (larger.size() - 1)] = kept;
      }
      dead_states_.swap(larger);
      dead_states_stored_ = 0;
    }
    dead_states_[state.low & (dead_states_.size() - 1)] = state;
  }

  // The node order: by candidate offset, then rank.
  bool Before(uint32_t a, uint32_t b) const {
    return cand_[a] != cand_[b] ? cand_[a] < cand_[b] : rank_[a] < rank_[b];
  }

  // Buffer c's candidate offset under the current placements (cand_ holds
  // it only until a deeper node overwrites it).
  size_t CandidateOffset(uint32_t c) const {
    return fixed_[c] != kNoFixedOffset ? static_cast<size_t>(fixed_[c])
                                       : AlignUpUnchecked(fm_[c], problem_.alignment_bytes);
  }

  // True when free buffer c at `offset` would meet an unplaced fixed buffer
  // live with it (it will sit higher, once that one is placed).
  bool BlockedByFixed(uint32_t c, size_t offset) const {
    if (fixed_[c] != kNoFixedOffset) return false;
    for (uint32_t f : fixed_neighbours_[c]) {
      if (placed_[f]) continue;
      const size_t f_low = static_cast<size_t>(fixed_[f]);
      if (f_low < offset + size_[c] && offset < f_low + size_[f]) return true;
    }
    return false;
  }

  // True when `c` at `offset` would sit directly on a buffer x with the
  // same lifetime, placed in the current part, that should be the upper one
  // of the two: swapping two such neighbours gives a plan as good, and the
  // one kept has the larger buffer (then the lower index) underneath. (Only
  // x of the current part: a part's answer must depend on its floors alone,
  // for the cache.)
  bool OnWrongTwin(uint32_t c, size_t offset) const {
    for (uint32_t x : twins_[c]) {
      if (!placed_[x] || place_depth_[x] < part_depth_ || solution_[x] + size_[x] != offset) {
        continue;
      }
      if (WrongTwin(x, c)) return true;
    }
    return false;
  }

  // True when twin `x` must not lie directly under `c`: it is smaller, or as
  // large with a higher index. (The index, not the rank, so that the rule,
  // and with it every subtree's answer, is the same under every order.)
  bool WrongTwin(uint32_t x, uint32_t c) const {
    return size_[x] < size_[c] || (size_[x] == size_[c] && x > c);
  }

  // Puts `id` at `offset`; returns the undo mark for Unplace.
  size_t Place(uint32_t id, size_t offset) {
    const size_t mark = fm_undo_.size();
    top_marks_.push_back(top_undo_.size());
    placed_[id] = true;
    place_depth_[id] = depth_++;
    for (uint32_t s = span_begin_[id]; s < span_end_[id]; ++s) {
      unplaced_live_[s] -= size_[id];
      if (placed_top_[s] < offset + size_[id]) {
        top_undo_.Push(s, placed_top_[s]);
        placed_top_[s] = offset + size_[id];
      }
    }
    solution_[id] = offset;
    const Span<const uint32_t> neighbours = Overlaps(id);
    if (extents_.empty()) {
      const size_t top = offset + size_[id];
      for (const uint32_t d : neighbours) {
        if (!placed_[d] && fm_[d] < top) {
          fm_undo_.Push(d, fm_[d]);
          fm_[d] = top;
        }
      }
      return mark;
    }
    for (size_t k = 0; k < neighbours.size(); ++k) {
      const uint32_t d = neighbours[k];
      const size_t top = offset + extents_[overlap_begin_[id] + k];
      if (!placed_[d] && fm_[d] < top) {
        fm_undo_.Push(d, fm_[d]);
        fm_[d] = top;
      }
    }
    return mark;
  }

  void Unplace(uint32_t id, size_t mark) {
    fm_undo_.UndoTo(mark, [this](uint32_t d, size_t fm) { fm_[d] = fm; });
    placed_[id] = false;
    for (uint32_t s = span_begin_[id]; s < span_end_[id]; ++s) unplaced_live_[s] += size_[id];
    top_undo_.UndoTo(top_marks_.back(), [this](uint32_t s, size_t top) { placed_top_[s] = top; });
    top_marks_.pop_back();
    --depth_;
  }

  const PlanningProblem& problem_;
  const OptimalOptions& options_;
  const Clock::time_point start_;

  // The buffers searched (size > 0), as indices into problem_.buffers.
  std::vector<uint32_t> global_;
  size_t zero_size_top_ = 0;  // largest fixed offset of a zero-size buffer
  bool has_fixed_ = false;
  bool live_overflows_ = false;  // the bytes live in some section overflow size_t
  size_t most_live_bytes_ = 0;   // in any section
  uint32_t section_count_ = 0;
  std::vector<size_t> size_;
  std::vector<int64_t> fixed_;
  std::vector<uint32_t> span_begin_;  // sections [span_begin_, span_end_) of each buffer
  std::vector<uint32_t> span_end_;
  std::vector<uint32_t> initial_cuts_;  // per boundary s|s+1: buffers crossing it
  // The buffers live with each: overlap_list_[overlap_begin_[a], overlap_begin_[a + 1]) (Overlaps).
  std::vector<size_t> overlap_begin_;
  std::vector<uint32_t> overlap_list_;
  std::vector<size_t> extents_;  // per overlap_list_ entry: its list's buffer's extent as that one sees it (none without permissions: the size)
  std::vector<uint8_t> no_stack_bound_;       // per section: a permitted pair lives there
  bool any_no_stack_bound_ = false;
  bool proofs_ = true;
  bool trusted_overlap_ = false;
  std::vector<std::vector<uint32_t>> fixed_neighbours_;
  std::vector<std::vector<uint32_t>> twins_;  // same lifetime (see OnWrongTwin, PrepareSearch)
  bool search_prepared_ = false;  // see PrepareSearch
  std::vector<std::pair<uint32_t, uint32_t>> permitted_pairs_;  // (lower, higher) searched index, sorted
  std::vector<uint32_t> ranks_[kStaticOrders];  // by StaticRanks
  std::vector<uint64_t> most_live_;  // the most bytes live in any of each buffer's sections
  std::vector<uint64_t> width_;  // lifetime length, per buffer
  std::vector<uint64_t> area_;   // size x lifetime length

  // Search state.
  size_t capacity_ = 0;
  Clock::time_point deadline_;
  bool has_deadline_ = false;
  Clock::time_point next_progress_;
  const size_t* best_head_ = nullptr;
  const size_t* lower_bound_ = nullptr;
  uint64_t nodes_ = 0;
  OptimalSearchStats stats_;
  uint64_t budget_end_ = 0;
  const uint32_t* rank_ = nullptr;   // ranks_now_.data()
  std::vector<uint32_t> ranks_now_;  // the current order's ranks (parts re-sorted)
  std::vector<uint64_t> prunes_;     // per section: nodes its bounds pruned, every attempt
  std::vector<uint64_t> learned_key_;      // LearnOrder's scratch
  std::vector<uint32_t> learned_order_;
  size_t heuristic_ = 0;             // the current order's keys (see SortByHeuristic)
  bool sort_parts_ = false;          // re-sort each part as it splits off
  std::vector<size_t> unplaced_live_;  // per section: bytes of the unplaced buffers live there
  std::vector<size_t> placed_top_;     // per section: highest top of the placed buffers live there
  UndoLog top_undo_;                   // (section, old placed_top_)
  std::vector<size_t> top_marks_;      // per placement: top_undo_'s size before it
  std::vector<uint32_t> saved_ranks_;  // ranks replaced by SortPart, a stack by part
  std::vector<uint32_t> part_order_;   // SortPart's scratch
  std::vector<uint32_t> part_ranks_;
  std::vector<uint64_t> part_most_live_;  // by buffer, valid for the part being sorted
  std::vector<uint32_t> cuts_;       // per boundary: unplaced buffers crossing it
  std::vector<size_t> stack_top_;    // per section, during the bound
  std::vector<uint32_t> at_risk_;       // StacksFit: the sections that may overflow, ascending
  std::vector<uint32_t> at_risk_from_;  // StacksFit: per section s, the first at_risk_ index with section >= s
  std::vector<uint32_t> next_unset_;    // StacksFit: the union-find of sections whose floor is unset
  bool use_floors_ = true;              // StacksFit: stack only the sections at risk
  uint64_t stacks_calls_ = 0;           // StacksFit: calls so far (every 64th measures the share at risk)
  std::vector<uint64_t> dive_key_;       // Dive's scratch
  std::vector<uint32_t> dive_position_;
  std::vector<uint32_t> dive_ranks_[kStaticOrders];  // per static order, as the rounds move it
  std::vector<uint32_t> dive_unplaced_;
  std::vector<uint8_t> dive_placed_;
  std::vector<size_t> dive_solution_;
  std::vector<uint32_t> moved_;      // SortNearlySorted's scratch
  std::vector<size_t> fm_;           // highest top of the placed buffers live with each
  std::vector<size_t> cand_;         // candidate offset, at the current node
  std::vector<uint8_t> placed_;
  std::vector<uint8_t> blocked_;
  std::vector<size_t> solution_;     // offset of each buffer as last placed
  std::vector<size_t> place_depth_;  // buffers placed before it, when placed
  size_t depth_ = 0;                 // buffers placed now
  size_t part_depth_ = 0;            // buffers placed when the current part began
  std::vector<uint32_t> stack_;      // stacked slices of buffer ids
  std::vector<Candidate> split_check_;  // PartFitsAbove's scratch
  UndoLog fm_undo_;                  // (buffer, old fm_)
  // Answers for parts, each with the capacity it was answered under.
  std::unordered_map<std::vector<uint64_t>, CachedPart, KeyHash> cache_;
  size_t cache_bytes_ = 0;
  std::vector<uint64_t> key_;
  bool has_permissions_ = false;
  bool searchable_ = true;  // see searchable()
  std::vector<DeadState> dead_states_;   // states proven dead (size a power of two)
  uint64_t dead_states_stored_ = 0;      // since the table last grew
};

// Every head the search can reach is a multiple of this unit: an offset is 0,
// a fixed offset, a top aligned up, or a top lifted by a permitted D (itself
// aligned), so with g the gcd of the sizes, fixed offsets and those Ds, every
// offset and head is a multiple of g where the alignment divides g (aligning
// a multiple of g changes nothing) and of gcd(g, alignment) otherwise. Any
// plan can be pushed down into that form without growing, so the minimum head
// is a multiple too: "no plan within C" proves none below the next multiple
// above C, and the capacities between two multiples ask the same question.
// (All of ../shared/dsa's sizes are multiples of 1024: minimising D once
// bisected down to single bytes.)
size_t HeadUnit(const PlanningProblem& problem) {
  size_t g = 0;
  for (const BufferRequest& buffer : problem.buffers) {
    g = std::gcd(g, buffer.size_bytes);
    if (buffer.fixed_offset_bytes != kNoFixedOffset) {
      g = std::gcd(g, static_cast<size_t>(buffer.fixed_offset_bytes));
    }
  }
  for (const OverlapPermission& permission : problem.overlaps) {
    size_t displacement = 0;
    // A D too large to align lifts by the whole size (the search takes it as
    // SIZE_MAX): a multiple of g already.
    if (!AlignUp(permission.min_displacement_bytes, problem.alignment_bytes, &displacement)) continue;
    g = std::gcd(g, displacement);
  }
  const size_t alignment = problem.alignment_bytes;
  if (g == 0) return alignment;
  return g % alignment == 0 ? g : std::gcd(g, alignment);
}

// `bytes` rounded up to a multiple of `unit` (unchanged where that overflows).
size_t RoundUpToUnit(size_t bytes, size_t unit) {
  const size_t rest = bytes % unit;
  if (rest == 0 || bytes > SIZE_MAX - (unit - rest)) return bytes;
  return bytes + (unit - rest);
}

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

  // Step 1: bounds. The greedy plan (the upper bound) is computed by
  // `plan_greedy`: first when minimising, and when asked about a
  // capacity only if the first rounds of restarts find no plan within it.
  // Without overlap permissions the lower bound is the most bytes live at
  // one step, which the search's set-up sums per section anyway
  // (ComputeOverlapLowerBound sorts the buffers twice for it: 5 % of the
  // instructions of a problem the dive answers). Where that sum overflows,
  // ComputeOverlapLowerBound says so, naming the step.
  Search search(problem, options_, start);
  std::vector<uint8_t> workspace;
  size_t lower_bound = 0;
  if (!problem.overlaps.empty() || !search.MostLiveBytes(&lower_bound)) {
    workspace.resize(LowerBoundWorkspaceBytes(count));
    MICROARENA_RETURN_IF_ERROR(ComputeOverlapLowerBound(
        problem, Span<uint8_t>(workspace.data(), workspace.size()), &lower_bound));
  }
  if (search.trusted_overlap()) {
    // The bytes live at one step overcount where trusted fixed buffers
    // share bytes; what holds is that a plan keeps every fixed buffer where
    // it is, and holds each buffer whole.
    lower_bound = 0;
    for (const BufferRequest& buffer : problem.buffers) {
      const size_t low = buffer.fixed_offset_bytes != kNoFixedOffset
                             ? static_cast<size_t>(buffer.fixed_offset_bytes)
                             : 0;
      lower_bound = std::max(lower_bound, low + buffer.size_bytes);
    }
  }
  std::vector<size_t> best_offsets(count);
  size_t best_head = 0;  // 0 until the first plan (progress reports it so)
  bool has_plan = false;
  const auto plan_greedy = [&]() -> Status {
    PlanSummary greedy_summary;
    std::vector<size_t> greedy_offsets(count);
    workspace.resize(GreedyPlanner().WorkspaceBytesFor(problem));
    MICROARENA_RETURN_IF_ERROR(GreedyPlanner().Plan(
        problem, Span<uint8_t>(workspace.data(), workspace.size()),
        Span<size_t>(greedy_offsets.data(), count), &greedy_summary));
    // Only ever called while no plan exists: it sets, not compares.
    best_head = greedy_summary.head_bytes;
    best_offsets.swap(greedy_offsets);
    has_plan = true;
    if (!problem.overlaps.empty()) {
      // The best plan without the permissions is a plan with them: seed with
      // it, so that a search the limits stop never ends above it. It gets
      // half the time (its node budget is its own).
      PlanningProblem plain = problem;
      plain.overlaps = Span<const OverlapPermission>();
      OptimalOptions plain_options = options_;
      plain_options.capacity_bytes = kNoCapacity;
      plain_options.progress = nullptr;
      if (plain_options.time_limit_seconds > 0) plain_options.time_limit_seconds /= 2;
      std::vector<size_t> plain_offsets(count);
      MICROARENA_ASSIGN_OR_RETURN(OptimalResult plain_result,
                                  OptimalPlanner(plain_options)
                                      .Solve(plain, Span<size_t>(plain_offsets.data(), count)));
      if (plain_result.head_bytes < best_head) {
        best_head = plain_result.head_bytes;
        best_offsets.swap(plain_offsets);
      }
    }
    return OkStatus();
  };

  const bool has_capacity = options_.capacity_bytes != kNoCapacity;
  const bool has_deadline = options_.time_limit_seconds > 0;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(has_deadline ? options_.time_limit_seconds : 0));
  search.Track(&best_head, &lower_bound);
  // With trusted fixed buffers that overlap, the search finds no plan (it
  // places fixed buffers as any other, so the pair fails every path): the
  // greedy plan is the answer, as for a problem too large to search.
  const bool searchable = search.searchable() && !search.trusted_overlap();
  std::vector<size_t> found_offsets(count);
  size_t found_head = 0;
  const size_t head_unit = HeadUnit(problem);
  uint64_t found_by_guillotine = 0;
  uint64_t guillotine_nodes = 0;
  // One decision: a plan within `capacity`? Keeps the better plan.
  const auto decide = [&](size_t capacity, uint64_t max_attempt_nodes, uint64_t first_budget) {
    const Search::Outcome outcome = search.Decide(capacity, deadline, has_deadline, max_attempt_nodes,
                                                  first_budget, &found_offsets, &found_head);
    if (outcome == Search::Outcome::kFound && (!has_plan || found_head < best_head)) {
      best_head = found_head;
      best_offsets.swap(found_offsets);
      has_plan = true;
    }
    if (outcome == Search::Outcome::kNone) {
      if (!search.proofs()) return Search::Outcome::kBudget;  // not a proof
      lower_bound = std::max(lower_bound, RoundUpToUnit(capacity + 1, head_unit));
    }
    return outcome;
  };

  // Rounds of restarts under `capacity`, each with twice the node budget of
  // the one before, from `first_budget` (0: the first round's). Under a
  // capacity above the lower bound each round also asks about tighter ones
  // (kTighterCapacities), with the same budget and prune counts of their
  // own for the learned order: a plan within a tighter capacity fits this
  // one. How long the search takes to find a plan varies widely with the
  // capacity it is asked about (the section bounds prune by it), neither way
  // always faster. Measured on generated problems shaped like A-F, each
  // asked once per capacity for 4 s: one took 2.1 s under its capacity and
  // 0.015 s under its lower bound, another none in 4 s under its capacity
  // and 0.2 s three quarters of the way up; D took 0.2 s under its capacity
  // and found nothing in 4 s under either tighter one. A proven "no" under a
  // tighter capacity raises the lower bound. Without the option, without
  // proofs, or where the bound meets the capacity: the capacity alone.
  const auto decide_with_tighter_capacities = [&](size_t capacity, uint64_t first_budget) {
    // Without proofs a "no" comes back as kBudget, which the rounds here
    // could not tell from a spent budget: the capacity alone then.
    if (!options_.tighter_capacities || !search.proofs()) return decide(capacity, 0, first_budget);
    uint64_t budget = first_budget != 0 ? first_budget : search.FirstRoundBudget();
    std::vector<uint64_t> tighter_prunes[std::size(kTighterCapacities)];
    std::unique_ptr<GuillotineSearch> guillotine;
    if (options_.guillotine && GuillotineSearch::Applies(problem, capacity)) {
      guillotine = std::make_unique<GuillotineSearch>(problem);
    }
    while (true) {
      Search::Outcome outcome = decide(capacity, budget, budget);
      if (outcome != Search::Outcome::kBudget) return outcome;
      if (guillotine != nullptr) {
        const uint64_t cut_budget =
            budget > UINT64_MAX / kGuillotineBudgetFactor ? UINT64_MAX : kGuillotineBudgetFactor * budget;
        const GuillotineSearch::Outcome cut =
            guillotine->Run(capacity, cut_budget, deadline, has_deadline, &found_offsets);
        guillotine_nodes = guillotine->nodes();
        if (cut == GuillotineSearch::Outcome::kFound) {
          size_t head = 0;
          for (size_t i = 0; i < count; ++i) {
            head = std::max(head, found_offsets[i] + problem.buffers[i].size_bytes);
          }
          if (!has_plan || head < best_head) {
            best_head = head;
            best_offsets.swap(found_offsets);
            has_plan = true;
          }
          // Rounds run only while the best plan is above the capacity, and
          // a guillotine plan fits it: always kept.
          if (best_head <= capacity) {
            found_by_guillotine = 1;
            return Search::Outcome::kFound;
          }
        }
        if (cut == GuillotineSearch::Outcome::kDeadline) return Search::Outcome::kLimit;
        // kNone: no guillotine plan of its kind; the branch and bound goes on alone.
        if (cut == GuillotineSearch::Outcome::kNone) guillotine.reset();
      }
      size_t asked = capacity;
      for (size_t k = 0; k < std::size(kTighterCapacities); ++k) {
        if (lower_bound >= capacity) break;
        const size_t tighter = lower_bound + (capacity - lower_bound) / 4 * kTighterCapacities[k];
        if (tighter == asked) continue;  // within 4 bytes of the bound: asked already
        asked = tighter;
        search.SwapPrunes(&tighter_prunes[k]);
        outcome = decide(tighter, budget, budget);
        search.SwapPrunes(&tighter_prunes[k]);
        if (outcome == Search::Outcome::kFound) search.CountFoundUnderTighterCapacity();
        if (outcome == Search::Outcome::kFound || outcome == Search::Outcome::kLimit) {
          return outcome;
        }
        // A "no" under a tighter capacity raises the bound to the next head
        // unit, which can lie above the capacity: then none fits it either.
        if (lower_bound > capacity) return Search::Outcome::kNone;
      }
      budget = budget > UINT64_MAX / 4 ? UINT64_MAX / 2 : 2 * budget;
    }
  };

  if (has_capacity) {
    const size_t capacity = options_.capacity_bytes;
    // Rounds of restarts run before the greedy passes, until the search has
    // cost about what the passes would (GreedyCostInNodes): when a plan
    // fits, they usually find one for less (on generated problems of
    // 140-300 buffers the passes took 2x the search's instructions, and on
    // one that needed two rounds, 44 % of the whole solve). As in a ski
    // rental, where only the passes answer, the search before them costs
    // under twice their cost plus the first round (the round that crosses
    // it doubles the nodes so far).
    // Not with permissions (the passes seed their search), nor above
    // kFirstRoundBeforeGreedyBuffers (a round costs O(n^2), the passes
    // O(n k log k)); trusted fixed buffers that overlap are not searched at
    // all (`searchable`). The search then
    // continues with the next round: the same sequence of attempts as
    // without this step.
    const bool search_first = lower_bound <= capacity && problem.overlaps.empty() && searchable &&
                              search.searched_buffers() <= kFirstRoundBeforeGreedyBuffers;
    Search::Outcome outcome = Search::Outcome::kBudget;
    uint64_t round_budget = search.FirstRoundBudget();
    if (search_first) {
      // First the dives (Search::Dive): where the search would not
      // backtrack they find the same kind of plan for a small part of the
      // cost (its comment has the figures).
      if (options_.dive && search.Dive(capacity, &found_offsets, &found_head)) {
        best_head = found_head;
        best_offsets.swap(found_offsets);
        has_plan = true;
        outcome = Search::Outcome::kFound;
      }
    }
    if (search_first && outcome != Search::Outcome::kFound) {
      const uint64_t greedy_nodes = search.GreedyCostInNodes();
      outcome = decide(capacity, round_budget, round_budget);
      while (outcome == Search::Outcome::kBudget && search.nodes() < greedy_nodes) {
        round_budget *= 2;
        outcome = decide(capacity, round_budget, round_budget);
      }
    }
    if (outcome != Search::Outcome::kFound) MICROARENA_RETURN_IF_ERROR(plan_greedy());
    if (best_head <= capacity) {
      result.capacity_outcome = CapacityOutcome::kFits;
    } else if (lower_bound > capacity) {
      result.capacity_outcome = CapacityOutcome::kInfeasible;
    } else if (!searchable) {
      result.capacity_outcome = CapacityOutcome::kUnknown;
    } else {
      if (outcome == Search::Outcome::kBudget) {
        outcome = decide_with_tighter_capacities(capacity,
                                                 search_first ? 2 * round_budget : 0);
      }
      switch (outcome) {
        case Search::Outcome::kFound: result.capacity_outcome = CapacityOutcome::kFits; break;
        case Search::Outcome::kNone:
          result.capacity_outcome = CapacityOutcome::kInfeasible;
          break;
        case Search::Outcome::kBudget:
        case Search::Outcome::kLimit:
          result.capacity_outcome = CapacityOutcome::kUnknown;
          result.limit_reached = true;
          break;
      }
    }
  } else {
    MICROARENA_RETURN_IF_ERROR(plan_greedy());
  }
  if (!has_capacity && best_head > lower_bound && searchable) {
    // Step 6: rounds, each with twice the node budget of the one before:
    // first a plan at the lower bound itself (most problems have one), then
    // a descent (a plan a sixteenth of the gap below the best head, with the
    // same budget, again after each one found), then a bisection between
    // the lower bound and the best head with 1/16 of that budget per
    // decision. Capacities are multiples of the head unit (HeadUnit), as the
    // minimum is. The descent is what lowers the best head on a problem
    // whose minimum stays open: a plan found under a capacity sits just
    // below it, while the bisection's capacities, half-way down, are the
    // hard ones. On D (../shared/dsa) under 1,000,000 and 6,000,000 nodes:
    // heads 1,034,240 and 1,025,024; without it the greedy plan's 1,053,696
    // for the first 2,000,000 nodes, and 1,033,216 after 6,742,016 (10 s).
    // A descent by one unit at a time reached 1,051,648 and 1,029,120, by
    // an eighth of the gap 1,045,504 and 1,031,168.
    lower_bound = RoundUpToUnit(lower_bound, head_unit);
    const auto round_down = [&](size_t bytes) { return bytes / head_unit * head_unit; };
    uint64_t attempt_nodes = std::max<uint64_t>(4096, 16 * search.searched_buffers());
    bool stop = false;
    while (!stop && best_head > lower_bound) {
      if (decide(lower_bound, attempt_nodes, 0) == Search::Outcome::kLimit) break;
      while (!stop && best_head > lower_bound) {
        const size_t below = round_down(best_head - 1);
        const size_t step = round_down((best_head - lower_bound) / kDescentStepDivisor);
        if (below < lower_bound + step + head_unit) break;  // at or near the bound: asked above
        const size_t cap = below - step;
        const Search::Outcome outcome = decide(cap, attempt_nodes, 0);
        if (outcome == Search::Outcome::kLimit) stop = true;
        if (outcome != Search::Outcome::kFound) break;
      }
      size_t low = lower_bound;  // caps below `low` are ruled out in this round
      while (!stop && low < best_head) {
        const size_t cap = low + round_down((best_head - 1 - low) / 2);
        switch (decide(cap, std::max<uint64_t>(1024, attempt_nodes / 16), 0)) {
          case Search::Outcome::kFound: break;
          case Search::Outcome::kNone:
          case Search::Outcome::kBudget:
            low = cap > SIZE_MAX - head_unit ? best_head : cap + head_unit;
            break;
          case Search::Outcome::kLimit: stop = true; break;
        }
        low = std::max(low, lower_bound);
      }
      attempt_nodes = attempt_nodes > UINT64_MAX / 4 ? UINT64_MAX / 2 : 2 * attempt_nodes;
      // Without proofs the bound never rises: one round is the search.
      if (!search.proofs()) break;
    }
    stop = stop || (best_head > lower_bound);
    result.limit_reached = stop;
  }
  if (best_head <= lower_bound) lower_bound = best_head;

  std::copy(best_offsets.begin(), best_offsets.end(), offsets_bytes.begin());
  result.head_bytes = best_head;
  result.lower_bound_bytes = lower_bound;
  result.proven_optimal = best_head == lower_bound;
  result.nodes = search.nodes();
  result.stats = search.stats();
  result.stats.found_by_guillotine = found_by_guillotine;
  result.stats.guillotine_nodes = guillotine_nodes;
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
