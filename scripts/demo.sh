#!/usr/bin/env bash
# The main job on the bundled demo model: installs what is missing, builds the
# release preset, generates the demo model (a keyword-spotting DS-CNN), shows
# what is inside it, plans its arena and runs it in exactly that arena.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset release >/dev/null
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

section "microarena plan $model"
"$microarena" plan "$model"

section "microarena run $model --output-dir $out"
"$microarena" run "$model" --output-dir "$out" --repeat 20
