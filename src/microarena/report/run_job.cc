#include "microarena/report/run_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <utility>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/report/kernel_data_report.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/optimal.h"
#include "microarena/report/format.h"
#include "microarena/report/tiling_search.h"
#include "microarena/runtime/stored_tiling.h"
#include "microarena/runtime/tiled_execution.h"

namespace microarena::report {

Result<RunJob> RunModelJob(const ModelView& model, const RunJobOptions& options, size_t* exact_minimum_bytes) {
  if (exact_minimum_bytes != nullptr) *exact_minimum_bytes = 0;
  RunOptions run = options.run;
  OptimalOptions optimal_options;
  optimal_options.time_limit_seconds = 0;
  optimal_options.node_limit = kOverlapPlanNodeLimit;
  const OptimalPlanner optimal(optimal_options);
  // A plan stored in the model (an overlap plan first) is used as it is.
  Result<Span<const int32_t>> stored_overlap = ReadOfflinePlan(model, kOverlapPlanMetadataName);
  Result<Span<const int32_t>> stored_offline = ReadOfflinePlan(model);
  const bool has_stored_plan =
      (stored_overlap.ok() && !stored_overlap->empty()) || (stored_offline.ok() && !stored_offline->empty());
  std::vector<TiledSegment> tiling;
  TiledExecution tiled(Span<const TiledSegment>{});
  // A tiling the model carries (optimize --tile) runs as stored: its stored
  // plan holds the windows. Not when every tensor must stay whole.
  MICROARENA_ASSIGN_OR_RETURN(Span<const TiledSegment> stored_tiling, ReadStoredTiling(model));
  const bool use_stored_tiling =
      !stored_tiling.empty() && !run.interpreter.preserve_all_tensors && run.precomputed_plan == nullptr;
  if (use_stored_tiling) {
    tiling.assign(stored_tiling.begin(), stored_tiling.end());
    tiled = TiledExecution(stored_tiling);
    run.interpreter.tiling = &tiled;
  } else if (options.tile) {
    MICROARENA_ASSIGN_OR_RETURN(PrepareRequests requests, CollectPrepareRequests(model, AllOpsResolver()));
    TilingSearchOptions search;
    search.alignment_bytes = run.interpreter.alignment_bytes;
    search.scratch = requests.scratch;
    search.overlap = run.interpreter.allow_overlap;
    search.overlaps = requests.overlaps;
    // Plans as the run will: the exact planner for an overlap run, else the runtime's own.
    search.exact = options.exact_overlap_plan && run.interpreter.allow_overlap &&
                   run.interpreter.planner == PlannerChoice::kAuto && run.interpreter.custom_planner == nullptr;
    MICROARENA_ASSIGN_OR_RETURN(TilingChoice choice, ChooseTiling(model, search));
    tiling = choice.segments;
    tiled = TiledExecution(Span<const TiledSegment>(tiling.data(), tiling.size()));
    if (!tiling.empty()) run.interpreter.tiling = &tiled;
  }
  // A tiling plans windows: a stored plan (whole maps) is not used then.
  if (options.exact_overlap_plan && run.interpreter.allow_overlap && run.interpreter.planner == PlannerChoice::kAuto &&
      !use_stored_tiling && (!has_stored_plan || run.interpreter.tiling != nullptr)) {
    run.interpreter.custom_planner = &optimal;
  }
  // Overlap only where it makes the arena smaller: compare the two minimums
  // (on a tie, the plan without overlap).
  bool overlap_used = run.interpreter.allow_overlap;
  size_t overlap_arena_bytes = 0;
  if (run.interpreter.allow_overlap) {
    InterpreterOptions plain = run.interpreter;
    plain.custom_planner = options.run.interpreter.custom_planner;
    plain.allow_overlap = false;
    Result<size_t> with_overlap = MeasureArenaBytes(model, AllOpsResolver(), run.interpreter);
    Result<size_t> without = MeasureArenaBytes(model, AllOpsResolver(), plain);
    if (with_overlap.ok()) overlap_arena_bytes = *with_overlap;
    if (with_overlap.ok() && without.ok() && *without <= *with_overlap) {
      run.interpreter = plain;
      overlap_used = false;
    }
  }
  Result<RunResult> result = RunModel(model, AllOpsResolver(), run);
  if (!result.ok()) {
    Status status = result.status();
    if (status.code() == ErrorCode::kOutOfMemory && run.arena_bytes != 0 && exact_minimum_bytes != nullptr) {
      Result<size_t> minimum = MeasureArenaBytes(model, AllOpsResolver(), run.interpreter);
      if (minimum.ok()) *exact_minimum_bytes = *minimum;
    }
    return status;
  }
  RunJob job;
  job.planner = result->planner == PlannerChoice::kCustom ? optimal.name() : PlannerChoiceName(result->planner);
  job.overlap_used = overlap_used;
  job.overlap_arena_bytes = overlap_arena_bytes;
  job.tiling = tiling;
  job.result = std::move(*result);
  return job;
}

Status WriteTensorDump(const ModelView& model, const std::vector<CapturedTensor>& tensors, const std::string& dir) {
  MICROARENA_RETURN_IF_ERROR(MakeDirectories(dir));
  std::string index_text;
  for (const CapturedTensor& captured : tensors) {
    const TensorView tensor = model.subgraph(captured.subgraph).tensor(captured.index);
    const std::string file_name = fmt::format("tensor_s{}_t{}.bin", captured.subgraph, captured.index);
    const std::string path = dir + "/" + file_name;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(captured.bytes.data()),
              static_cast<std::streamsize>(captured.bytes.size()));
    if (!out) return Status::Error(ErrorCode::kIoError, "%s: cannot write", path.c_str());
    std::string shape;
    for (size_t d = 0; d < tensor.rank(); ++d) shape += (d == 0 ? "" : "x") + std::to_string(tensor.shape()[d]);
    const QuantizationView q = tensor.quantization();
    const double scale = q.is_quantized() ? static_cast<double>(q.scale(0)) : 0.0;
    const long long zero_point = q.is_quantized() ? static_cast<long long>(q.zero_point(0)) : 0;
    index_text += fmt::format(
        "file={} subgraph={} tensor={} type={} shape={} bytes={} scale={} zero_point={} variable={} name={}\n",
        file_name, captured.subgraph, captured.index, TensorTypeName(tensor.type()), shape, captured.bytes.size(),
        fmt::format("{:.9g}", scale), zero_point, tensor.is_variable() ? 1 : 0, tensor.name());
  }
  const std::string index_path = dir + "/tensors.txt";
  std::ofstream index(index_path);
  index << index_text;
  if (!index) return Status::Error(ErrorCode::kIoError, "%s: cannot write", index_path.c_str());
  return OkStatus();
}

