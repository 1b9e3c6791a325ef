// Readers of TFLM's own figures in the shared data, one for each file kind:
//  - golden/tflm_plans/<model>.txt: the buffers TFLM's GreedyMemoryPlanner
//    placed, one "key=value ..." line each;
//  - golden/tflm_arena.csv (host) and golden/tflm_arena_cortex_m4.csv (the
//    board): TFLM's arena figures per model, one row each under a header.
//  - golden/<model>/seed<N>/: TFLM's outputs for generated inputs.
// The tests compare microarena with these; nothing here interprets them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace microarena::testing {

// One line of a TFLM plan. TFLM's steps: 0 for the subgraph inputs alone,
// op i is step i + 1; last_used is inclusive.
struct TflmPlanBuffer {
  int64_t id = -1;              // TFLM's buffer id (the line's order in the file)
  size_t size_bytes = 0;        // rounded as TFLM planned it
  int32_t first_used = -1;      // TFLM step
  int32_t last_used = -1;       // TFLM step, inclusive
  size_t offset_bytes = 0;      // where TFLM placed it in the head
  int64_t offline_offset = -1;  // -1: not fixed by an offline plan
  std::string kind;             // "tensor" or "scratch"
  int32_t subgraph = 0;         // tensor lines only
  int32_t tensor_index = -1;    // tensor lines only
  std::string name;             // tensor lines only (may hold spaces: the rest of the line)
  std::string line;             // the line as read, for messages
  bool is_tensor() const { return kind == "tensor"; }
};

// The buffers of the plan file at `path`, in file order; empty when it cannot
// be read. Blank lines are skipped; keys a line lacks keep the defaults above.
std::vector<TflmPlanBuffer> ReadTflmPlanFile(const std::string& path);
// <shared>/golden/tflm_plans/<model>.txt; empty when there is none.
std::vector<TflmPlanBuffer> ReadTflmPlan(const std::string& model);
// A shared model and TFLM's plan for it.
struct TflmPlannedModel {
  std::string name;
  std::vector<TflmPlanBuffer> plan;
};
// Every shared model that has a plan, by name.
std::vector<TflmPlannedModel> TflmPlannedModels();
// TFLM's head for a plan: the largest offset + size.
size_t TflmPlanHeadBytes(const std::vector<TflmPlanBuffer>& plan);

// One row of a TFLM arena table: column name -> cell ("model" names the model).
using TflmArenaCsvRow = std::map<std::string, std::string>;
// The rows of <shared>/golden/<file_name>, in file order; empty when it
// cannot be read.
std::vector<TflmArenaCsvRow> ReadTflmArenaCsv(const std::string& file_name = "tflm_arena.csv");
// The row of `model` in golden/tflm_arena.csv; empty when it has none.
TflmArenaCsvRow TflmArenaRow(const std::string& model);
// A row's cell as a number; 0 when the row lacks it.
size_t TflmArenaFigure(const TflmArenaCsvRow& row, const std::string& column);
// TFLM's minimum arena on the host for `model` (golden/tflm_arena.csv,
// min_arena_bytes); 0 when it is not listed.
size_t TflmMinArena(const std::string& model);

// The shared models that have TFLM's golden outputs
// (golden/<model>/seed1/output_0.bin), sorted.
std::vector<std::string> GoldenOutputModels();

}  // namespace microarena::testing
