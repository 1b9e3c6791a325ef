#!/usr/bin/env bash
# Differential sweep against TFLM (tests/differential_test.cc) for as long as
# asked: one-op models from the case generator, run by microarena and by the
# TFLM oracle (../shared/tools/tflm_oracle), outputs compared byte for byte.
# scripts/test.sh runs seeds 0..1999 in every preset; this goes further.
#   scripts/differential.sh CASES [FIRST]   CASES seeds from FIRST (default: 1,000,000)
# Failures are saved under build/release/differential_failures/seed<N>/ with
# the two commands that reproduce them.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:?usage: scripts/differential.sh CASES [FIRST]}
first=${2:-1000000}
[[ $cases =~ ^[0-9]+$ && $first =~ ^[0-9]+$ ]] || { echo "differential.sh: CASES and FIRST are numbers" >&2; exit 2; }
scripts/configure.sh release
cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" --target microarena_tests microarena >/dev/null
MICROARENA_DIFF_FIRST=$first MICROARENA_DIFF_CASES=$cases \
  build/release/tests/microarena_tests --gtest_filter='DifferentialTest.*'
