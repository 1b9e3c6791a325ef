// Mutation test of the plan checkers (CheckPlan, check.h, and the device's
// VerifyPlan, verify.h) against a brute-force oracle written here.
//
// Steps:
//   1. Small random problems (fixed seeds): 2-8 buffers over 2-6 steps,
//      sizes of 0-4 alignment units, some buffers at fixed offsets (stacked
//      apart, or anywhere when the offline plan is trusted), a few overlap
//      permissions with aligned and unaligned displacements D.
//   2. Every planner (linear, greedy-tflm, greedy, optimal) plans each one;
//      the oracle must accept every plan as made.
//   3. Each plan is mutated in many ways (see Mutation), and on every mutant
//      both checkers must give the oracle's verdict. Mutants that move an
//      offset restate the head as the new largest offset + size, so the rule
//      they break (if any) is the one they aimed at, not the head's.
//
// The oracle takes the rules at their word, by enumeration rather than by
// interval arithmetic: two buffers are live together when some step lies in
// both lifetimes (each step tried), and they share bytes when some byte of one
// lies in the other (each byte tried). Sharing is allowed only for two fixed
// buffers of a trusted offline plan, or for a pair named by an overlap
// permission whose offsets satisfy offset(input) - offset(output) >= D (the
// rule of OverlapPermission in types.h). CheckPlan wants the head to equal the
// largest offset + size and to fit the capacity; VerifyPlan only wants every
// buffer inside the head.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/planner.h"
#include "microarena/plan/verify.h"

namespace microarena {
namespace {

struct Case {
  std::vector<BufferRequest> buffers;
  std::vector<OverlapPermission> overlaps;
  size_t alignment = 16;
  bool trust_fixed_overlaps = false;

  PlanningProblem problem() const {
    PlanningProblem problem;
    problem.buffers = Span<const BufferRequest>(buffers.data(), buffers.size());
    problem.alignment_bytes = alignment;
    problem.overlaps = Span<const OverlapPermission>(overlaps.data(), overlaps.size());
    problem.trust_fixed_overlaps = trust_fixed_overlaps;
    return problem;
  }
};

std::string Describe(const Case& c, const std::vector<size_t>& offsets, size_t head, size_t capacity) {
  std::ostringstream out;
  out << "alignment " << c.alignment << (c.trust_fixed_overlaps ? ", trusted offline plan" : "") << ", head " << head;
  if (capacity != kNoCapacity) out << ", capacity " << capacity;
  out << "\n";
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    const BufferRequest& b = c.buffers[i];
    out << "  buffer " << i << ": " << b.size_bytes << " B, [" << b.lifetime.first_op << ", " << b.lifetime.end_op
        << "), offset " << offsets[i];
    if (b.fixed_offset_bytes != kNoFixedOffset) out << " (fixed at " << b.fixed_offset_bytes << ")";
    out << "\n";
  }
  for (const OverlapPermission& p : c.overlaps) {
    out << "  permission: input " << p.input_buffer << ", output " << p.output_buffer << ", D "
        << p.min_displacement_bytes << "\n";
  }
  return out.str();
}

enum class HeadRule { kEqualsLargestEnd, kHoldsEveryBuffer };

// The brute-force verdict (see the top of the file).
bool OracleAccepts(const Case& c, const std::vector<size_t>& offsets, size_t head, size_t capacity, HeadRule rule) {
  const size_t count = c.buffers.size();
  int32_t steps = 0;
  size_t largest_end = 0;
  for (size_t i = 0; i < count; ++i) {
    const BufferRequest& b = c.buffers[i];
    if (offsets[i] % c.alignment != 0) return false;
    if (b.fixed_offset_bytes != kNoFixedOffset && offsets[i] != static_cast<size_t>(b.fixed_offset_bytes)) return false;
    if (offsets[i] > SIZE_MAX - b.size_bytes) return false;  // the bytes would run past the address space
    largest_end = std::max(largest_end, offsets[i] + b.size_bytes);
    if (rule == HeadRule::kHoldsEveryBuffer && offsets[i] + b.size_bytes > head) return false;
    steps = std::max(steps, b.lifetime.end_op);
  }
  if (rule == HeadRule::kEqualsLargestEnd && head != largest_end) return false;
  if (capacity != kNoCapacity && head > capacity) return false;
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = i + 1; j < count; ++j) {
      const BufferRequest& a = c.buffers[i];
      const BufferRequest& b = c.buffers[j];
      bool live_together = false;
      for (int32_t step = 0; step < steps; ++step) {
        live_together |= a.lifetime.first_op <= step && step < a.lifetime.end_op && b.lifetime.first_op <= step &&
                         step < b.lifetime.end_op;
      }
      if (!live_together) continue;
      bool share = false;
      for (size_t byte = offsets[i]; byte < offsets[i] + a.size_bytes; ++byte) {
        share |= offsets[j] <= byte && byte < offsets[j] + b.size_bytes;
      }
      if (!share) continue;
      if (c.trust_fixed_overlaps && a.fixed_offset_bytes != kNoFixedOffset && b.fixed_offset_bytes != kNoFixedOffset) {
        continue;
      }
      bool permitted = false;
      for (const OverlapPermission& p : c.overlaps) {
        const bool names_them =
            (p.input_buffer == i && p.output_buffer == j) || (p.input_buffer == j && p.output_buffer == i);
        const long long displacement =
            static_cast<long long>(offsets[p.input_buffer]) - static_cast<long long>(offsets[p.output_buffer]);
        permitted |= names_them && displacement >= static_cast<long long>(p.min_displacement_bytes);
      }
      if (!permitted) return false;
    }
  }
  return true;
}

