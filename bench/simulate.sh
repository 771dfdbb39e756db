#!/usr/bin/env bash
# simulate.sh MODELS [CASES] — predicted Tessera step times on H200 clusters that we do not have:
# the SimGrid build of the apps (TESS_SIMGRID=1 scripts/build.sh build-sim) run under
# starpu_smpirun on simulated nodes (docs/simulation.md). MODELS is a calibrated model folder
# (sim/calibrate.sh's models/<name>, e.g. sim/models/h200): its codelet histories give every
# task's time; or a derived model file (sim/derive_models.py's sim/models/h200-derived.txt, run
# as TESS_SIM_MODELS=measured:FILE): per-task costs derived from measured one-GPU runs. The bus
# and the platforms are sim/machine.py's nodes of GPN GPUs and sim/cluster.xml's network.
#
#   CASES (default "weak strong"):
#     weak    MHD fp64 and CH, 256^3 per GPU, grid grown along z then y then x, 1..1024 GPUs
#     strong  MHD fp64 512^3 and 1024^3 on 1..64 GPUs
#     quick   MHD 64^3 per GPU on 1, 8 GPUs (what tests/simulation.sh checks)
#     validate  the measured H200 set-ups: MHD fp64 256^3, 512^3 and CH 512^3 on 1, 2, 4 GPUs,
#             one rank driving them and one rank per GPU (sim/validate.py compares);
#             SIM_VALIDATE picks app:size pairs (default "mhd:256 mhd:512 ch:512")
#     weak-mhd  weak, MHD only
#   Environment: SIM_GPN (GPUs per node, default 4: one rank per node driving them), SIM_MODES
#   (default "overlap bulk"), SIM_MAXGPUS (default 1024), SIM_MINGPUS (default 1: a series
#   starts there; its efficiencies then need the 1-GPU row of an earlier run in the same sim.csv),
#   SIM_NIC_GBPS (per GPU, default 400), SIM_BUILD (default build-sim), SIM_STEPS (default 20,
#   SIM_WARMUP of them warm-up, default 5), SIM_TIMEOUT (wall seconds a run may take, default
#   3600: a series stops at its first run past it or killed for memory, a row without a time),
#   SIM_MAXRSS_MB (default 14000: a run whose resident memory passes it is killed, and its series
#   stops), SIM_SCHED (StarPU's scheduler, default dmdas as in Tessera's GPU runs).
#
# Output under $OUT (default /tmp/simulate): sim.csv (one row per simulated run: case, app, grid,
# GPUs, ranks, GPUs per node, mode, scheduler, simulated median ms per step, efficiency against
# the 1-GPU run, wall seconds the simulation took, its peak resident memory in MB from
# /usr/bin/time, the timed steps), logs/.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
models=${1:?usage: simulate.sh MODELS [CASES]}
if [ -f "$models" ]; then # a derived model file
  models=$(cd "$(dirname "$models")" && pwd)/$(basename "$models")
else models=$(cd "$models" && pwd); fi
cases=${2:-weak strong}
build=$here/${SIM_BUILD:-build-sim}
gpn=${SIM_GPN:-4} tmo=${SIM_TIMEOUT:-3600} maxg=${SIM_MAXGPUS:-1024} nic=${SIM_NIC_GBPS:-400} steps=${SIM_STEPS:-20}
warmup=${SIM_WARMUP:-5} ming=${SIM_MINGPUS:-1} maxrss=${SIM_MAXRSS_MB:-14000} sched=${SIM_SCHED:-dmdas}
out=${OUT:-/tmp/simulate}
mkdir -p "$out/logs"
prefix=$(cat "$build/starpu-prefix" 2>/dev/null) || {
  echo "simulate.sh: no SimGrid build in $build (TESS_SIMGRID=1 scripts/build.sh ${build##*/})" >&2
  exit 2
}
[ -f "$models" ] || [ -d "$models/sampling/codelets" ] || {
  echo "simulate.sh: $models is no derived model file and holds no calibrated models" \
    "(sampling/codelets; sim/calibrate.sh)" >&2
  exit 2
}

# The model folder StarPU reads: the calibrated codelet histories under the simulated node's
# name, and that node's bus (sim/machine.py).
home=$out/starpu-home
rm -rf "$home" && mkdir -p "$home/sampling/codelets"
if [ -f "$models" ]; then
  export TESS_SIM_MODELS=measured:$models
