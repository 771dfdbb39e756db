#!/usr/bin/env bash
# trace_full.sh MPIEXEC MHD — a traced run onto a 200 KiB filesystem, 1 and 2 ranks, exits
# non-zero naming the lack of space ("No space left on device"), and leaves no merged trace
# (paje.trace) that would look complete. Before, it said "trace in ...: paje.trace (ViTE), ..."
# with 9 of 11 files empty or cut short, and exited 0. The filesystem is a tmpfs, so the test
# needs mount permission (root); elsewhere it is skipped (77).
set -u
mpiexec=$1 mhd=$2
dir=$(mktemp -d)
mnt=$dir/small
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=200k tmpfs "$mnt" 2>/dev/null; then
  rm -rf "$dir"
  echo "skipped: cannot mount a 200 KiB tmpfs here (needs root and mount permission)"
  exit 77
fi
trap 'umount "$mnt"; rm -rf "$dir"' EXIT
fail=0
for np in 1 2; do
  rm -rf "${mnt:?}"/*
  timeout 120 "$mpiexec" --oversubscribe -np "$np" "$mhd" --every 0 --out "$mnt/o" \
    --grid 16,16,16 --steps 20 --trace "$mnt/o/trace" >"$dir/$np.log" 2>&1
  rc=$?
  why=
  if [ $rc -eq 124 ]; then why="hung (killed after 120 s)"
  elif [ $rc -eq 0 ]; then why="exit status 0 on a full disk"
  elif ! grep -q "No space left on device" "$dir/$np.log"; then why="the lack of space is not named"
  elif [ -s "$mnt/o/trace/paje.trace" ]; then why="a paje.trace was left behind"
  elif grep -q "^tessera: trace in" "$dir/$np.log"; then why="reported a trace as written"
  fi
  if [ -z "$why" ]; then
    echo "ok: $np rank(s): exit $rc; $(grep -m1 'No space left on device' "$dir/$np.log")"
  else
    echo "FAIL: $np rank(s): $why"; tail -15 "$dir/$np.log"; fail=1
  fi
done
exit $fail
