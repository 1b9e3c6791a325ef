// `microarena solve PROBLEM.csv`: plans a MiniMalloc-style CSV problem.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/planner.h"
#include "microarena/plan/problem_csv.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {
namespace {

struct SolveArgs {
  std::string problem_path;
  std::string planner = "optimal";
  size_t capacity_bytes = kNoCapacity;
  double time_limit_seconds = 60.0;
  uint64_t node_limit = 0;
  size_t alignment_bytes = 1;
  std::string output_path;
};

int Fail(const std::string& file, const Status& status) {
  std::fprintf(stderr, "error: %s: %s\n", file.c_str(), status.message());
  return ExitCodeFor(status.code());
}

int RunSolve(const SolveArgs& args, const CLI::App& app) {
  // The planner is chosen first: a bad --planner is a usage error whatever the file holds.
  OptimalOptions options;
  options.time_limit_seconds = args.time_limit_seconds;
  options.capacity_bytes = args.capacity_bytes;
  options.node_limit = args.node_limit;
  const bool show_progress = isatty(STDERR_FILENO) != 0;
  if (show_progress) {
    options.progress = [](const OptimalProgress& progress) {
      char best[32] = "none yet";
      if (progress.best_head_bytes != 0) {
        std::snprintf(best, sizeof(best), "%zu bytes", progress.best_head_bytes);
      }
      std::fprintf(stderr, "\r  %.1f s: best %s, lower bound %zu bytes, %llu nodes   ",
                   progress.elapsed_seconds, best, progress.lower_bound_bytes,
                   static_cast<unsigned long long>(progress.nodes));
    };
  }
  const OptimalPlanner optimal(options);
  PlannerRegistry planners = DevicePlanners();
  Status status = planners.Add(&optimal);
  if (!status.ok()) return PrintError(status);
  const Planner* planner = planners.Find(args.planner.c_str());
  if (planner == nullptr) {
    char names[256];
    planners.JoinNames(names, sizeof(names));
    return UsageError("--planner: unknown planner '%s' (one of: %s)", args.planner.c_str(), names);
  }
  // A bad output path is found before the search, not after it. It may
  // name the problem itself: the solution CSV is the problem plus offsets.
  if (int code = CheckOutputPaths(app, {{"--output", args.output_path}}, {}); code != kExitOk) return code;

  Result<ProblemCsv> csv = ReadProblemCsv(args.problem_path);
  // The CSV reader's messages already start with the file name.
  if (!csv.ok()) return PrintError(csv.status());
  PlanningProblem problem;
  problem.buffers = Span<const BufferRequest>(csv->buffers.data(), csv->buffers.size());
  problem.alignment_bytes = args.alignment_bytes;
  const size_t count = problem.buffers.size();

  // The most bytes live at once: the optimal planner computes its own.
  size_t lower_bound = 0;
  if (planner != &optimal) {
    std::vector<uint8_t> bound_workspace(LowerBoundWorkspaceBytes(count));
    status = ComputeLowerBound(problem.buffers, Span<uint8_t>(bound_workspace.data(), bound_workspace.size()),
                               &lower_bound);
    if (!status.ok()) return Fail(args.problem_path, status);
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<size_t> offsets(count);
  size_t head_bytes = 0;
  bool proven = false;
  uint64_t nodes = 0;
  OptimalSearchStats stats;
  CapacityOutcome outcome = CapacityOutcome::kNotAsked;
  if (planner == &optimal) {
    Result<OptimalResult> result = optimal.Solve(problem, Span<size_t>(offsets.data(), count));
    if (show_progress && options.progress) std::fprintf(stderr, "\r%78s\r", "");
    if (!result.ok()) return Fail(args.problem_path, result.status());
    head_bytes = result->head_bytes;
    proven = result->proven_optimal;
    lower_bound = result->lower_bound_bytes;
    outcome = result->capacity_outcome;
    nodes = result->nodes;
    stats = result->stats;
  } else {
    std::vector<uint8_t> workspace(planner->WorkspaceBytes(count));
    PlanSummary summary;
    status = planner->Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                           Span<size_t>(offsets.data(), count), &summary);
    if (!status.ok()) return Fail(args.problem_path, status);
    head_bytes = summary.head_bytes;
    proven = summary.proven_optimal || head_bytes == lower_bound;
    if (args.capacity_bytes != kNoCapacity) {
      outcome = head_bytes <= args.capacity_bytes ? CapacityOutcome::kFits
                : lower_bound > args.capacity_bytes ? CapacityOutcome::kInfeasible
                                                    : CapacityOutcome::kUnknown;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  status = CheckPlan(problem, Span<const size_t>(offsets.data(), count), head_bytes);
  if (!status.ok()) return Fail(args.problem_path, status.Prefix("plan check failed"));

  std::printf("problem:     %s (%zu buffers, alignment %zu)\n", args.problem_path.c_str(), count,
              args.alignment_bytes);
  std::printf("planner:     %s\n", planner->name());
  std::printf("head:        %zu bytes\n", head_bytes);
  std::printf("lower bound: %zu bytes\n", lower_bound);
  std::printf("gap:         %zu bytes (%.2f%%)\n", head_bytes - std::min(head_bytes, lower_bound),
              lower_bound == 0 ? 0.0
                               : 100.0 * static_cast<double>(head_bytes - std::min(head_bytes, lower_bound)) /
                                     static_cast<double>(lower_bound));
  std::printf("proven:      %s\n", proven ? "yes (optimal)" : "no");
  // Unlike the time, the same on every machine (without a time limit).
  if (planner == &optimal) {
    std::printf("nodes:       %llu\n", static_cast<unsigned long long>(nodes));
    const auto count_of = [](uint64_t value) { return static_cast<unsigned long long>(value); };
    std::printf("search:      %llu attempts, deepest %llu buffers placed; pruned %llu too high, %llu by a "
                "section's stack, %llu by a fixed buffer; %llu dead ends, %llu states seen dead before; %llu parts from the cache; %llu plans found re-sorting parts, %llu under the learned order, %llu under a tighter capacity, %llu by the dive, %llu by guillotine cuts (%llu nodes of their own)\n",
                count_of(stats.attempts), count_of(stats.deepest), count_of(stats.pruned_too_high),
                count_of(stats.pruned_section_bound), count_of(stats.pruned_fixed),
                count_of(stats.dead_ends), count_of(stats.dead_state_hits), count_of(stats.cache_hits),
                count_of(stats.found_sorting_parts), count_of(stats.found_learned_order),
                count_of(stats.found_tighter_capacity), count_of(stats.found_by_dive),
                count_of(stats.found_by_guillotine), count_of(stats.guillotine_nodes));
  }
  std::printf("time:        %.3f s\n", seconds);
  if (args.capacity_bytes != kNoCapacity) {
    std::printf("capacity:    %zu bytes: %s\n", args.capacity_bytes,
                outcome == CapacityOutcome::kFits         ? "fits"
                : outcome == CapacityOutcome::kInfeasible ? "infeasible (proven: no plan fits)"
                                                          : "unknown (no plan found in time)");
  }
  const bool fits = args.capacity_bytes == kNoCapacity || outcome == CapacityOutcome::kFits;
  if (!args.output_path.empty() && fits) {
    status = WriteProblemCsv(args.output_path, *csv, Span<const size_t>(offsets.data(), count));
    if (!status.ok()) return PrintError(status);
  }
  if (!fits) {
    // Proven impossible: does not fit (3); not found but not disproven: undecided (4).
    const bool infeasible = outcome == CapacityOutcome::kInfeasible;
    std::fprintf(stderr, "error: %s: %s within capacity %zu bytes (best head %zu bytes)\n", args.problem_path.c_str(),
                 infeasible ? "no plan exists" : "no plan found", args.capacity_bytes, head_bytes);
    return infeasible ? kExitDoesNotFit : kExitUndecided;
  }
  return kExitOk;
}

}  // namespace

Command RegisterSolveCommand(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* solve =
      app.add_subcommand("solve",
                         "Plan a buffer-placement problem given as MiniMalloc CSV (id,lower,upper,size; lifetimes\n"
                         "half-open [lower, upper)). Prints head, lower bound, gap, planner, whether the head is\n"
                         "proven minimal, the search nodes (optimal) and the time. Without --capacity the head is\n"
                         "minimised; with it, the answer is a plan within it (exit 0), 'infeasible' (proven: exit 3)\n"
                         "or 'unknown' (no plan found within the time or node limit or by a heuristic planner: exit 4).");
  solve->add_option("problem", args->problem_path, "problem CSV file")->required();
  solve->add_option("--capacity", args->capacity_bytes,
                    "find a plan whose head fits in this many bytes, or prove there is none")
      ->check(NotNegative())
      ->check(CLI::Range(size_t{0}, kNoCapacity - 1));
  solve->add_option("--planner", args->planner,
                    "linear, greedy-tflm, greedy or optimal")
      ->capture_default_str();
  solve->add_option("--time-limit", args->time_limit_seconds,
                    "seconds the optimal planner may search (0 = no limit); it returns the best "
                    "plan found")
      ->capture_default_str()
      ->check(Seconds(1e7));
  solve->add_option("--node-limit", args->node_limit,
                    "search nodes the optimal planner may visit (0 = no limit; a limit, unlike the time, "
                    "gives the same answer everywhere)")
      ->capture_default_str()
      ->check(NotNegative());
  solve->add_option("--align", args->alignment_bytes,
                    "every offset must be a multiple of this power of two, at most 2^30")
      ->capture_default_str()
      ->check(NotNegative())
      ->check([](const std::string& text) -> std::string {
        size_t value = 0;
        try {
          value = std::stoull(text);
        } catch (...) {
          return "not a number";
        }
        if (value == 0 || (value & (value - 1)) != 0) return "must be a power of two";
        return value <= (size_t{1} << 30) ? "" : "must be at most 2^30 (1073741824)";
      });
  solve->add_option("-o,--output", args->output_path,
                    "write the problem with an offset column (MiniMalloc solution CSV) here");
  return Command{solve, [args, solve]() { return RunSolve(*args, *solve); }};
}

}  // namespace microarena::cli
