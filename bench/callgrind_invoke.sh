#!/usr/bin/env bash
# Instructions executed inside one Invoke() per MLPerf Tiny model, counted by
# valgrind's callgrind (repeatable, unlike wall time), next to TFLM's figures
# for the same models (../shared/golden/tflm_arena.csv, reference kernels, -O2,
# -DNDEBUG, seed 1).
#   bench/callgrind_invoke.sh [BUILD_DIR]     (default build/release)
# scripts/figures.sh reads this table for README.md's instruction counts (a
# Release build's: a Debug or sanitizer build executes other instructions).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
shared=${MICROARENA_SHARED_DIR:-../shared}
cli=$build/tools/microarena/microarena
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
[ -x "$cli" ] || { echo "$cli not built (cmake --preset release && cmake --build --preset release)" >&2; exit 1; }
[ -f "$shared/golden/tflm_arena.csv" ] || { echo "shared data not found at $shared" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-24s %16s %16s %8s\n' model microarena TFLM ratio
for model in kws_ref_model vww_96_int8 pretrainedResnet_quant ad01_int8; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$model.out" \
    --toggle-collect='microarena::Interpreter::Invoke()' \
    "$cli" run "$shared/models/$model.tflite" --output-dir "$tmp" --seed 1 >/dev/null 2>"$tmp/$model.log"
  ours=$(grep -m1 '^summary:' "$tmp/$model.out" | awk '{print $2}')
  tflm=$(awk -F, -v m="$model" 'NR==1{for(i=1;i<=NF;i++) if($i=="invoke_instructions_release") c=i} $1==m{print $c}' \
    "$shared/golden/tflm_arena.csv")
  ratio=$(awk -v a="$ours" -v b="$tflm" 'BEGIN{printf "%.3f", a/b}')
  printf '%-24s %16s %16s %8s\n' "$model" "$ours" "$tflm" "$ratio"
done
