#!/usr/bin/env bash
# simulation_apps.sh SRC_DIR BUILD_DIR — a Tessera app end to end under SimGrid's SMPI
# (docs/simulation.md): the SimGrid flavour of tess-mhd (TESS_SIMGRID=1 scripts/build.sh, into
# BUILD_DIR, incremental) runs 64^3 on 8 simulated ranks of sim/machine.py's 1-GPU H200 node
# under starpu_smpirun, with synthetic task times (TESS_SIM_MODELS=synthetic: no calibrated
# models here). Checks:
#   1. the run exits 0, says what the simulation skips ("simulate: ...") and prints a time per
#      step above 0;
#   2. a setting that needs field values (a snapshot) is refused: exit 2 and one message.
# Skips (77) when the SimGrid StarPU is not installed.
set -uo pipefail
src=$(cd "${1:?usage: simulation_apps.sh SRC_DIR BUILD_DIR}" && pwd)
build=${2:?usage: simulation_apps.sh SRC_DIR BUILD_DIR}
cache=${TESSERA_CACHE:-$HOME/.cache/tessera}
prefix=$(ls -d "$cache"/starpu-1.3.10-*-simgrid 2>/dev/null | head -1)
if [ -z "$prefix" ] || [ ! -f "$prefix/.complete" ] || ! command -v smpicc > /dev/null; then
  echo "SKIP: no SimGrid StarPU in $cache (scripts/install-simgrid.sh builds it)"
  exit 77
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)
t0=$(date +%s)
if ! (cd "$src" && TESS_SIMGRID=1 TESS_TARGETS=tess-mhd scripts/build.sh "$build") \
  > "$build/test-build.log" 2>&1; then
  tail -30 "$build/test-build.log"
  echo "FAIL: the SimGrid build of tess-mhd (log: $build/test-build.log)"
  exit 1
fi
echo "SimGrid build of tess-mhd: $(($(date +%s) - t0)) s"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export STARPU_HOME=$work/home STARPU_HOSTNAME=h200x1 STARPU_PERF_MODEL_DIR=$work/home/sampling
export STARPU_NCUDA=1 STARPU_SIMGRID_CUDA_MALLOC_COST=0 TESS_SIM_MODELS=synthetic
/usr/bin/python3 "$src/sim/machine.py" "$STARPU_PERF_MODEL_DIR" --gpus 1 --name h200x1 > /dev/null
np=8
for i in $(seq 0 $((np - 1))); do echo "node$i"; done > "$work/hostfile"
cp "$src/sim/cluster.xml" "$work/cluster.xml"
smpirun() { # LOG ARGS...: tess-mhd under starpu_smpirun on np simulated ranks; its status
  local log=$1
  shift
  (cd "$work" && timeout 300 "$prefix/bin/starpu_smpirun" -platform cluster.xml \
    -hostfile hostfile -np $np "$build/apps/mhd/tess-mhd" --device cuda --grid 64,64,64 \
    --every 0 "$@" > "$log" 2>&1)
}
ok=1
t0=$(date +%s)
smpirun "$work/run.log" --steps 10
rc=$?
wall=$(($(date +%s) - t0))
ms=$(awk '/^time per step/ {print $4}' "$work/run.log")
grep -E '^(simulate|grid|time per step|median)' "$work/run.log"
if [ $rc -ne 0 ] || [ -z "$ms" ] || ! grep -q '^simulate: SimGrid build' "$work/run.log" ||
  ! awk -v t="$ms" 'BEGIN { exit !(t > 0) }'; then
  grep -v ker_lmm "$work/run.log" | tail -30 # SimGrid's exit warnings would hide the error
  echo "FAIL: tess-mhd on $np simulated ranks: exit $rc, time per step '${ms}'"
  ok=0
else
  echo "ok: tess-mhd 64^3 on $np simulated ranks: $ms ms per step (simulated), $wall s of wall time"
fi
smpirun "$work/refused.log" --steps 2 --set output.snapshot_every=1
rc=$?
n=$(grep -c 'is not available in the SimGrid build' "$work/refused.log")
if [ $rc -ne 2 ] || [ "$n" -ne 1 ]; then
  tail -20 "$work/refused.log"
  echo "FAIL: a snapshot request: exit $rc (want 2), $n refusal messages (want 1)"
  ok=0
else
  echo "ok: a snapshot request is refused (exit 2, one message)"
fi
[ $ok = 1 ]
