#!/usr/bin/env bash
# whatif.sh — which resource bounds a simulated MHD step: 512^3 on one rank of 8 simulated H200s,
# 512^3 and 1024^3 on 8 ranks of 8 (64 GPUs), overlap, derived models, dmda, 5 steps (2 warm-up),
# each as it is (base), with 100x the host<->GPU bandwidth (pcie100: sim/machine.py --from a bus
# file so scaled), 100x the network (nic100: 40000 Gb/s per GPU), both (both100), or no fixed
# cost per task (task0: task_us 0). Runs in $OUT (default /tmp/whatif); a CSV on stdout. The
# SimGrid build must exist (TESS_SIMGRID=1 scripts/build.sh build-sim).
set -uo pipefail
W=$(cd "$(dirname "$0")/.." && pwd)
P=$(cat "$W/build-sim/starpu-prefix")
export STARPU_SILENT=1 STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_SCHED=dmda STARPU_CALIBRATE=0
export STARPU_SIMGRID_CUDA_MALLOC_COST=0
mkdir -p "${OUT:-/tmp/whatif}" && cd "${OUT:-/tmp/whatif}" || exit 2
# fake bus file with 100x host<->GPU bandwidth: start from machine.py's own, scale row/col 0
mk() { local name=$1 f=$2; rm -rf $name; mkdir -p $name
  /usr/bin/python3 $W/sim/machine.py $name/sampling --gpus 8 --name h200x8 --cpus 9 >/dev/null
  if [ "$f" != 1 ]; then
    /usr/bin/python3 - "$name/sampling/bus/h200x8.bandwidth" "$f" <<'PY'
import sys
p, f = sys.argv[1], float(sys.argv[2])
rows = [l.split() for l in open(p) if l.strip() and not l.startswith('#')]
hdr = [l for l in open(p) if l.startswith('#')]
out = []
for i, r in enumerate(rows):
    out.append([('%f' % (float(v) * f)) if (i == 0) != (j == 0) and float(v) > 0 else v for j, v in enumerate(r)])
open(p + '.x', 'w').write(''.join(hdr) + '\n'.join('\t'.join(r) for r in out) + '\n')
PY
    mv $name/sampling/bus/h200x8.bandwidth.x $name/sampling/bus/h200x8.bandwidth
    /usr/bin/python3 $W/sim/machine.py $name/s2 --gpus 8 --name h200x8 --cpus 9 --from $name/sampling/bus/h200x8 >/dev/null
    rm -rf $name/sampling; mv $name/s2 $name/sampling
  fi; }
case1() { # label home nic model grid mode [ranks]
  local label=$1 home=$2 nic=$3 model=$4 grid=$5 mode=$6 r=${7:-8}
  bw=$(/usr/bin/python3 -c "print(int($nic * 8 / 8 * 1e9))")
  sed -e "s/bw=\"50000000000Bps\"/bw=\"${bw}Bps\"/" -e "s/radical=\"0-1023\"/radical=\"0-$((r - 1))\"/" $W/sim/cluster.xml > c8.xml
  seq 0 $((r - 1)) | sed 's/^/node/' > h8
  STARPU_HOME=$PWD/$home STARPU_PERF_MODEL_DIR=$PWD/$home/sampling TESS_SIM_MODELS=measured:$model \
  STARPU_HOSTNAME=h200x8 STARPU_NCUDA=8 STARPU_NCPU=9 /usr/bin/time -f '%e %M' -o t timeout 600 \
    $P/bin/starpu_smpirun -platform c8.xml -hostfile h8 -np $r $W/build-sim/apps/mhd/tess-mhd --device cuda \
    --grid $grid --mode $mode --every 0 --warmup 2 --steps 5 --dt 1.1920929e-7 > $label.log 2>&1
  echo "${label%%-*},$r,${grid//,/x},$mode,$(awk '/^median/ {print $2}' $label.log),$(tail -1 t | tr ' ' ',')"
}
mk base 1; mk pcie100 100
sed 's/^task_us .*/task_us 0/' $W/sim/models/h200-derived.txt > model-task0.txt
grep -q "^task_us 0" model-task0.txt || echo "no task_us line?" >&2
M=$W/sim/models/h200-derived.txt
echo "label,ranks,grid,mode,median_ms,wall_s,maxrss_kb"
case1 base-1rank base 400 $M 512,512,512 overlap 1
case1 pcie100-1rank pcie100 400 $M 512,512,512 overlap 1
case1 task0-1rank base 400 $PWD/model-task0.txt 512,512,512 overlap 1
for g in 512,512,512 1024,1024,1024; do
  case1 base-$g base 400 $M $g overlap
  case1 pcie100-$g pcie100 400 $M $g overlap
  case1 nic100-$g base 40000 $M $g overlap
  case1 both100-$g pcie100 40000 $M $g overlap
  case1 task0-$g base 400 $PWD/model-task0.txt $g overlap
done