size_t LargestEnd(const Case& c, const std::vector<size_t>& offsets) {
  size_t end = 0;
  for (size_t i = 0; i < c.buffers.size(); ++i) end = std::max(end, offsets[i] + c.buffers[i].size_bytes);
  return end;
}

Case RandomCase(std::mt19937& random) {
  auto below = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
  Case c;
  const size_t alignments[] = {1, 4, 16};
  c.alignment = alignments[below(3)];
  const size_t count = 2 + below(7);
  const int32_t steps = 2 + static_cast<int32_t>(below(5));
  const bool with_fixed = below(2) == 0;
  c.trust_fixed_overlaps = with_fixed && below(2) == 0;
  size_t next_fixed = 0;  // fixed buffers stack here unless the plan is trusted
  for (size_t i = 0; i < count; ++i) {
    BufferRequest b;
    b.size_bytes = below(10) == 0 ? 0 : c.alignment * (1 + below(4));
    b.lifetime.first_op = static_cast<int32_t>(below(static_cast<uint32_t>(steps)));
    b.lifetime.end_op =
        b.lifetime.first_op + 1 + static_cast<int32_t>(below(static_cast<uint32_t>(steps - b.lifetime.first_op)));
    if (with_fixed && below(4) == 0) {
      if (c.trust_fixed_overlaps) {
        b.fixed_offset_bytes = static_cast<int64_t>(c.alignment * below(4));
      } else {
        b.fixed_offset_bytes = static_cast<int64_t>(next_fixed);
        next_fixed += b.size_bytes + c.alignment * below(2);
      }
    }
    c.buffers.push_back(b);
  }
  // Up to three permissions, each on a pair not named before; D aligned or not.
  const uint32_t permissions = below(4);
  for (uint32_t k = 0; k < permissions; ++k) {
    const uint32_t input = below(static_cast<uint32_t>(count));
    const uint32_t output = below(static_cast<uint32_t>(count));
    bool taken = input == output;
    for (const OverlapPermission& p : c.overlaps) {
      taken |= (p.input_buffer == input && p.output_buffer == output) ||
               (p.input_buffer == output && p.output_buffer == input);
    }
    if (taken) continue;
    OverlapPermission p;
    p.input_buffer = input;
    p.output_buffer = output;
    p.min_displacement_bytes =
        below(2) == 0 ? c.alignment * below(3) : below(static_cast<uint32_t>(3 * c.alignment + 1));
    c.overlaps.push_back(p);
  }
  return c;
}

