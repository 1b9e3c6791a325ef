// ProblemCsv: planning problems in MiniMalloc's CSV form, read and written.
//
//   id,lower,upper,size[,offset]
//   b1,0,3,4
//   b2,3,9,4,0
//
// One row per buffer: `id` any text without commas (numbers or names like
// b1), live over the half-open step interval [lower, upper), `size` bytes;
// an optional `offset` column carries a solution. The header names the
// columns, in any order; other columns are an error. Blank lines are skipped.
// Host only.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

struct ProblemCsv {
  std::vector<std::string> ids;          // the `id` column, one per buffer
  std::vector<BufferRequest> buffers;    // owner_index -1, kind tensor, no fixed offset
  std::vector<size_t> offsets_bytes;     // the `offset` column; empty when absent
};

// Parses CSV text. Errors (kInvalidArgument) name `source_name`, the line and
// the column: "model.csv: line 4, column 3 (upper): expected a non-negative
// integer, got 'x'".
Result<ProblemCsv> ParseProblemCsv(std::string_view text, const std::string& source_name);

// Reads and parses a file (kIoError when it cannot be read).
Result<ProblemCsv> ReadProblemCsv(const std::string& path);

// CSV text for `problem` with an offset column from `offsets_bytes` (one per
// buffer), or without one when `offsets_bytes` is empty. Ids come from
// problem.ids when it has one per buffer, else the row index.
std::string FormatProblemCsv(const ProblemCsv& problem, Span<const size_t> offsets_bytes);

// Writes FormatProblemCsv(problem, offsets_bytes) to `path`.
[[nodiscard]] Status WriteProblemCsv(const std::string& path, const ProblemCsv& problem,
                                     Span<const size_t> offsets_bytes);

}  // namespace microarena
