// `microarena optimize MODEL -o OUT.tflite`: store the operators in the
// chosen order and the plan as TFLM's OfflineMemoryAllocation metadata, then
// prove the written file: read the plan back, run both files and compare.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/plan/reorder.h"
#include "microarena/report/format.h"
#include "microarena/report/model_plan.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/target_layout.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {
namespace {

// Written next to the plan: how it was made, for people and for `inspect`.
constexpr const char* kPlanInfoMetadataName = "microarena.plan";

}  // namespace

Command RegisterOptimizeCommand(CLI::App& app) {
  struct Options {
    std::string model_path;
    std::string output_path;
    std::string planner = "optimal";
    std::string order = "stored";
    size_t alignment_bytes = 16;
    double time_limit_seconds = 10.0;
    bool overlap = false;
    bool json = false;
    std::string target = "host";
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "optimize",
      "Write a copy of MODEL whose operators are stored in the chosen execution order and which\n"
      "carries microarena's plan as OfflineMemoryAllocation metadata (TFLM's format: version 0,\n"
      "subgraph count, tensor count, one head offset per tensor, -1 = planned online), so that\n"
      "TFLM and microarena's runtime use these offsets. Everything else in the file is kept byte\n"
      "for byte. The written file is then checked: the plan is read back and compared, and both\n"
      "files are run (seed 1) and must give identical outputs.\n"
      "With --overlap the plan lets an op's output share bytes with an input its kernel has\n"
      "finished reading (docs/overlap.md). That is safe only with microarena's kernels, so such a\n"
      "plan is stored as microarena.OverlapMemoryAllocation instead, which stock TFLM ignores\n"
      "(it then plans the model itself); microarena's runtime uses it with allow_overlap.");
  sub->add_option("MODEL", options->model_path, "the .tflite file")->required();
  sub->add_option("-o,--output", options->output_path, "the .tflite file to write")->required();
  sub->add_option("--planner", options->planner, "optimal, greedy, greedy-tflm or linear")
      ->default_val("optimal")
      ->check(CLI::IsMember({"optimal", "greedy", "greedy-tflm", "linear"}));
  sub->add_option("--order", options->order,
                  "stored: keep the model's operator order; best: the order with the smallest peak "
                  "(plan/reorder)")
      ->default_val("stored")
      ->check(CLI::IsMember({"stored", "best"}));
  sub->add_option("--align", options->alignment_bytes, "buffer alignment in bytes")
      ->default_val(16)
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_option("--time-limit", options->time_limit_seconds,
                  "seconds for the optimal planner and for the order search (0 = no limit)")
      ->default_val(10.0)
      ->check(CLI::Range(0.0, 86400.0));
  sub->add_flag("--overlap", options->overlap,
                "plan with kernel-approved overlap (for microarena's runtime only; not TFLM-safe)");
  sub->add_flag("--json", options->json, "print one JSON document instead of text");
  sub->add_option("--target", options->target,
                  std::string("the device the arena figures (original and optimized) are counted for: ") +
                      TargetLayoutNames() + " (cortex-m: 32-bit Arm; exact for it)")
      ->default_val("host");
  return {sub, [options]() -> int {
            const TargetLayout* target = FindTargetLayout(options->target.c_str());
            if (target == nullptr) {
              return UsageError("--target '%s' is unknown (use one of: %s)", options->target.c_str(),
                                TargetLayoutNames());
            }
            Result<ModelFile> file = ModelFile::Open(options->model_path);
            if (!file.ok()) return PrintError(file.status());
            const ModelView& model = file->view();
            Result<PrepareRequests> prepared = CollectPrepareRequests(model, AllOpsResolver());
            if (!prepared.ok()) {
              Status status = prepared.status();
              return PrintError(status.Prefix("optimize needs every op's scratch size"));
            }
            const std::vector<ScratchRequest>* scratch = &prepared->scratch;

            // 1. The order.
            ReorderResult reorder;
            if (options->order == "best") {
              ReorderOptions reorder_options;
              reorder_options.alignment_bytes = options->alignment_bytes;
              reorder_options.time_limit_seconds = options->time_limit_seconds;
              Result<ReorderResult> found =
                  FindBestOrder(model, Span<const ScratchRequest>(scratch->data(), scratch->size()), reorder_options);
              if (!found.ok()) return PrintError(found.status());
              reorder = *found;
            }

            // 2. The plan, in that order.
            report::ModelPlanOptions plan_options;
            plan_options.planner = options->planner;
            plan_options.alignment_bytes = options->alignment_bytes;
            plan_options.time_limit_seconds = options->time_limit_seconds;
            plan_options.compare = false;
            plan_options.scratch = *scratch;
            plan_options.order = reorder.order;
            plan_options.overlap = options->overlap;
            if (options->overlap) plan_options.overlaps = prepared->overlaps;
            Result<report::ModelPlan> plan = report::PlanModel(model, plan_options);
            if (!plan.ok()) return PrintError(plan.status());
            Result<std::vector<int32_t>> offsets = report::OfflineOffsets(model, *plan);
            if (!offsets.ok()) return PrintError(offsets.status());

            // 3. The file.
            ModelEdits edits;
            edits.operator_order = reorder.order;
            // A plan never stays beside a plan for another order or another kind.
            const char* plan_name = options->overlap ? kOverlapPlanMetadataName : kOfflinePlanMetadataName;
            edits.drop_metadata = {kOfflinePlanMetadataName, kOverlapPlanMetadataName};
            edits.metadata.push_back({plan_name, EncodeOfflinePlan(*offsets, model.subgraph_count())});
            const size_t used_overlaps = static_cast<size_t>(std::count_if(
                plan->overlaps.begin(), plan->overlaps.end(), [](const report::PlannedOverlap& o) { return o.used; }));
            const std::string info = fmt::format(
                "microarena plan: planner={} alignment={} head_bytes={} lower_bound_bytes={} order={} "
                "overlap={} used_overlaps={} tflm_safe={}",
                plan->planner, options->alignment_bytes, plan->head_bytes, plan->lower_bound_bytes, options->order,
                options->overlap ? "yes" : "no", used_overlaps, options->overlap ? "no" : "yes");
            edits.metadata.push_back({kPlanInfoMetadataName, std::vector<uint8_t>(info.begin(), info.end())});
            Result<std::vector<uint8_t>> written = RewriteModel(file->bytes(), edits);
            if (!written.ok()) return PrintError(written.status());
            {
              std::ofstream out(options->output_path, std::ios::binary);
              out.write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));
              if (!out) {
                return PrintError(
                    Status::Error(ErrorCode::kIoError, "%s: cannot write", options->output_path.c_str()));
              }
            }

            // 4. Proof: the plan reads back, and the file runs as the original does.
            Result<ModelFile> reread = ModelFile::Open(options->output_path);
            if (!reread.ok()) return PrintError(reread.status());
            Result<Span<const int32_t>> read_back = ReadOfflinePlan(reread->view(), plan_name);
            if (!read_back.ok()) return PrintError(read_back.status());
            if (std::vector<int32_t>(read_back->begin(), read_back->end()) != *offsets) {
              return PrintError(Status::Error(ErrorCode::kInternal, "the plan read back from %s differs",
                                              options->output_path.c_str()));
            }
            RunOptions original_run;
            original_run.interpreter.alignment_bytes = options->alignment_bytes;
            RunOptions offline_run = original_run;
            offline_run.interpreter.planner = PlannerChoice::kOffline;
            offline_run.interpreter.allow_overlap = options->overlap;
            Result<RunResult> before = RunModel(model, AllOpsResolver(), original_run);
            Result<RunResult> after = RunModel(reread->view(), AllOpsResolver(), offline_run);
            if (!before.ok()) return PrintError(before.status());
            if (!after.ok()) {
              Status status = after.status();
              return PrintError(status.Prefix("the optimized model does not run"));
            }
            const bool identical = before->outputs == after->outputs;
            // The arenas on the target: only its records differ from the host's.
            size_t before_arena = before->used_bytes;
            size_t after_arena = after->used_bytes;
            if (target != &HostLayout()) {
              InterpreterOptions before_options = original_run.interpreter;
              InterpreterOptions after_options = offline_run.interpreter;
              before_options.figures_for = target;
              after_options.figures_for = target;
              Result<ArenaFigures> before_target = MeasureArena(model, AllOpsResolver(), before_options);
              Result<ArenaFigures> after_target = MeasureArena(reread->view(), AllOpsResolver(), after_options);
              if (!before_target.ok()) return PrintError(before_target.status());
              if (!after_target.ok()) return PrintError(after_target.status());
              before_arena = before_target->used_bytes;
              after_arena = after_target->used_bytes;
            }

            if (options->json) {
              nlohmann::json doc;
              doc["model"] = file->path();
              doc["output"] = options->output_path;
              doc["planner"] = plan->planner;
              doc["alignment_bytes"] = options->alignment_bytes;
              doc["order"] = options->order;
              doc["operator_order"] = reorder.order;
              doc["stored_order_peak_bytes"] = options->order == "best" ? reorder.stored_peak_bytes : plan->lower_bound_bytes;
              doc["order_peak_bytes"] = plan->lower_bound_bytes;
              doc["order_proven_optimal"] = options->order == "best" && reorder.proven_optimal;
              doc["planned_head_bytes"] = plan->head_bytes;
              doc["offline_head_bytes"] = after->head_bytes;
              doc["target"] = target->name;
              doc["offline_arena_bytes"] = after_arena;
              doc["original_arena_bytes"] = before_arena;
              doc["planned_tensors"] = std::count_if(offsets->begin(), offsets->end(), [](int32_t o) { return o >= 0; });
              doc["overlap"] = options->overlap;
              doc["used_overlaps"] = used_overlaps;
              doc["metadata_name"] = plan_name;
              doc["tflm_safe"] = !options->overlap;
              doc["file_bytes"] = written->size();
              doc["outputs_identical"] = identical;
              std::printf("%s\n", doc.dump(2).c_str());
            } else {
              using report::Bytes;
              std::printf("wrote        %s (%s)\n", options->output_path.c_str(), Bytes(written->size()).c_str());
              if (options->order == "best") {
                std::printf("order        best: peak %s vs %s stored (%s saved; %s, %s)\n",
                            Bytes(reorder.peak_bytes).c_str(), Bytes(reorder.stored_peak_bytes).c_str(),
                            Bytes(reorder.saved_bytes()).c_str(), reorder.method.c_str(),
                            reorder.proven_optimal ? "proven optimal over all orders" : "not proven optimal");
              } else {
                std::printf("order        stored\n");
              }
              std::printf("plan         %s, head %s (lower bound %s), alignment %zu\n", plan->planner.c_str(),
                          Bytes(plan->head_bytes).c_str(), Bytes(plan->lower_bound_bytes).c_str(),
                          options->alignment_bytes);
              std::printf("metadata     %s: %zu tensor offsets (scratch planned online, as TFLM does)\n",
                          plan_name, offsets->size());
              std::printf("runtime      offline plan: head %s, arena %s (original with greedy: arena %s) on %s\n",
                          Bytes(after->head_bytes).c_str(), Bytes(after_arena).c_str(), Bytes(before_arena).c_str(),
                          target->name);
              std::printf("check        plan read back: identical; outputs (seed 1): %s\n",
                          identical ? "identical to the original" : "DIFFERENT from the original");
              if (options->overlap) {
                std::printf("TFLM         NOT safe: %zu outputs share bytes with inputs their kernels have read;\n"
                            "             stored under %s, which stock TFLM ignores\n",
                            used_overlaps, plan_name);
              } else {
                std::printf("TFLM         safe: no overlapping buffers; stock TFLM uses these offsets\n");
              }
            }
            if (!identical) {
              std::fprintf(stderr, "error: %s gives different outputs than %s\n", options->output_path.c_str(),
                           options->model_path.c_str());
              return kExitError;
            }
            return kExitOk;
          }};
}

}  // namespace microarena::cli
