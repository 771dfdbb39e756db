#!/usr/bin/env bash
# graph.sh BUILD_DIR gpu|cpu — what the task graph costs, ratios measured in one run.
#
#   gpu (one GPU; BUILD_DIR = a bundle's extra/build): MHD fp64, Astaroth's benchmark set-up,
#       at 128^3 and 256^3: 1 tile, 8 tiles (2x2x2) overlapped, bulk-synchronous, and
#       "buffered" (every neighbour through pack -> buffer -> unpack even on one GPU: the per-link
#       graph), and 2 ranks sharing the GPU (1x1x2, halos through MPI; with a CUDA-aware mpirun
#       first in PATH, from GPU memory and again staged through main RAM, "2ranks-staged"; the CSV
#       mode column says +direct or +staged); the MHD kernel alone
#       (bench/mhd_kernel_bench, the same kernels without StarPU) at the same sizes; the cost of
#       one task: MHD 32^3 in 8 tiles (16^3 each, kernels of a few microseconds), time per step
#       divided by tasks per step.
#   cpu (this machine's CPU workers; BUILD_DIR = a build): heat 3D order 6, 96^3, one rank:
#       1, 2 and 8 tiles, overlapped, bulk and buffered.
#
# Every run prints its median time per step (the apps' '^median' line, chunks of 10 steps after
# 10 warm-up steps) and, from TESSERA_RUNTIME_LOG=info, tasks per tile and stage and the submission time
# per task. Output: $OUT/graph.csv (default /tmp/graph) and logs; the table on stdout.
# BASELINE=DIR (holding tess-mhd and tess-heat of an earlier commit, same StarPU): each run with
# that binary just before this build's, named "base-..." (modes it lacks fail and are left out of
# the CSV).
# COSTMODEL=1 (gpu): at the end, bench/costmodel.py's prediction for 1, 2, 4 and 8 GPUs at 128^3
# and 256^3 from this run's 1-tile times and per-task cost (a model, not a measurement).
set -uo pipefail
B=$(cd "${1:?usage: graph.sh BUILD_DIR gpu|cpu}" && pwd)
what=${2:?usage: graph.sh BUILD_DIR gpu|cpu}
out=${OUT:-/tmp/graph}
mkdir -p "$out/logs"
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home} TESSERA_RUNTIME_LOG=info
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
csv=$out/graph.csv
echo "build,app,grid,device,ranks,tiles,mode,median_ms,tasks_per_step,tasks_per_tile_stage,submit_us_per_task,us_per_task" >"$csv"

# run NAME RANKS APP ARGS...: one CSV row. The task figures come from the last 'run:' line of
# rank 0 (a 10-step chunk): tasks per step = its tasks / 10 x ranks.
run() {
  local name=$1 ranks=$2 app=$3
  shift 3
  local log=$out/logs/$name.log
  if [ "$ranks" -eq 1 ]; then
    timeout 300 "$app" "$@" >"$log" 2>&1
  else
    timeout 300 mpirun -np "$ranks" --oversubscribe --bind-to none "$app" "$@" >"$log" 2>&1
  fi
  local rc=$? med tasks pts sub grid tiles mode dev
  [ -n "$(awk '/^median/ {print $2}' "$log")" ] || { echo "$name: rc $rc, no median (see $log)"; return; }
  med=$(awk '/^median/ {print $2}' "$log")
  read -r tasks pts sub < <(grep 'tessera\[0\] info: run: 10 steps' "$log" | tail -1 |
    sed -E 's/.*: ([0-9]+) tasks \(([0-9.]+) per tile and stage\), ([0-9.]+) us per task.*/\1 \2 \3/')
  grid=$(grep -oE 'grid [0-9]+x[0-9]+x[0-9]+' "$log" | head -1 | awk '{print $2}')
  tiles=$(grep -o '[0-9]* tile(s) per rank' "$log" | head -1 | awk '{print $1}')
  mode=$(grep -o '[a-z]* mode,' "$log" | head -1 | awk '{print $1}')
  # halos between ranks: from GPU memory (runtime/graph/direct.c) or staged through main RAM
  grep -q 'halos between ranks: MPI from GPU memory' "$log" && [ "$ranks" -gt 1 ] && mode=$mode+direct
  grep -q 'halos between ranks: StarPU-MPI, staged' "$log" && [ "$ranks" -gt 1 ] && mode=$mode+staged
  dev=$(grep -q 'cells on CUDA' "$log" && echo cuda || echo cpu)
  local per_step=$(awk -v t="${tasks:-0}" -v r="$ranks" 'BEGIN {printf "%.0f", t / 10 * r}')
  local us=$(awk -v m="${med:-0}" -v n="$per_step" 'BEGIN {if (n > 0) printf "%.1f", 1000 * m / n}')
  printf '%-28s rc %d  median %8s ms  %5s tasks/step  %5s per tile+stage  submit %5s us/task  %6s us/task\n' \
    "$name" "$rc" "${med:-?}" "$per_step" "${pts:-?}" "${sub:-?}" "${us:-?}"
  local build=new
  [ "$name" != "${name#base-}" ] && build=base
  echo "$build,$(basename "$app"),$grid,$dev,$ranks,$tiles,$mode,$med,$per_step,$pts,$sub,$us" >>"$csv"
}

