#!/usr/bin/env bash
# The main job on the bundled demo model: installs what is missing, builds the
# release preset, generates the demo model (a keyword-spotting DS-CNN) and shows
# what is inside it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)"

microarena=build/release/tools/microarena/microarena
model=build/demo/demo_kws.tflite
mkdir -p build/demo
"$microarena" demo-model -o "$model"
echo
"$microarena" inspect "$model"