else
  calib=$(ls "$models"/sampling/codelets/*/ | sed -n 's/.*\.\([^.]*\)$/\1/p' | sort -u | head -1)
fi
for g in 1 2 4 "$gpn"; do
  name=h200x$g
  /usr/bin/python3 "$here/sim/machine.py" "$home/sampling" --gpus "$g" --name "$name" \
    --cpus $((g + 1 > 4 ? g + 1 : 4)) > /dev/null
  [ -f "$models" ] && continue
  for d in "$models"/sampling/codelets/*/; do
    v=$(basename "$d")
    mkdir -p "$home/sampling/codelets/$v"
    for f in "$d"*."$calib"; do cp "$f" "$home/sampling/codelets/$v/$(basename "${f%.*}").$name"; done
  done
done
export STARPU_HOME=$home STARPU_PERF_MODEL_DIR=$home/sampling STARPU_SILENT=1
export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_SCHED=$sched STARPU_CALIBRATE=0
export STARPU_SIMGRID_CUDA_MALLOC_COST=0

# cluster R GPN: sim/cluster.xml with the NIC of a node of GPN GPUs
cluster() {
  local bw; bw=$(/usr/bin/python3 -c "print(int($nic * $2 / 8 * 1e9))")
  sed -e "s/bw=\"50000000000Bps\"/bw=\"${bw}Bps\"/" -e "s/radical=\"0-1023\"/radical=\"0-$(($1 - 1))\"/" \
    "$here/sim/cluster.xml" > "$out/cluster-$1.xml"
  seq 0 $(($1 - 1)) | sed 's/^/node/' > "$out/hostfile-$1"
}

# grid N G: N^3 per GPU on G GPUs, grown along z, then y, then x (a power of two)
grid() {
  local n=$1 g=$2 d=(1 1 1) i=2
  while [ "$g" -gt 1 ]; do d[i]=$((d[i] * 2)); g=$((g / 2)); i=$(((i + 2) % 3)); done
  echo "$((n * d[0])),$((n * d[1])),$((n * d[2]))"
}

csv=$out/sim.csv
[ -f "$csv" ] || echo "case,app,grid,gpus,ranks,gpus_per_node,mode,sched,median_ms,efficiency,wall_s,maxrss_mb,timed_steps" > "$csv"
declare -A base
# per series, the median and GPUs of its first run (efficiency = its GPU-time / this one's):
# 1 GPU, or the fewest a strong-scaling grid fits on; from an earlier run in this sim.csv where
# SIM_MINGPUS > 1 starts past them
while IFS=, read -r c a gr g _ _ m sc med _; do
  [ "$g" = 1 ] && [ "$sc" = "$sched" ] && [ -n "$med" ] || continue
  if [ "$c" = weak ]; then base[$c-$a-$m]="$med 1"; else base[$c-$a-$m-${gr//x/,}]="$med 1"; fi
done < <(tail -n +2 "$csv")
# one CASE APP GRID GPUS MODE
one() {
  local case=$1 app=$2 grid=$3 g=$4 mode=$5 r gn bin args
  gn=$gpn; [ "$g" -lt "$gn" ] && gn=$g
  r=$((g / gn))
  case $app in
    mhd) bin=$build/apps/mhd/tess-mhd args="--dt 1.1920929e-7" ;;
    ch) bin=$build/apps/cahn_hilliard/tess-ch args="--variant fused" ;;
  esac
  cluster "$r" "$gn"
  local log=$out/logs/$case-$app-${grid//,/x}-g$g-r$r-$mode-$sched.log t0=$SECONDS
  # One process simulates every rank: its wall time and peak resident memory (/usr/bin/time),
  # and a watch that kills it past SIM_MAXRSS_MB (the machine is shared).
  # shellcheck disable=SC2086
  (cd "$out" && STARPU_HOSTNAME=h200x$gn STARPU_NCUDA=$gn STARPU_NCPU=$((gn + 1)) exec setsid \
    /usr/bin/time -f 'simulate.sh: wall %e s, max RSS %M kB' -o "$log.time" timeout "$tmo" \
    "$prefix/bin/starpu_smpirun" -platform "cluster-$r.xml" -hostfile "hostfile-$r" -np "$r" \
    "$bin" --device cuda --grid "$grid" --mode "$mode" --every 0 --warmup "$warmup" \
    --steps "$steps" $args) > "$log" 2>&1 &
  local pid=$! rss peak=0 killed=""
  while kill -0 "$pid" 2> /dev/null; do
    rss=$(ps -o rss= -s "$pid" 2> /dev/null | awk '{s += $1} END {print s + 0}')
    [ "$rss" -gt "$peak" ] && peak=$rss
    if [ "$rss" -gt $((maxrss * 1024)) ]; then
      killed=1
      # every process of the run (setsid above): timeout moves its command to a group of its own
      pkill -KILL -s "$pid" 2> /dev/null
    fi
    sleep 1
  done
  wait "$pid"
  local rc=$? wall=$((SECONDS - t0)) med eff="" mem
  [ -n "$killed" ] && rc=137 && echo "simulate.sh: killed past $maxrss MB resident" >> "$log"
  # a run stopped by timeout leaves /usr/bin/time only its launcher's memory: the watch's peak
  # (sampled each second) then
  mem=$(awk -v p="$peak" '/max RSS/ {m = $(NF-1)} END {printf "%.0f", (m > p ? m : p) / 1024}' \
    "$log.time" 2> /dev/null)
  wall=$(awk -v w="$wall" '/max RSS/ {w = $3} END {print w}' "$log.time" 2> /dev/null || echo "$wall")
  [ -n "$killed" ] && mem=">$maxrss"
  med=$(awk '/^median/ {print $2}' "$log")
  local key=$case-$app-$mode; [ "$case" = weak ] || key=$key-$grid
  [ -n "$med" ] && [ -z "${base[$key]:-}" ] && { [ "$g" = 1 ] || [ "$case" = strong ]; } &&
    base[$key]="$med $g"
  if [ -n "$med" ] && [ -n "${base[$key]:-}" ]; then
    set -- ${base[$key]}
    if [ "$case" = weak ]; then eff=$(/usr/bin/python3 -c "print('%.3f' % ($1 / $med))")
    else eff=$(/usr/bin/python3 -c "print('%.3f' % ($1 * $2 / ($med * $g)))"); fi
  fi
  printf '%-6s %-3s %-14s %4d GPU %4d rank(s) %-7s %-5s median %s ms (eff %s; rc %d, %s s, %s MB)\n' \
    "$case" "$app" "$grid" "$g" "$r" "$mode" "$sched" "${med:-?}" "${eff:-?}" "$rc" "$wall" "${mem:-?}"
  if [ -z "$med" ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then # too long, or killed for memory: stop
    echo "$case,$app,${grid//,/x},$g,$r,$gn,$mode,$sched,,,$wall,$mem,$((steps - warmup))" >> "$csv"
    return 1
  fi
  if [ -z "$med" ] && [ "$case" = strong ] && grep -q "needs .* GiB on its GPU" "$log"; then
    echo "$case,$app,${grid//,/x},$g,$r,$gn,$mode,$sched,,,$wall,$mem,refused: grid does not fit" >> "$csv"
    return 0 # a grid too big for this many GPUs: the series goes on with more
  fi
  if [ -z "$med" ]; then # a run that fails fails them all: say why and stop, no partial table
    grep -v 'ker_lmm' "$log" | tail -8 >&2
    echo "simulate.sh: the run above failed (log: $log); see docs/simulation.md, status" >&2
    exit 1
  fi
  [ -n "$med" ] && echo "$case,$app,${grid//,/x},$g,$r,$gn,$mode,$sched,$med,$eff,$wall,$mem,$((steps - warmup))" >> "$csv"
}

gpus_upto() { local g=1; while [ "$g" -le "$1" ]; do [ "$g" -ge "$ming" ] && echo $g; g=$((g * 2)); done; }
for mode in ${SIM_MODES:-overlap bulk}; do
  for c in $cases; do
    case $c in
      quick) for g in 1 8; do one quick mhd "$(grid 64 $g)" $g "$mode"; done ;;
      weak | weak-mhd) apps="mhd ch"; [ "$c" = weak-mhd ] && apps=mhd
        for app in $apps; do
          for g in $(gpus_upto "$maxg"); do one weak $app "$(grid 256 $g)" $g "$mode" || break; done
        done ;;
      validate) gpn0=$gpn
        for a in ${SIM_VALIDATE:-mhd:256 mhd:512 ch:512}; do
          [ -x "$build/apps/cahn_hilliard/tess-ch" ] || [ "${a%:*}" != ch ] || continue
          for g in 1 2 4; do
            gpn=$g; one validate "${a%:*}" "${a#*:},${a#*:},${a#*:}" $g "$mode" || break
            [ "$g" = 1 ] || { gpn=1; one validate "${a%:*}" "${a#*:},${a#*:},${a#*:}" $g "$mode" || break; }
          done
        done
        gpn=$gpn0 ;;
      strong) for n in 512 1024; do
          for g in $(gpus_upto 64); do one strong mhd "$n,$n,$n" $g "$mode" || break; done
        done ;;
      *) echo "simulate.sh: case '$c' is invalid (allowed: weak, weak-mhd, strong, quick, validate)" >&2; exit 2 ;;
    esac
  done
done
echo "results: $csv"
