#!/usr/bin/env bash
# demo.sh — the README's demo command: set up, build, and run the main demo on the CPU under
# mpirun (NP ranks, default 2). Extra arguments go to the app.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
scripts/build.sh "$build"
np=${NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_SILENT=1
# Several ranks on a few cores: one StarPU CPU worker per rank, no pinning.
export STARPU_NCPU=${STARPU_NCPU:-1} STARPU_WORKERS_NOBIND=1 STARPU_MPI_NOBIND=1
exec mpirun --oversubscribe -np "$np" "$build/apps/heat/tess-heat" \
  --grid 512,512,1 --order 6 --steps 2000 --every 250 --check "$@"
