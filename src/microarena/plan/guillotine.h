// GuillotineSearch: plans made of straight cuts only, for problems whose
// buffers fill their capacity almost without gaps (host only).
//
// A plan is a guillotine plan when the steps x capacity rectangle can be cut
// in two, across time or across space, with no buffer crossing the cut, and
// each half again, down to single buffers:
//
//   offset                               a cut across space at y: every
//     ^ +-------------+-----------+      buffer lies wholly below or above
//   H | |      c      |     d     |      it. Below: a (0-6), b (6-10);
//   y +-+--------+----+-----------+      across time at step 6, each half
//     | |   a    |       b        |      packed in y bytes. Above: c, d,
//     +-+--------+----------------+->    packed in H - y.
//       0        6               10  step
//
// The branch and bound of optimal.h places buffers one at a time from the
// floor up. On problems that fill the capacity at most steps (a tiling of the
// rectangle with a few pieces dropped) it reaches deep and fails late: one of
// its early placements leaves a gap that shows only many buffers later. This
// search decides the strips first. For a part of the problem (the buffers
// live within [a, z), packed in H bytes) it
//   1. splits time where no buffer crosses (the parts are independent);
//   2. puts a buffer live over the whole of [a, z) at the bottom (any plan
//      can be rearranged so: every other buffer is live with it, so it sits
//      wholly below or above it; those below move up by its size);
//   3. otherwise cuts across space at a height y <= H / 2 (the thinner strip
//      at the bottom: mirroring a plan keeps it valid): a set S of buffers with
//      bytes live <= y at every step and the rest <= H - y at every step,
//      then S packed in y and the rest in H - y, each the same way.
// The heights y tried are the sums of sizes of buffers live at the part's
// first or last step (a strip filled there holds such a sum) and H minus
// those (the other strip's sum). The sets S are enumerated with forward
// checks: adding a buffer may not take a step above y; leaving one out may
// not leave a step with fewer bytes below than it must hold (the bytes live
// there minus H - y). Each height's enumeration gets a node budget that
// grows fourfold per round, so a height whose sets run long does not hide
// the next. Parts proven to have no such plan are remembered (hashed by
// their buffers and height) for every later call.
//
// Incomplete: a plan that is not a guillotine plan, or needs a cut height
// that is no such sum, is not found, and "none found" proves nothing. So it
// is one member of the portfolio (Solve calls it between rounds of the
// branch and bound), and only finds plans.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "microarena/analysis/planning_problem.h"

namespace microarena {

class GuillotineSearch {
 public:
  // True when the search applies to `problem`: no fixed offsets, no overlap
  // permissions, every size a multiple of the alignment (so every offset,
  // a sum of sizes and cut heights in units of their gcd, is aligned), at
  // most kMaxBuffers buffers (the recursion can go as deep) and `capacity`
  // at most kMaxCapacityUnits units of that gcd (each cut scans a table of
  // one bit per unit; ../shared/dsa's problems have 1,024 units).
  static bool Applies(const PlanningProblem& problem, size_t capacity);
  static constexpr size_t kMaxBuffers = 1024;
  static constexpr size_t kMaxCapacityUnits = size_t{1} << 16;

  explicit GuillotineSearch(const PlanningProblem& problem);

  enum class Outcome { kFound, kNone, kBudget, kDeadline };
  // `problem` as ValidatePlanArguments accepts it (the bytes live at one
  // step fit in a size_t). Searches for a guillotine plan within `capacity`, visiting at most
  // `node_budget` nodes. kFound writes one offset per buffer of the problem
  // (zero-size buffers at 0); kNone: no guillotine plan of the kind above.
  Outcome Run(size_t capacity, uint64_t node_budget, std::chrono::steady_clock::time_point deadline,
              bool has_deadline, std::vector<size_t>* offsets);

  // Over every Run. A node is a set decision or a part; a cut also counts
  // its scans of the heights tables, a node per 64 words.
  uint64_t nodes() const { return nodes_; }

 private:
  struct Item {
    uint32_t buffer;      // index into the problem's buffers
    uint32_t first, end;  // sections [first, end) between distinct lifetime ends
    size_t size;
  };
  struct Key {
    uint64_t a, b;
    bool operator==(const Key& other) const { return a == other.a && b == other.b; }
  };
  struct KeyHash {
    size_t operator()(const Key& key) const { return static_cast<size_t>(key.a ^ (key.b << 1)); }
  };
  class SetEnumerator;

  bool Tick(uint64_t cost = 1);
  bool Pack(std::vector<uint32_t> items, size_t height, size_t base);
  bool PackComponent(std::vector<uint32_t> items, size_t height, size_t base);
  bool Split(const std::vector<uint32_t>& items, size_t height, size_t base);
  Key KeyOf(const std::vector<uint32_t>& sorted_items, size_t height) const;
  void RememberFailed(const Key& key);

  std::vector<Item> items_;     // buffers of non-zero size
  std::vector<size_t> offset_;  // per item: its offset on the current path
  size_t unit_ = 1;             // gcd of the sizes: every height is a multiple
  size_t buffer_count_ = 0;
  std::unordered_map<Key, bool, KeyHash> failed_;  // parts with no plan (value unused)
  uint64_t nodes_ = 0;
  uint64_t run_nodes_ = 0;
  uint64_t budget_ = 0;
  uint64_t next_clock_check_ = 0;  // run_nodes_ at which the deadline is next read
  bool stopped_ = false;  // the budget or the deadline ran out: unwind
  Outcome stop_reason_ = Outcome::kBudget;
  std::chrono::steady_clock::time_point deadline_;
  bool has_deadline_ = false;
};

}  // namespace microarena
