#!/usr/bin/env bash
# disk_full.sh MPIEXEC MHD CH — a disk that fills up during a collective write ends an MPI job
# within seconds, with our message naming "No space left on device", no .tmp left and the older
# files intact. Before, 2 ranks waited in two different barriers inside H5Fclose until the
# batch limit.
#
# The disk is a 2 MiB tmpfs, so the test needs root and mount permission; elsewhere it is
# skipped (77). Cases: MHD snapshots on 2 and 4 ranks, Cahn-Hilliard snapshots on 2 ranks,
# Cahn-Hilliard checkpoints on 2 and 4 ranks; the newest checkpoint left behind must restart.
set -u
mpiexec=$1 mhd=$2 ch=$3
dir=$(mktemp -d)
mnt=$dir/small
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=2m tmpfs "$mnt" 2>/dev/null; then
  rm -rf "$dir"
  echo "skipped: cannot mount a 2 MiB tmpfs here (needs root and mount permission)"
  exit 77
fi
trap 'umount "$mnt"; rm -rf "$dir"' EXIT
fail=0

# full NAME NP APP ARGS...: the run must fail, not hang (a hang waits for the 120 s timeout; a
# run ends in 5-35 s, most of it the steps before the disk is full, slower on a loaded machine:
# so no tighter time limit), say why, leave no .tmp and at least one complete older file.
full() {
  local name=$1 np=$2 t0=$SECONDS rc
  shift 2
  rm -rf "${mnt:?}"/*
  timeout 120 "$mpiexec" --oversubscribe -np "$np" "$@" --every 0 --out "$mnt/o" \
    >"$dir/$name.log" 2>&1
  rc=$?
  local t=$((SECONDS - t0)) why=ok
  if [ $rc -eq 124 ]; then
    why="hung (killed after 120 s)"
  elif [ $rc -eq 0 ]; then
    why="exit status 0 although the disk filled up"
  elif ! grep -q "error (I/O error)" "$dir/$name.log"; then
    why="no message of ours"
  elif ! grep "error (I/O error)" "$dir/$name.log" | grep -q "No space left on device"; then
    why="our message does not name the full disk"
  elif ls "$mnt/o" | grep -q '\.tmp$'; then
    why="left $(ls "$mnt/o" | grep '\.tmp$')"
  elif ! ls "$mnt/o" | grep -qE '\.(vtkhdf|h5)$'; then
    why="no older file left"
  fi
  if [ "$why" = ok ]; then
    echo "ok: $name ($np ranks): exit $rc after $t s, $(grep -c . <(ls "$mnt/o")) files left"
  else
    echo "FAIL: $name ($np ranks): $why"
    tail -20 "$dir/$name.log"
    fail=1
  fi
}

full mhd_snapshots 2 "$mhd" --grid 16,16,16 --steps 40 --snapshot-every 1
full mhd_snapshots 4 "$mhd" --grid 16,16,16 --steps 40 --snapshot-every 1
full ch_snapshots 2 "$ch" --grid 64,64,1 --steps 400 --snapshot-every 1 --png=false
for np in 2 4; do
  full ch_checkpoints "$np" "$ch" --grid 256,256,1 --steps 40 --checkpoint-every 1
  last=$(ls "$mnt/o"/*.h5 2>/dev/null | tail -1)
  mkdir -p "$dir/big"
  if [ -n "$last" ] && cp "$last" "$dir/big/" &&
    "$mpiexec" --oversubscribe -np 2 "$ch" --grid 256,256,1 --steps 3 --every 0 \
      --out "$dir/big/o" --restart "$dir/big/$(basename "$last")" >"$dir/restart.log" 2>&1 &&
    grep -q "restarted from" "$dir/restart.log"; then
    echo "ok: the checkpoint left behind ($(basename "$last")) restarts"
  else
    echo "FAIL: the newest checkpoint left behind (${last:-none}) does not restart"
    tail -5 "$dir/restart.log" 2>/dev/null
    fail=1
  fi
done
exit $fail
