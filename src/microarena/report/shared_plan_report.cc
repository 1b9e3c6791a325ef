#include "microarena/report/shared_plan_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/report/format.h"

namespace microarena::report {

size_t SharedPlanReport::separate_arenas_bytes() const {
  size_t sum = 0;
  for (const SharedPlanModel& model : models) sum += model.alone_arena_bytes;
  return sum;
}

Result<SharedPlanReport> BuildSharedPlanReport(const std::vector<std::string>& model_paths,
                                               const InterpreterOptions& options) {
  std::vector<ModelFile> files;
  std::vector<const ModelView*> views;
  files.reserve(model_paths.size());
  for (const std::string& path : model_paths) {
    MICROARENA_ASSIGN_OR_RETURN(ModelFile file, ModelFile::Open(path));
    files.push_back(std::move(file));
  }
  for (const ModelFile& file : files) views.push_back(&file.view());
  SharedPlanReport report;
  report.alignment_bytes = options.alignment_bytes;
  Result<SharedArenaFigures> figures = MeasureSharedArena(views, AllOpsResolver(), options);
  if (!figures.ok()) return figures.status();
  report.figures = *figures;
  for (size_t m = 0; m < files.size(); ++m) {
    Result<size_t> alone = MeasureArenaBytes(files[m].view(), AllOpsResolver(), options);
    if (!alone.ok()) {
      Status status = alone.status();
      return status.Prefix(model_paths[m].c_str());
    }
    report.models.push_back({model_paths[m], figures->models[m], *alone});
  }
  return report;
}

std::string SharedPlanText(const SharedPlanReport& report) {
  std::string text = fmt::format(
      "shared arena for {} models run one after another (alignment {}): the head is shared,\n"
      "each model keeps its own persistent area\n\n",
      report.models.size(), report.alignment_bytes);
  TextTable table({"model", "persistent", "head", "temp peak", "planner", "arena alone"},
                  {false, true, true, true, false, true});
  for (const SharedPlanModel& model : report.models) {
    const size_t slash = model.path.find_last_of('/');
    const std::string file_name = slash == std::string::npos ? model.path : model.path.substr(slash + 1);
    table.AddRow({Clip(file_name, 30), Bytes(model.shared.persistent_bytes), Bytes(model.shared.head_bytes),
                  Bytes(model.shared.temp_peak_bytes), PlannerChoiceName(model.shared.planner),
                  Bytes(model.alone_arena_bytes)});
  }
  table.AddRule();
  table.AddRow({"together (sum, max, max, sum)", Bytes(report.figures.persistent_bytes),
                Bytes(report.figures.head_bytes), Bytes(report.figures.temp_peak_bytes), "",
                Bytes(report.separate_arenas_bytes())});
  text += table.Render("  ");
  const size_t low = std::max(report.figures.head_bytes, report.figures.temp_peak_bytes);
  const size_t padding = report.figures.used_bytes - report.figures.persistent_bytes - low;
  text += fmt::format("\nshared arena    {} = padding {} + persistent {} + max(head {}, temp peak {})\n",
                      Bytes(report.figures.used_bytes), Bytes(padding), Bytes(report.figures.persistent_bytes),
                      Bytes(report.figures.head_bytes), Bytes(report.figures.temp_peak_bytes));
  const size_t separate = report.separate_arenas_bytes();
  text += fmt::format("separate arenas {}; sharing saves {} ({:.1f}%)\n", Bytes(separate),
                      Bytes(report.saved_bytes()),
                      separate == 0 ? 0.0 : 100.0 * static_cast<double>(report.saved_bytes()) /
                                                static_cast<double>(separate));
  text +=
      "\nInputs and outputs live in the shared head: fill a model's inputs right before its\n"
      "Invoke and read its outputs right after (see SharedArena in runtime/shared_arena.h).\n";
  return text;
}

nlohmann::json SharedPlanJson(const SharedPlanReport& report) {
  nlohmann::json doc;
  doc["alignment_bytes"] = report.alignment_bytes;
  nlohmann::json models = nlohmann::json::array();
  for (const SharedPlanModel& model : report.models) {
    models.push_back({{"model", model.path},
                      {"persistent_bytes", model.shared.persistent_bytes},
                      {"head_bytes", model.shared.head_bytes},
                      {"temp_peak_bytes", model.shared.temp_peak_bytes},
                      {"planner", PlannerChoiceName(model.shared.planner)},
                      {"alone_arena_bytes", model.alone_arena_bytes}});
  }
  doc["models"] = models;
  doc["shared_arena_bytes"] = report.figures.used_bytes;
  doc["persistent_bytes"] = report.figures.persistent_bytes;
  doc["head_bytes"] = report.figures.head_bytes;
  doc["temp_peak_bytes"] = report.figures.temp_peak_bytes;
  doc["separate_arenas_bytes"] = report.separate_arenas_bytes();
  doc["saved_bytes"] = report.saved_bytes();
  return doc;
}

}  // namespace microarena::report
