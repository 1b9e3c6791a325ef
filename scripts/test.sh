#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   1. each preset (release, then AddressSanitizer + UndefinedBehaviorSanitizer):
#      configure, build, ctest; then the op table is held to the op/type
#      pairs the tests compared with TFLM (scripts/oracle_coverage.py);
#      the TFLM oracle's answers of the first preset are kept for the
#      second (build/oracle_cache, emptied at the start of each run, or
#      MICROARENA_ORACLE_CACHE=DIR, kept as it is);
#   2. fuzz: every libFuzzer target, deterministic: a fixed seed and a fixed
#      number of executions from the same seed corpus (scripts/fuzz.sh --ci);
#      saved findings are replayed in every preset's tests already;
#   3. cortex_m: the Cortex-M4 firmware cross-compiled and run under QEMU,
#      outputs compared byte for byte with the host (scripts/cortex_m.sh).
#   scripts/test.sh            everything
#   MICROARENA_TEST_PRESETS="release" scripts/test.sh   only the named presets
#   MICROARENA_TEST_STAGES="presets fuzz" scripts/test.sh   only the named stages
# Strict by default (MICROARENA_STRICT=1, what CI runs): a test or stage that
# lacks the shared data (../shared or MICROARENA_SHARED_DIR: models, goldens,
# tools/tflm_oracle, tools/minimalloc, dsa problems), chromium,
# arm-none-eabi-g++ or QEMU fails, saying what is missing. On a partial
# developer machine, MICROARENA_STRICT=0 scripts/test.sh skips those instead
# and prints, per preset, how many tests were skipped and why.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
presets=${MICROARENA_TEST_PRESETS:-"release asan"}
stages=${MICROARENA_TEST_STAGES:-"presets fuzz cortex_m"}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export MICROARENA_STRICT=${MICROARENA_STRICT:-1}

stage="setup"
trap 'echo "!!!! FAILED in stage: $stage ($((SECONDS - stage_start)) s into it, $SECONDS s in all)" >&2' ERR
has_stage() { [[ " $stages " == *" $1 "* ]]; }
# Every stage is timed: the summary at the end shows where the run's time goes.
stage_start=0  # the setup stage counts the packages (scripts/deps.sh) too
stage_times=()
begin_stage() {
  end_stage
  stage=$1
  stage_start=$SECONDS
  echo "==== $stage ($(date -u +%H:%M:%S))"
}
end_stage() { stage_times+=("$(printf '%5d s  %s' $((SECONDS - stage_start)) "$stage")"); }

# Strict: the shared data every headline check reads must be there before
# anything is built, so a run without it fails in seconds, naming what is
# missing (the tests check it again, one by one).
if [[ $MICROARENA_STRICT == 1 ]]; then
  stage="setup: shared data"
  shared=${MICROARENA_SHARED_DIR:-../shared}
  missing=()
  for need in models/kws_ref_model.tflite golden/tflm_arena.csv golden/tflm_arena_cortex_m4.csv golden/tflm_plans \
    tools/tflm_oracle tools/minimalloc dsa/A.1048576.csv tflm_integration regressions; do
    [[ -e $shared/$need ]] || missing+=("$shared/$need")
  done
  if ((${#missing[@]} > 0)); then
    echo "!!!! the shared data is missing (MICROARENA_SHARED_DIR or ../shared; MICROARENA_STRICT=0 skips its tests" \
      "on a partial developer machine):" >&2
    printf '     %s\n' "${missing[@]}" >&2
    exit 1
  fi
fi

if has_stage presets; then
  # The TFLM oracle's answers, kept for this run only: the second preset asks
  # the same questions (tests/support/oracle_cache.h). A folder given in
  # MICROARENA_ORACLE_CACHE is used as it is, never emptied.
  if [[ -z ${MICROARENA_ORACLE_CACHE:-} ]]; then
    export MICROARENA_ORACLE_CACHE=$PWD/build/oracle_cache
    rm -rf "$MICROARENA_ORACLE_CACHE"
  fi
  mkdir -p "$MICROARENA_ORACLE_CACHE"
  for preset in $presets; do
    begin_stage "$preset: configure and build"
    scripts/configure.sh "$preset"
    cmake --build --preset "$preset" -j "$jobs"
    begin_stage "$preset: tests"
    coverage="build/$preset/oracle_coverage.txt"
    skips="build/$preset/skipped_tests.txt"
    rm -f "$coverage" "$skips"
    MICROARENA_ORACLE_COVERAGE="$PWD/$coverage" MICROARENA_SKIP_LOG="$PWD/$skips" ctest --preset "$preset" -j "$jobs"
    if [[ -s $skips ]]; then
      echo "==== $preset: $(wc -l <"$skips") tests skipped (MICROARENA_STRICT=$MICROARENA_STRICT), by what is missing:"
      sed 's/^[^:]*: //' "$skips" | sort | uniq -c | sort -rn
    fi
    begin_stage "$preset: every op and type of the table compared with TFLM"
    if [[ $MICROARENA_STRICT != 1 && -s $skips ]]; then
      echo "SKIPPED: tests were skipped, so the coverage is incomplete (MICROARENA_STRICT=$MICROARENA_STRICT)"
    else
      "build/$preset/tools/microarena/microarena" ops --json > "build/$preset/ops.json"
      python3 scripts/oracle_coverage.py "build/$preset/ops.json" "$coverage"
    fi
  done
fi
if has_stage fuzz; then
  begin_stage "fuzz: fixed seeds and executions"
  scripts/fuzz.sh --ci
fi
if has_stage cortex_m; then
  begin_stage "cortex_m: firmware under QEMU"
  scripts/cortex_m.sh
fi
end_stage
echo "==== time per stage"
printf '%s\n' "${stage_times[@]}"
printf '%5d s  in all\n' "$SECONDS"
echo "==== all passed (stages: $stages; presets: $presets; MICROARENA_STRICT=$MICROARENA_STRICT)"
