// The `microarena plan` report (host): text and JSON for a ModelPlan.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "microarena/model/model_view.h"
#include "microarena/report/model_plan.h"

namespace microarena::report {

struct PlanTextOptions {
  size_t name_width = 34;  // owner names longer than this are cut in text (100 columns)
};

std::string PlanText(const ModelView& model, const std::string& model_path, const ModelPlan& plan,
                     const PlanTextOptions& options = {});

// Keys: model, planner, alignment, head_bytes, lower_bound_bytes, gap_percent,
// proven_optimal, plan_seconds, comparison {planner: head_bytes}, buffers[]
// {index, kind, tensor | op, name, size_bytes, first_op, end_op, offset_bytes}.
nlohmann::json PlanJson(const ModelView& model, const std::string& model_path, const ModelPlan& plan);

}  // namespace microarena::report
