// _microarena: the library calls behind the CLI's commands, for Python. Each
// function takes a command's options and returns the JSON document the CLI
// prints with --json (as a string); errors become microarena.Error subclasses
// (python/microarena/errors.py) carrying the library's code and message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/model/tensor_type.h"
#include "microarena/report/budget.h"
#include "microarena/report/byte_size.h"
#include "microarena/report/html_report.h"
#include "microarena/report/inspect_report.h"
#include "microarena/report/model_summary.h"
#include "microarena/report/op_support.h"
#include "microarena/report/optimize_job.h"
#include "microarena/report/plan_job.h"
#include "microarena/report/plan_report.h"
#include "microarena/report/run_job.h"
#include "microarena/report/tflm_arena.h"
#include "microarena/runtime/target_layout.h"

namespace py = pybind11;

namespace microarena::python {
namespace {

// A library error on its way to Python.
struct LibraryError {
  int code = 0;
  std::string code_name;
  std::string message;
  size_t exact_minimum_bytes = 0;  // run: a given arena was too small
};

[[noreturn]] void Throw(const Status& status, size_t exact_minimum_bytes = 0) {
  throw LibraryError{static_cast<int>(status.code()), ErrorCodeName(status.code()), status.message(),
                     exact_minimum_bytes};
}

[[noreturn]] void ThrowInvalid(const std::string& message) {
  throw LibraryError{static_cast<int>(ErrorCode::kInvalidArgument), ErrorCodeName(ErrorCode::kInvalidArgument), message,
                     0};
}

template <typename T>
T Take(Result<T> result) {
  if (!result.ok()) Throw(result.status());
  return std::move(*result);
}

const TargetLayout* Target(const std::string& name) {
  const TargetLayout* target = FindTargetLayout(name.c_str());
  if (target == nullptr) ThrowInvalid("target '" + name + "' is unknown (use one of: " + TargetLayoutNames() + ")");
  return target;
}

void CheckAlignment(size_t align) {
  if (align != 4 && align != 8 && align != 16 && align != 32 && align != 64) {
    ThrowInvalid("align " + std::to_string(align) + " is not one of 4, 8, 16, 32, 64");
  }
}

void CheckOneOf(const char* option, const std::string& value, std::initializer_list<const char*> names) {
  std::string list;
  for (const char* name : names) {
    if (value == name) return;
    list += list.empty() ? name : std::string(", ") + name;
  }
  ThrowInvalid(std::string(option) + " '" + value + "' is not one of " + list);
}

// A loaded model: ModelFile keeps the bytes the views point into.
struct Model {
  std::shared_ptr<ModelFile> file;
};

Model LoadPath(const std::string& path) { return Model{std::make_shared<ModelFile>(Take(ModelFile::Open(path)))}; }

Model LoadBytes(const py::bytes& data, const std::string& label) {
  std::string text = data;
  std::vector<uint8_t> bytes(text.begin(), text.end());
  return Model{std::make_shared<ModelFile>(Take(ModelFile::FromBytes(bytes, label)))};
}

// `inspect MODEL --json`.
std::string InspectJson(const Model& model) {
  const ModelFile& file = *model.file;
  report::ModelSummary summary = report::Summarize(file.view(), file.path(), file.size_bytes());
  report::OpSupport support = report::CheckOpSupport(file.view(), AllOpsResolver());
  return report::InspectJson(summary, support).dump(2);
}

// `plan MODEL --json` and its --html page: (json, html).
std::pair<std::string, std::string> Plan(const Model& model, const std::string& planner, const std::string& order,
                                         size_t align, double time_limit, bool overlap, bool trust_offline_plan,
                                         const std::string& target) {
  if (!planner.empty()) CheckOneOf("planner", planner, {"optimal", "greedy", "greedy-tflm", "linear", "offline"});
  CheckOneOf("order", order, {"stored", "best"});
  CheckAlignment(align);
  if (time_limit < 0.0) ThrowInvalid("time_limit must be >= 0 (0: no limit)");
  const ModelFile& file = *model.file;
  report::PlanJobOptions options;
  options.plan.planner = planner;
  options.plan.alignment_bytes = align;
  options.plan.time_limit_seconds = time_limit;
  options.plan.overlap = overlap;
  options.best_order = order == "best";
  options.trust_offline_plan = trust_offline_plan;
  options.target = Target(target);
  std::optional<report::PlanJob> job;
  {
    py::gil_scoped_release release;
    Result<report::PlanJob> result = report::RunPlanJob(file, options);
    if (!result.ok()) {
      py::gil_scoped_acquire acquire;
      Throw(result.status());
    }
    job = std::move(*result);
  }
  const nlohmann::json doc = report::PlanJobJson(file, *job);
  return {doc.dump(2), report::PlanHtml(file.view(), file.path(), job->plan)};
}

// `plan MODEL --runtime tflm --json`.
std::string TflmArena(const Model& model, const std::string& target) {
  CheckOneOf("target", target, {"host", "cortex-m"});
  const report::TflmLayout& layout = target == "cortex-m" ? report::TflmCortexMLayout() : report::TflmHostLayout();
  Result<report::TflmArenaPrediction> prediction = report::PredictTflmArena(model.file->view(), layout);
  if (!prediction.ok()) {
    Status status = prediction.status();
    Throw(status.Prefix(model.file->path().c_str()));
  }
  return report::TflmArenaJson(model.file->path(), *prediction).dump(2);
}

// `budget MODEL --ram RAM --json`.
std::string Budget(const Model& model, const std::string& ram, const std::string& planner, size_t align,
                   const std::string& order, bool overlap, bool copy_weights, double time_limit,
                   const std::string& target) {
  Result<uint64_t> ram_bytes = report::ParseByteSize(ram);
  if (!ram_bytes.ok()) ThrowInvalid(std::string("ram: ") + ram_bytes.status().message());
  CheckOneOf("planner", planner, {"auto", "greedy", "greedy-tflm", "linear", "offline", "optimal"});
  CheckOneOf("order", order, {"stored", "best"});
  CheckAlignment(align);
  const TargetLayout* layout = Target(target);
  const ModelFile& file = *model.file;
  report::BudgetOptions options;
  if (layout != &HostLayout()) options.target = layout;
  options.ram_bytes = *ram_bytes;
  options.current.planner = planner;
  options.current.alignment_bytes = align;
  options.current.copy_weights_to_arena = copy_weights;
  options.current.order = order;
  options.current.overlap = overlap;
  options.time_limit_seconds = time_limit;
  std::optional<report::BudgetReport> budget;
  {
    py::gil_scoped_release release;
    Result<report::BudgetReport> result = report::AnalyzeBudget(file.view(), file.path(), options);
    if (!result.ok()) {
      py::gil_scoped_acquire acquire;
      Status status = result.status();
      Throw(status.Prefix(file.path().c_str()));
    }
    budget = std::move(*result);
  }
  return report::BudgetJson(*budget).dump(2);
}

// `optimize MODEL -o OUTPUT --json`: writes OUTPUT, reads it back and checks it.
std::string Optimize(const Model& model, const std::string& output, const std::string& planner,
                     const std::string& order, size_t align, double time_limit, bool overlap,
                     const std::string& target) {
  CheckOneOf("planner", planner, {"optimal", "greedy", "greedy-tflm", "linear"});
  CheckOneOf("order", order, {"stored", "best"});
  CheckAlignment(align);
  const ModelFile& file = *model.file;
  report::OptimizeOptions options;
  options.planner = planner;
  options.best_order = order == "best";
  options.alignment_bytes = align;
  options.time_limit_seconds = time_limit;
  options.overlap = overlap;
  options.target = Target(target);
  py::gil_scoped_release release;
  Result<report::OptimizedModel> optimized = report::OptimizeModel(file.view(), options);
  py::gil_scoped_acquire acquire;
  if (!optimized.ok()) Throw(optimized.status());
  {
    std::ofstream out(output, std::ios::binary);
    out.write(reinterpret_cast<const char*>(optimized->bytes.data()),
              static_cast<std::streamsize>(optimized->bytes.size()));
    if (!out) Throw(Status::Error(ErrorCode::kIoError, "%s: cannot write", output.c_str()));
  }
  ModelFile reread = Take(ModelFile::Open(output));
  Result<report::OptimizeCheck> check = report::CheckOptimizedModel(file.view(), reread.view(), *optimized, options);
  if (!check.ok()) {
    Status status = check.status();
    Throw(status.Prefix(output.c_str()));
  }
  if (!check->outputs_identical) {
    Throw(
        Status::Error(ErrorCode::kInternal, "%s gives different outputs than %s", output.c_str(), file.path().c_str()));
  }
  return report::OptimizeJson(file.path(), output, options, *optimized, *check).dump(2);
}

PlannerChoice ParsePlanner(const std::string& name) {
  CheckOneOf("planner", name, {"auto", "greedy", "greedy-tflm", "linear", "offline"});
  if (name == "linear") return PlannerChoice::kLinear;
  if (name == "greedy-tflm") return PlannerChoice::kGreedyTflm;
  if (name == "greedy") return PlannerChoice::kGreedy;
  if (name == "offline") return PlannerChoice::kOffline;
  return PlannerChoice::kAuto;
}

// `run MODEL --json`: (json, outputs as bytes). With output_dir the outputs
// are also written as output_<i>.bin, with dump_tensors the tensor dump.
std::pair<std::string, std::vector<py::bytes>> Run(const Model& model, const std::vector<py::bytes>& inputs,
                                                   size_t arena, uint32_t seed, int repeat, const std::string& planner,
                                                   size_t align, bool copy_weights, bool overlap,
                                                   bool trust_offline_plan, const std::string& dump_tensors,
                                                   const std::string& output_dir) {
  if (repeat < 1) ThrowInvalid("repeat must be >= 1");
  if (overlap && !dump_tensors.empty()) ThrowInvalid("dump_tensors excludes overlap");
  CheckAlignment(align);
  const ModelFile& file = *model.file;
  RunOptions run;
  run.interpreter.planner = ParsePlanner(planner);
  run.interpreter.alignment_bytes = align;
  run.interpreter.copy_weights_to_arena = copy_weights;
  run.interpreter.allow_overlap = overlap;
  run.interpreter.trust_offline_plan = trust_offline_plan;
  if (!dump_tensors.empty()) {
    run.interpreter.preserve_all_tensors = true;
    run.capture_tensors = true;
  }
  run.arena_bytes = arena;
  run.seed = seed;
  run.repeat = repeat;
  for (const py::bytes& input : inputs) {
    std::string text = input;
    run.inputs.emplace_back(text.begin(), text.end());
  }
  report::RunJobOptions options;
  options.run = run;
  options.exact_overlap_plan = overlap && planner == "auto";
  size_t exact_minimum_bytes = 0;
  std::optional<report::RunJob> job;
  {
    py::gil_scoped_release release;
    Result<report::RunJob> result = report::RunModelJob(file.view(), options, &exact_minimum_bytes);
    if (!result.ok()) {
      py::gil_scoped_acquire acquire;
      Status status = result.status();
      Throw(status.Prefix(file.path().c_str()), exact_minimum_bytes);
    }
    job = std::move(*result);
  }
  report::RunReportInput report_input;
  report_input.model_path = file.path();
  report_input.dump_dir = dump_tensors;
  report_input.repeat = repeat;
  report_input.overlap = overlap;
  const RunResult& result = job->result;
  if (!output_dir.empty()) {
    Status made = MakeDirectories(output_dir);
    if (!made.ok()) Throw(made.Prefix("output_dir"));
    for (size_t o = 0; o < result.outputs.size(); ++o) {
      std::string path = output_dir + "/output_" + std::to_string(o) + ".bin";
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(result.outputs[o].data()),
                static_cast<std::streamsize>(result.outputs[o].size()));
      if (!out) Throw(Status::Error(ErrorCode::kIoError, "%s: cannot write", path.c_str()));
      report_input.output_paths.push_back(path);
    }
  }
  if (!dump_tensors.empty()) {
    Status dumped = report::WriteTensorDump(file.view(), result.tensors, dump_tensors);
    if (!dumped.ok()) Throw(dumped);
  }
  std::vector<py::bytes> outputs;
  for (const std::vector<uint8_t>& output : result.outputs) {
    outputs.emplace_back(reinterpret_cast<const char*>(output.data()), output.size());
  }
  return {report::RunJson(file.view(), *job, report_input).dump(2), outputs};
}

// The inputs or outputs of subgraph 0: (name, type name, shape) each.
std::vector<py::tuple> Signature(const Model& model, bool outputs) {
  const ModelView& view = model.file->view();
  std::vector<py::tuple> result;
  if (view.subgraph_count() == 0) return result;
  SubgraphView subgraph = view.subgraph(0);
  Span<const int32_t> indices = outputs ? subgraph.outputs() : subgraph.inputs();
  for (int32_t index : indices) {
    TensorView tensor = subgraph.tensor(static_cast<size_t>(index));
    std::vector<int32_t> shape(tensor.shape().begin(), tensor.shape().end());
    result.push_back(py::make_tuple(std::string(tensor.name()), std::string(TensorTypeName(tensor.type())), shape));
  }
  return result;
}

}  // namespace
}  // namespace microarena::python

