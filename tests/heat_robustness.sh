#!/usr/bin/env bash
# heat_robustness.sh HEAT MPIEXEC signal|kill — a 2-rank tess-heat run under mpiexec, disturbed:
#   signal  SIGUSR2 to mpiexec (Open MPI forwards SIGUSR1/SIGUSR2 to the ranks) while the loop
#           runs: the run writes a checkpoint, says "stopped by SIGUSR2 at step N" and exits 0
#           within 30 s; `--restart latest --steps N+20` then continues from that checkpoint and
#           ends with the field of an uninterrupted 1-rank run to step N+20, bitwise
#   kill    `kill -9` of one rank: mpiexec exits non-zero within 20 s (the other rank does not
#           hang in a halo exchange)
# Both runs ask for 10^6..10^8 steps on a 32x32 grid, so they would run for minutes unless
# stopped. TESS_ROBUST_KEEP=1 keeps the work directory.
set -u
heat=$1 mpiexec=$2 which=$3
dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  [ -n "${TESS_ROBUST_KEEP:-}" ] && echo "work directory: $dir" || rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/run.log" ] && tail -n 30 "$dir/run.log"; exit 1; }

# start NAME ARGS...: a 2-rank run in the background (pid in $pid, output in $dir/run.log),
# back once it has printed a progress line past step 0, so every rank is inside the time loop
# (the signal handlers are installed before it starts).
start() {
  "$mpiexec" --oversubscribe -np 2 "$heat" --grid 32,32,1 --every 50 "$@" > "$dir/run.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    grep -Eq '^step +[1-9]' "$dir/run.log" && return 0
    kill -0 "$pid" 2>/dev/null || fail "the run ended before its first progress line"
    sleep 0.1
  done
  fail "no progress line within 60 s"
}

# finish SECONDS: waits for $pid at most SECONDS; its exit status in $rc, or fails on a hang.
finish() {
  local limit=$1
  for _ in $(seq 1 $((limit * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"
    fail "mpiexec still running $limit s later (hang)"
  fi
  wait "$pid"
  rc=$?
  pid=
}

case $which in
signal)
  out=$dir/out
  start --steps 1000000 --out "$out"
  kill -USR2 "$pid"
  finish 30
  [ "$rc" -eq 0 ] || fail "exit status $rc after SIGUSR2 (expected 0)"
  grep -q "stopped by SIGUSR2" "$dir/run.log" || fail "no 'stopped by SIGUSR2' line"
  step=$(sed -n 's/.*stopped by SIGUSR2 at step \([0-9]*\).*/\1/p' "$dir/run.log")
  ckpt=$(printf '%s/tess-heat_%08d.h5' "$out" "$step")
  [ -s "$ckpt" ] || fail "no checkpoint $ckpt after SIGUSR2 at step $step"
  grep "stopped by\|^checkpoint" "$dir/run.log" | sed 's/^/  /'
  end=$((step + 20))
  timeout 120 "$mpiexec" --oversubscribe -np 2 "$heat" --grid 32,32,1 --out "$out" \
    --restart latest --steps $end --dump "$dir/restart.bin" > "$dir/restart.log" 2>&1 ||
    { cat "$dir/restart.log"; fail "--restart latest --steps $end failed"; }
  grep -q "restarted from $ckpt at step $step" "$dir/restart.log" ||
    { cat "$dir/restart.log"; fail "the restart did not start from $ckpt"; }
  grep "restarted from" "$dir/restart.log" | sed 's/^/  /'
  timeout 300 "$heat" --grid 32,32,1 --steps $end --dump "$dir/ref.bin" > "$dir/ref.log" 2>&1 ||
    { cat "$dir/ref.log"; fail "the uninterrupted reference run failed"; }
  cmp -s "$dir/ref.bin" "$dir/restart.bin" ||
    fail "the field after restart differs from the uninterrupted run at step $end"
  echo "PASS: stopped by SIGUSR2 at step $step, checkpoint written; restart to step $end" \
    "identical to the uninterrupted run"
  ;;
kill)
  start --steps 100000000 --out "$dir/kill-rank-run"
  # Open MPI 4's mpirun forks its node's ranks itself; else look for the unique --out name
  ranks=$(pgrep -P "$pid" -f tess-heat || pgrep -f "$dir/kill-rank-run" | grep -vx "$pid")
  victim=$(echo "$ranks" | head -n 1)
  [ -n "$victim" ] || fail "found no rank process of mpiexec $pid"
  echo "  ranks: $(echo $ranks); kill -9 $victim"
  kill -9 "$victim"
  finish 20
  [ "$rc" -ne 0 ] || fail "mpiexec exited 0 after a rank was killed"
  echo "PASS: mpiexec exited with status $rc after kill -9 of rank process $victim"
  ;;
*)
  echo "usage: $0 HEAT MPIEXEC signal|kill"
  exit 2
  ;;
esac
