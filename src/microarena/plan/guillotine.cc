#include "microarena/plan/guillotine.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "microarena/base/split_mix64.h"

namespace microarena {
namespace {

// The first node budget of each cut height's set enumeration (Split).
constexpr uint64_t kFirstSetBudget = 1000;
// Parts proven to have no plan are remembered up to this many (about 64 B
// each); then the table starts again empty.
constexpr size_t kMaxFailedParts = size_t{1} << 20;

// The subset sums of `sizes` (in units) up to `limit` units, as a bit table:
// bit s set when some subset sums to s.
std::vector<uint64_t> SubsetSums(const std::vector<size_t>& sizes, size_t limit) {
  const size_t words = limit / 64 + 1;
  std::vector<uint64_t> reach(words, 0);
  reach[0] = 1;
  for (size_t size : sizes) {
    if (size > limit) continue;
    const size_t word_shift = size / 64;
    const unsigned bit_shift = static_cast<unsigned>(size % 64);
    // reach |= reach << size, from the top word down so each source word is
    // read before it is written.
    for (size_t w = words; w-- > word_shift;) {
      const size_t from = w - word_shift;
      uint64_t moved = reach[from] << bit_shift;
      if (bit_shift != 0 && from > 0) moved |= reach[from - 1] >> (64 - bit_shift);
      reach[w] |= moved;
    }
  }
  // Bits above `limit` in the last word are no sums within it.
  const size_t used = limit % 64 + 1;
  if (used < 64) reach[words - 1] &= (uint64_t{1} << used) - 1;
  return reach;
}

bool TestBit(const std::vector<uint64_t>& bits, size_t index) {
  return (bits[index / 64] >> (index % 64)) & 1;
}

}  // namespace

// The sets S of one cut (see guillotine.h, step 3) for one height y, one at
// a time: a depth-first search over the part's buffers in order of first
// step (larger first), each either in S or not, with the two forward checks.
// Iterative, so that the search packing one S can hold many of these open.
class GuillotineSearch::SetEnumerator {
 public:
  SetEnumerator(GuillotineSearch* owner, const std::vector<uint32_t>& order, uint32_t first_section,
                const std::vector<size_t>& live, size_t y, size_t height, uint64_t budget)
      : owner_(owner), order_(order), first_(first_section), load_(live.size(), 0), room_(live),
        floor_(live.size()), y_(y), budget_(budget), state_(order.size() + 1, 0) {
    // Below the cut must lie what the strip above cannot hold.
    for (size_t k = 0; k < live.size(); ++k) floor_[k] = live[k] > height - y ? live[k] - (height - y) : 0;
  }

  bool truncated() const { return truncated_; }

  // The next set, or false when there is none left, the enumeration's budget
  // ran out (truncated()) or the search stopped.
  bool Next(std::vector<uint32_t>* set) {
    const size_t n = order_.size();
    if (!started_) {
      started_ = true;
      if (n == 0) return false;
    } else if (!Backtrack()) {
      return false;
    }
    while (true) {
      if (depth_ == n) {
        if (chosen_ > 0 && chosen_ < n) {
          set->clear();
          for (size_t i = 0; i < n; ++i) {
            if (state_[i] == kIn) set->push_back(order_[i]);
          }
          return true;
        }
        if (!Backtrack()) return false;
        continue;
      }
      if (++count_ > budget_) {
        truncated_ = true;
        return false;
      }
      if (!owner_->Tick()) return false;
      if (TryNext()) {
        state_[++depth_] = kUntried;
        continue;
      }
      if (!Backtrack()) return false;
    }
  }

 private:
  enum : uint8_t { kUntried = 0, kIn = 1, kOut = 2 };

  // Tries the next choice for the buffer at depth_; true when one holds
  // (and is applied).
  bool TryNext() {
    const Item& item = owner_->items_[order_[depth_]];
    const uint32_t begin = item.first - first_;
    const uint32_t end = item.end - first_;
    uint8_t& state = state_[depth_];
    if (state == kUntried) {
      state = kIn;
      bool fits = true;
      for (uint32_t k = begin; k < end && fits; ++k) fits = load_[k] + item.size <= y_;
      if (fits) {
        for (uint32_t k = begin; k < end; ++k) load_[k] += item.size;
        ++chosen_;
        return true;
      }
    }
    if (state == kIn) {
      state = kOut;
      bool holds = true;
      for (uint32_t k = begin; k < end && holds; ++k) holds = room_[k] - item.size >= floor_[k];
      if (holds) {
        for (uint32_t k = begin; k < end; ++k) room_[k] -= item.size;
        return true;
      }
    }
    return false;
  }

  // Takes back choices until one buffer has another that holds.
  bool Backtrack() {
    while (depth_ > 0) {
      --depth_;
      const Item& item = owner_->items_[order_[depth_]];
      const uint32_t begin = item.first - first_;
      const uint32_t end = item.end - first_;
      if (state_[depth_] == kIn) {
        for (uint32_t k = begin; k < end; ++k) load_[k] -= item.size;
        --chosen_;
      } else {
        for (uint32_t k = begin; k < end; ++k) room_[k] += item.size;
      }
      if (TryNext()) {
        state_[++depth_] = kUntried;
        return true;
      }
    }
    return false;
  }

