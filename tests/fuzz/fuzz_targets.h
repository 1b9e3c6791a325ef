// The fuzz targets as plain functions, so that one body serves two drivers:
// libFuzzer (scripts/fuzz.sh; the fuzz build defines
// MICROARENA_FUZZ_ENTRY_POINTS and each target file then exports
// LLVMFuzzerTestOneInput) and the replay test (tests/fuzz_replay_test.cc),
// which feeds every saved finding to the same function in the ordinary and
// the sanitizer builds. A target returns 0; a broken invariant aborts.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena::fuzz {

int ModelLoadOneInput(const uint8_t* data, size_t size);
int PlanPipelineOneInput(const uint8_t* data, size_t size);
int ProblemCsvOneInput(const uint8_t* data, size_t size);
int InterpreterOneInput(const uint8_t* data, size_t size);

struct FuzzTarget {
  const char* name;  // the executable's name, and the prefix of its findings
  int (*one_input)(const uint8_t* data, size_t size);
};

inline constexpr FuzzTarget kFuzzTargets[] = {
    {"model_load_fuzz", &ModelLoadOneInput},
    {"plan_pipeline_fuzz", &PlanPipelineOneInput},
    {"problem_csv_fuzz", &ProblemCsvOneInput},
    {"interpreter_fuzz", &InterpreterOneInput},
};

}  // namespace microarena::fuzz

#ifdef MICROARENA_FUZZ_ENTRY_POINTS
#define MICROARENA_FUZZ_ENTRY_POINT(function) \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return microarena::fuzz::function(data, size); }
#else
#define MICROARENA_FUZZ_ENTRY_POINT(function)
#endif
