#!/usr/bin/env bash
# task_log.sh MPIEXEC MHD — debug.task_log of an app other than heat: MHD 24^3 on 2 ranks, 4 steps
# (one chunk). Each rank's file holds one record per task the run summary counted (tasks per step
# and rank x steps), each with a worker and a start no later than its end; a prefix in a missing
# directory is refused before the run, naming each rank's file.
set -u
mpiexec=$1 mhd=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$mpiexec" -np 2 "$mhd" --grid 24,24,24 --steps 4 --every 0 --task-log "$dir/log" > "$dir/run.txt" 2>&1 ||
  { echo "FAIL: the run"; tail -5 "$dir/run.txt"; exit 1; }
per_step=$(sed -n 's/.*; \([0-9.]*\) tasks per step and rank.*/\1/p' "$dir/run.txt")
[ -n "$per_step" ] || { echo "FAIL: no task count in the run summary"; tail -3 "$dir/run.txt"; exit 1; }
want=$(awk -v t="$per_step" 'BEGIN { printf "%.0f", t * 4 * 2 }')
fail=0
for r in 0 1; do
  f=$dir/log.$r
  [ -f "$f" ] || { echo "FAIL: no $f"; fail=1; continue; }
  [ "$(head -1 "$f")" = "kind,tile,dir,dirs,stage,step,t_end,t_start,worker" ] ||
    { echo "FAIL: header of log.$r: $(head -1 "$f")"; fail=1; }
  awk -F, 'NR > 1 && !($8 <= $7 && $9 >= 0 && $7 > 0) { print "FAIL: log.'$r' line " NR ": " $0; bad = 1 }
           END { exit bad }' "$f" || fail=1
done
got=$(cat "$dir"/log.0 "$dir"/log.1 | grep -vc '^kind,')
echo "records $got, run summary: $per_step tasks per step and rank x 4 steps x 2 ranks = $want"
[ "$got" = "$want" ] || fail=1
[ -z "$(ls "$dir" | grep tmp)" ] || { echo "FAIL: a partial file is left"; fail=1; }
# a prefix no rank can write to is refused before the run, by the rank that cannot write
out=$("$mpiexec" -np 2 "$mhd" --grid 24,24,24 --steps 4 --every 0 --task-log "$dir/none/log" 2>&1)
rc=$?
if [ $rc = 0 ] || ! grep -q "debug.task_log: cannot write '$dir/none/log.1.tmp'" <<< "$out" ||
   grep -q "tasks per step" <<< "$out"; then
  echo "FAIL: a task log that cannot be written: rc $rc"; tail -4 <<< "$out"; fail=1
fi
[ $fail = 0 ] && echo "ok: task logs complete; an unwritable prefix refused before the run"
exit $fail
