// Fuzz target: the MiniMalloc CSV problem reader on any text. A problem it
// accepts must round-trip (format, parse again, same buffers) and go through
// every device planner, the checker and the lower bound like a problem from a
// model.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "microarena/plan/problem_csv.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_targets.h"

int microarena::fuzz::ProblemCsvOneInput(const uint8_t* data, size_t size) {
  using namespace microarena;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<ProblemCsv> problem_csv = ParseProblemCsv(text, "fuzz.csv");
  if (!problem_csv.ok()) {
    fuzz::RequireMessage(problem_csv.status(), "ParseProblemCsv error without a message");
    return 0;
  }
  const std::vector<BufferRequest>& buffers = problem_csv->buffers;

  // Round trip: what we write we read back as the same problem.
  std::string written = FormatProblemCsv(*problem_csv, Span<const size_t>(problem_csv->offsets_bytes.data(),
                                                                          problem_csv->offsets_bytes.size()));
  Result<ProblemCsv> reread = ParseProblemCsv(written, "round-trip.csv");
  fuzz::Require(reread.ok(), "formatted CSV does not parse again", reread.ok() ? OkStatus() : reread.status());
  fuzz::Require(reread->buffers.size() == buffers.size(), "round trip changed the buffer count");
  for (size_t i = 0; i < buffers.size(); ++i) {
    fuzz::Require(reread->buffers[i].size_bytes == buffers[i].size_bytes &&
                      reread->buffers[i].lifetime.first_op == buffers[i].lifetime.first_op &&
                      reread->buffers[i].lifetime.end_op == buffers[i].lifetime.end_op,
                  "round trip changed a buffer");
  }
  fuzz::Require(reread->offsets_bytes == problem_csv->offsets_bytes, "round trip changed the offsets");

  // Big problems are slow to plan and say nothing new about the reader.
  if (buffers.size() > 2000) return 0;
  fuzz::PlanWithEveryPlanner(Span<const BufferRequest>(buffers.data(), buffers.size()), 1);
  return 0;
}

MICROARENA_FUZZ_ENTRY_POINT(ProblemCsvOneInput)
