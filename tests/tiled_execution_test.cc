// Tiled execution (analysis/tiling.h) end to end: vww_96_int8 run band by
// band over many segments and band heights gives TFLM's golden outputs byte
// for byte, in exactly its minimum arena (so a window one row too small
// would be caught by the sanitizer build or by wrong bytes), and the head
// shrinks below the untiled lower bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "microarena/analysis/tiling.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/mobilenet_v2_model.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/planner.h"
#include "microarena/report/tiling_search.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/tiled_execution.h"
#include "microarena/runtime/input_generator.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using testing::ReadFileBytes;
using testing::SharedDir;

std::vector<std::vector<uint8_t>> GoldenOutputs(const std::string& model, uint32_t seed, size_t count) {
  const std::string dir = SharedDir() + "/golden/" + model + "/seed" + std::to_string(seed);
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t o = 0; o < count; ++o) outputs.push_back(ReadFileBytes(dir + "/output_" + std::to_string(o) + ".bin"));
  return outputs;
}

Result<RunResult> RunTiled(const ModelView& model, const std::vector<TiledSegment>& tiling, uint32_t seed) {
  RunOptions options;
  options.seed = seed;
  options.interpreter.planner = PlannerChoice::kGreedy;
  const TiledExecution tiled(Span<const TiledSegment>(tiling.data(), tiling.size()));
  if (!tiling.empty()) options.interpreter.tiling = &tiled;
  return RunModel(model, AllOpsResolver(), options);
}

TEST(TiledExecutionTest, VwwIsBitExactForEverySegmentAndBandHeight) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const ModelView& model = file->view();
  const std::vector<std::vector<uint8_t>> golden = GoldenOutputs("vww_96_int8", 1, 1);
  Result<RunResult> whole = RunTiled(model, {}, 1);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_EQ(whole->outputs, golden);

  size_t runs = 0;
  size_t smaller = 0;
  size_t best_head = whole->head_bytes;
  // vww's first 27 ops are CONV_2D and DEPTHWISE_CONV_2D: every segment
  // within them can run in bands.
  for (int32_t first = 0; first < 27; first += 3) {
    for (int32_t last = first; last < 27; last += 2) {
      for (int32_t band : {1, 2, 5, 96}) {
        SCOPED_TRACE("ops " + std::to_string(first) + "-" + std::to_string(last) + ", " + std::to_string(band) +
                     " rows per band");
        const std::vector<TiledSegment> tiling = {{first, last, band}};
        Result<RunResult> run = RunTiled(model, tiling, 1);
        ASSERT_TRUE(run.ok()) << run.status().message();
        EXPECT_EQ(run->outputs, golden);
        ++runs;
        smaller += run->head_bytes < whole->head_bytes ? 1 : 0;
        if (run->head_bytes < best_head) best_head = run->head_bytes;
      }
    }
  }
  std::printf("vww_96_int8: %zu tiled runs bit-exact, %zu with a smaller head; best head %zu B (untiled %zu B, "
              "no-overlap lower bound %zu B)\n",
              runs, smaller, best_head, whole->head_bytes, whole->lower_bound_bytes);
  // The untiled bound by hand: the 1x1 convolution 48x48x8 -> 48x48x16,
  // 18,432 + 36,864 = 55,296 B live at once. Tiling goes below it: the model
  // input (27,648 B) stays whole, the rest shrinks to rows.
  ASSERT_EQ(whole->lower_bound_bytes, 55296u);
  EXPECT_LT(best_head, whole->lower_bound_bytes);
  EXPECT_GT(smaller, 0u);
}

TEST(TiledExecutionTest, TwoSegmentsAndOtherSeeds) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const std::vector<TiledSegment> tiling = {{0, 6, 2}, {8, 14, 1}};
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Result<RunResult> run = RunTiled(file->view(), tiling, seed);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_EQ(run->outputs, GoldenOutputs("vww_96_int8", seed, 1));
  }
}

