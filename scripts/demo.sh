#!/usr/bin/env bash
# The main job on the bundled demo model: installs what is missing, builds the
# release preset, generates the demo model (a keyword-spotting DS-CNN), shows
# what is inside it, plans its arena (memory plan dump, timeline, HTML report,
# firmware header), plans it again with kernel-approved overlap, asks whether it
# fits a RAM budget, writes a copy that carries its plan, and runs both in
# exactly the arena they need.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
scripts/configure.sh release
cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)"

microarena=build/release/tools/microarena/microarena
out=build/demo
model=$out/demo_kws.tflite
mkdir -p "$out"

section() { printf '\n==== %s ====\n\n' "$*"; }

section "microarena demo-model -o $model"
"$microarena" demo-model -o "$model"

section "microarena inspect $model"
"$microarena" inspect "$model"

section "microarena plan $model --timeline --html $out/demo_plan.html --header $out/demo_arena.h"
"$microarena" plan "$model" --timeline --html "$out/demo_plan.html" --header "$out/demo_arena.h"

section "microarena plan $model --overlap   (outputs sharing bytes with inputs their kernels have read)"
"$microarena" plan "$model" --overlap

section "microarena budget $model --ram 18K"
# Exit status 3 means "does not fit as it is"; the report says what to change.
"$microarena" budget "$model" --ram 18K || [[ $? -eq 3 ]]

section "microarena optimize $model -o $out/demo_kws.overlap.tflite --overlap"
"$microarena" optimize "$model" -o "$out/demo_kws.overlap.tflite" --overlap

section "microarena run $model --output-dir $out"
"$microarena" run "$model" --output-dir "$out" --repeat 20

section "microarena run $out/demo_kws.overlap.tflite --overlap --output-dir $out/overlap"
mkdir -p "$out/overlap"
"$microarena" run "$out/demo_kws.overlap.tflite" --overlap --output-dir "$out/overlap" --repeat 20
cmp "$out/output_0.bin" "$out/overlap/output_0.bin"
echo "outputs identical with and without overlap"

section "written"
echo "$out/demo_plan.html   the plan as a page (open it in a browser)"
echo "$out/demo_arena.h     kTensorArenaSize and static_asserts for a firmware build"
