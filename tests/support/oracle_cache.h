#ifndef MICROARENA_TESTS_SUPPORT_ORACLE_CACHE_H_
#define MICROARENA_TESTS_SUPPORT_ORACLE_CACHE_H_

#include <functional>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace microarena::testing {

// The TFLM oracle's answers, kept for the rest of one test run.
//
// scripts/test.sh runs the same tests in two presets (release, then the
// sanitizers); the oracle is a fixed binary and deterministic, so the second
// preset would ask it the same questions again (the minimum-arena searches
// alone take minutes). With MICROARENA_ORACLE_CACHE=DIR set, an answer is
// stored in DIR under a key made of everything the oracle reads: its binary
// (size and modification time), every argument, and the content of every
// argument that names a file. An answer is its exit status, stdout, stderr
// and the files it wrote under --out-dir / --dump-tensors, each restored on a
// hit at the paths of the new call. scripts/test.sh empties DIR at the start
// of each run, so every answer a run compares with comes from the oracle in
// that run. Unset: every call runs the oracle.
//
// `run` runs the oracle with `args`; it is called on a miss (and always
// without a cache). Runs killed by a signal (exit 128 or more through the
// shell) are not kept; only files that are new or changed after the run are
// kept of an output folder; a cache folder that cannot be read or written
// changes no answer (the oracle runs, or its answer is not kept).
CommandResult CachedOracleRun(const std::string& oracle, const std::vector<std::string>& args,
                              const std::function<CommandResult()>& run);

// How many calls of this process were answered from the cache (for tests).
size_t OracleCacheHits();

}  // namespace microarena::testing

#endif  // MICROARENA_TESTS_SUPPORT_ORACLE_CACHE_H_