TEST(TiledExecutionTest, RefusesWhatCannotRunInBands) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  struct Case {
    TiledSegment segment;
    const char* message;
  };
  // Op 28 is RESHAPE; 31 ops in all; op 29 reads the output of 28.
  const Case cases[] = {
      {{0, 28, 1}, "op 28 (RESHAPE) cannot run in bands"},
      {{3, 2, 1}, "tiled segment ops 3-2 is not within the model's 31 ops"},
      {{0, 31, 1}, "is not within the model's 31 ops"},
      {{0, 4, 0}, "has 0 rows per band"},
  };
  for (const Case& c : cases) {
    const std::vector<TiledSegment> tiling = {c.segment};
    Result<RunResult> run = RunTiled(file->view(), tiling, 1);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(std::string(run.status().message()).find(c.message), std::string::npos) << run.status().message();
  }
  const std::vector<TiledSegment> overlapping = {{0, 4, 1}, {4, 6, 1}};
  Result<RunResult> run = RunTiled(file->view(), overlapping, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(std::string(run.status().message()).find("not in order or overlap"), std::string::npos);
}

// Places every approved pair as tightly as its permission allows: the
// output at a cursor and the input exactly D (aligned) above it, so they
// share all the bytes they may; every other buffer after them, alone. A D
// one row too small would let the sink overwrite input rows still to be read.
class TightPairPlanner final : public Planner {
 public:
  const char* name() const override { return "tight-pairs"; }
  size_t WorkspaceBytes(size_t) const override { return 0; }
  Status Plan(const PlanningProblem& problem, Span<uint8_t>, Span<size_t> offsets,
              PlanSummary* summary) const override {
    std::vector<bool> placed(problem.buffers.size());
    size_t cursor = 0;
    const size_t align = problem.alignment_bytes;
    auto up = [align](size_t bytes) { return (bytes + align - 1) / align * align; };
    for (const OverlapPermission& p : problem.overlaps) {
      if (placed[p.input_buffer] || placed[p.output_buffer]) continue;
      offsets[p.output_buffer] = cursor;
      offsets[p.input_buffer] = cursor + up(p.min_displacement_bytes);
      placed[p.input_buffer] = placed[p.output_buffer] = true;
      cursor = up(std::max(offsets[p.output_buffer] + problem.buffers[p.output_buffer].size_bytes,
                           offsets[p.input_buffer] + problem.buffers[p.input_buffer].size_bytes));
      ++tight_pairs;
    }
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      if (placed[b]) continue;
      offsets[b] = cursor;
      cursor = up(cursor + problem.buffers[b].size_bytes);
    }
    summary->head_bytes = cursor;
    return OkStatus();
  }
  mutable size_t tight_pairs = 0;
};

// With overlap, a segment's sink may take the bytes of the input rows the
// walk has consumed (analysis/tiling.h TilingOverlaps). Every segment and
// band height below, planned with each sink exactly D below its input, runs
// bit-exact: D is enough. And the search's choice runs in TFLM's goldens
// below 60 % of the untiled lower bound.
TEST(TiledExecutionTest, SinkOverConsumedInputRowsIsBitExact) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const std::vector<std::vector<uint8_t>> golden = GoldenOutputs("vww_96_int8", 1, 1);
  size_t runs = 0;
  for (int32_t first = 0; first < 9; ++first) {
    for (int32_t last = first; last < 9; ++last) {
      for (int32_t band : {1, 2, 3, 7}) {
        SCOPED_TRACE("ops " + std::to_string(first) + "-" + std::to_string(last) + ", " + std::to_string(band) +
                     " rows per band");
        const std::vector<TiledSegment> tiling = {{first, last, band}};
        const TiledExecution tiled(Span<const TiledSegment>(tiling.data(), tiling.size()));
        const TightPairPlanner tight;
        RunOptions options;
        options.seed = 1;
        options.interpreter.allow_overlap = true;
        options.interpreter.tiling = &tiled;
        options.interpreter.custom_planner = &tight;
        Result<RunResult> run = RunModel(file->view(), AllOpsResolver(), options);
        ASSERT_TRUE(run.ok()) << run.status().message();
        EXPECT_EQ(run->outputs, golden);
        EXPECT_GT(tight.tight_pairs, 0u);
        ++runs;
      }
    }
  }
  std::printf("vww_96_int8: %zu tiled runs with each sink placed tight over its input, bit-exact\n", runs);
}

// The search as the runtime's greedy planner will plan (RunTiled).
report::TilingSearchOptions SearchOptionsFor(const ModelView& model) {
  report::TilingSearchOptions options;
  options.exact = false;
  Result<PrepareRequests> requests = CollectPrepareRequests(model, AllOpsResolver());
  EXPECT_TRUE(requests.ok());
  if (requests.ok()) options.scratch = requests->scratch;
  return options;
}

