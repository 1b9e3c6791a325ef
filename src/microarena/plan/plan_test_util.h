// Helpers shared by the planner tests: random problems and running a planner.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <random>
#include <vector>

#include "microarena/base/status.h"
#include "microarena/plan/planner.h"
#include "microarena/analysis/planning_problem.h"
#include "tests/support/tflm_golden.h"

namespace microarena::plan_test {

// A planner's answer to one problem.
struct PlanOutput {
  Status status;
  std::vector<size_t> offsets_bytes;
  PlanSummary summary;
};

inline PlanOutput RunPlanner(const Planner& planner, const PlanningProblem& problem) {
  PlanOutput output;
  std::vector<uint8_t> workspace(planner.WorkspaceBytes(problem.buffers.size()));
  output.offsets_bytes.assign(problem.buffers.size(), 0);
  output.status = planner.Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                               Span<size_t>(output.offsets_bytes.data(), problem.buffers.size()),
                               &output.summary);
  return output;
}

inline PlanningProblem MakeProblem(const std::vector<BufferRequest>& buffers,
                                   size_t alignment_bytes) {
  PlanningProblem problem;
  problem.buffers = Span<const BufferRequest>(buffers.data(), buffers.size());
  problem.alignment_bytes = alignment_bytes;
  return problem;
}

inline BufferRequest Buffer(size_t size_bytes, int32_t first_op, int32_t end_op,
                            int64_t fixed_offset_bytes = kNoFixedOffset) {
  BufferRequest buffer;
  buffer.size_bytes = size_bytes;
  buffer.lifetime.first_op = first_op;
  buffer.lifetime.end_op = end_op;
  buffer.fixed_offset_bytes = fixed_offset_bytes;
  return buffer;
}

// A perfect packing: the rectangle [0, steps) x [0, height_units * unit)
// cut by guillotine cuts into `pieces` buffers; every step is fully covered,
// so the lower bound is height_units * unit and a plan meets it.
// `offsets` receives the packing's own offsets.
inline std::vector<BufferRequest> PerfectPacking(std::mt19937& random, int32_t steps,
                                                 size_t height_units, size_t unit,
                                                 size_t pieces, std::vector<size_t>* offsets) {
  struct Piece {
    int32_t first, end;
    size_t low, high;  // in units
  };
  std::vector<Piece> all = {{0, steps, 0, height_units}};
  while (all.size() < pieces) {
    std::uniform_int_distribution<size_t> pick(0, all.size() - 1);
    const size_t index = pick(random);
    const Piece piece = all[index];
    const bool can_cut_time = piece.end - piece.first >= 2;
    const bool can_cut_space = piece.high - piece.low >= 2;
    if (!can_cut_time && !can_cut_space) {
      bool any = false;
      for (const Piece& p : all) any |= (p.end - p.first >= 2) || (p.high - p.low >= 2);
      if (!any) break;
      continue;
    }
    const bool cut_time = can_cut_time && (!can_cut_space || random() % 2 == 0);
    if (cut_time) {
      std::uniform_int_distribution<int32_t> at(piece.first + 1, piece.end - 1);
      const int32_t cut = at(random);
      all[index] = {piece.first, cut, piece.low, piece.high};
      all.push_back({cut, piece.end, piece.low, piece.high});
    } else {
      std::uniform_int_distribution<size_t> at(piece.low + 1, piece.high - 1);
      const size_t cut = at(random);
      all[index] = {piece.first, piece.end, piece.low, cut};
      all.push_back({piece.first, piece.end, cut, piece.high});
    }
  }
  std::vector<BufferRequest> buffers;
  offsets->clear();
  for (const Piece& piece : all) {
    buffers.push_back(Buffer((piece.high - piece.low) * unit, piece.first, piece.end));
    offsets->push_back(piece.low * unit);
  }
  return buffers;
}

// A buffer of a TFLM plan as a request. TFLM's last_used is inclusive; our
// end_op is one past it.
inline BufferRequest TflmPlanRequest(const testing::TflmPlanBuffer& buffer) {
  BufferRequest request;
  request.kind = buffer.kind == "scratch" ? BufferKind::kScratch : BufferKind::kTensor;
  request.size_bytes = buffer.size_bytes;
  request.lifetime.first_op = buffer.first_used;
  request.lifetime.end_op = buffer.last_used + 1;
  request.fixed_offset_bytes = buffer.offline_offset;
  return request;
}

// The buffers of <shared>/golden/tflm_plans/<model>.txt, or empty (also when
// its ids are out of order).
inline std::vector<BufferRequest> TflmPlanRequests(const std::string& shared_dir, const std::string& model) {
  std::vector<BufferRequest> requests;
  for (const testing::TflmPlanBuffer& buffer :
       testing::ReadTflmPlanFile(shared_dir + "/golden/tflm_plans/" + model + ".txt")) {
    if (buffer.id != static_cast<int64_t>(requests.size())) return {};
    requests.push_back(TflmPlanRequest(buffer));
  }
  return requests;
}

}  // namespace microarena::plan_test
