// `microarena run MODEL`: run a model in exactly its minimum arena.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/optimal.h"
#include "microarena/report/format.h"
#include "microarena/runtime/host_runner.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {
namespace {

struct Score {
  size_t index;
  double value;
};

// The top-5 classes of a classifier output (int8/uint8 dequantized, or float32);
// empty when the output does not look like one row of class scores.
std::vector<Score> TopFive(const TensorView& tensor, const std::vector<uint8_t>& bytes) {
  std::vector<Score> scores;
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
  std::stable_sort(scores.begin(), scores.end(), [](const Score& a, const Score& b) { return a.value > b.value; });
  if (scores.size() > 5) scores.resize(5);
  return scores;
}

PlannerChoice ParsePlanner(const std::string& name) {
  if (name == "linear") return PlannerChoice::kLinear;
  if (name == "greedy-tflm") return PlannerChoice::kGreedyTflm;
  if (name == "greedy") return PlannerChoice::kGreedy;
  if (name == "offline") return PlannerChoice::kOffline;
  return PlannerChoice::kAuto;
}

// Writes `tensors` as DIR/tensor_s<subgraph>_t<index>.bin plus DIR/tensors.txt, one
// line per tensor in the format of TFLM's tensor dumps (../shared/golden), so
// two runs (two runtimes, or a device and the host) can be compared file by
// file and the first layer where they part found.
Status WriteTensorDump(const ModelView& model, const std::vector<CapturedTensor>& tensors, const std::string& dir) {
  MICROARENA_RETURN_IF_ERROR(MakeDirectories(dir));
  std::string index_text;
  for (const CapturedTensor& captured : tensors) {
    const TensorView tensor = model.subgraph(captured.subgraph).tensor(captured.index);
    const std::string file_name = fmt::format("tensor_s{}_t{}.bin", captured.subgraph, captured.index);
    const std::string path = dir + "/" + file_name;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(captured.bytes.data()), static_cast<std::streamsize>(captured.bytes.size()));
    if (!out) return Status::Error(ErrorCode::kIoError, "%s: cannot write", path.c_str());
    std::string shape;
    for (size_t d = 0; d < tensor.rank(); ++d) shape += (d == 0 ? "" : "x") + std::to_string(tensor.shape()[d]);
    const QuantizationView q = tensor.quantization();
    const double scale = q.is_quantized() ? static_cast<double>(q.scale(0)) : 0.0;
    const long long zero_point = q.is_quantized() ? static_cast<long long>(q.zero_point(0)) : 0;
    index_text += fmt::format("file={} subgraph={} tensor={} type={} shape={} bytes={} scale={} zero_point={} variable={} name={}\n",
                              file_name, captured.subgraph, captured.index, TensorTypeName(tensor.type()), shape, captured.bytes.size(),
                              fmt::format("{:.9g}", scale), zero_point, tensor.is_variable() ? 1 : 0, tensor.name());
  }
  const std::string index_path = dir + "/tensors.txt";
  std::ofstream index(index_path);
  index << index_text;
  if (!index) return Status::Error(ErrorCode::kIoError, "%s: cannot write", index_path.c_str());
  return OkStatus();
}

// Search nodes the exact planner may spend on an overlap plan.
constexpr uint64_t kOverlapPlanNodeLimit = 2000000;

}  // namespace

