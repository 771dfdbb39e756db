#!/usr/bin/env bash
# cost.sh BUILD RANKS... — what simulating a rank costs here: the SimGrid flavour of tess-mhd in
# BUILD (a build folder of TESS_SIMGRID=1 scripts/build.sh, this tree's or an older commit's) on
# RANKS simulated ranks of GPN GPUs each, MHD 128^3 per GPU, the grid grown along z only (a
# process grid 1x1xRANKS: every rank has the same two neighbours, so the work per rank stays the
# same and the wall time and memory per rank can be read off), derived models
# (sim/models/h200-derived.txt), dmda, overlap. One line per run: ranks, GPUs, grid, timed
# steps, simulated median ms per step, wall seconds and peak resident MB of the whole
# starpu_smpirun (/usr/bin/time), exit status. A run is killed past COST_MAXRSS_MB (default
# 14000) resident or COST_TIMEOUT seconds (default 600).
#   Environment: GPN (default 4), STEPS (default 20, 5 of them warm-up), MODE (default overlap).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: cost.sh BUILD RANKS...}" && pwd)
shift
gpn=${GPN:-4} steps=${STEPS:-20} mode=${MODE:-overlap}
maxrss=${COST_MAXRSS_MB:-14000} tmo=${COST_TIMEOUT:-600}
prefix=$(cat "$build/starpu-prefix")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/sim/machine.py" "$work/sampling" --gpus "$gpn" --name "h200x$gpn" \
  --cpus $((gpn + 1 > 4 ? gpn + 1 : 4)) > /dev/null
export STARPU_HOME=$work STARPU_PERF_MODEL_DIR=$work/sampling STARPU_SILENT=1
export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_SCHED=dmda STARPU_CALIBRATE=0
export STARPU_SIMGRID_CUDA_MALLOC_COST=0 TESS_SIM_MODELS=measured:$here/sim/models/h200-derived.txt
export STARPU_HOSTNAME=h200x$gpn STARPU_NCUDA=$gpn STARPU_NCPU=$((gpn + 1))
echo "ranks,gpus,grid,timed_steps,median_ms,wall_s,maxrss_mb,rc"
for r in "$@"; do
  bw=$(/usr/bin/python3 -c "print(int(400 * $gpn / 8 * 1e9))")
  sed -e "s/bw=\"50000000000Bps\"/bw=\"${bw}Bps\"/" -e "s/radical=\"0-1023\"/radical=\"0-$((r - 1))\"/" \
    "$here/sim/cluster.xml" > "$work/cluster.xml"
  seq 0 $((r - 1)) | sed 's/^/node/' > "$work/hostfile"
  # tiles of 128^3: 2x2 of them across x and y on a node of 4 GPUs, 2x2x2 on 8
  nx=256 ny=256 nz=$((128 * r * gpn / 4))
  grid=$nx,$ny,$nz
  (cd "$work" && exec setsid /usr/bin/time -f '%e %M' -o "$work/time" timeout "$tmo" \
    "$prefix/bin/starpu_smpirun" -platform cluster.xml -hostfile hostfile -np "$r" \
    "$build/apps/mhd/tess-mhd" --device cuda --grid "$grid" --mode "$mode" --every 0 \
    --warmup 5 --steps "$steps" --dt 1.1920929e-7) > "$work/log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2> /dev/null; do
    rss=$(ps -o rss= -s "$pid" 2> /dev/null | awk '{s += $1} END {print s + 0}')
    [ "$rss" -gt $((maxrss * 1024)) ] && pkill -KILL -s "$pid" 2> /dev/null
    sleep 1
  done
  wait "$pid"
  rc=$?
  read -r wall kb < <(tail -1 "$work/time") || true
  med=$(awk '/^median/ {print $2}' "$work/log")
  echo "$r,$((r * gpn)),${grid//,/x},$((steps - 5)),${med},${wall},$((${kb:-0} / 1024)),$rc"
done