// One changed plan (or problem) to judge.
struct Mutant {
  Case c;
  std::vector<size_t> offsets;
  size_t head = 0;
  size_t capacity = kNoCapacity;
};

enum Mutation : int {
  kMoveUp,             // one offset + alignment
  kMoveDown,           // one offset - alignment
  kSwap,               // two offsets exchanged
  kCollide,            // one buffer moved onto another's offset
  kMisalign,           // one offset + 1 (when the alignment is above 1)
  kBreakFixed,         // a fixed buffer moved by the alignment
  kPastAddressSpace,   // one offset so high that offset + size wraps
  kHeadShrunk,         // the head stated one alignment step smaller
  kHeadShrunkByOne,    // the head stated one byte smaller
  kHeadGrown,          // the head stated one alignment step larger
  kCapacityBelowHead,  // a capacity one byte below the head
  kCapacityAtHead,     // a capacity exactly the head
  kPairAtD,            // an approved pair placed at exactly D (rounded up to the alignment)
  kPairBelowD,         // the same pair one alignment step closer than D
  kPairSameOffset,     // the same pair at the same offset
  kRaiseD,             // a permission's D raised by the alignment
  kDropPermission,     // a permission removed
  kUntrust,            // the offline plan no longer trusted
  kMutationCount
};

const char* MutationName(int mutation) {
  static const char* const kNames[kMutationCount] = {
      "move up",      "move down",          "swap",        "collide",      "misalign",
      "break fixed",  "past address space", "head shrunk", "head - 1",     "head grown",
      "capacity - 1", "capacity = head",    "pair at D",   "pair below D", "pair same offset",
      "raise D",      "drop permission",    "untrust",
  };
  return kNames[mutation];
}