  GuillotineSearch* owner_;
  const std::vector<uint32_t>& order_;
  uint32_t first_;              // the part's first section
  std::vector<size_t> load_;    // per section: bytes of S
  std::vector<size_t> room_;    // per section: bytes of S and of the buffers not yet decided
  std::vector<size_t> floor_;   // per section: the least bytes S must hold
  size_t y_;
  uint64_t budget_;
  uint64_t count_ = 0;
  std::vector<uint8_t> state_;  // per depth: the choice taken
  size_t depth_ = 0;
  size_t chosen_ = 0;
  bool started_ = false;
  bool truncated_ = false;
};

bool GuillotineSearch::Applies(const PlanningProblem& problem, size_t capacity) {
  if (!problem.overlaps.empty() || problem.buffers.size() > kMaxBuffers) return false;
  size_t unit = 0;
  for (const BufferRequest& buffer : problem.buffers) {
    if (buffer.fixed_offset_bytes != kNoFixedOffset) return false;
    if (buffer.size_bytes % problem.alignment_bytes != 0) return false;
    unit = std::gcd(unit, buffer.size_bytes);
  }
  return unit != 0 && capacity / unit <= kMaxCapacityUnits;
}

GuillotineSearch::GuillotineSearch(const PlanningProblem& problem) : buffer_count_(problem.buffers.size()) {
  std::vector<int32_t> points;
  for (const BufferRequest& buffer : problem.buffers) {
    if (buffer.size_bytes == 0) continue;
    points.push_back(buffer.lifetime.first_op);
    points.push_back(buffer.lifetime.end_op);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  const auto section_of = [&points](int32_t step) {
    return static_cast<uint32_t>(std::lower_bound(points.begin(), points.end(), step) - points.begin());
  };
  size_t unit = 0;
  for (uint32_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferRequest& buffer = problem.buffers[i];
    if (buffer.size_bytes == 0) continue;
    items_.push_back(
        {i, section_of(buffer.lifetime.first_op), section_of(buffer.lifetime.end_op), buffer.size_bytes});
    unit = std::gcd(unit, buffer.size_bytes);
  }
  unit_ = unit == 0 ? 1 : unit;
  offset_.assign(items_.size(), 0);
}

GuillotineSearch::Outcome GuillotineSearch::Run(size_t capacity, uint64_t node_budget,
                                                std::chrono::steady_clock::time_point deadline,
                                                bool has_deadline, std::vector<size_t>* offsets) {
  budget_ = node_budget;
  run_nodes_ = 0;
  next_clock_check_ = 4096;
  stopped_ = false;
  deadline_ = deadline;
  has_deadline_ = has_deadline;
  std::vector<uint32_t> all(items_.size());
  std::iota(all.begin(), all.end(), 0u);
  // Every height below is the capacity less sums of sizes: in units.
  if (!Pack(std::move(all), capacity / unit_ * unit_, 0)) return stopped_ ? stop_reason_ : Outcome::kNone;
  offsets->assign(buffer_count_, 0);
  for (size_t i = 0; i < items_.size(); ++i) (*offsets)[items_[i].buffer] = offset_[i];
  return Outcome::kFound;
}

bool GuillotineSearch::Tick(uint64_t cost) {
  nodes_ += cost;
  run_nodes_ += cost;
  if (run_nodes_ > budget_) {
    stopped_ = true;
    stop_reason_ = Outcome::kBudget;
  } else if (has_deadline_ && run_nodes_ >= next_clock_check_) {
    next_clock_check_ = run_nodes_ + 4096;
    if (std::chrono::steady_clock::now() >= deadline_) {
      stopped_ = true;
      stop_reason_ = Outcome::kDeadline;
    }
  }
  return !stopped_;
}

GuillotineSearch::Key GuillotineSearch::KeyOf(const std::vector<uint32_t>& sorted_items, size_t height) const {
  uint64_t a = SplitMix64::Mix(height);
  uint64_t b = SplitMix64::Mix(height ^ 0x5851F42D4C957F2DULL);
  for (uint32_t item : sorted_items) {
    a = SplitMix64::Mix(a ^ item);
    b = SplitMix64::Mix(b + item * 0x9E3779B97F4A7C15ULL);
  }
  return {a, b};
}

void GuillotineSearch::RememberFailed(const Key& key) {
  if (failed_.size() >= kMaxFailedParts) failed_.clear();
  failed_.emplace(key, true);
}

bool GuillotineSearch::Pack(std::vector<uint32_t> items, size_t height, size_t base) {
  // Step 1: the parts between steps no buffer crosses.
  std::sort(items.begin(), items.end(), [this](uint32_t x, uint32_t y) {
    return items_[x].first != items_[y].first ? items_[x].first < items_[y].first : x < y;
  });
  size_t begin = 0;
  while (begin < items.size()) {
    uint32_t end_section = items_[items[begin]].end;
    size_t end = begin + 1;
    while (end < items.size() && items_[items[end]].first < end_section) {
      end_section = std::max(end_section, items_[items[end]].end);
      ++end;
    }
    std::vector<uint32_t> part(items.begin() + static_cast<std::ptrdiff_t>(begin),
                               items.begin() + static_cast<std::ptrdiff_t>(end));
    if (!PackComponent(std::move(part), height, base)) return false;
    begin = end;
  }
  return true;
}

bool GuillotineSearch::PackComponent(std::vector<uint32_t> items, size_t height, size_t base) {
  if (!Tick()) return false;
  if (items.size() == 1) {
    offset_[items[0]] = base;
    return items_[items[0]].size <= height;
  }
  std::vector<uint32_t> sorted = items;
  std::sort(sorted.begin(), sorted.end());
  const Key key = KeyOf(sorted, height);
  if (failed_.count(key) != 0) return false;
  uint32_t first = UINT32_MAX;
  uint32_t end = 0;
  for (uint32_t item : items) {
    first = std::min(first, items_[item].first);
    end = std::max(end, items_[item].end);
  }
  // Step 2: buffers live over the whole part go at the bottom.
  size_t bottom = 0;
  std::vector<uint32_t> rest;
  for (uint32_t item : items) {
    if (items_[item].first == first && items_[item].end == end) {
      if (items_[item].size > height - bottom) {
        RememberFailed(key);
        return false;
      }
      offset_[item] = base + bottom;
      bottom += items_[item].size;
    } else {
      rest.push_back(item);
    }
  }
  const bool packed = bottom > 0 ? Pack(std::move(rest), height - bottom, base + bottom)
                                 : Split(items, height, base);
  if (!packed && !stopped_) RememberFailed(key);
  return packed;
}

bool GuillotineSearch::Split(const std::vector<uint32_t>& items, size_t height, size_t base) {
  uint32_t first = UINT32_MAX;
  uint32_t end = 0;
  for (uint32_t item : items) {
    first = std::min(first, items_[item].first);
    end = std::max(end, items_[item].end);
  }
  std::vector<size_t> live(end - first, 0);
  for (uint32_t item : items) {
    for (uint32_t k = items_[item].first; k < items_[item].end; ++k) live[k - first] += items_[item].size;
  }
  if (*std::max_element(live.begin(), live.end()) > height) return false;

  // The cut heights: sums of the sizes live at the first or the last step,
  // or the height less such a sum; the thinner strip's, at most height / 2.
  const size_t units = height / unit_;
  const size_t half = units / 2;
  std::vector<uint64_t> heights(half / 64 + 1, 0);
  for (int edge = 0; edge < 2; ++edge) {
    std::vector<size_t> sizes;
    for (uint32_t item : items) {
      if (edge == 0 ? items_[item].first == first : items_[item].end == end) {
        sizes.push_back(items_[item].size / unit_);
      }
    }
    // The table work: a shift-or per size and word, then a scan.
    if (!Tick(1 + (sizes.size() + 2) * (units / 64 + 1) / 64)) return false;
    const std::vector<uint64_t> sums = SubsetSums(sizes, units);
    for (size_t s = 1; s <= units; ++s) {
      if (!TestBit(sums, s)) continue;
      if (s <= half) heights[s / 64] |= uint64_t{1} << (s % 64);
      if (units - s <= half && units - s > 0) heights[(units - s) / 64] |= uint64_t{1} << ((units - s) % 64);
    }
  }

  std::vector<uint32_t> order = items;
  std::sort(order.begin(), order.end(), [this](uint32_t x, uint32_t y) {
    const Item& a = items_[x];
    const Item& b = items_[y];
    if (a.first != b.first) return a.first < b.first;
    if (a.size != b.size) return a.size > b.size;
    return x < y;
  });
  std::vector<uint32_t> below;
  std::vector<uint32_t> above;
  std::vector<uint8_t> in_set(items_.size(), 0);
  for (uint64_t budget = kFirstSetBudget;; budget = budget > UINT64_MAX / 4 ? UINT64_MAX : 4 * budget) {
    bool truncated = false;
    for (size_t h = 1; h <= half; ++h) {
      if (!TestBit(heights, h)) continue;
      const size_t y = h * unit_;
      SetEnumerator sets(this, order, first, live, y, height, budget);
      while (sets.Next(&below)) {
        for (uint32_t item : below) in_set[item] = 1;
        above.clear();
        for (uint32_t item : items) {
          if (in_set[item] == 0) above.push_back(item);
        }
        for (uint32_t item : below) in_set[item] = 0;
        if (Pack(below, y, base) && Pack(above, height - y, base + y)) return true;
        if (stopped_) return false;
      }
      if (stopped_) return false;
      truncated = truncated || sets.truncated();
    }
    if (!truncated) return false;
  }
}

}  // namespace microarena