Command RegisterRunCommand(CLI::App& app) {
  struct Options {
    std::string model_path;
    std::vector<std::string> input_paths;
    std::string output_dir = ".";
    size_t arena_bytes = 0;
    uint32_t seed = 1;
    int repeat = 1;
    std::string planner = "auto";
    size_t alignment_bytes = 16;
    bool copy_weights = false;
    bool json = false;
    bool overlap = false;
    bool trust_offline_plan = false;
    std::string dump_dir;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "run",
      "Run a model in one arena with microarena's kernels (bit-exact with TFLM's reference kernels).\n"
      "Without --arena the arena is exactly the minimum the model needs. Inputs come from --input\n"
      "files (raw bytes, one per model input, in order) or from the golden input generator with\n"
      "--seed. Writes output_<i>.bin into --output-dir and prints the arena figures (persistent,\n"
      "head, temp peak, total), the outputs (top-5 classes for classifiers) and the Invoke time.");
  sub->add_option("MODEL", options->model_path, "the .tflite file")->required();
  sub->add_option("--input", options->input_paths, "raw input file for input i (repeat for several inputs)");
  sub->add_option("--output-dir", options->output_dir,
                  "where output_<i>.bin are written (made with its parents if missing)")
      ->default_val(".");
  sub->add_option("--arena", options->arena_bytes,
                  "arena size in bytes (default: the exact minimum; too small: exit 3)");
  sub->add_option("--seed", options->seed, "seed of the input generator for inputs not given")->default_val(1);
  sub->add_option("--repeat", options->repeat, "Invoke this many times and report the mean time")
      ->default_val(1)
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--planner", options->planner,
                  "auto (offline plan if the model has one, else greedy), greedy, greedy-tflm, linear, offline")
      ->default_val("auto")
      ->check(CLI::IsMember({"auto", "greedy", "greedy-tflm", "linear", "offline"}));
  sub->add_option("--align", options->alignment_bytes, "buffer alignment in bytes")
      ->default_val(16)
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_flag("--copy-weights", options->copy_weights, "copy constant weights into the arena's persistent area");
  sub->add_flag("--json", options->json, "print one JSON document instead of text");
  CLI::Option* dump = sub->add_option(
      "--dump-tensors", options->dump_dir,
      "write every non-constant tensor after Invoke to DIR as tensor_s<subgraph>_t<index>.bin, with\n"
      "DIR/tensors.txt (index, name, type, shape, scale, zero point): the format of TFLM's\n"
      "tensor dumps, to find the first layer where two runs part. Runs with every tensor\n"
      "preserved (linear plan), as such dumps are made");
  CLI::Option* overlap = sub->add_flag("--overlap", options->overlap,
                "plan with the overlaps the kernels approve (an op's output sharing bytes with an\n"
                "input that dies there), with the exact planner unless --planner names one;\n"
                "outputs stay bit-exact");
  dump->excludes(overlap);
  sub->add_flag("--trust-offline-plan", options->trust_offline_plan,
                "accept the model's offline plan (OfflineMemoryAllocation) where it puts live tensors\n"
                "in shared bytes, as TFLM does: Arm Vela's output does so on purpose. Only for models\n"
                "from a trusted compiler; without it such a plan is refused as corrupted");
  return {sub, [options]() -> int {
            if (options->output_dir.empty()) return UsageError("--output-dir is empty (use . for this folder)");
            Result<ModelFile> file = ModelFile::Open(options->model_path);
            if (!file.ok()) return PrintError(file.status());
            RunOptions run;
            run.interpreter.planner = ParsePlanner(options->planner);
            run.interpreter.alignment_bytes = options->alignment_bytes;
            run.interpreter.copy_weights_to_arena = options->copy_weights;
            run.interpreter.allow_overlap = options->overlap;
            run.interpreter.trust_offline_plan = options->trust_offline_plan;
            if (!options->dump_dir.empty()) {
              run.interpreter.preserve_all_tensors = true;
              run.capture_tensors = true;
            }
            // With --overlap (and no planner named) the head is planned by
            // the exact planner under a node limit: deterministic, so the
            // measured minimum arena and the run use the same plan.
            OptimalOptions optimal_options;
            optimal_options.time_limit_seconds = 0;
            optimal_options.node_limit = kOverlapPlanNodeLimit;
            const OptimalPlanner optimal(optimal_options);
            // A plan stored in the model (an overlap plan first) is used as it is.
            Result<Span<const int32_t>> stored_overlap = ReadOfflinePlan(file->view(), kOverlapPlanMetadataName);
            Result<Span<const int32_t>> stored_offline = ReadOfflinePlan(file->view());
            const bool has_stored_plan = (stored_overlap.ok() && !stored_overlap->empty()) ||
                                         (stored_offline.ok() && !stored_offline->empty());
            if (options->overlap && options->planner == "auto" && !has_stored_plan) {
              run.interpreter.custom_planner = &optimal;
            }
            run.arena_bytes = options->arena_bytes;
            run.seed = options->seed;
            run.repeat = options->repeat;
            for (const std::string& path : options->input_paths) {
              Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
              if (!bytes.ok()) return PrintError(bytes.status());
              run.inputs.push_back(*bytes);
            }
            Result<RunResult> result = RunModel(file->view(), AllOpsResolver(), run);
            if (!result.ok()) {
              Status status = result.status();
              status.Prefix(options->model_path.c_str());
              if (status.code() == ErrorCode::kOutOfMemory && run.arena_bytes != 0) {
                // The runtime can only say "at least"; here we can measure the exact minimum.
                Result<size_t> minimum = MeasureArenaBytes(file->view(), AllOpsResolver(), run.interpreter);
                if (minimum.ok()) {
                  std::fprintf(stderr, "error: %s (the exact minimum arena for this model is %zu B)\n",
                               status.message(), *minimum);
                  return ExitCodeFor(status.code());
                }
              }
              return PrintError(status);
            }
            // The output folder is made as --dump-tensors' is: with its parents.
            Status made = MakeDirectories(options->output_dir);
            if (!made.ok()) return PrintError(made.Prefix("--output-dir"));
            std::vector<std::string> written;
            for (size_t o = 0; o < result->outputs.size(); ++o) {
              std::string path = options->output_dir + "/output_" + std::to_string(o) + ".bin";
              std::ofstream out(path, std::ios::binary);
              out.write(reinterpret_cast<const char*>(result->outputs[o].data()),
                        static_cast<std::streamsize>(result->outputs[o].size()));
              if (!out) {
                return PrintError(
                    Status::Error(ErrorCode::kIoError, "%s: cannot write (%s)", path.c_str(), std::strerror(errno)));
              }
              written.push_back(path);
            }
            if (!options->dump_dir.empty()) {
              Status dumped = WriteTensorDump(file->view(), result->tensors, options->dump_dir);
              if (!dumped.ok()) return PrintError(dumped);
            }
            SubgraphView subgraph = file->view().subgraph(0);
            using report::Bytes;
            const char* planner_name =
                result->planner == PlannerChoice::kCustom ? optimal.name() : PlannerChoiceName(result->planner);
            if (options->json) {
              nlohmann::json doc;
              doc["model"] = file->path();
              doc["arena_bytes"] = result->arena_bytes;
              doc["arena_used_bytes"] = result->used_bytes;
              doc["persistent_bytes"] = result->persistent_bytes;
              doc["head_bytes"] = result->head_bytes;
              doc["temp_peak_bytes"] = result->temp_peak_bytes;
              doc["lower_bound_bytes"] = result->lower_bound_bytes;
              doc["overlap_permissions"] = result->overlap_permissions;
              doc["planner"] = planner_name;
              doc["invoke_seconds"] = result->invoke_seconds;
              doc["invoke_seconds_min"] = result->invoke_seconds_min;
              doc["repeat"] = options->repeat;
              doc["outputs"] = written;
              if (!options->dump_dir.empty()) {
                doc["tensors_dir"] = options->dump_dir;
                doc["tensors_written"] = result->tensors.size();
              }
              nlohmann::json top = nlohmann::json::array();
              for (size_t o = 0; o < result->outputs.size(); ++o) {
                nlohmann::json entries = nlohmann::json::array();
                TensorView tensor = subgraph.tensor(static_cast<size_t>(subgraph.outputs()[o]));
                for (const Score& s : TopFive(tensor, result->outputs[o])) {
                  entries.push_back({{"class", s.index}, {"score", s.value}});
                }
                top.push_back(entries);
              }
              doc["top5"] = top;
              std::printf("%s\n", doc.dump(2).c_str());
              return kExitOk;
            }
            std::printf("model        %s\n", file->path().c_str());
            std::printf("planner      %s\n", planner_name);
            std::printf("arena        %s given, %s used\n", Bytes(result->arena_bytes).c_str(),
                        Bytes(result->used_bytes).c_str());
            std::printf("  persistent %s\n", Bytes(result->persistent_bytes).c_str());
            if (options->overlap) {
              std::printf("  head       %s (lower bound without overlap %s; %zu approved overlaps)\n",
                          Bytes(result->head_bytes).c_str(), Bytes(result->lower_bound_bytes).c_str(),
                          result->overlap_permissions);
            } else {
              std::printf("  head       %s (lower bound %s)\n", Bytes(result->head_bytes).c_str(),
                          Bytes(result->lower_bound_bytes).c_str());
            }
            std::printf("  temp peak  %s\n", Bytes(result->temp_peak_bytes).c_str());
            std::printf("invoke       %.3f ms (mean of %d; min %.3f ms)\n", result->invoke_seconds * 1e3,
                        options->repeat, result->invoke_seconds_min * 1e3);
            for (size_t o = 0; o < result->outputs.size(); ++o) {
              TensorView tensor = subgraph.tensor(static_cast<size_t>(subgraph.outputs()[o]));
              std::printf("output %zu     %s %s -> %s\n", o, TensorTypeName(tensor.type()),
                          report::ShapeText(tensor.shape().data(), tensor.rank()).c_str(), written[o].c_str());
              std::vector<Score> top = TopFive(tensor, result->outputs[o]);
              for (size_t k = 0; k < top.size(); ++k) {
                std::printf("  #%zu class %zu  %.4f\n", k + 1, top[k].index, top[k].value);
              }
            }
            if (!options->dump_dir.empty()) {
              std::printf("tensors      %zu written to %s/ (tensors.txt lists them)\n", result->tensors.size(),
                          options->dump_dir.c_str());
            }
            return kExitOk;
          }};
}

}  // namespace microarena::cli
