#!/usr/bin/env bash
# ch_checks.sh CH CHECK — physics checks of the Cahn-Hilliard app, one per CHECK:
#   mass     total mass conserved to 1e-12 relative over 1000 steps (both variants, both schemes)
#   energy   discrete free energy non-increasing at every progress line (stable dt)
#   growth   a small cosine mode grows at sigma = M lambda (B - K lambda), lambda the discrete
#            Laplacian's symbol: measured rate within 1% (both schemes)
#   fused    composed and fused variants give bitwise identical fields (the fused kernel does
#            the same arithmetic in one pass), 2D and 3D
set -u
ch=$1 check=$2
fail=0
run() { timeout 300 "$ch" "$@" 2>&1; }
case $check in
mass)
  for v in composed fused; do for s in euler heun; do
    out=$(run --grid 64,64,1 --u0 0.2 --noise 0.1 --steps 1000 --every 1000 --variant $v --scheme $s)
    rel=$(printf '%s\n' "$out" | awk '/^step/ {m[n++] = $6} END {d = m[n-1] - m[0]; if (d < 0) d = -d; printf "%.3e", d / (m[0] < 0 ? -m[0] : m[0])}')
    echo "$v/$s: mass $(printf '%s\n' "$out" | awk '/^step/ {printf "%s ", $6}') relative change $rel"
    awk -v r="$rel" 'BEGIN { exit !(r <= 1e-12) }' || { echo "FAIL: $v/$s mass drift $rel > 1e-12"; fail=1; }
  done; done ;;
energy)
  for v in composed fused; do
    out=$(run --grid 64,64,1 --noise 0.1 --steps 600 --every 20 --variant $v --scheme heun)
    printf '%s\n' "$out" | awk '/^step/ {print "  F =", $8}' | head -3
    printf '%s\n' "$out" | awk -v v=$v '/^step/ { F = $8 + 0; if (n == 0) first = F; if (n++ && F > prev + 1e-12 * (prev < 0 ? -prev : prev)) { printf "FAIL: %s energy rose from %.12e to %.12e at step %s\n", v, prev, F, $2; bad = 1 } prev = F }
      END { if (!bad) printf "%s: free energy non-increasing over %d progress lines (%.6e -> %.6e)\n", v, n, first, prev; exit bad }' || fail=1
  done ;;
growth)
  for s in euler heun; do
    out=$(run --grid 64,8,1 --init mode --wave 4 --eps 1e-6 --steps 1200 --every 1200 --scheme $s)
    line=$(printf '%s\n' "$out" | grep '^growth:' | tail -1)
    echo "$s: $line"
    err=$(printf '%s\n' "$line" | awk '{print $NF}')
    awk -v e="$err" 'BEGIN { exit !(e != "" && e < 0.01) }' || { echo "FAIL: $s growth rate off by $err"; fail=1; }
  done ;;
fused)
  d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
  for g in 48,48,1 16,16,16; do for s in euler heun; do
    run --grid $g --steps 50 --scheme $s --variant composed --tiles 4 --dump "$d/c.bin" >/dev/null
    run --grid $g --steps 50 --scheme $s --variant fused --tiles 2 --dump "$d/f.bin" >/dev/null
    if cmp -s "$d/c.bin" "$d/f.bin" && [ -s "$d/c.bin" ]; then echo "$g $s: composed == fused (bitwise)"
    else echo "FAIL: $g $s: composed and fused differ"; fail=1; fi
  done; done ;;
*) echo "unknown check $check"; exit 2 ;;
esac
exit $fail
