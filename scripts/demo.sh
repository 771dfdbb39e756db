#!/usr/bin/env bash
# demo.sh — the README's demo command: set up, build, and run the main demo on the CPU under
# mpirun: Cahn-Hilliard spinodal decomposition and coarsening in 2D on NP ranks (default 2).
# PNG images of u and VTKHDF snapshots (ParaView) land in ch-out/. Extra arguments go to the app.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
# The demo's app only (scripts/test.sh builds the rest); set-up and build output go to logs.
TESS_QUIET=1 TESS_TARGETS=tess-ch scripts/build.sh "$build"
np=${NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# StarPU measures the bus on its first start and the ranks of one mpirun would race on its
# sampling files: let a single process do it first (a no-op once ~/.starpu holds them).
STARPU_SILENT=1 "$build/apps/cahn_hilliard/tess-ch" --grid 8,8,1 --steps 0 >/dev/null
exec mpirun --oversubscribe -np "$np" "$build/apps/cahn_hilliard/tess-ch" \
  --grid 192,192,1 --variant fused --cfl 0.9 --steps 4000 --every 500 \
  --snapshot-every 1000 --out ch-out "$@"
