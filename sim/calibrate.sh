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
# NAME defaults to h200 (name it for the GPU it ran on). The cases are the tile shapes
# bench/simulate.sh simulates: MHD fp64 and Cahn-Hilliard on 256^3 and 512^3, the domain split
# into 1, 2, 4 and 8 tiles on the one GPU (runtime.tiles):
#   overlap, 1 tile      a lone tile runs each chunk of steps as chains of stages (tess_chain):
#                        the histories of a 1-step and a 9-step chain
#   buffered, 2-8 tiles  every neighbour through pack -> buffer -> unpack, the tasks (inner and
#                        outer classes, packs, unpacks) and shapes a split over GPUs or ranks has;
#                        overlapped tiles sharing one GPU's memory run other tasks (one per tile)
#   bulk, 1-8 tiles      whole-tile updates after the exchange
# STARPU_CALIBRATE=1 keeps sampling; 110 steps after 10 of warm-up (chunks of 10) give each
# footprint at least the 10 samples StarPU wants before it trusts a history (a 1-step and a
# 9-step chain a chunk). Simulate with SIM_WARMUP=10 and SIM_STEPS a multiple of 10 plus 10, so
# that every chain has a calibrated length.
# STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1: histories are kept per kind of GPU, not per GPU index, so
# the one calibrated GPU stands for all GPUs of a simulated node.
# STARPU_NWORKER_PER_CUDA=1 STARPU_CUDA_PIPELINE=0: one task at a time on the GPU, so that a
# history holds the task's own time. Tessera's defaults (2 workers, 32 tasks in flight) let tasks
# share the GPU, and StarPU then records each one's time from start to end: the stages of bulk
# MHD 512^3 in 8 tiles of 256^3 recorded 4.6-5.0 ms each, twice a lone 256^3 tile's 2.4 ms.
# CALIB_CASES picks cases ("mhd:256:1,2,4,8 mhd:512:1,2,4,8 ch:512:1,2,4" by default, app:size:
# tile counts), CALIB_MODES the modes ("overlap buffered bulk"), CALIB_BUDGET_S the wall seconds
# after which no further case starts (default none): the models of the cases run are kept, and
# HEAD lists those run and those skipped.
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
export STARPU_NWORKER_PER_CUDA=1 STARPU_CUDA_PIPELINE=0
B=$bundle/extra/build
mhd=$B/apps/mhd/tess-mhd ch=$B/apps/cahn_hilliard/tess-ch
{
  echo "# commit $(cat "$bundle/commit.txt" 2>/dev/null || git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# command: CALIB_CASES='${CALIB_CASES:-}' CALIB_MODES='${CALIB_MODES:-}' CALIB_BUDGET_S=${CALIB_BUDGET_S:-} sim/calibrate.sh $* (STARPU_CALIBRATE=1 STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_SCHED=dmdas STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=1 STARPU_CUDA_PIPELINE=0)"
  echo "# date: $(date -u +%FT%TZ)"
  nvidia-smi -L 2>/dev/null | sed 's/^/# /'
} > "$models/HEAD"

# case APP N TILES MODE: one calibration run, one line in HEAD and on stdout
case_run() {
  local app=$1 n=$2 tiles=$3 mode=$4 bin args
  case $app in
    mhd) bin=$mhd args="--set init.ic=random --dt 1.1920929e-7" ;;
    ch) bin=$ch args="--variant fused" ;;
  esac
  local log=$out/logs/$app-$n-t$tiles-$mode.log t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 400 "$bin" --device cuda --grid "$n,$n,$n" --tiles "$tiles" --mode "$mode" --every 0 \
    --warmup 10 --steps 120 $args > "$log" 2>&1
  local rc=$? med
  med=$(awk '/^median/ {print $2}' "$log")
  echo "$app $n^3 tiles $tiles $mode: rc $rc, median ${med:-?} ms, $((SECONDS - t0)) s" | tee -a "$models/HEAD"
}

budget=${CALIB_BUDGET_S:-0}
for mode in ${CALIB_MODES:-overlap buffered bulk}; do
  for c in ${CALIB_CASES:-mhd:256:1,2,4,8 mhd:512:1,2,4,8 ch:512:1,2,4}; do
    IFS=: read -r app n tl <<< "$c"
    for tiles in ${tl//,/ }; do
      [ "$mode" = overlap ] && [ "$tiles" -gt 1 ] && continue
      [ "$mode" = buffered ] && [ "$tiles" -eq 1 ] && continue
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
