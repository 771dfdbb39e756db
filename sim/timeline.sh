#!/usr/bin/env bash
# timeline.sh — where the simulated MHD weak-scaling step goes: MHD fp64, 256^3 per GPU on 1 GPU,
# on one node of 8 simulated H200s (one rank, 512^3) and on 8 such nodes (64 GPUs, 1024^3), and
# 128^3 per GPU on one node; derived models (sim/models/h200-derived.txt), overlap, a 400 Gb/s
# NIC per GPU, 5 steps of which the last 3 timed, as bench/simulate.sh runs them. Each case with
# StarPU's dmda as the weak-scaling table ran it, and with one StarPU knob changed: no data
# prefetch at task push (STARPU_PREFETCH=0), transfers of no cost (STARPU_SIMGRID_TRANSFER_COST=0),
# the eager or dmdas scheduler. Cases marked with a task log print, from rank 0's log
# (debug.task_log; sim/timeline.py), each kind of task's GPU time per step and the idle rest.
# Runs in $OUT (default /tmp/timeline); needs the SimGrid build (TESS_SIMGRID=1 scripts/build.sh
# build-sim; SIM_BUILD=DIR another one, e.g. of an older commit). About two minutes on 2 cores.
set -uo pipefail
W=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${SIM_BUILD:-$W/build-sim}" && pwd) || exit 2
P=$(cat "$B/starpu-prefix") || exit 2
M=$W/sim/models/h200-derived.txt
mkdir -p "${OUT:-/tmp/timeline}" && cd "${OUT:-/tmp/timeline}" || exit 2
rm -rf home && /usr/bin/python3 "$W/sim/machine.py" home/sampling --gpus 8 --name h200x8 --cpus 9 > /dev/null
export STARPU_SILENT=1 STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_CALIBRATE=0 STARPU_SIMGRID_CUDA_MALLOC_COST=0
# case LABEL RANKS GRID LOG(0|1) [VAR=VALUE ...]: one run; prints its median and, with LOG, the
# mean over rank 0's GPUs of sim/timeline.py
case1() {
  local label=$1 r=$2 grid=$3 log=$4
  shift 4
  sed -e "s/bw=\"50000000000Bps\"/bw=\"400000000000Bps\"/" -e "s/radical=\"0-1023\"/radical=\"0-$((r - 1))\"/" \
    "$W/sim/cluster.xml" > "c$r.xml"
  seq 0 $((r - 1)) | sed 's/^/node/' > "h$r"
  local extra=()
  [ "$log" = 1 ] && extra=(--task-log "$PWD/$label.tasks")
  env STARPU_SCHED=dmda STARPU_HOME="$PWD/home" STARPU_PERF_MODEL_DIR="$PWD/home/sampling" \
    TESS_SIM_MODELS=measured:$M STARPU_HOSTNAME=h200x8 STARPU_NCUDA=8 STARPU_NCPU=9 "$@" timeout 900 \
    "$P/bin/starpu_smpirun" -platform "c$r.xml" -hostfile "h$r" -np "$r" "$B/apps/mhd/tess-mhd" \
    --device cuda --grid "$grid" --mode overlap --every 0 --warmup 2 --steps 5 --dt 1.1920929e-7 \
    "${extra[@]}" > "$label.log" 2>&1
  local tiles; tiles=$(sed -n 's/.* \([0-9]* tile(s) per rank ([0-9x]*) of [0-9x]* cells\).*/\1/p' "$label.log")
  printf '%-22s %2s rank(s) %-16s %-34s median %s ms; %s\n' "$label" "$r" "$grid" "${*:-dmda}" \
    "$(awk '/^median/ {print $2}' "$label.log")" "$tiles"
  [ "$log" = 1 ] && /usr/bin/python3 "$W/sim/timeline.py" "$label.tasks.0" | sed -n '2p;$p' | sed 's/^/    /'
}
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$B/CMakeCache.txt")
echo "# timeline.sh, SimGrid build $B of the tree at $src (HEAD $(git -C "$src" rev-parse --short HEAD)), $(date -u +%FT%RZ); ms per step"
case1 gpu1 1 256,256,256 0 STARPU_NCUDA=1 STARPU_NCPU=2
case1 node8 1 512,512,512 1
case1 node8-noprefetch 1 512,512,512 1 STARPU_PREFETCH=0
case1 node8-notransfer 1 512,512,512 0 STARPU_SIMGRID_TRANSFER_COST=0
case1 node8-dmdas 1 512,512,512 0 STARPU_SCHED=dmdas
case1 node8-dmdas-noprefetch 1 512,512,512 0 STARPU_SCHED=dmdas STARPU_PREFETCH=0
case1 node8-128 1 256,256,256 1
case1 node8-128-noprefetch 1 256,256,256 0 STARPU_PREFETCH=0
case1 node8-128-eager 1 256,256,256 0 STARPU_SCHED=eager
case1 gpu64 8 1024,1024,1024 1
case1 gpu64-noprefetch 8 1024,1024,1024 1 STARPU_PREFETCH=0
case1 gpu64-dmdas 8 1024,1024,1024 0 STARPU_SCHED=dmdas