PYBIND11_MODULE(_microarena, m) {
  using namespace microarena::python;
  m.doc() = "microarena's library calls (use the microarena package)";
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const LibraryError& error) {
      py::object errors = py::module_::import("microarena.errors");
      py::object exception =
          errors.attr("error_for")(error.code, error.code_name, error.message, error.exact_minimum_bytes);
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
    }
  });
  py::class_<Model>(m, "ModelFile")
      .def_property_readonly("path", [](const Model& model) { return model.file->path(); })
      .def_property_readonly("size_bytes", [](const Model& model) { return model.file->size_bytes(); })
      .def_property_readonly("bytes", [](const Model& model) {
        auto bytes = model.file->bytes();
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      });
  // Every ErrorCode the library names, (code, name): errors.py holds one
  // class per entry, and a test holds errors.py to this list.
  m.def("error_codes", []() {
    std::vector<std::pair<int, std::string>> codes;
    for (int code = 1; code < 256; ++code) {
      const char* name = microarena::ErrorCodeName(static_cast<microarena::ErrorCode>(code));
      if (std::string(name) != microarena::ErrorCodeName(static_cast<microarena::ErrorCode>(255)))
        codes.emplace_back(code, name);
    }
    return codes;
  });
  m.def("load_path", &LoadPath, py::arg("path"));
  m.def("load_bytes", &LoadBytes, py::arg("data"), py::arg("label"));
  m.def("inspect_json", &InspectJson, py::arg("model"));
  m.def("plan", &Plan, py::arg("model"), py::arg("planner"), py::arg("order"), py::arg("align"), py::arg("time_limit"),
        py::arg("overlap"), py::arg("trust_offline_plan"), py::arg("target"));
  m.def("tflm_arena_json", &TflmArena, py::arg("model"), py::arg("target"));
  m.def("budget_json", &Budget, py::arg("model"), py::arg("ram"), py::arg("planner"), py::arg("align"),
        py::arg("order"), py::arg("overlap"), py::arg("copy_weights"), py::arg("time_limit"), py::arg("target"));
  m.def("optimize_json", &Optimize, py::arg("model"), py::arg("output"), py::arg("planner"), py::arg("order"),
        py::arg("align"), py::arg("time_limit"), py::arg("overlap"), py::arg("target"));
  m.def("run", &Run, py::arg("model"), py::arg("inputs"), py::arg("arena"), py::arg("seed"), py::arg("repeat"),
        py::arg("planner"), py::arg("align"), py::arg("copy_weights"), py::arg("overlap"),
        py::arg("trust_offline_plan"), py::arg("dump_tensors"), py::arg("output_dir"));
  m.def("signature", &Signature, py::arg("model"), py::arg("outputs"));
}