std::vector<ClassScore> TopFive(const TensorView& tensor, const std::vector<uint8_t>& bytes) {
  std::vector<ClassScore> scores;
  Span<const int32_t> shape = tensor.shape();
  if (shape.empty() || shape.size() > 2 || shape[shape.size() - 1] < 2) return scores;
  if (shape.size() == 2 && shape[0] != 1) return scores;
  const auto count = static_cast<size_t>(shape[shape.size() - 1]);
  double scale = tensor.quantization().is_quantized() ? static_cast<double>(tensor.quantization().scale(0)) : 1.0;
  double zero_point = static_cast<double>(tensor.quantization().zero_point(0));
  for (size_t i = 0; i < count; ++i) {
    double value = 0.0;
    switch (tensor.type()) {
      case TensorType::kInt8: value = scale * (static_cast<int8_t>(bytes[i]) - zero_point); break;
      case TensorType::kUInt8: value = scale * (bytes[i] - zero_point); break;
      case TensorType::kFloat32: {
        float f = 0.0f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        value = f;
        break;
      }
      default: return {};
    }
    scores.push_back({i, value});
  }
  std::stable_sort(scores.begin(), scores.end(),
                   [](const ClassScore& a, const ClassScore& b) { return a.value > b.value; });
  if (scores.size() > 5) scores.resize(5);
  return scores;
}

