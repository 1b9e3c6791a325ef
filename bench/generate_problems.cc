// generate_problems: writes a suite of seeded static-allocation problems
// shaped like ../shared/dsa A-E (plan/problem_generator.h) as MiniMalloc CSV,
// one file per seed, with the known plan beside it:
//
//   DIR/g<seed>.<capacity>.csv          id,lower,upper,size
//   DIR/g<seed>.<capacity>.witness.csv  the same with an offset column
//
// and prints one line of statistics per problem (buffers, dropped pieces,
// median size and lifetime in units, the share of steps x capacity in use,
// the most buffers live at once), the figures that compare a suite with A-E.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "microarena/plan/problem_generator.h"

namespace {

template <typename T>
T Median(std::vector<T> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? T{} : values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Write seeded static-allocation problems shaped like MiniMalloc's A-E."};
  std::string out_dir;
  uint64_t first_seed = 1;
  uint32_t count = 200;
  microarena::ProblemGeneratorOptions options;
  app.add_option("--out", out_dir, "directory to write the problems to")->required();
  app.add_option("--first-seed", first_seed, "seed of the first problem");
  app.add_option("--count", count, "problems to write (seeds first-seed, first-seed + 1, ...)");
  app.add_option("--min-buffers", options.min_buffers, "fewest pieces before dropping");
  app.add_option("--max-buffers", options.max_buffers, "most pieces before dropping");
  app.add_option("--min-dropped", options.min_dropped, "fewest pieces dropped");
  app.add_option("--max-dropped", options.max_dropped, "most pieces dropped");
  CLI11_PARSE(app, argc, argv);

  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) {
    std::fprintf(stderr, "generate_problems: cannot create %s: %s\n", out_dir.c_str(),
                 error.message().c_str());
    return 1;
  }
  std::printf("problem,buffers,dropped,median_size_units,median_length_units,area_share,max_live\n");
  for (uint64_t seed = first_seed; seed < first_seed + count; ++seed) {
    options.seed = seed;
    microarena::Result<microarena::GeneratedProblem> generated = microarena::GenerateProblem(options);
    if (!generated.ok()) {
      std::fprintf(stderr, "generate_problems: %s\n", generated.status().message());
      return 2;
    }
    const std::string stem = out_dir + "/g" + std::to_string(seed) + "." +
                             std::to_string(generated->capacity_bytes);
    const std::vector<size_t>& witness = generated->witness_offsets;
    microarena::Status written =
        microarena::WriteProblemCsv(stem + ".csv", generated->problem, {});
    if (written.ok()) {
      written = microarena::WriteProblemCsv(
          stem + ".witness.csv", generated->problem,
          microarena::Span<const size_t>(witness.data(), witness.size()));
    }
    if (!written.ok()) {
      std::fprintf(stderr, "generate_problems: %s\n", written.message());
      return 1;
    }
    std::vector<size_t> sizes;
    std::vector<int32_t> lengths;
    double area = 0;
    std::vector<std::pair<int32_t, int>> events;
    for (const microarena::BufferRequest& buffer : generated->problem.buffers) {
      sizes.push_back(buffer.size_bytes / options.unit_bytes);
      lengths.push_back(buffer.lifetime.length() / static_cast<int32_t>(options.unit_steps));
      area += static_cast<double>(buffer.size_bytes) * buffer.lifetime.length();
      events.push_back({buffer.lifetime.first_op, 1});
      events.push_back({buffer.lifetime.end_op, -1});
    }
    std::sort(events.begin(), events.end());  // an end before a start at one step
    int live = 0;
    int max_live = 0;
    for (const auto& event : events) max_live = std::max(max_live, live += event.second);
    const double steps = static_cast<double>(options.units) * options.unit_steps;
    std::printf("g%llu,%zu,%u,%zu,%d,%.3f,%d\n", static_cast<unsigned long long>(seed),
                generated->problem.buffers.size(), generated->dropped, Median(sizes),
                Median(lengths), area / (steps * static_cast<double>(generated->capacity_bytes)),
                max_live);
  }
  return 0;
}
