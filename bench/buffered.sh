#!/usr/bin/env bash
# buffered.sh BUILD_OR_BUNDLE [REPS] — the buffered halo path on CPU workers (docs/halo-path.md):
# heat order 6, 96^3, one rank of WORKERS CPU workers (default 2), --mode buffered, 1, 2, 4 and
# 8 tiles, under the schedulers dmda, dmdas, lws and eager (STARPU_SCHED). REPS rounds (default
# 5), each running every configuration once in turn, so a change of load on a shared machine
# hits all of them alike; a configuration's figure is the median over rounds of its run's
# median ms per step. Prints, per scheduler and tile count, the median, the tasks per step and
# the ratio to 1 tile under the same scheduler (last column). BASE=OTHER_BUILD adds the same
# runs of another build (the commit before a change) to every round, for a paired comparison.
# Output under $OUT (default /tmp/buffered): logs/, runs.csv (every run) and summary.txt.
set -uo pipefail
arg=${1:?usage: buffered.sh BUILD_OR_BUNDLE [REPS]}
reps=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=build-or-bundle.sh
source "$here/build-or-bundle.sh"
tess_build_dir "$arg"
H=$B/apps/heat/tess-heat
[ -x "$H" ] || { echo "buffered.sh: no $H" >&2; exit 2; }
builds=("this=$H")
if [ -n "${BASE:-}" ]; then
  [ -x "$BASE/apps/heat/tess-heat" ] || { echo "buffered.sh: no $BASE/apps/heat/tess-heat" >&2; exit 2; }
  builds+=("base=$BASE/apps/heat/tess-heat")
fi
out=${OUT:-/tmp/buffered}
workers=${WORKERS:-2}
scheds=${SCHEDS:-dmda dmdas lws eager}
tiles=${TILES:-1 2 4 8}
mkdir -p "$out/logs"
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home-buffered}
unset STARPU_WORKERS_CPUID STARPU_WORKERS_NOBIND STARPU_MPI_NOBIND STARPU_SCHED
A=(--device cpu --grid 96,96,96 --order 6 --every 0 --warmup 5 --steps 45 --mode buffered)
# dmda's and dmdas' history models, untimed (a first run with an empty history explores)
for t in $tiles; do
  for b in "${builds[@]}"; do
    STARPU_NCPU=$workers STARPU_SCHED=dmda "${b#*=}" "${A[@]}" --tiles "$t" >"$out/logs/calibrate-${b%%=*}-$t.log" 2>&1
  done
done
echo "rep,build,sched,tiles,median_ms,tasks_per_step" >"$out/runs.csv"
for r in $(seq 1 "$reps"); do
  for s in $scheds; do
    for t in $tiles; do
      for b in "${builds[@]}"; do
        log=$out/logs/${b%%=*}-$s-$t-$r.log
        if ! TESSERA_RUNTIME_LOG=info STARPU_NCPU=$workers STARPU_SCHED=$s timeout 300 "${b#*=}" \
          "${A[@]}" --tiles "$t" >"$log" 2>&1; then
          echo "buffered.sh: run failed: $log" >&2
          continue
        fi
        med=$(sed -n 's/^median \([0-9.]*\) ms per step.*/\1/p' "$log")
        # tasks per step: the runtime's log line of the timed chunks (every build has it)
        tasks=$(sed -n 's/.*run: \([0-9]*\) steps to step [0-9]*: \([0-9]*\) tasks.*/\1 \2/p' "$log" |
          awk '{s += $1; n += $2} END {if (s) printf "%.1f", n / s}')
        echo "$r,${b%%=*},$s,$t,$med,$tasks" >>"$out/runs.csv"
      done
    done
  done
done
{
  echo "# $(date -u +%FT%TZ) $(hostname) $(nproc) cores, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# heat order 6 96^3 double, 1 rank, $workers CPU workers, --mode buffered, $reps rounds"
  echo "# ${COMMIT:+commit $COMMIT, }command: ${BASE:+BASE=$BASE }${WORKERS:+WORKERS=$WORKERS }${SCHEDS:+SCHEDS=\"$SCHEDS\" }${TILES:+TILES=\"$TILES\" }bench/buffered.sh $arg $reps"
  /usr/bin/env python3 - "$out/runs.csv" <<'EOF'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["median_ms"]]
by = {}
for r in rows:
    by.setdefault((r["build"], r["sched"], int(r["tiles"])), []).append(r)
print("%-5s %-6s %5s %5s %10s %14s %11s %9s" % ("build", "sched", "tiles", "runs", "median ms",
                                               "min-max ms", "tasks/step", "÷ 1 tile"))
for bd in dict.fromkeys(r["build"] for r in rows):
    for s in dict.fromkeys(r["sched"] for r in rows):
        one = by.get((bd, s, 1))
        b = statistics.median(float(r["median_ms"]) for r in one) if one else None
        for t in sorted(t for (x, y, t) in by if (x, y) == (bd, s)):
            v = [float(r["median_ms"]) for r in by[(bd, s, t)]]
            m = statistics.median(v)
            print("%-5s %-6s %5d %5d %10.3f %14s %11s %9s" % (
                bd, s, t, len(v), m, "%.2f-%.2f" % (min(v), max(v)),
                by[(bd, s, t)][0]["tasks_per_step"], "%.2f" % (m / b) if b else "-"))
EOF
} | tee "$out/summary.txt"
