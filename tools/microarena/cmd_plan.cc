// `microarena plan MODEL`: lifetimes, a planner, the checker, and the result.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/problem_csv.h"
#include "microarena/report/format.h"
#include "microarena/report/model_plan.h"
#include "microarena/report/plan_report.h"
#include "microarena/runtime/host_runner.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {

Command RegisterPlanCommand(CLI::App& app) {
  struct Options {
    std::string model_path;
    std::string planner;
    size_t alignment_bytes = 16;
    double time_limit_seconds = 10.0;
    bool json = false;
    std::string csv_path;
    size_t name_width = 40;
    bool overlap = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "plan",
      "Plan the head (the reusable activation + scratch area) of a model's tensor arena and\n"
      "show it: head size, lower bound (largest bytes live at one op step), the gap between\n"
      "them, the planner used and whether the plan is proven optimal, the heads the other\n"
      "planners would need, and one row per buffer (kind, owner, bytes, lifetime as op steps\n"
      "[first, end), offset). Every plan is verified by an independent checker.");
  sub->add_option("MODEL", options->model_path, "the .tflite file")->required();
  sub->add_option("--planner", options->planner,
                  "optimal (exact, anytime; the default), greedy (our device heuristic), greedy-tflm\n"
                  "(TFLM's GreedyMemoryPlanner, byte for byte), linear (no reuse), offline (the\n"
                  "model's OfflineMemoryAllocation offsets; the default when the model has them)")
      ->check(CLI::IsMember({"optimal", "greedy", "greedy-tflm", "linear", "offline"}));
  sub->add_option("--align", options->alignment_bytes, "buffer alignment in bytes; sizes round up to it")
      ->default_val(16)
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_option("--time-limit", options->time_limit_seconds,
                  "seconds the optimal planner may search; it returns the best plan found and says\n"
                  "whether it is proven optimal (0 = no limit)")
      ->default_val(10.0)
      ->check(CLI::Range(0.0, 86400.0));
  sub->add_flag("--json", options->json, "print one JSON document instead of text");
  sub->add_flag("--overlap", options->overlap,
                "let an op's output share bytes with an input that dies there where the kernel\n"
                "approves it (elementwise in place, convolutions and pools with a row lag)");
  sub->add_option("--csv", options->csv_path,
                  "also write the planning problem in MiniMalloc's CSV form (id,lower,upper,size)");
  sub->add_option("--name-width", options->name_width, "cut owner names to this many characters in text")
      ->default_val(40)
      ->check(CLI::Range(8, 4096));
  return {sub, [options]() -> int {
            Result<ModelFile> file = ModelFile::Open(options->model_path);
            if (!file.ok()) return PrintError(file.status());
            report::ModelPlanOptions plan_options;
            plan_options.planner = options->planner;
            plan_options.alignment_bytes = options->alignment_bytes;
            plan_options.time_limit_seconds = options->time_limit_seconds;
            const bool show_progress = ::isatty(STDERR_FILENO) != 0 && !options->json;
            if (show_progress) {
              plan_options.progress = [](const OptimalProgress& p) {
                std::fprintf(stderr, "\r[optimal] %6.1f s  best %s  bound %s  nodes %llu   ", p.elapsed_seconds,
                             report::Bytes(p.best_head_bytes).c_str(), report::Bytes(p.lower_bound_bytes).c_str(),
                             static_cast<unsigned long long>(p.nodes));
                std::fflush(stderr);
              };
            }
            // The kernels' scratch requests are planned with the tensors; the
            // runtime's persistent area and temp peak complete the arena.
            Result<PrepareRequests> scratch = CollectPrepareRequests(file->view(), AllOpsResolver());
            if (scratch.ok()) plan_options.scratch = scratch->scratch;
            if (scratch.ok() && options->overlap) plan_options.overlaps = scratch->overlaps;
            plan_options.overlap = options->overlap;
            Result<report::ModelPlan> plan = report::PlanModel(file->view(), plan_options);
            if (plan.ok() && scratch.ok()) {
              InterpreterOptions runtime_options;
              runtime_options.allow_overlap = options->overlap;
              Result<ArenaFigures> figures = MeasureArena(file->view(), AllOpsResolver(), runtime_options);
              if (figures.ok()) {
                plan->has_runtime = true;
                plan->persistent_bytes = figures->persistent_bytes;
                plan->temp_peak_bytes = figures->temp_peak_bytes;
              } else {
                plan->runtime_note = figures.status().message();
              }
            } else if (plan.ok()) {
              plan->runtime_note = scratch.status().message();
            }
            if (show_progress) std::fprintf(stderr, "\r%80s\r", "");
            if (!plan.ok()) {
              Status status = plan.status();
              return PrintError(status.Prefix(options->model_path.c_str()));
            }
            if (!options->csv_path.empty()) {
              ProblemCsv problem;
              problem.buffers = plan->buffers;
              for (const BufferRequest& b : plan->buffers) {
                problem.ids.push_back((b.kind == BufferKind::kTensor ? "t" : "op") + std::to_string(b.owner_index) +
                                      (b.kind == BufferKind::kScratch ? "_scratch" : ""));
              }
              Status written = WriteProblemCsv(options->csv_path, problem, Span<const size_t>());
              if (!written.ok()) return PrintError(written);
            }
            if (options->json) {
              std::printf("%s\n", report::PlanJson(file->view(), file->path(), *plan).dump(2).c_str());
            } else {
              report::PlanTextOptions text_options;
              text_options.name_width = options->name_width;
              std::fputs(report::PlanText(file->view(), file->path(), *plan, text_options).c_str(), stdout);
            }
            return kExitOk;
          }};
}

}  // namespace microarena::cli
