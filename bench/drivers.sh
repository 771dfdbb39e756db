#!/usr/bin/env bash
# drivers.sh BUILD_OR_BUNDLE [REPS] — how StarPU drives one GPU: CUDA workers per GPU, one thread
# for all of them or one each, with and without CPU workers, under dmdas and eager. MHD fp64 on
# one GPU: one tile (128^3, 256^3) and 8 tiles whose halos all go pack -> buffer -> unpack, the
# path of every multi-GPU run (32^3: task costs alone; 128^3, 256^3). Every round runs every
# configuration once in turn; a figure is the median over rounds of a run's median ms a step.
# Output: $OUT/drivers.csv (default /tmp/drivers) and a table of each configuration's figures
# and its buffered ÷ one-tile ratios. CONFIGS overrides the list below: space-separated entries
# "label:VAR=value,VAR=value"; an empty list of variables is Tessera's own settings.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/build-or-bundle.sh
source "$here/build-or-bundle.sh"
tess_build_dir "${1:?usage: drivers.sh BUILD_OR_BUNDLE [REPS]}" >/dev/null 2>&1
reps=${2:-1}
out=${OUT:-/tmp/drivers}
mkdir -p "$out"
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-/tmp/drivers-home} STARPU_NCUDA=1
mhd=$B/apps/mhd/tess-mhd
[ -x "$mhd" ] || { echo "drivers.sh: no $mhd" >&2; exit 1; }
A=(--device cuda --set init.ic=random --dt 1.1920929e-7 --every 0 --warmup 10)
cases=("b32:--grid 32,32,32 --steps 210 --tiles 8 --mode buffered"
       "t128:--grid 128,128,128 --steps 100 --tiles 1"
       "b128:--grid 128,128,128 --steps 100 --tiles 8 --mode buffered"
       "t256:--grid 256,256,256 --steps 60 --tiles 1"
       "b256:--grid 256,256,256 --steps 60 --tiles 8 --mode buffered")
one_thread="STARPU_CUDA_THREAD_PER_WORKER=0"
if [ -n "${CONFIGS:-}" ]; then
  read -r -a configs <<<"$CONFIGS"
else
  configs=("default:" "w2-shared:STARPU_NWORKER_PER_CUDA=2,$one_thread"
           "w1:STARPU_NWORKER_PER_CUDA=1,$one_thread" "w2-own:STARPU_NWORKER_PER_CUDA=2"
           "w4-own:STARPU_NWORKER_PER_CUDA=4" "w8-own:STARPU_NWORKER_PER_CUDA=8"
           "own-nocpu:STARPU_NCPU=0" "own-eager:STARPU_SCHED=eager")
fi
# dmdas calibrates each shape's model on its first runs: one unmeasured pass
for c in "${cases[@]}"; do
  # shellcheck disable=SC2086
  timeout 120 "$mhd" "${A[@]}" ${c#*:} >/dev/null 2>&1
done
csv=$out/drivers.csv
echo "round,config,case,median_ms,tasks_per_step,workers" >"$csv"
for ((r = 1; r <= reps; r++)); do
  for g in "${configs[@]}"; do
    for c in "${cases[@]}"; do
      vars=${g#*:}
      # shellcheck disable=SC2086
      log=$(env ${vars//,/ } timeout 120 "$mhd" "${A[@]}" ${c#*:} --log info 2>&1)
      med=$(awk '/^median/ {print $2}' <<<"$log")
      w=$(grep -m1 'StarPU started' <<<"$log" | sed -E 's/.*started: ([0-9]+) CPU and ([0-9]+) CUDA.*/\1 CPU + \2 CUDA/')
      tasks=$(grep 'info: run: 10 steps' <<<"$log" | tail -1 | sed -E 's/.*: ([0-9]+) tasks .*/\1/')
      echo "$r,${g%%:*},${c%%:*},${med:-},$((${tasks:-0} / 10)),${w:-}" >>"$csv"
    done
  done
done
/usr/bin/python3 - "$csv" <<'PY' | tee "$out/drivers.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = ['b32', 't128', 'b128', 't256', 'b256']
configs = list(dict.fromkeys(r['config'] for r in rows))
def med(c, k):
    v = [float(r['median_ms']) for r in rows if r['config'] == c and r['case'] == k and r['median_ms']]
    return statistics.median(v) if v else float('nan')
print('%-14s %-16s' % ('config', 'workers') + ''.join('%9s' % k for k in cases) +
      '  b128/t128  b256/t256  us/task(b32)')
for c in configs:
    w = next(r['workers'] for r in rows if r['config'] == c)
    m = {k: med(c, k) for k in cases}
    n = max(int(r['tasks_per_step']) for r in rows if r['config'] == c and r['case'] == 'b32')
    print('%-14s %-16s' % (c, w) + ''.join('%9.3f' % m[k] for k in cases) +
          '  %9.2f  %9.2f  %12.1f' % (m['b128'] / m['t128'], m['b256'] / m['t256'],
                                      1e3 * m['b32'] / n if n else float('nan')))
print('ms a step, median over rounds; us/task: the b32 step over its tasks a step')
PY
