#!/usr/bin/env bash
# heat_accuracy.sh HEAT — the heat app against the analytic sine solution: the spatial error
# (run vs forward Euler applied to the exact Fourier mode) falls at the declared order when
# the grid is refined at a fixed time step and final time.
set -u
heat=$1
err() { timeout 300 "$heat" "$@" --check 2>&1 | awk '/^check:/ {print $5}'; }
fail=0
check() { # label order expected-order args-coarse | args-fine
  local label=$1 p=$2 coarse=$3 fine=$4
  local e1 e2
  e1=$(err $coarse --order "$p"); e2=$(err $fine --order "$p")
  local slope
  slope=$(awk -v a="$e1" -v b="$e2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", log(a / b) / log(2); else print "nan" }')
  local ok
  ok=$(awk -v s="$slope" -v p="$p" 'BEGIN { print (s != "nan" && s > p - 0.15 && s < p + 0.15) ? 1 : 0 }')
  echo "$label: error $e1 -> $e2, observed order $slope (declared $p)"
  [ "$ok" = 1 ] || { echo "FAIL: $label order $slope not within 0.15 of $p"; fail=1; }
}
check "2D order 2" 2 "--grid 32,32,1 --dt 1e-5 --steps 1000" "--grid 64,64,1 --dt 1e-5 --steps 1000"
check "2D order 6" 6 "--grid 16,16,1 --dt 1e-5 --steps 1000" "--grid 32,32,1 --dt 1e-5 --steps 1000"
check "3D order 2" 2 "--grid 16,16,16 --dt 1e-5 --steps 200 --tiles 2" "--grid 32,32,32 --dt 1e-5 --steps 200 --tiles 2"
check "3D order 6" 6 "--grid 16,16,16 --dt 1e-5 --steps 100" "--grid 32,32,32 --dt 1e-5 --steps 100"
exit $fail