// The search's choice on vww: below the untiled lower bound, what the
// runtime then plans to the byte, and TFLM's outputs on every seed.
TEST(TilingSearchTest, VwwChoiceRunsBitExactInTheHeadItPromised) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  Result<report::TilingChoice> choice = report::ChooseTiling(file->view(), SearchOptionsFor(file->view()));
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  ASSERT_FALSE(choice->segments.empty());
  EXPECT_EQ(choice->untiled_lower_bound_bytes, 55296u);  // 18,432 + 36,864 B at op 2, by hand
  EXPECT_EQ(choice->untiled_head_bytes, 55296u);
  // The model input (96x96x3 = 27,648 B) stays whole; a 48x48 map next to
  // it cannot: the head must hold less than input + one 48x48x8 map + one
  // 48x48x16 map... and the search does far better than the untiled bound.
  EXPECT_LT(choice->head_bytes, 27648u + 18432u);
  EXPECT_GT(choice->head_bytes, 27648u);
  EXPECT_EQ(choice->extra_macs, 0);
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Result<RunResult> run = RunTiled(file->view(), choice->segments, seed);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_EQ(run->head_bytes, choice->head_bytes);
    EXPECT_EQ(run->arena_bytes, run->used_bytes);
    EXPECT_EQ(run->outputs, GoldenOutputs("vww_96_int8", seed, 1));
  }
  std::printf("vww_96_int8 tiled: %zu segment(s), head %zu B (untiled %zu B), %zu tilings planned\n",
              choice->segments.size(), choice->head_bytes, choice->untiled_head_bytes, choice->candidates);
}

// With overlap the search (greedy, then the exact planner on the most
// promising candidates) puts vww's sink over the input rows the segment has
// consumed: the head falls at least 40 % below the untiled lower bound
// (55,296 B), and the run, planned as `run --tile --overlap` plans it
// (exact planner, node limit), fits that head and gives TFLM's outputs.
TEST(TilingSearchTest, VwwWithOverlapIsFortyPercentBelowTheUntiledBound) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  report::TilingSearchOptions options = SearchOptionsFor(file->view());
  Result<PrepareRequests> requests = CollectPrepareRequests(file->view(), AllOpsResolver());
  ASSERT_TRUE(requests.ok()) << requests.status().message();
  options.overlap = true;
  options.overlaps = requests->overlaps;
  options.exact = true;
  Result<report::TilingChoice> choice = report::ChooseTiling(file->view(), options);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  ASSERT_FALSE(choice->segments.empty());
  EXPECT_EQ(choice->untiled_lower_bound_bytes, 55296u);
  EXPECT_LE(10 * choice->head_bytes, 6 * choice->untiled_lower_bound_bytes);
  EXPECT_GT(choice->exact_plans, 0u);

  OptimalOptions exact_options;
  exact_options.time_limit_seconds = 0;
  exact_options.node_limit = 2000000;
  const OptimalPlanner exact(exact_options);
  const TiledExecution tiled(Span<const TiledSegment>(choice->segments.data(), choice->segments.size()));
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RunOptions run_options;
    run_options.seed = seed;
    run_options.interpreter.allow_overlap = true;
    run_options.interpreter.tiling = &tiled;
    run_options.interpreter.custom_planner = &exact;
    Result<RunResult> run = RunModel(file->view(), AllOpsResolver(), run_options);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_LE(run->head_bytes, choice->head_bytes);
    EXPECT_EQ(run->outputs, GoldenOutputs("vww_96_int8", seed, 1));
  }
  std::printf("vww_96_int8 tiled with overlap: head %zu B = %.1f %% below the untiled lower bound %zu B "
              "(%zu tilings planned, %zu exactly)\n",
              choice->head_bytes,
              100.0 * (1.0 - static_cast<double>(choice->head_bytes) / static_cast<double>(choice->untiled_lower_bound_bytes)),
              choice->untiled_lower_bound_bytes, choice->candidates, choice->exact_plans);
}