if [ "$what" = gpu ]; then
  nvidia-smi -L | tee "$out/gpu.txt"
  "$B/bench/copy_bw" 1024 | head -1 | tee -a "$out/gpu.txt"
  mhd=$B/apps/mhd/tess-mhd
  A="--device cuda --set init.ic=random --dt 1.1920929e-7 --every 0 --warmup 10"
  export STARPU_NCUDA=1
  # a CUDA-aware mpirun (the bundle's, TESS_CUDA_MPI=1): 2 ranks from GPU memory, then staged
  cuda_mpi=0
  ompi_info --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true" && cuda_mpi=1
  echo "CUDA-aware MPI: $cuda_mpi ($(command -v mpirun))" | tee -a "$out/gpu.txt"
  # mrun NAME RANKS ARGS...: the run with the baseline's binary first (when given), then this build's
  mrun() {
    local name=$1 ranks=$2
    shift 2
    [ -n "${BASELINE:-}" ] && run "base-$name" "$ranks" "$BASELINE/tess-mhd" "$@"
    run "$name" "$ranks" "$mhd" "$@"
  }
  for n in 128 256; do
    s=$((n == 128 ? 200 : 100))
    mrun "mhd$n-1tile" 1 $A --grid $n,$n,$n --steps $s --tiles 1
    mrun "mhd$n-8tiles" 1 $A --grid $n,$n,$n --steps $s --tiles 8
    mrun "mhd$n-8tiles-bulk" 1 $A --grid $n,$n,$n --steps $s --tiles 8 --mode bulk
    mrun "mhd$n-8tiles-buffered" 1 $A --grid $n,$n,$n --steps $s --tiles 8 --mode buffered
    mrun "mhd$n-2ranks" 2 $A --grid $n,$n,$n --steps $s --procs 1,1,2
    [ "$cuda_mpi" = 1 ] &&
      mrun "mhd$n-2ranks-staged" 2 $A --grid $n,$n,$n --steps $s --procs 1,1,2 --mpi-direct off
  done
  mrun mhd32-1tile-pertask 1 $A --grid 32,32,32 --steps 210 --tiles 1
  mrun mhd32-8tiles-pertask 1 $A --grid 32,32,32 --steps 210 --tiles 8
  mrun mhd32-8tiles-buffered-pertask 1 $A --grid 32,32,32 --steps 210 --tiles 8 --mode buffered
  "$B/bench/mhd_kernel_bench" --quick --no-thin --sizes 128,256 --reps 20 >"$out/logs/kernel.log" 2>&1
  grep -iE "ms|floor" "$out/logs/kernel.log" | grep -iv "ulp" | tail -12
else
  heat=$B/apps/heat/tess-heat
  A="--device cpu --grid 96,96,96 --order 6 --every 0 --warmup 10 --steps 110"
  for pre in ${BASELINE:+base-} ""; do
    h=$heat
    [ -n "$pre" ] && h=$BASELINE/tess-heat
    for t in 1 2 8; do run "${pre}heat96-${t}tiles" 1 "$h" $A --tiles $t; done
    run "${pre}heat96-8tiles-bulk" 1 "$h" $A --tiles 8 --mode bulk
    [ -z "$pre" ] && run "heat96-8tiles-buffered" 1 "$h" $A --tiles 8 --mode buffered
  done
fi
if [ "$what" = gpu ] && [ "${COSTMODEL:-0}" = 1 ]; then
  for n in 128 256; do python3 "$(dirname "$0")/costmodel.py" --graph "$csv" --grid $n; done
fi
echo "csv: $csv"
