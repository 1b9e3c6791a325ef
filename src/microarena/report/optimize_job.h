// `optimize MODEL -o OUT` as library calls: the order, the plan in it, the
// rewritten file carrying the plan (OptimizeModel); then the proof on the
// file as written (CheckOptimizedModel): the plan reads back, both files run
// to identical outputs, and the arenas before and after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "microarena/base/status.h"
#include "microarena/model/model_view.h"
#include "microarena/plan/reorder.h"
#include "microarena/report/model_plan.h"
#include "microarena/runtime/kernel_data.h"
#include "microarena/runtime/target_layout.h"

namespace microarena::report {

// Written next to the plan: how it was made, for people and for `inspect`.
inline constexpr const char* kPlanInfoMetadataName = "microarena.plan";

struct OptimizeOptions {
  std::string planner = "optimal";  // optimal, greedy, greedy-tflm or linear
  bool best_order = false;          // store the operators in the order with the smallest peak
  size_t alignment_bytes = 16;
  double time_limit_seconds = 10.0;      // for the exact planner and for the order search
  bool overlap = false;                  // plan with kernel-approved overlap (microarena's runtime only)
  bool kernel_data = true;               // store the kernels' data for the runtime to read from flash
  // Choose a tiling (report/tiling_search.h) and store it with the plan of
  // its windows (microarena.Tiling). The file then carries no plan stock
  // TFLM reads: it plans the model whole itself. With best_order the tiling
  // is chosen in each order and the smaller arena kept (order_used).
  bool tile = false;
  const TargetLayout* target = nullptr;  // the device the arenas are counted for; nullptr: the host
};

struct OptimizedModel {
  std::vector<uint8_t> bytes;  // the file to write
  ModelPlan plan;
  std::optional<ReorderResult> reorder;  // with best_order
  std::vector<int32_t> offsets;          // the stored plan: one head offset per tensor, -1 = planned online
  const char* metadata_name = nullptr;   // OfflineMemoryAllocation, or the overlap plan's name
  size_t used_overlaps = 0;              // approved overlaps the plan uses
  size_t kernel_data_ops = 0;            // ops whose data the file carries (kKernelDataMetadataName)
  size_t kernel_data_bytes = 0;          // the entry's bytes in the file (flash)
  size_t stored_plan_bytes = 0;          // head of the whole plan stored (kStoredPlanMetadataName); 0: none
  std::vector<TiledSegment> tiling;      // with tile: the segments stored (none: tiling did not help)
  // Whether the file stores reorder->order. With best_order and tile the
  // stored order is tried too (a tiling may do better in it) and kept when
  // its arena is no larger; best_order_arena_bytes is then the best order's.
  bool order_used = false;
  size_t best_order_arena_bytes = 0;
  // With options.overlap: whether the file carries the overlap plan. It
  // carries the plan without overlap (OfflineMemoryAllocation, TFLM-safe)
  // when that one runs in a smaller arena; overlap_arena_bytes is then the
  // arena of the overlap plan.
  bool overlap_used = false;
  size_t overlap_arena_bytes = 0;
};

// Errors: a kernel refuses an op (its scratch size is needed), the planner
// or the rewriter fails. With options.overlap both plans are written and
// measured (the runtime's offline planner on the target) and the smaller
// arena is kept (the one without overlap on ties): `--overlap` is never worse than without.
Result<OptimizedModel> OptimizeModel(const ModelView& model, const OptimizeOptions& options);

struct OptimizeCheck {
  bool outputs_identical = false;  // seed 1, original (greedy) against written (its stored plan)
  size_t original_arena_bytes = 0;
  size_t offline_arena_bytes = 0;
  size_t offline_head_bytes = 0;
  KernelDataUse kernel_data;  // what the runtime did with the stored kernel data
  bool stored_plan_used = false;  // the runtime planned nothing at boot
  size_t offline_temp_peak_bytes = 0;
  size_t original_persistent_bytes = 0;
  size_t offline_persistent_bytes = 0;
  // How the runtime placed each file's buffers (PlannerChoiceName: greedy,
  // offline, precomputed, ...).
  std::string original_planner;
  std::string offline_planner;
};

// `written` is the optimized file as read back from disk. Errors: the plan
// does not read back as stored, either model does not run.
Result<OptimizeCheck> CheckOptimizedModel(const ModelView& original, const ModelView& written,
                                          const OptimizedModel& optimized, const OptimizeOptions& options);

// The report of `optimize`, as JSON and as text.
nlohmann::json OptimizeJson(const std::string& model_path, const std::string& output_path,
                            const OptimizeOptions& options, const OptimizedModel& optimized,
                            const OptimizeCheck& check);
std::string OptimizeText(const std::string& output_path, const OptimizeOptions& options,
                         const OptimizedModel& optimized, const OptimizeCheck& check);

}  // namespace microarena::report
