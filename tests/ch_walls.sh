#!/usr/bin/env bash
# ch_walls.sh CH MPIEXEC — Cahn-Hilliard between no-flux walls (Neumann(0) on u and mu), 2D and
# 3D: the total mass stays put to 1e-12 relative, the discrete free energy (no difference across
# a wall) never rises, the fused and composed variants agree bitwise, and a run on 2 ranks x 2
# tiles gives the same bits as one tile.
set -u
ch=$1 mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
for case in "2D|--grid 48,40,1 --periodic none --set boundary.u=all:neumann(0)" \
            "3D|--grid 20,16,24 --periodic x --set boundary.u=y:neumann(0),z:symmetric"; do
  label=${case%%|*} args=${case#*|}
  for v in composed fused; do
    out=$(timeout 300 "$ch" $args --noise 0.1 --steps 300 --every 30 --variant $v --scheme heun \
          --dump "$dir/$label-$v.raw" 2>&1)
    rel=$(printf '%s\n' "$out" | awk '/^step +[0-9]/ {m[n++] = $6} END {d = m[n-1] - m[0]; if (d < 0) d = -d; printf "%.3e", d / (m[0] < 0 ? -m[0] : m[0])}')
    echo "$label $v: mass relative change $rel"
    awk -v r="$rel" 'BEGIN { exit !(r != "nan" && r <= 1e-12) }' || { echo "FAIL: $label $v mass drift $rel"; fail=1; }
    printf '%s\n' "$out" | awk -v l="$label $v" '/^step +[0-9]/ { F = $8 + 0; if (n++ && F > prev + 1e-12 * (prev < 0 ? -prev : prev)) { printf "FAIL: %s energy rose from %.12e to %.12e at step %s\n", l, prev, F, $2; bad = 1 } prev = F; last = F } END { if (!bad) printf "%s: free energy non-increasing over %d lines, to %.6e\n", l, n, last; exit bad }' || fail=1
  done
  cmp -s "$dir/$label-composed.raw" "$dir/$label-fused.raw" && echo "$label: fused = composed, bitwise" ||
    { echo "FAIL: $label fused and composed differ"; fail=1; }
  timeout 300 $mpiexec -np 2 "$ch" $args --noise 0.1 --steps 300 --variant fused --scheme heun \
    --tiles 2 --dump "$dir/$label-mpi.raw" > "$dir/mpi.log" 2>&1 || { echo "FAIL: $label on 2 ranks"; tail -5 "$dir/mpi.log"; fail=1; }
  cmp -s "$dir/$label-fused.raw" "$dir/$label-mpi.raw" && echo "$label: 2 ranks x 2 tiles = 1 tile, bitwise" ||
    { echo "FAIL: $label 2 ranks differ from 1 tile"; fail=1; }
done
exit $fail
