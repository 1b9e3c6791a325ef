// Overlap permissions in the planning layer: the checker, the device
// verifier, the overlap-aware lower bound, the greedy and exact planners.
//
// The hand-made problem used throughout: an op at step 1 reads input I
// (64 B, lifetime [0, 2)) and writes output O (128 B, lifetime [1, 3)); its
// kernel allows offset(I) - offset(O) >= D = 48.
//
//   offset  0        48      112 128
//   O       [=================)          O at 0
//   I                [=======)           I at 48: shares [48, 112) with O
//
// Without the permission the two need 64 + 128 = 192 B. With it the least
// head is max(D + size(I), size(O)) = max(48 + 64, 128) = 128 B, and the
// bytes the pair can share are min(size(O) - D, size(I)) = min(80, 64) = 64.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/greedy_tflm.h"
#include "microarena/plan/linear.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/plan_test_util.h"
#include "microarena/plan/verify.h"

namespace microarena {
namespace {

using plan_test::Buffer;
using plan_test::RunPlanner;

struct OverlapProblem {
  std::vector<BufferRequest> buffers;
  std::vector<OverlapPermission> overlaps;
  size_t alignment = 16;
  PlanningProblem problem() const {
    PlanningProblem p;
    p.buffers = Span<const BufferRequest>(buffers.data(), buffers.size());
    p.alignment_bytes = alignment;
    p.overlaps = Span<const OverlapPermission>(overlaps.data(), overlaps.size());
    return p;
  }
};

OverlapProblem PairProblem(size_t alignment = 16) {
  OverlapProblem p;
  p.buffers = {Buffer(64, 0, 2), Buffer(128, 1, 3)};  // I, O
  p.overlaps = {OverlapPermission{0, 1, 48}};
  p.alignment = alignment;
  return p;
}

Status Check(const OverlapProblem& p, const std::vector<size_t>& offsets, size_t head) {
  return CheckPlan(p.problem(), Span<const size_t>(offsets.data(), offsets.size()), head);
}

Status Verify(const OverlapProblem& p, const std::vector<size_t>& offsets, size_t head) {
  return VerifyPlan(p.problem(), Span<const size_t>(offsets.data(), offsets.size()), head);
}

TEST(OverlapPlan, CheckerAndVerifierAcceptTheOutputDBelowTheInput) {
  const OverlapProblem p = PairProblem();
  EXPECT_TRUE(Check(p, {48, 0}, 128).ok());
  EXPECT_TRUE(Verify(p, {48, 0}, 128).ok());
  // Further below is fine too (here disjoint at 128: I [128, 192)).
  EXPECT_TRUE(Check(p, {128, 0}, 192).ok());
}

TEST(OverlapPlan, CheckerAndVerifierRejectAnOverlapOneByteBeyondD) {
  const OverlapProblem p = PairProblem(/*alignment=*/1);
  // offset(I) - offset(O) = 47 < D = 48.
  const Status check = Check(p, {47, 0}, 128);
  ASSERT_FALSE(check.ok());
  EXPECT_NE(std::string(check.message()).find("needs offset(input) - offset(output) >= 48 but it is 47"),
            std::string::npos)
      << check.message();
  EXPECT_FALSE(Verify(p, {47, 0}, 128).ok());
  EXPECT_TRUE(Check(p, {48, 0}, 128).ok());
}

TEST(OverlapPlan, CheckerRejectsTheOutputAboveTheInput) {
  // The kernel writes the output ahead of its reads only when the output
  // starts below: the output starting 16 B above the input is not allowed.
  const OverlapProblem p = PairProblem();
  EXPECT_FALSE(Check(p, {0, 16}, 144).ok());
  EXPECT_FALSE(Verify(p, {0, 16}, 144).ok());
}

TEST(OverlapPlan, CheckerAndVerifierRejectSharingWithoutPermission) {
  OverlapProblem p = PairProblem();
  p.buffers.push_back(Buffer(32, 1, 2));  // a third buffer live at step 1, no permission
  // The third buffer at 96 shares [96, 112) with I at 48 and [96, 128) with O.
  const Status check = Check(p, {48, 0, 96}, 128);
  ASSERT_FALSE(check.ok());
  EXPECT_NE(std::string(check.message()).find("no overlap permission"), std::string::npos) << check.message();
  EXPECT_FALSE(Verify(p, {48, 0, 96}, 128).ok());
  // The same two buffers without the permission may not share at all.
  OverlapProblem plain = PairProblem();
  plain.overlaps.clear();
  EXPECT_FALSE(Check(plain, {48, 0}, 128).ok());
}

TEST(OverlapPlan, OverlapLowerBoundSubtractsTheSharableBytes) {
  const OverlapProblem p = PairProblem();
  std::vector<uint8_t> workspace(LowerBoundWorkspaceBytes(p.buffers.size()));
  size_t plain = 0;
  size_t with_overlap = 0;
  ASSERT_TRUE(ComputeLowerBound(p.problem().buffers, Span<uint8_t>(workspace.data(), workspace.size()), &plain).ok());
  ASSERT_TRUE(
      ComputeOverlapLowerBound(p.problem(), Span<uint8_t>(workspace.data(), workspace.size()), &with_overlap).ok());
  EXPECT_EQ(plain, 192u);         // 64 + 128 at step 1
  EXPECT_EQ(with_overlap, 128u);  // 192 - min(128 - 48, 64)
}

TEST(OverlapPlan, GreedyAndOptimalReachTheHandCalculatedMinimum) {
  const OverlapProblem p = PairProblem();
  const GreedyPlanner greedy;
  plan_test::PlanOutput g = RunPlanner(greedy, p.problem());
  ASSERT_TRUE(g.status.ok()) << g.status.message();
  EXPECT_EQ(g.summary.head_bytes, 128u);
  EXPECT_TRUE(g.summary.proven_optimal);
  EXPECT_TRUE(Check(p, g.offsets_bytes, g.summary.head_bytes).ok());

  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 100000;
  const OptimalPlanner optimal(options);
  std::vector<size_t> offsets(p.buffers.size());
  Result<OptimalResult> o = optimal.Solve(p.problem(), Span<size_t>(offsets.data(), offsets.size()));
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->head_bytes, 128u);
  EXPECT_TRUE(o->proven_optimal);
  EXPECT_TRUE(Check(p, offsets, o->head_bytes).ok());

