#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan; build/fuzz) and runs each
# for SECONDS seconds on a corpus under build/fuzz/corpus/<target>, seeded at
# run time from the shared models (when present), the demo model and the DSA
# problems. A crash, leak, sanitizer report or broken invariant fails the run;
# the reproducer is left in build/fuzz/findings/<target>/.
#   scripts/fuzz.sh                 every target for 60 s
#   scripts/fuzz.sh 30              every target for 30 s (what scripts/test.sh runs)
#   scripts/fuzz.sh 3600 interpreter_fuzz   one target for an hour
# Prints one line per target: executions and the corpus size.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
all_targets=(model_load_fuzz plan_pipeline_fuzz problem_csv_fuzz interpreter_fuzz)
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=("${all_targets[@]}")

build=build/fuzz
# The CLI that writes the seeds: a host build's when there is one (no need to
# build it again with the fuzzer's instrumentation), else the fuzz build's.
cli=${MICROARENA_HOST_CLI:-build/release/tools/microarena/microarena}
build_targets=("${targets[@]}")
if [[ ! -x $cli ]]; then
  cli=$build/tools/microarena/microarena
  build_targets+=(microarena)
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc 2>/dev/null || echo 2)" --target "${build_targets[@]}" >"$build.log" 2>&1 ||
  { tail -40 "$build.log" >&2; echo "!! fuzz: build failed (log $build.log)" >&2; exit 1; }

# Seeds: copies, written under the build tree only.
shared=${MICROARENA_SHARED_DIR:-../shared}
seeds=$build/seeds
mkdir -p "$seeds/models" "$seeds/csv"
"$cli" demo-model -o "$seeds/models/demo.tflite" >/dev/null
if [[ -d "$shared/models" ]]; then
  cp -f "$shared"/models/*.tflite "$seeds/models/"
else
  echo "fuzz: no shared data at $shared (set MICROARENA_SHARED_DIR); seeding from the demo model only"
fi
# CSV seeds: the small DSA problems, and each seed model's plan problem.
if [[ -d "$shared/dsa" ]]; then
  for csv in "$shared"/dsa/*.csv; do
    [[ $(stat -c %s "$csv") -le 65536 ]] && cp -f "$csv" "$seeds/csv/"
  done
fi
for model in "$seeds"/models/*.tflite; do
  "$cli" plan "$model" --csv "$seeds/csv/$(basename "$model" .tflite).csv" \
    >/dev/null 2>&1 || true
done
printf 'id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,1,4,8\n' >"$seeds/csv/minimal.csv"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for target in "${targets[@]}"; do
  corpus=$build/corpus/$target
  findings=$build/findings/$target
  mkdir -p "$corpus" "$findings"
  seed_dir=$seeds/models
  [[ $target == problem_csv_fuzz ]] && seed_dir=$seeds/csv
  log=$build/$target.log
  echo "== fuzz: $target for ${seconds}s"
  # -rss_limit_mb: the arena is bounded; anything near this is a runaway.
  if "$build/tests/fuzz/$target" "$corpus" "$seed_dir" -max_total_time="$seconds" -timeout=25 \
      -rss_limit_mb=2048 -max_len=400000 -print_final_stats=1 -artifact_prefix="$findings/" \
      >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "   $target: ${runs:-?} executions, $(ls "$corpus" | wc -l) corpus files, no findings"
  else
    echo "!! $target FAILED; reproducer in $findings/, log $log:" >&2
    grep -E "ERROR|SUMMARY|invariant|Test unit written" "$log" | head -20 >&2 || tail -30 "$log" >&2
    status=1
  fi
done
exit $status
