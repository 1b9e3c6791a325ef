// generate_problems: writes a suite of seeded static-allocation problems
// shaped like ../shared/dsa A-E (plan/problem_generator.h) as MiniMalloc CSV,
// one file per seed, with the known plan beside it:
//
//   DIR/g<seed>.<capacity>.csv          id,lower,upper,size
//   DIR/g<seed>.<capacity>.witness.csv  the same with an offset column
//
// and prints one line of statistics per problem (buffers, dropped pieces,
// median size and lifetime in units, the share of steps x capacity in use,
// the most buffers live at once, the share of steps at the capacity, the
// peak's share of it, the 90th-percentile lifetime's share of the steps, the
// share of overlapping pairs nested), the figures that compare a suite with A-F.
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
  uint32_t grid = 1024;
  app.add_option("--grid", grid,
                 "units along each axis of the 1,048,576-byte x 1,048,576-step rectangle (a power "
                 "of two, 2-1024): cuts fall on this grid, so fewer units give fewer distinct "
                 "sizes and lifetimes")
      ->check(CLI::IsMember({2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u}));
  app.add_option("--min-area-permille", options.min_area_permille,
                 "then drop pieces down to an area share drawn in [min, max] thousandths "
                 "(1000: none; A-K have 580-980)");
  app.add_option("--max-area-permille", options.max_area_permille, "see --min-area-permille");
  app.add_option("--min-peak-permille", options.min_peak_permille,
                 "while dropping down to the area share, keep the most bytes live at one step at "
                 "or above this share of the capacity, in thousandths (A-K: 940-1000)");
  app.add_option("--space-cut-permille", options.space_cut_permille,
                 "cut across space (keeping a piece's lifetime) with this probability in "
                 "thousandths, drawn per cut; 0: alternate the axes, space first (A-F's longer "
                 "lifetimes come closest at about 650, the bench's like-a-f family)")
      ->check(CLI::Range(0u, 1000u));
  CLI11_PARSE(app, argc, argv);
  options.units = grid;
  options.unit_bytes = 1048576 / grid;
  options.unit_steps = 1048576 / grid;

  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) {
    std::fprintf(stderr, "generate_problems: cannot create %s: %s\n", out_dir.c_str(),
                 error.message().c_str());
    return 1;
  }
  std::printf("problem,buffers,dropped,median_size_units,median_length_units,area_share,max_live,"
              "steps_at_capacity_share,peak_share,p90_length_share,nested_share\n");
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
    // The share of the steps at which the bytes live fill the capacity.
    std::vector<std::pair<int32_t, int64_t>> bytes;
    for (const microarena::BufferRequest& buffer : generated->problem.buffers) {
      bytes.push_back({buffer.lifetime.first_op, static_cast<int64_t>(buffer.size_bytes)});
      bytes.push_back({buffer.lifetime.end_op, -static_cast<int64_t>(buffer.size_bytes)});
    }
    std::sort(bytes.begin(), bytes.end());
    int64_t live_bytes = 0;
    int64_t full_steps = 0;
    for (size_t k = 0; k < bytes.size(); ++k) {
      live_bytes += bytes[k].second;
      const int32_t next = k + 1 < bytes.size() ? bytes[k + 1].first : bytes[k].first;
      if (live_bytes == static_cast<int64_t>(generated->capacity_bytes)) full_steps += next - bytes[k].first;
    }
    const double steps = static_cast<double>(options.units) * options.unit_steps;
    int64_t peak_bytes = 0;
    live_bytes = 0;
    for (const auto& event : bytes) peak_bytes = std::max(peak_bytes, live_bytes += event.second);
    // How the lifetimes lie: the 90th percentile's share of the steps, and of
    // the pairs of buffers live at once, the share where one lifetime holds
    // the other (an activation inside a longer-lived one, as ML graphs give;
    // A-F: 0.68-0.83 apart from F's 0.29).
    std::vector<int32_t> sorted_lengths = lengths;
    std::sort(sorted_lengths.begin(), sorted_lengths.end());
    const double p90_length = sorted_lengths.empty()
                                  ? 0.0
                                  : sorted_lengths[sorted_lengths.size() * 9 / 10] *
                                        static_cast<double>(options.unit_steps) / steps;
    uint64_t overlapping = 0;
    uint64_t nested = 0;
    const std::vector<microarena::BufferRequest>& buffers = generated->problem.buffers;
    for (size_t i = 0; i < buffers.size(); ++i) {
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        const microarena::Lifetime& a = buffers[i].lifetime;
        const microarena::Lifetime& b = buffers[j].lifetime;
        if (a.first_op >= b.end_op || b.first_op >= a.end_op) continue;
        ++overlapping;
        if ((a.first_op <= b.first_op && b.end_op <= a.end_op) ||
            (b.first_op <= a.first_op && a.end_op <= b.end_op)) {
          ++nested;
        }
      }
    }
    std::printf("g%llu,%zu,%u,%zu,%d,%.3f,%d,%.3f,%.3f,%.3f,%.3f\n",
                static_cast<unsigned long long>(seed),
                generated->problem.buffers.size(), generated->dropped, Median(sizes),
                Median(lengths), area / (steps * static_cast<double>(generated->capacity_bytes)),
                max_live, static_cast<double>(full_steps) / steps,
                static_cast<double>(peak_bytes) / static_cast<double>(generated->capacity_bytes),
                p90_length, overlapping == 0 ? 0.0 : static_cast<double>(nested) / overlapping);
  }
  return 0;
}
