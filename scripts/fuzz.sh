#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan; build/fuzz) and runs them.
#
#   scripts/fuzz.sh --ci [TARGET...]       deterministic (what scripts/test.sh runs): each target
#                                          from the same seed corpus with a fixed random seed for
#                                          a fixed number of executions, so one commit always
#                                          gets the same verdict
#   scripts/fuzz.sh SECONDS [TARGET...]    a campaign: random seeds, for SECONDS per target, on a
#                                          corpus kept under build/fuzz/corpus/<target>; every
#                                          finding is saved to tests/fuzz/regressions/<target>/
#                                          (replayed by tests/fuzz_replay_test.cc from then on)
#                                          and the run goes on until the time is up
#   scripts/fuzz.sh                        a campaign of 60 s per target
#
# Seeds, written at run time under build/fuzz/seeds (never committed): the
# shared models (MICROARENA_SHARED_DIR or ../shared), the demo model, the
# control-flow models of tests/control_flow, the small
# DSA problems and each seed model's plan problem, plus the saved findings.
# Prints one line per target: executions, coverage, corpus size, findings.
#   MICROARENA_FUZZ_CI_RUNS=N   executions per target in --ci mode (default: per target below)
set -euo pipefail
cd "$(dirname "$0")/.."

ci=0
if [[ ${1:-} == --ci ]]; then
  ci=1
  shift
