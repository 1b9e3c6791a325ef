// ProblemGenerator: seeded static-allocation problems shaped like the
// "challenging" MiniMalloc benchmarks (../shared/dsa A-E), with a known plan.
//
// The A-E files read as cut-up rectangles: time and space both run over 1024
// units of 1024, the bytes live at a step stay at the capacity over long
// stretches (a few dropped pieces make the dips), and a slot of space is often
// handed from one buffer to the next at one step (a cut across time). So a
// problem here is drawn the same way:
//
//   space ^ +-----------+------+     1. start from the whole rectangle:
//         | |     c     |  e   |        steps x capacity
//         | +----+------+------+     2. cut a piece (drawn with probability
//         | | a  |   b  |  d   |        proportional to its area) across
//         | +----+------+------+        its next axis at a uniform position;
//         +-------------------->        axes alternate with depth, space first
//                          step      3. drop a few pieces, shuffle the rest
//                                       (optionally more, down to an area share)
//
// Every piece is a buffer: its steps are its lifetime, its height its size.
// The pieces' own positions are a plan within the capacity (the witness), so
// every problem is feasible by construction and a solver that says
// "infeasible" is wrong. What is not known is how hard each one is: that is
// what the generated suites measure (bench/solver_versus_minimalloc.py).
// Host only. Deterministic: the same options give the same problem on every
// platform (own random generator, no <random> distributions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "microarena/base/result.h"
#include "microarena/plan/problem_csv.h"

namespace microarena {

struct ProblemGeneratorOptions {
  uint64_t seed = 1;
  uint32_t min_buffers = 150;  // pieces before the drop, drawn uniformly in [min, max]
  uint32_t max_buffers = 300;
  uint32_t min_dropped = 0;    // pieces removed, drawn uniformly in [min, max]
  uint32_t max_dropped = 6;
  // Then more pieces are removed until the buffers' area (bytes x steps) is
  // at most this share of the rectangle, in thousandths, drawn uniformly in
  // [min, max]; 1000 (the default): no more. A-K, MiniMalloc's benchmarks,
  // have area shares of 0.58-0.98, and their bytes live reach the capacity
  // at 0-59 % of the steps; the cut rectangle alone, at 0.98-1.00 and most
  // steps, is a tighter family than any of them.
  uint32_t min_area_permille = 1000;
  uint32_t max_area_permille = 1000;
  // While dropping down to the area share, a piece stays if dropping it
  // would leave the most bytes live at one step below this share of the
  // capacity, in thousandths (A-K: 940-1000; 0: no such limit).
  uint32_t min_peak_permille = 0;
  // The axis of each cut: 0 (the default) alternates them with depth, space
  // first; otherwise a cut runs across space (splitting a piece's bytes,
  // keeping its lifetime) with this probability in thousandths, drawn per
  // cut. Above 500 the pieces keep longer lifetimes: A-E's buffers live for
  // 0.16-0.95 of the steps at the 90th percentile (F's 0.05), alternating
  // cuts give about 0.2.
  uint32_t space_cut_permille = 0;
  uint32_t units = 1024;       // grid of the rectangle along each axis
  uint32_t unit_bytes = 1024;  // bytes per space unit (sizes are multiples of it)
  uint32_t unit_steps = 1024;  // steps per time unit
};

struct GeneratedProblem {
  ProblemCsv problem;                   // ids are row numbers
  std::vector<size_t> witness_offsets;  // a plan within capacity_bytes, one per buffer
  size_t capacity_bytes = 0;            // units * unit_bytes
  uint32_t dropped = 0;                 // pieces removed from the full rectangle
};

// kInvalidArgument when the options cannot make a problem (min > max, fewer
// than one piece left, a grid too small for the pieces, or sizes that
// overflow int32 steps / size_t bytes).
Result<GeneratedProblem> GenerateProblem(const ProblemGeneratorOptions& options);

}  // namespace microarena