// Applies `mutation` to the plan; false when it does not apply to this case.
bool Mutate(int mutation, std::mt19937& random, Mutant* m) {
  const size_t count = m->c.buffers.size();
  const size_t alignment = m->c.alignment;
  auto pick = [&](size_t n) { return static_cast<size_t>(random() % n); };
  auto restate_head = [&] { m->head = LargestEnd(m->c, m->offsets); };
  const size_t target = pick(count);
  switch (mutation) {
    case kMoveUp:
      m->offsets[target] += alignment;
      restate_head();
      return true;
    case kMoveDown:
      if (m->offsets[target] < alignment) return false;
      m->offsets[target] -= alignment;
      restate_head();
      return true;
    case kSwap: {
      const size_t other = pick(count);
      if (other == target || m->offsets[other] == m->offsets[target]) return false;
      std::swap(m->offsets[target], m->offsets[other]);
      restate_head();
      return true;
    }
    case kCollide: {
      const size_t other = pick(count);
      if (other == target || m->offsets[other] == m->offsets[target]) return false;
      m->offsets[target] = m->offsets[other];
      restate_head();
      return true;
    }
    case kMisalign:
      if (alignment == 1) return false;
      m->offsets[target] += 1;
      restate_head();
      return true;
    case kBreakFixed: {
      std::vector<size_t> fixed;
      for (size_t i = 0; i < count; ++i) {
        if (m->c.buffers[i].fixed_offset_bytes != kNoFixedOffset) fixed.push_back(i);
      }
      if (fixed.empty()) return false;
      const size_t i = fixed[pick(fixed.size())];
      if (m->offsets[i] >= alignment && random() % 2 == 0) {
        m->offsets[i] -= alignment;
      } else {
        m->offsets[i] += alignment;
      }
      restate_head();
      return true;
    }
    case kPastAddressSpace:
      // The highest aligned offset: offset + size wraps for any size > 0.
      if (m->c.buffers[target].size_bytes == 0) return false;
      m->offsets[target] = SIZE_MAX - (SIZE_MAX % alignment);
      return true;  // the head stays as planned: no largest end exists
    case kHeadShrunk:
      if (m->head < alignment) return false;
      m->head -= alignment;
      return true;
    case kHeadShrunkByOne:
      if (m->head == 0) return false;
      m->head -= 1;
      return true;
    case kHeadGrown: m->head += alignment; return true;
    case kCapacityBelowHead:
      if (m->head == 0) return false;
      m->capacity = m->head - 1;
      return true;
    case kCapacityAtHead: m->capacity = m->head; return true;
    case kPairAtD:
    case kPairBelowD:
    case kPairSameOffset: {
      if (m->c.overlaps.empty()) return false;
      const OverlapPermission& p = m->c.overlaps[pick(m->c.overlaps.size())];
      size_t d = p.min_displacement_bytes;
      d = (d + alignment - 1) / alignment * alignment;
      if (mutation == kPairBelowD) {
        if (d < alignment) return false;  // D = 0: no closer aligned place below
        d -= alignment;
      }
      if (mutation == kPairSameOffset) d = 0;
      // The output goes d below the input; if there is no room below, the
      // input goes d above the output instead.
      if (m->offsets[p.input_buffer] >= d) {
        m->offsets[p.output_buffer] = m->offsets[p.input_buffer] - d;
      } else {
        m->offsets[p.input_buffer] = m->offsets[p.output_buffer] + d;
      }
      restate_head();
      return true;
    }
    case kRaiseD: {
      if (m->c.overlaps.empty()) return false;
      m->c.overlaps[pick(m->c.overlaps.size())].min_displacement_bytes += alignment;
      return true;
    }
    case kDropPermission:
      if (m->c.overlaps.empty()) return false;
      m->c.overlaps.erase(m->c.overlaps.begin() + static_cast<std::ptrdiff_t>(pick(m->c.overlaps.size())));
      return true;
    case kUntrust:
      if (!m->c.trust_fixed_overlaps) return false;
      m->c.trust_fixed_overlaps = false;
      return true;
  }
  return false;
}

struct Tally {
  size_t mutants = 0;
  size_t rejected = 0;  // by the oracle (CheckPlan's rules)
};

