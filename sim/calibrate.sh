#!/usr/bin/env bash
# calibrate.sh BUNDLE_DIR [NAME] — StarPU's performance models of Tessera's tasks on one real GPU,
# for the SimGrid flavour (docs/simulation.md). Runs on the GPU host from a bundle built by
# scripts/gpu-bundle.sh; writes under $OUT (default /tmp/calibrate):
#
#   models/<NAME>/sampling/bus/<NAME>.*         the bus: host<->GPU bandwidth and latency, platform
#   models/<NAME>/sampling/codelets/45/tess_*   one history per task kind (symbol) and tile shape
#   models/<NAME>/HEAD                          the commit, the command, the GPU, the cases run
#   logs/                                       the apps' output
#
# NAME defaults to h200. The cases are the tile shapes bench/simulate.sh simulates: MHD fp64 and
# Cahn-Hilliard on 256^3 and 512^3 tiles, overlapped and bulk; the domain split into 1, 2, 4 and 8
# tiles on the one GPU (runtime.tiles), which gives the tasks the shapes they have when the same
# split is over ranks. STARPU_CALIBRATE=1 keeps sampling; 60 steps give each footprint well over
# the 10 samples StarPU wants before it trusts a history.
# STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1: histories are kept per kind of GPU, not per GPU index, so
# the one calibrated GPU stands for all GPUs of a simulated node.
# CALIB_CASES picks cases ("mhd:256:1,2,4,8 mhd:512:1,2,4,8 ch:512:1,2,4" by default, app:size:
# tile counts), CALIB_MODES the modes ("overlap bulk"), CALIB_BUDGET_S the wall seconds after
# which no further case starts (default none): the models of the cases run are kept, and HEAD
# lists those run and those skipped.
set -uo pipefail
bundle=$(cd "${1:?usage: calibrate.sh BUNDLE_DIR [NAME]}" && pwd)
name=${2:-h200}
here=$(cd "$(dirname "$0")" && pwd)
source "$bundle/env.sh" >/dev/null 2>&1
export LD_LIBRARY_PATH=$bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1
out=${OUT:-/tmp/calibrate}
models=$out/models/$name
mkdir -p "$out/logs" "$models"
export STARPU_HOME=$out/starpu-home STARPU_HOSTNAME=$name STARPU_CALIBRATE=1
export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_SCHED=dmdas STARPU_NCUDA=1
B=$bundle/extra/build
mhd=$B/apps/mhd/tess-mhd ch=$B/apps/cahn_hilliard/tess-ch
{
  echo "# commit $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || cat "$bundle/commit.txt" 2>/dev/null || echo unknown)"
  echo "# command: CALIB_CASES='${CALIB_CASES:-}' CALIB_MODES='${CALIB_MODES:-}' CALIB_BUDGET_S=${CALIB_BUDGET_S:-} sim/calibrate.sh $* (STARPU_CALIBRATE=1 STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_SCHED=dmdas STARPU_NCUDA=1)"
  echo "# date: $(date -u +%FT%TZ)"
  nvidia-smi -L 2>/dev/null | sed 's/^/# /'
} > "$models/HEAD"

# case APP N TILES MODE: one calibration run, one line in HEAD and on stdout
case_run() {
  local app=$1 n=$2 tiles=$3 mode=$4 bin args steps=60
  case $app in
    mhd) bin=$mhd args="--set init.ic=random --dt 1.1920929e-7" ;;
    ch) bin=$ch args="--variant fused" ;;
  esac
  [ "$n" -ge 512 ] && steps=30
  local log=$out/logs/$app-$n-t$tiles-$mode.log t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 400 "$bin" --device cuda --grid "$n,$n,$n" --tiles "$tiles" --mode "$mode" --every 0 \
    --warmup 5 --steps "$steps" $args > "$log" 2>&1
  local rc=$? med
  med=$(awk '/^median/ {print $2}' "$log")
  echo "$app $n^3 tiles $tiles $mode: rc $rc, median ${med:-?} ms, $((SECONDS - t0)) s" | tee -a "$models/HEAD"
}

budget=${CALIB_BUDGET_S:-0}
for mode in ${CALIB_MODES:-overlap bulk}; do
  for c in ${CALIB_CASES:-mhd:256:1,2,4,8 mhd:512:1,2,4,8 ch:512:1,2,4}; do
    IFS=: read -r app n tl <<< "$c"
    for tiles in ${tl//,/ }; do
      if [ "$budget" -gt 0 ] && [ "$SECONDS" -ge "$budget" ]; then
        echo "$app $n^3 tiles $tiles $mode: skipped (CALIB_BUDGET_S=$budget spent)" | tee -a "$models/HEAD"
        continue
      fi
      case_run "$app" "$n" "$tiles" "$mode"
    done
  done
done
cp -r "$STARPU_HOME/.starpu/sampling" "$models/"
du -sh "$models" | tee -a "$models/HEAD"