// A model with nothing to tile keeps its plan: ad01 is FULLY_CONNECTED only.
TEST(TilingSearchTest, NothingToTileLeavesTheModelWhole) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/ad01_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  Result<report::TilingChoice> choice = report::ChooseTiling(file->view(), SearchOptionsFor(file->view()));
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_TRUE(choice->segments.empty());
  EXPECT_EQ(choice->head_bytes, choice->untiled_head_bytes);
  EXPECT_EQ(choice->candidates, 0u);
}

// Every shared model the search tiles runs bit-exact with TFLM's goldens.
TEST(TilingSearchTest, EveryTiledSharedModelIsBitExact) {
  MICROARENA_REQUIRE_SHARED();
  size_t tiled = 0;
  for (const std::string& name : testing::GoldenOutputModels()) {
    SCOPED_TRACE(name);
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    if (file->view().subgraph_count() != 1) continue;
    Result<report::TilingChoice> choice = report::ChooseTiling(file->view(), SearchOptionsFor(file->view()));
    ASSERT_TRUE(choice.ok()) << choice.status().message();
    if (choice->segments.empty()) continue;
    ++tiled;
    EXPECT_LT(choice->head_bytes, choice->untiled_head_bytes);
    Result<RunResult> run = RunTiled(file->view(), choice->segments, 1);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_EQ(run->head_bytes, choice->head_bytes);
    EXPECT_EQ(run->outputs, GoldenOutputs(name, 1, run->outputs.size()));
    std::printf("%s: tiled head %zu B (untiled %zu B)\n", name.c_str(), choice->head_bytes,
                choice->untiled_head_bytes);
  }
  EXPECT_GE(tiled, 1u);
}

// The MobileNetV2 of the figure (224x224, width 1.0, built by
// model/mobilenet_v2_model.h): the chosen tiling runs bit-exact with TFLM
// itself, and its head is at most 0.20 x the head TFLM plans for the same
// model (the oracle's, measured here). Its segment holds PAD before strided
// depthwise convolutions, RELU6-fused expansions and residual ADDs. A small
// variant (96x96, width 0.35) must be bit-exact too.
TEST(TilingSearchTest, MobileNetV2IsBitExactWithTflmInAFifthOfItsHead) {
  MICROARENA_REQUIRE_ORACLE();
  MobileNetV2Options small;
  small.input_size = 96;
  small.width_percent = 35;
  for (const MobileNetV2Options& options : {MobileNetV2Options(), small}) {
    const std::string name = "mobilenet_v2_" + std::to_string(options.input_size) + "_" +
                             std::to_string(options.width_percent);
    SCOPED_TRACE(name);
    Result<std::vector<uint8_t>> bytes = BuildMobileNetV2Model(options);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes->data(), bytes->size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    Result<report::TilingChoice> choice = report::ChooseTiling(*model, SearchOptionsFor(*model));
    ASSERT_TRUE(choice.ok()) << choice.status().message();
    ASSERT_FALSE(choice->segments.empty());
    EXPECT_EQ(choice->extra_macs, 0);

    std::vector<uint8_t> image(static_cast<size_t>(options.input_size) * static_cast<size_t>(options.input_size) * 3u);
    GenerateInput(1, TensorType::kInt8, image.data(), image.size());
    RunOptions run_options;
    run_options.inputs = {image};
    run_options.interpreter.planner = PlannerChoice::kGreedy;
    const TiledExecution tiled(Span<const TiledSegment>(choice->segments.data(), choice->segments.size()));
    run_options.interpreter.tiling = &tiled;
    Result<RunResult> run = RunModel(*model, AllOpsResolver(), run_options);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_EQ(run->head_bytes, choice->head_bytes);

    const testing::Outcome tflm = testing::RunOracleOn(name, *bytes, {image}, size_t{8} << 20);
    ASSERT_TRUE(tflm.ok) << tflm.error;
    EXPECT_EQ(run->outputs, tflm.outputs);
    const size_t tflm_head = testing::OracleSummary(name, *bytes, {image})["head_bytes"];
    ASSERT_GT(tflm_head, 0u);
    std::printf("%s: tiled head %zu B, TFLM's head %zu B (%.3f x), %zu segment(s)\n", name.c_str(),
                choice->head_bytes, tflm_head, static_cast<double>(choice->head_bytes) / static_cast<double>(tflm_head),
                choice->segments.size());
    if (options.input_size == 224) EXPECT_LE(5 * choice->head_bytes, tflm_head);  // <= 0.20 x TFLM's
  }
}

}  // namespace
}  // namespace microarena
