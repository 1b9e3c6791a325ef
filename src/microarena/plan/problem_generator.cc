#include "microarena/plan/problem_generator.h"

#include <algorithm>
#include <string>
#include <utility>

#include "microarena/base/split_mix64.h"

namespace microarena {
namespace {

// Uniform draws over SplitMix64 bits.
class Random {
 public:
  explicit Random(uint64_t seed) : bits_(seed) {}
  uint64_t Next() { return bits_.Next(); }
  // Uniform in [0, bound), bound > 0 (rejection: no modulo bias).
  uint64_t Below(uint64_t bound) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t value = Next();
    while (value >= limit) value = Next();
    return value % bound;
  }
  // Uniform in [low, high], low <= high.
  uint32_t Between(uint32_t low, uint32_t high) {
    return low + static_cast<uint32_t>(Below(uint64_t{high} - low + 1));
  }

 private:
  SplitMix64 bits_;
};

// A rectangle of the grid: steps [t0, t1) x space [s0, s1), in units.
struct Piece {
  uint32_t t0, t1, s0, s1;
  bool cut_space_next;  // the axis of its next cut
  uint64_t Area() const { return uint64_t{t1 - t0} * (s1 - s0); }
};

}  // namespace

Result<GeneratedProblem> GenerateProblem(const ProblemGeneratorOptions& options) {
  if (options.min_buffers > options.max_buffers || options.min_dropped > options.max_dropped) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "problem generator: a minimum above its maximum (buffers %u..%u, "
                         "dropped %u..%u)",
                         options.min_buffers, options.max_buffers, options.min_dropped,
                         options.max_dropped);
  }
  if (options.min_area_permille > options.max_area_permille || options.max_area_permille > 1000 ||
      options.min_area_permille == 0 || options.min_peak_permille > 1000) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "problem generator: area share %u..%u thousandths is not a range in "
                         "(0, 1000], or the peak's floor %u is above 1000",
                         options.min_area_permille, options.max_area_permille,
                         options.min_peak_permille);
  }
  if (options.space_cut_permille > 1000) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "problem generator: a share of cuts across space of %u thousandths is "
                         "above 1000",
                         options.space_cut_permille);
  }
  if (options.min_buffers <= options.max_dropped) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "problem generator: %u pieces with up to %u dropped may leave none",
                         options.min_buffers, options.max_dropped);
  }
  const uint64_t cells = uint64_t{options.units} * options.units;
  if (options.units == 0 || options.unit_bytes == 0 || options.unit_steps == 0 ||
      options.max_buffers > cells) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "problem generator: a %u x %u grid cannot hold %u pieces",
                         options.units, options.units, options.max_buffers);
  }
  if (uint64_t{options.units} * options.unit_steps > INT32_MAX ||
      uint64_t{options.units} * options.unit_bytes > SIZE_MAX / 2) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "problem generator: %u units of %u steps or %u bytes overflow",
                         options.units, options.unit_steps, options.unit_bytes);
  }
  Random random(options.seed);
  const uint32_t pieces_wanted = random.Between(options.min_buffers, options.max_buffers);
  const uint32_t dropped = random.Between(options.min_dropped, options.max_dropped);

  std::vector<Piece> pieces{{0, options.units, 0, options.units, true}};
  uint64_t total_area = cells;  // the pieces always tile the whole grid
  while (pieces.size() < pieces_wanted) {
    // A piece by area: the first whose running sum passes the draw.
    uint64_t draw = random.Below(total_area);
    size_t index = 0;
    while (draw >= pieces[index].Area()) draw -= pieces[index++].Area();
    Piece& piece = pieces[index];
    bool space = piece.cut_space_next;
    if (options.space_cut_permille != 0) {
      space = random.Below(1000) < options.space_cut_permille;
      // One unit thin on the drawn axis: the other one. A 1 x 1 piece drawn
      // is skipped below; the loop still ends, since pieces_wanted <= cells.
      if ((space ? piece.s1 - piece.s0 : piece.t1 - piece.t0) < 2) space = !space;
    }
    const uint32_t low = space ? piece.s0 : piece.t0;
    const uint32_t high = space ? piece.s1 : piece.t1;
    piece.cut_space_next = !space;  // a piece one unit thin is cut the other way next time
    if (high - low < 2) continue;
    const uint32_t cut = random.Between(low + 1, high - 1);
    Piece upper = piece;
    if (space) {
      piece.s1 = cut;
      upper.s0 = cut;
    } else {
      piece.t1 = cut;
      upper.t0 = cut;
    }
    pieces.push_back(upper);
  }
  // Fisher-Yates, then the first `dropped` pieces go.
  for (size_t i = pieces.size() - 1; i > 0; --i) {
    std::swap(pieces[i], pieces[random.Below(i + 1)]);
  }

  // Down to the area share (drawn only when asked for, so that the default
  // problems stay what they were); at least one piece stays.
  size_t first_kept = dropped;
  if (options.max_area_permille < 1000) {
    const uint64_t share = random.Between(options.min_area_permille, options.max_area_permille);
    // Space units live per time unit, to keep the peak.
    std::vector<uint32_t> live(options.units, 0);
    uint64_t area = 0;
    for (size_t i = first_kept; i < pieces.size(); ++i) {
      area += pieces[i].Area();
      for (uint32_t t = pieces[i].t0; t < pieces[i].t1; ++t) live[t] += pieces[i].s1 - pieces[i].s0;
    }
    const uint64_t peak_floor = uint64_t{options.min_peak_permille} * options.units;
    // Pieces go in the shuffled order; one whose loss would sink the peak
    // below the floor moves to the kept end instead.
    size_t kept_from = pieces.size();
    while (first_kept < kept_from && first_kept + 1 < pieces.size() && area * 1000 > share * cells) {
      const Piece& piece = pieces[first_kept];
      for (uint32_t t = piece.t0; t < piece.t1; ++t) live[t] -= piece.s1 - piece.s0;
      uint64_t peak = 0;
      for (uint32_t units_live : live) peak = std::max<uint64_t>(peak, units_live);
      if (peak * 1000 >= peak_floor) {
        area -= piece.Area();
        ++first_kept;
      } else {
        for (uint32_t t = piece.t0; t < piece.t1; ++t) live[t] += piece.s1 - piece.s0;
        std::swap(pieces[first_kept], pieces[--kept_from]);
      }
    }
  }

  GeneratedProblem generated;
  generated.capacity_bytes = size_t{options.units} * options.unit_bytes;
  generated.dropped = static_cast<uint32_t>(first_kept);
  for (size_t i = first_kept; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    BufferRequest buffer;
    buffer.lifetime.first_op = static_cast<int32_t>(piece.t0 * options.unit_steps);
    buffer.lifetime.end_op = static_cast<int32_t>(piece.t1 * options.unit_steps);
    buffer.size_bytes = size_t{piece.s1 - piece.s0} * options.unit_bytes;
    generated.problem.ids.push_back(std::to_string(i - first_kept));
    generated.problem.buffers.push_back(buffer);
    generated.witness_offsets.push_back(size_t{piece.s0} * options.unit_bytes);
  }
  return generated;
}

}  // namespace microarena
