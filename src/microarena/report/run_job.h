// `run MODEL` as library calls: the planner the run uses, the run in the
// minimum (or a given) arena, the exact minimum when a given arena is too
// small, the tensor dump and the report. The CLI parses and prints.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "microarena/base/status.h"
#include "microarena/model/model_view.h"
#include "microarena/analysis/tiling.h"
#include "microarena/runtime/host_runner.h"

namespace microarena::report {

// Search nodes the exact planner may spend on an overlap plan: a node limit
// (not a time limit) keeps the plan, and so the measured minimum arena and
// the run, deterministic.
inline constexpr uint64_t kOverlapPlanNodeLimit = 2000000;

struct RunJobOptions {
  RunOptions run;
  // With run.interpreter.allow_overlap and no planner named (kAuto): plan
  // the head with the exact planner, unless the model stores a plan.
  bool exact_overlap_plan = false;
  // Choose segments to run band by band (report/tiling_search.h) and run so.
  bool tile = false;
};

struct RunJob {
  RunResult result;
  std::string planner;  // the planner's name as reported
  // With allow_overlap asked for: whether the run used it. It does not when
  // the same run without overlap needs a smaller arena (the overlap
  // declarations and permissions take temp, which can outweigh what they
  // save in the head); then overlap_arena_bytes is the arena it would need.
  bool overlap_used = false;
  size_t overlap_arena_bytes = 0;
  std::vector<TiledSegment> tiling;  // with tile: the segments run band by band (none: tiling did not help)
};

// Runs `model` with the kernels of AllOpsResolver. With
// run.interpreter.allow_overlap the minimum arena is measured with and
// without overlap and the run takes the smaller (the one without overlap on ties), so
// `--overlap` never needs more than the run without it. Errors: RunModel's. When
// a given arena is too small (kOutOfMemory) the runtime can only say "at
// least"; then *exact_minimum_bytes (if given) is set to the exact minimum
// arena for these options, measured here (0 when it cannot be).
Result<RunJob> RunModelJob(const ModelView& model, const RunJobOptions& options, size_t* exact_minimum_bytes = nullptr);

// Writes `tensors` as DIR/tensor_s<subgraph>_t<index>.bin plus
// DIR/tensors.txt, one line per tensor in the format of TFLM's tensor dumps
// (../shared/golden), so two runs (two runtimes, or a device and the host)
// can be compared file by file and the first layer where they part found.
Status WriteTensorDump(const ModelView& model, const std::vector<CapturedTensor>& tensors, const std::string& dir);

struct ClassScore {
  size_t index = 0;
  double value = 0.0;
};

// The top-5 classes of a classifier output (int8/uint8 dequantized, or
// float32); empty when the output does not look like one row of class scores.
std::vector<ClassScore> TopFive(const TensorView& tensor, const std::vector<uint8_t>& bytes);

// What `run` prints: `output_paths` are the files the outputs were written
// to, `dump_dir` the tensor dump's folder (empty: none).
struct RunReportInput {
  std::string model_path;
  std::vector<std::string> output_paths;
  std::string dump_dir;
  int repeat = 1;
  bool overlap = false;
};
nlohmann::json RunJson(const ModelView& model, const RunJob& job, const RunReportInput& input);
std::string RunText(const ModelView& model, const RunJob& job, const RunReportInput& input);

}  // namespace microarena::report
