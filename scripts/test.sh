#!/usr/bin/env bash
# test.sh — the README's test command: set up a fresh Debian machine (packages, StarPU),
# build, and run the whole ctest suite (CPU only; GPU checks live in scripts/gpu-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
scripts/build.sh "$build"
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