nlohmann::json RunJson(const ModelView& model, const RunJob& job, const RunReportInput& input) {
  const RunResult& result = job.result;
  nlohmann::json doc;
  doc["model"] = input.model_path;
  doc["arena_bytes"] = result.arena_bytes;
  doc["arena_used_bytes"] = result.used_bytes;
  doc["persistent_bytes"] = result.persistent_bytes;
  doc["head_bytes"] = result.head_bytes;
  doc["temp_peak_bytes"] = result.temp_peak_bytes;
  doc["lower_bound_bytes"] = result.lower_bound_bytes;
  doc["overlap_permissions"] = result.overlap_permissions;
  doc["kernel_data"] = KernelDataJson(result.kernel_data);
  if (input.overlap) {
    doc["overlap_used"] = job.overlap_used;
    doc["overlap_arena_bytes"] = job.overlap_arena_bytes;
  }
  doc["planner"] = job.planner;
  doc["invoke_seconds"] = result.invoke_seconds;
  doc["invoke_seconds_min"] = result.invoke_seconds_min;
  doc["repeat"] = input.repeat;
  doc["outputs"] = input.output_paths;
  if (!input.dump_dir.empty()) {
    doc["tensors_dir"] = input.dump_dir;
    doc["tensors_written"] = result.tensors.size();
  }
  const SubgraphView subgraph = model.subgraph(0);
  nlohmann::json top = nlohmann::json::array();
  for (size_t o = 0; o < result.outputs.size(); ++o) {
    nlohmann::json entries = nlohmann::json::array();
    const TensorView tensor = subgraph.tensor(static_cast<size_t>(subgraph.outputs()[o]));
    for (const ClassScore& s : TopFive(tensor, result.outputs[o])) {
      entries.push_back({{"class", s.index}, {"score", s.value}});
    }
    top.push_back(entries);
  }
  doc["top5"] = top;
  if (!job.tiling.empty()) {
    nlohmann::json segments = nlohmann::json::array();
    for (const TiledSegment& segment : job.tiling) {
      segments.push_back(
          {{"first_op", segment.first_op}, {"last_op", segment.last_op}, {"band_rows", segment.band_rows}});
    }
    doc["tiling"] = segments;
  }
  return doc;
}

std::string RunText(const ModelView& model, const RunJob& job, const RunReportInput& input) {
  const RunResult& result = job.result;
  std::string text = fmt::format("model        {}\n", input.model_path);
  text += fmt::format("planner      {}\n", job.planner);
  text += fmt::format("arena        {} given, {} used\n", Bytes(result.arena_bytes), Bytes(result.used_bytes));
  text += fmt::format("  persistent {}\n", Bytes(result.persistent_bytes));
  if (input.overlap && job.overlap_used) {
    text += fmt::format("  head       {} (lower bound without overlap {}; {} approved overlaps)\n",
                        Bytes(result.head_bytes), Bytes(result.lower_bound_bytes), result.overlap_permissions);
  } else {
    text +=
        fmt::format("  head       {} (lower bound {})\n", Bytes(result.head_bytes), Bytes(result.lower_bound_bytes));
  }
  text += fmt::format("  temp peak  {}\n", Bytes(result.temp_peak_bytes));
  for (const TiledSegment& segment : job.tiling) {
    text += fmt::format("  tiled      ops {}-{}, {} row{} per band\n", segment.first_op, segment.last_op,
                        segment.band_rows, segment.band_rows == 1 ? "" : "s");
  }
  text += KernelDataText(result.kernel_data);
  if (input.overlap && !job.overlap_used) {
    text += fmt::format("overlap      not used: the arena without it is no larger (with it: {})\n",
                        Bytes(job.overlap_arena_bytes));
  }
  text += fmt::format("invoke       {:.3f} ms (mean of {}; min {:.3f} ms)\n", result.invoke_seconds * 1e3, input.repeat,
                      result.invoke_seconds_min * 1e3);
  const SubgraphView subgraph = model.subgraph(0);
  for (size_t o = 0; o < result.outputs.size(); ++o) {
    const TensorView tensor = subgraph.tensor(static_cast<size_t>(subgraph.outputs()[o]));
    text += fmt::format("output {}     {} {} -> {}\n", o, TensorTypeName(tensor.type()),
                        ShapeText(tensor.shape().data(), tensor.rank()), input.output_paths[o]);
    const std::vector<ClassScore> top = TopFive(tensor, result.outputs[o]);
    for (size_t k = 0; k < top.size(); ++k)
      text += fmt::format("  #{} class {}  {:.4f}\n", k + 1, top[k].index, top[k].value);
  }
  if (!input.dump_dir.empty()) {
    text +=
        fmt::format("tensors      {} written to {}/ (tensors.txt lists them)\n", result.tensors.size(), input.dump_dir);
  }
  return text;
}

}  // namespace microarena::report