fi
seconds=60
if [[ $ci -eq 0 && ${1:-} =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
all_targets=(model_load_fuzz plan_pipeline_fuzz problem_csv_fuzz interpreter_fuzz)
targets=()
for target in "$@"; do
  [[ " ${all_targets[*]} " == *" $target "* ]] ||
    { echo "fuzz.sh: unknown target '$target' (targets: ${all_targets[*]})" >&2; exit 2; }
  [[ " ${targets[*]} " == *" $target "* ]] || targets+=("$target")  # each once
done
[[ ${#targets[@]} -eq 0 ]] && targets=("${all_targets[@]}")

# --ci: a fixed libFuzzer seed and execution count per target, sized for about
# 30 s each on a 2-core machine (the runs, not the time, are fixed; measured
# 2026-12-05: 300,000 model loads took 89 s, 200,000 plan pipelines 78 s,
# 40,000 CSV problems 43 s, 15,000 interpreter runs 23 s, so the first three
# were cut to about 30 s; longer searches are campaigns, run on demand), and
# -reload=0: re-reading the corpus folder every second is the one clock-driven
# step of a libFuzzer run; without it the same seed explores the same way.
ci_seed() { echo 1234; }
ci_runs() {
  if [[ -n ${MICROARENA_FUZZ_CI_RUNS:-} ]]; then echo "$MICROARENA_FUZZ_CI_RUNS"; return; fi
  case $1 in
    model_load_fuzz) echo 100000 ;;
    plan_pipeline_fuzz) echo 80000 ;;
    problem_csv_fuzz) echo 28000 ;;
    interpreter_fuzz) echo 15000 ;;
  esac
}

build=build/fuzz
# The CLI that writes the seeds: a host build's when there is one (no need to
# build it again with the fuzzer's instrumentation), else the fuzz build's.
cli=${MICROARENA_HOST_CLI:-build/release/tools/microarena/microarena}
build_targets=("${targets[@]}" write_fuzz_seeds)
if [[ ! -x $cli ]]; then
  cli=$build/tools/microarena/microarena
  build_targets+=(microarena)
fi
# One build at a time: campaigns of several targets may run side by side.
mkdir -p "$build"
exec 9>"$build/.build.lock"
flock 9
scripts/configure.sh fuzz
cmake --build --preset fuzz -j "$(nproc 2>/dev/null || echo 2)" --target "${build_targets[@]}" >"$build.$$.log" 2>&1 ||
  { tail -40 "$build.$$.log" >&2; echo "!! fuzz: build failed (log $build.$$.log)" >&2; exit 1; }
rm -f "$build.$$.log"
flock -u 9

# Seeds: copies, written under the build tree only, the same on every run.
shared=${MICROARENA_SHARED_DIR:-../shared}
seeds=$build/seeds/$$
rm -rf "$seeds"
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds/models" "$seeds/csv"
"$cli" demo-model -o "$seeds/models/demo.tflite" >/dev/null
"$build/tests/fuzz/write_fuzz_seeds" "$seeds/models"
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
  "$cli" plan "$model" --planner greedy --csv "$seeds/csv/$(basename "$model" .tflite).csv" \
    >/dev/null 2>&1 || true
done
printf 'id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,1,4,8\n' >"$seeds/csv/minimal.csv"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# --ci also turns address-space randomisation off: libFuzzer learns from the
# values the program compares, pointers among them, so with ASLR the same seed
# still drifts apart after some 100,000 executions (measured on
# plan_pipeline_fuzz).
launcher=()
if [[ $ci -eq 1 ]]; then
  setarch "$(uname -m)" -R true 2>/dev/null ||
    { echo "!! fuzz --ci: 'setarch -R' cannot turn off ASLR here; the run would not be repeatable" >&2; exit 1; }
  launcher=(setarch "$(uname -m)" -R)
fi

# Runs one libFuzzer process; extra flags after the log file.
run_fuzzer() {
  local target=$1 log=$2
  shift 2
  # -rss_limit_mb: the arena is bounded; anything near this is a runaway.
  "${launcher[@]}" "$build/tests/fuzz/$target" "$@" -rss_limit_mb=2048 -max_len=400000 -print_final_stats=1 >"$log" 2>&1
}
# "N executions in S s, cov C, ft F" from a libFuzzer log.
log_figures() {
  local runs cov seconds
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$1" | tail -1 | sed 's/cov: \([0-9]*\) ft: \([0-9]*\)/cov \1, ft \2/')
  seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$1" | tail -1)
  echo "${runs:-?} executions${seconds:+ in $seconds s}, ${cov:-cov ?}"
}

seed_dir_of() { if [[ $1 == problem_csv_fuzz ]]; then echo "$seeds/csv"; else echo "$seeds/models"; fi; }

# --ci: one target's fixed run; prints its lines, fails on a finding.
ci_run() {
  local target=$1 saved=tests/fuzz/regressions/$1 inputs corpus findings log runs
  inputs=("$(seed_dir_of "$target")")
  # Saved findings seed --ci (they are fixed); a campaign leaves them out, so
  # that one found earlier in the same campaign does not stop the next round.
  [[ -d $saved ]] && inputs+=("$saved")
  # A fresh corpus each time: what earlier runs added must not change this one.
  corpus=$build/ci_corpus/$target
  findings=$build/ci_findings/$target
  rm -rf "$corpus" "$findings"
  mkdir -p "$corpus" "$findings"
  log=$build/$target.ci.log
  runs=$(ci_runs "$target")
  echo "== fuzz --ci: $target, seed $(ci_seed), $runs executions"
  if run_fuzzer "$target" "$log" "$corpus" "${inputs[@]}" -seed="$(ci_seed)" -runs="$runs" -reload=0 \
      -timeout=120 -artifact_prefix="$findings/"; then
    echo "   $target: $(log_figures "$log"), $(ls "$corpus" | wc -l) new corpus files, no findings"
  else
    echo "!! $target FAILED; reproducer in $findings/, log $log:"
    grep -E "ERROR|SUMMARY|runtime error|invariant|Test unit written" "$log" | head -20 || tail -30 "$log"
    echo "!! fix it, then add the reproducer as tests/fuzz/regressions/$target/<kind>-<sha1>"
    return 1
  fi
}

status=0
if [[ $ci -eq 1 ]]; then
  # The targets side by side, one lane per core (lane k runs targets k,
  # k + lanes, ... in turn): each is its own process with its own seed,
  # corpus and run count, so the verdict is the one of a run one after the
  # other (the executions are fixed, not the time). Their lines are printed
  # in the targets' order once all have ended.
  lanes=$(nproc 2>/dev/null || echo 2)
  lane_pids=()
  for target in "${targets[@]}"; do rm -f "$build/$target.ci.out" "$build/$target.ci.passed"; done
  # Interrupted: the lanes and their fuzzers stop too.
  trap 'for pid in "${lane_pids[@]}"; do pkill -P "$pid" 2>/dev/null; kill "$pid" 2>/dev/null; done; exit 130' INT TERM
  for ((lane = 0; lane < lanes; ++lane)); do
    (
      for ((k = lane; k < ${#targets[@]}; k += lanes)); do
        target=${targets[$k]}
        if ci_run "$target" >"$build/$target.ci.out" 2>&1; then touch "$build/$target.ci.passed"; fi
      done
    ) &
    lane_pids+=($!)
  done
  wait "${lane_pids[@]}" || true
  trap - INT TERM
  # A target passed only if its run said so (a lane that died leaves none).
  for target in "${targets[@]}"; do
    if [[ -e $build/$target.ci.passed ]]; then
      cat "$build/$target.ci.out"
    else
      cat "$build/$target.ci.out" >&2 2>/dev/null || true
      echo "!! $target: failed or did not run (its lane's output: $build/$target.ci.out)" >&2
      status=1
    fi
  done
  exit $status
fi

for target in "${targets[@]}"; do
  saved=tests/fuzz/regressions/$target
  inputs=("$(seed_dir_of "$target")")

  corpus=$build/corpus/$target
  findings=$build/findings/$target
  mkdir -p "$corpus" "$findings" "$saved"
  log_all=$build/$target.campaign.log
  : >"$log_all"
  echo "== fuzz: $target for ${seconds}s"
  end=$((SECONDS + seconds))
  total_runs=0
  found=0
  round=0
  while ((SECONDS < end)); do
    round=$((round + 1))
    log=$build/$target.log
    before=$(ls "$findings" | wc -l)
    if run_fuzzer "$target" "$log" "$corpus" "${inputs[@]}" -max_total_time=$((end - SECONDS)) -timeout=25 \
        -artifact_prefix="$findings/"; then
      ok=1
    else
      ok=0
    fi
    cat "$log" >>"$log_all"
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    total_runs=$((total_runs + ${runs:-0}))
    [[ $ok -eq 1 ]] && break
    # A finding: save it where the replay test picks it up, then go on.
    new=0
    for artifact in "$findings"/*; do
      [[ -f $artifact ]] || continue
      name=$(basename "$artifact")
      if [[ ! -e $saved/$name ]]; then
        cp "$artifact" "$saved/$name"
        new=$((new + 1))
        echo "!! $target: finding saved as $saved/$name" >&2
        grep -E "ERROR|SUMMARY|runtime error|invariant" "$log" | head -5 >&2 || true
      fi
    done
    found=$((found + new))
    status=1
    if [[ $(ls "$findings" | wc -l) -eq $before || $found -ge 20 ]]; then
      echo "!! $target: stopped (no new artifact, or 20 findings); log $log" >&2
      tail -20 "$log" >&2
      break
    fi
  done
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log_all" | tail -1 | sed 's/cov: \([0-9]*\) ft: \([0-9]*\)/cov \1, ft \2/')
  echo "   $target: $total_runs executions in $round run(s), ${cov:-cov ?}, $(ls "$corpus" | wc -l) corpus files, $found findings"
done
exit $status