TEST(PlanCheckMutationTest, CheckersAgreeWithABruteForceOracleOnEveryMutant) {
  PlannerRegistry registry = DevicePlanners();
  OptimalOptions optimal_options;
  optimal_options.time_limit_seconds = 0;  // a node budget, not a clock
  optimal_options.node_limit = 2000;
  const OptimalPlanner optimal(optimal_options);
  std::vector<const Planner*> planners;
  for (size_t i = 0; i < registry.size(); ++i) planners.push_back(registry.at(i));
  planners.push_back(&optimal);
  ASSERT_EQ(planners.size(), 4u);

  constexpr int kProblems = 800;
  constexpr int kMutantsPerKind = 3;  // per plan and kind, each with its own random targets
  Tally by_kind[kMutationCount];
  size_t plans = 0, disagreements = 0;
  std::mt19937 random(20261202);
  for (int round = 0; round < kProblems && disagreements < 10; ++round) {
    const Case c = RandomCase(random);
    const PlanningProblem problem = c.problem();
    ASSERT_TRUE(ValidateProblem(problem).ok()) << ValidateProblem(problem).message() << "\n"
                                               << Describe(c, std::vector<size_t>(c.buffers.size()), 0, kNoCapacity);
    for (const Planner* planner : planners) {
      SCOPED_TRACE(std::string(planner->name()) + ", round " + std::to_string(round));
      std::vector<uint8_t> workspace(planner->WorkspaceBytesFor(problem));
      std::vector<size_t> offsets(c.buffers.size());
      PlanSummary summary;
      const Status planned = planner->Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                                           Span<size_t>(offsets.data(), offsets.size()), &summary);
      ASSERT_TRUE(planned.ok()) << planned.message() << "\n" << Describe(c, offsets, 0, kNoCapacity);
      ASSERT_TRUE(OracleAccepts(c, offsets, summary.head_bytes, kNoCapacity, HeadRule::kEqualsLargestEnd))
          << "the planner's own plan breaks a rule\n"
          << Describe(c, offsets, summary.head_bytes, kNoCapacity);
      ++plans;
      for (int kind = 0; kind < kMutationCount; ++kind) {
        for (int k = 0; k < kMutantsPerKind; ++k) {
          Mutant m{c, offsets, summary.head_bytes, kNoCapacity};
          if (!Mutate(kind, random, &m)) continue;
          const PlanningProblem mutated = m.c.problem();
          const Span<const size_t> mutated_offsets(m.offsets.data(), m.offsets.size());
          const bool check_expected = OracleAccepts(m.c, m.offsets, m.head, m.capacity, HeadRule::kEqualsLargestEnd);
          const Status check = CheckPlan(mutated, mutated_offsets, m.head, m.capacity);
          ++by_kind[kind].mutants;
          by_kind[kind].rejected += check_expected ? 0 : 1;
          auto expect_verdict = [&](const char* checker, const Status& verdict, bool expected) {
            if (verdict.ok() == expected) return;
            ++disagreements;
            ADD_FAILURE() << checker << (verdict.ok() ? " accepts" : " rejects") << " a '" << MutationName(kind)
                          << "' mutant the oracle " << (expected ? "accepts" : "rejects") << " (" << verdict.message()
                          << ")\n"
                          << Describe(m.c, m.offsets, m.head, m.capacity);
          };
          expect_verdict("CheckPlan", check, check_expected);
          // VerifyPlan has no capacity; judge it on the mutants without one.
          if (m.capacity != kNoCapacity) continue;
          expect_verdict("VerifyPlan", VerifyPlan(mutated, mutated_offsets, m.head),
                         OracleAccepts(m.c, m.offsets, m.head, kNoCapacity, HeadRule::kHoldsEveryBuffer));
        }
      }
    }
  }

  Tally total;
  for (int kind = 0; kind < kMutationCount; ++kind) {
    std::printf("[ mutants  ] %-18s %5zu, %5zu rejected\n", MutationName(kind), by_kind[kind].mutants,
                by_kind[kind].rejected);
    total.mutants += by_kind[kind].mutants;
    total.rejected += by_kind[kind].rejected;
  }
  std::printf("[ mutants  ] %zu plans, %zu mutants, %zu rejected\n", plans, total.mutants, total.rejected);
  EXPECT_EQ(plans, static_cast<size_t>(kProblems) * planners.size());
  // The test can fail only if many mutants are wrong plans, and it says
  // something about acceptance only if some are not.
  EXPECT_GE(total.rejected * 2, total.mutants) << "fewer than half the mutants break a rule";
  EXPECT_GE(total.mutants - total.rejected, total.mutants / 10) << "almost every mutant breaks a rule";
  // Every kind of mutation happened, and each kind that always breaks a rule
  // was rejected every time.
  for (int kind = 0; kind < kMutationCount; ++kind) EXPECT_GT(by_kind[kind].mutants, 0u) << MutationName(kind);
  for (int kind :
       {kMisalign, kBreakFixed, kPastAddressSpace, kHeadShrunk, kHeadShrunkByOne, kHeadGrown, kCapacityBelowHead}) {
    EXPECT_EQ(by_kind[kind].rejected, by_kind[kind].mutants) << MutationName(kind);
  }
  EXPECT_EQ(by_kind[kCapacityAtHead].rejected, 0u);  // a valid plan exactly at its capacity
}

}  // namespace
}  // namespace microarena
