// The shared-arena report (host): several models that run one after another
// in one SharedArena (runtime/shared_arena.h) — what each needs, what they
// need together, and what sharing saves against one arena per model. What
// `microarena plan A.tflite B.tflite` prints. Every figure is measured by
// allocating the models in a real SharedArena, not computed from a formula.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "microarena/base/result.h"
#include "microarena/runtime/host_runner.h"

namespace microarena::report {

struct SharedPlanModel {
  std::string path;
  ArenaFigures shared;  // its figures inside the shared arena
  size_t alone_arena_bytes = 0;  // its own minimum arena, alone
};

struct SharedPlanReport {
  std::vector<SharedPlanModel> models;
  SharedArenaFigures figures;
  size_t alignment_bytes = 16;
  size_t separate_arenas_bytes() const;  // sum of the models' own arenas
  size_t saved_bytes() const { return separate_arenas_bytes() - figures.used_bytes; }
};

Result<SharedPlanReport> BuildSharedPlanReport(const std::vector<std::string>& model_paths,
                                               const InterpreterOptions& options);
std::string SharedPlanText(const SharedPlanReport& report);
nlohmann::json SharedPlanJson(const SharedPlanReport& report);

}  // namespace microarena::report