  // Without the permission every planner needs 192 B.
  OverlapProblem plain = PairProblem();
  plain.overlaps.clear();
  EXPECT_EQ(RunPlanner(greedy, plain.problem()).summary.head_bytes, 192u);
}

TEST(OverlapPlan, InPlacePermissionLetsTheOutputTakeTheInputsBytes) {
  // Elementwise in place: D = 0, both 64 B: one 64 B slot suffices.
  OverlapProblem p;
  p.buffers = {Buffer(64, 0, 2), Buffer(64, 1, 3)};
  p.overlaps = {OverlapPermission{0, 1, 0}};
  const GreedyPlanner greedy;
  plan_test::PlanOutput g = RunPlanner(greedy, p.problem());
  ASSERT_TRUE(g.status.ok());
  EXPECT_EQ(g.summary.head_bytes, 64u);
  EXPECT_TRUE(Check(p, g.offsets_bytes, g.summary.head_bytes).ok());
}

TEST(OverlapPlan, PlannersThatIgnorePermissionsStillMakeValidPlans) {
  const OverlapProblem p = PairProblem();
  for (const Planner* planner : {static_cast<const Planner*>(new LinearPlanner()),
                                 static_cast<const Planner*>(new GreedyTflmPlanner())}) {
    plan_test::PlanOutput out = RunPlanner(*planner, p.problem());
    EXPECT_TRUE(out.status.ok());
    EXPECT_TRUE(Check(p, out.offsets_bytes, out.summary.head_bytes).ok()) << planner->name();
    delete planner;
  }
}

TEST(OverlapPlan, ValidationRejectsBadPermissions) {
  OverlapProblem p = PairProblem();
  p.overlaps.push_back(OverlapPermission{1, 0, 0});  // the same pair, swapped
  const GreedyPlanner greedy;
  plan_test::PlanOutput out = RunPlanner(greedy, p.problem());
  ASSERT_FALSE(out.status.ok());
  EXPECT_NE(std::string(out.status.message()).find("both name buffers"), std::string::npos)
      << out.status.message();
  p.overlaps = {OverlapPermission{0, 5, 0}};
  EXPECT_FALSE(RunPlanner(greedy, p.problem()).status.ok());
}

// Random chains of ops (each op reads the previous output, which dies there,
// and writes a new one) with random sizes and displacements, plus unrelated
// buffers: every plan passes the checker and is at or above the overlap-aware
// lower bound, which is at or below the plain one.
TEST(OverlapPlan, RandomChainsGiveValidPlansAboveTheBound) {
  std::mt19937 random(7);
  const GreedyPlanner greedy;
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 20000;
  const OptimalPlanner optimal(options);
  for (int round = 0; round < 60; ++round) {
    OverlapProblem p;
    const int32_t steps = 3 + static_cast<int32_t>(random() % 8);
    for (int32_t t = 0; t <= steps; ++t) {
      // Tensor t is written at step t - 1 (the input at step 0) and read at step t.
      p.buffers.push_back(Buffer(16 * (1 + random() % 16), t == 0 ? 0 : t - 1, t + 1));
    }
    for (int32_t t = 0; t < steps; ++t) {
      if (random() % 4 == 0) continue;  // an op without a declared overlap
      const size_t output_size = p.buffers[static_cast<size_t>(t) + 1].size_bytes;
      p.overlaps.push_back(OverlapPermission{static_cast<uint32_t>(t), static_cast<uint32_t>(t) + 1,
                                             random() % (output_size + 32)});
    }
    for (int extra = 0; extra < 3; ++extra) {
      const auto first = static_cast<int32_t>(random() % static_cast<uint32_t>(steps));
      p.buffers.push_back(Buffer(16 * (1 + random() % 8), first, first + 1 + static_cast<int32_t>(random() % 3)));
    }
    std::vector<uint8_t> workspace(LowerBoundWorkspaceBytes(p.buffers.size()));
    size_t plain = 0;
    size_t bound = 0;
    ASSERT_TRUE(ComputeLowerBound(p.problem().buffers, Span<uint8_t>(workspace.data(), workspace.size()), &plain).ok());
    ASSERT_TRUE(ComputeOverlapLowerBound(p.problem(), Span<uint8_t>(workspace.data(), workspace.size()), &bound).ok());
    EXPECT_LE(bound, plain);

    plan_test::PlanOutput g = RunPlanner(greedy, p.problem());
    ASSERT_TRUE(g.status.ok()) << g.status.message();
    EXPECT_TRUE(Check(p, g.offsets_bytes, g.summary.head_bytes).ok()) << "round " << round;
    EXPECT_TRUE(Verify(p, g.offsets_bytes, g.summary.head_bytes).ok()) << "round " << round;
    EXPECT_GE(g.summary.head_bytes, bound);

    std::vector<size_t> offsets(p.buffers.size());
    Result<OptimalResult> o = optimal.Solve(p.problem(), Span<size_t>(offsets.data(), offsets.size()));
    ASSERT_TRUE(o.ok()) << o.status().message();
    const Status checked = Check(p, offsets, o->head_bytes);
    EXPECT_TRUE(checked.ok()) << "round " << round << ": " << checked.message();
    EXPECT_GE(o->head_bytes, bound);
    EXPECT_LE(o->head_bytes, g.summary.head_bytes);
    EXPECT_LE(o->lower_bound_bytes, o->head_bytes);
  }
}

// The exact planner's proofs with permissions of D > 0 (where it claims
// completeness) against brute force: every offset of every buffer on the
// alignment grid, with the sharing rule written out here.
TEST(OverlapPlan, OptimalMatchesBruteForceOnSmallProblems) {
  std::mt19937 random(11);
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 200000;
  const OptimalPlanner optimal(options);
  int rounds_where_overlap_helps = 0;
  for (int round = 0; round < 40; ++round) {
    OverlapProblem p;
    const size_t count = 3 + random() % 2;  // 3 or 4 buffers
    for (size_t b = 0; b < count; ++b) {
      const auto first = static_cast<int32_t>(random() % 3);
      p.buffers.push_back(Buffer(16 * (1 + random() % 4), first, first + 1 + static_cast<int32_t>(random() % 2)));
    }
    // Permissions between pairs live together at exactly one step, D > 0.
    for (uint32_t a = 0; a < count; ++a) {
      for (uint32_t b = 0; b < count; ++b) {
        if (a == b || p.buffers[a].lifetime.end_op != p.buffers[b].lifetime.first_op + 1) continue;
        if (random() % 2 == 0) continue;
        bool taken = false;
        for (const OverlapPermission& q : p.overlaps) {
          taken |= q.input_buffer == a || q.input_buffer == b || q.output_buffer == a || q.output_buffer == b;
        }
        if (!taken) p.overlaps.push_back(OverlapPermission{a, b, 1 + random() % 48});
      }
    }
    size_t total = 0;
    for (const BufferRequest& b : p.buffers) total += b.size_bytes;
    auto valid = [&](const std::vector<size_t>& offsets) {
      for (size_t a = 0; a < count; ++a) {
        for (size_t b = a + 1; b < count; ++b) {
          if (!p.buffers[a].lifetime.Overlaps(p.buffers[b].lifetime)) continue;
          if (offsets[a] + p.buffers[a].size_bytes <= offsets[b] || offsets[b] + p.buffers[b].size_bytes <= offsets[a]) {
            continue;
          }
          bool allowed = false;
          for (const OverlapPermission& q : p.overlaps) {
            if ((q.input_buffer == a && q.output_buffer == b) || (q.input_buffer == b && q.output_buffer == a)) {
              allowed = offsets[q.input_buffer] >= offsets[q.output_buffer] &&
                        offsets[q.input_buffer] - offsets[q.output_buffer] >= q.min_displacement_bytes;
            }
          }
          if (!allowed) return false;
        }
      }
      return true;
    };
    size_t best = SIZE_MAX;
    std::vector<size_t> offsets(count, 0);
    const size_t slots = total / 16 + 1;
    for (size_t code = 0;; ++code) {
      size_t rest = code;
      for (size_t b = 0; b < count; ++b) {
        offsets[b] = 16 * (rest % slots);
        rest /= slots;
      }
      if (rest != 0) break;
      size_t head = 0;
      for (size_t b = 0; b < count; ++b) head = std::max(head, offsets[b] + p.buffers[b].size_bytes);
      if (head < best && valid(offsets)) best = head;
    }
    std::vector<size_t> planned(count);
    Result<OptimalResult> o = optimal.Solve(p.problem(), Span<size_t>(planned.data(), planned.size()));
    ASSERT_TRUE(o.ok()) << o.status().message();
    EXPECT_TRUE(valid(planned)) << "round " << round;
    EXPECT_EQ(o->head_bytes, best) << "round " << round;
    EXPECT_TRUE(o->proven_optimal) << "round " << round;
    size_t plain_bound = 0;
    std::vector<uint8_t> workspace(LowerBoundWorkspaceBytes(count));
    ASSERT_TRUE(ComputeLowerBound(p.problem().buffers, Span<uint8_t>(workspace.data(), workspace.size()), &plain_bound)
                    .ok());
    rounds_where_overlap_helps += best < plain_bound ? 1 : 0;
  }
  EXPECT_GE(rounds_where_overlap_helps, 5);  // the problems do exercise the permissions
}

}  // namespace
}  // namespace microarena

