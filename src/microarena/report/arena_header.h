// The arena header (host): a C++17 header a firmware includes to size its
// tensor arena, with compile-time checks that fail the firmware build when
// the model it embeds, or its interpreter options, are not the ones the
// figures were measured for. What `microarena plan MODEL --header FILE`
// writes.
//
// The header is self-contained (only <stddef.h> and <stdint.h>) and compiles
// with g++ and arm-none-eabi-g++ without the C++ standard library. Its top
// comment documents the constants, the checks and the workflow.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "microarena/analysis/tiling.h"
#include "microarena/report/sha256.h"
#include "microarena/runtime/host_runner.h"

namespace microarena::report {

struct ArenaHeaderInput {
  std::string model_label;           // how the header names the model (its path)
  size_t model_size_bytes = 0;
  Sha256Digest model_sha256{};
  InterpreterOptions options;        // the options the figures were measured with
  ArenaFigures figures;              // from MeasureArena with `options`
  bool model_has_offline_plan = false;
  std::string namespace_name = "microarena_arena";  // a C++ identifier
  std::string command_line;          // how to regenerate the header
  // With `plan --precomputed-plan`: the head's layout, written into the
  // header (figures then are those of AllocateTensors with it). Borrowed.
  const PrecomputedPlanData* precomputed = nullptr;
  // With `plan --tile --header`: the segments the figures were measured
  // running band by band; the header carries them for the firmware's
  // TiledExecution. Empty: the firmware runs the model whole.
  std::vector<TiledSegment> tiling;
};

// Whether `name` can name something in generated C and C++ (a namespace,
// an array): letters, digits and '_', not starting with a digit, not
// reserved ("__" or '_' + capital first), not a keyword, at most 200
// characters.
bool IsUsableIdentifier(const std::string& name);
// The same, for the header's namespace.
bool IsValidHeaderNamespace(const std::string& name);

// The header text.
std::string ArenaHeader(const ArenaHeaderInput& input);

}  // namespace microarena::report
