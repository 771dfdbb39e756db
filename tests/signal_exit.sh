#!/usr/bin/env bash
# signal_exit.sh HEAT — SIGTERM and SIGINT sent to a 1-rank run (no launcher) stop it with a
# checkpoint and a non-zero status, 128 + the signal as a shell reports it: the run did not do
# what it was asked (before: exit 0). SIGUSR2, the planned stop of a batch system, stays 0.
set -u
heat=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
for sig in TERM:143 INT:130 USR2:0; do
  name=${sig%%:*} want=${sig##*:}
  rm -rf o
  "$heat" --grid 64,64,1 --steps 100000000 --every 0 --out o > "$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do grep -q '^dt ' "$name.log" && break; sleep 0.1; done
  sleep 0.5
  kill -"$name" "$pid"
  wait "$pid"
  rc=$?
  if [ "$rc" = "$want" ] && grep -q "stopped by SIG$name" "$name.log" && ls o/tess-heat_*.h5 >/dev/null 2>&1; then
    echo "ok: SIG$name: exit $rc, checkpoint $(ls o/*.h5)"
  else
    echo "FAIL: SIG$name: exit $rc (expected $want), or no checkpoint or message"; cat "$name.log"; fail=1
  fi
done
exit $fail
