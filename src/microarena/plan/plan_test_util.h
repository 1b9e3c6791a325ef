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

// One buffer of a TFLM plan file, with TFLM's offset.
struct GoldenBuffer {
  BufferRequest request;
  size_t tflm_offset_bytes = 0;
};

inline std::vector<GoldenBuffer> ReadTflmPlan(const std::string& path) {
  std::vector<GoldenBuffer> buffers;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string field;
    GoldenBuffer buffer;
    long long id = -1, size = -1, first = -1, last = -1, offset = -1, offline = -1;
    while (fields >> field) {
      const size_t eq = field.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = field.substr(0, eq);
      const std::string value = field.substr(eq + 1);
      if (key == "name") break;
      if (key == "kind") {
        buffer.request.kind = value == "scratch" ? BufferKind::kScratch : BufferKind::kTensor;
        continue;
      }
      if (key != "id" && key != "size" && key != "first_used" && key != "last_used" &&
          key != "offset" && key != "offline_offset") {
        continue;
      }
      const long long number = std::stoll(value);
      if (key == "id") id = number;
      if (key == "size") size = number;
      if (key == "first_used") first = number;
      if (key == "last_used") last = number;
      if (key == "offset") offset = number;
      if (key == "offline_offset") offline = number;
    }
    if (id != static_cast<long long>(buffers.size())) return {};  // ids out of order
    buffer.request.size_bytes = static_cast<size_t>(size);
    // TFLM's last_used is inclusive; our end_op is one past it.
    buffer.request.lifetime.first_op = static_cast<int32_t>(first);
    buffer.request.lifetime.end_op = static_cast<int32_t>(last + 1);
    buffer.request.fixed_offset_bytes = offline;
    buffer.tflm_offset_bytes = static_cast<size_t>(offset);
    buffers.push_back(buffer);
  }
  return buffers;
}

// The buffers of <shared>/golden/tflm_plans/<model>.txt, or empty.
inline std::vector<BufferRequest> TflmPlanRequests(const std::string& shared_dir,
                                                   const std::string& model) {
  std::vector<BufferRequest> requests;
  for (const GoldenBuffer& buffer :
       ReadTflmPlan(shared_dir + "/golden/tflm_plans/" + model + ".txt")) {
    requests.push_back(buffer.request);
  }
  return requests;
}

}  // namespace microarena::plan_test
