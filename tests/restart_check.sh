#!/usr/bin/env bash
# restart_check.sh MPIEXEC APP ARGS... — checkpoint/restart is bitwise and decomposition-free:
#   A: 2 ranks, 20 steps, checkpoints every 10 steps, final dump
#   B: 3 ranks, restart from A's step-10 checkpoint, 20 steps, final dump
# (RESTART_RANKS="A B" changes the rank counts)
# passes when the dumps are identical byte for byte and B says where it restarted.
set -euo pipefail
mpiexec=$1 app=$2; shift 2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
name=$(basename "$app")
read -r na nb <<< "${RESTART_RANKS:-2 3}"
"$mpiexec" -np "$na" "$app" "$@" --steps 20 --every 0 --out "$dir/a" --checkpoint-every 10 \
  --dump "$dir/a.bin" > "$dir/a.log" 2>&1 || { cat "$dir/a.log"; exit 1; }
ls "$dir/a"
ckpt=$dir/a/${name}_00000010.h5
[ -f "$ckpt" ] || { echo "FAIL: no checkpoint $ckpt"; exit 1; }
"$mpiexec" -np "$nb" "$app" "$@" --steps 20 --every 0 --out "$dir/b" --restart "$ckpt" \
  --dump "$dir/b.bin" > "$dir/b.log" 2>&1 || { cat "$dir/b.log"; exit 1; }
grep "restarted from" "$dir/b.log"
if cmp "$dir/a.bin" "$dir/b.bin"; then
  echo "ok: $na rank(s) uninterrupted == $nb rank(s) restarted at step 10, bitwise ($(stat -c %s "$dir/a.bin") bytes)"
else
  echo "FAIL: restarted run differs from the uninterrupted one"; exit 1
fi