namespace microarena {
namespace {

// Permissions only ever help: on random problems (chains with declared
// overlaps among unrelated buffers), greedy's and the node-limited exact
// planner's heads with the permissions are at most their heads without them.
TEST(OverlapPlan, PermissionsNeverMakeTheHeadLarger) {
  std::mt19937 random(23);
  const GreedyPlanner greedy;
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 3000;
  const OptimalPlanner optimal(options);
  for (int round = 0; round < 600; ++round) {  // greedy without its passes free of permissions loses first at round 223
    OverlapProblem p;
    const int32_t steps = 3 + static_cast<int32_t>(random() % 10);
    for (int32_t t = 0; t <= steps; ++t) {
      p.buffers.push_back(Buffer(16 * (1 + random() % 24), t == 0 ? 0 : t - 1, t + 1));
    }
    for (int32_t t = 0; t < steps; ++t) {
      if (random() % 3 == 0) continue;
      const size_t output_size = p.buffers[static_cast<size_t>(t) + 1].size_bytes;
      p.overlaps.push_back(
          OverlapPermission{static_cast<uint32_t>(t), static_cast<uint32_t>(t) + 1, random() % (output_size + 64)});
    }
    const int extras = 2 + static_cast<int>(random() % 6);
    for (int extra = 0; extra < extras; ++extra) {
      const auto first = static_cast<int32_t>(random() % static_cast<uint32_t>(steps));
      p.buffers.push_back(Buffer(16 * (1 + random() % 16), first, first + 1 + static_cast<int32_t>(random() % 4)));
    }
    OverlapProblem plain = p;
    plain.overlaps.clear();

    const plan_test::PlanOutput with = RunPlanner(greedy, p.problem());
    const plan_test::PlanOutput without = RunPlanner(greedy, plain.problem());
    ASSERT_TRUE(with.status.ok() && without.status.ok()) << with.status.message() << without.status.message();
    EXPECT_TRUE(Check(p, with.offsets_bytes, with.summary.head_bytes).ok()) << "round " << round;
    EXPECT_LE(with.summary.head_bytes, without.summary.head_bytes) << "greedy, round " << round;

    std::vector<size_t> offsets(p.buffers.size());
    Result<OptimalResult> exact_with = optimal.Solve(p.problem(), Span<size_t>(offsets.data(), offsets.size()));
    ASSERT_TRUE(exact_with.ok()) << exact_with.status().message();
    EXPECT_TRUE(Check(p, offsets, exact_with->head_bytes).ok()) << "round " << round;
    Result<OptimalResult> exact_without = optimal.Solve(plain.problem(), Span<size_t>(offsets.data(), offsets.size()));
    ASSERT_TRUE(exact_without.ok()) << exact_without.status().message();
    EXPECT_LE(exact_with->head_bytes, exact_without->head_bytes) << "optimal, round " << round;
  }
}

}  // namespace
}  // namespace microarena
