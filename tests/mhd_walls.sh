#!/usr/bin/env bash
# mhd_walls.sh MHD MPIEXEC — MHD between free-slip, perfectly conducting walls (boundary.walls =
# slip: symmetric and antisymmetric per component, radius 3, edges read by the mixed
# derivatives): one tile, 2 and 4 tiles, the bulk and buffered modes and 2 ranks all end with
# bitwise the same state.
set -u
mhd=$1 mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0 ref=""
base=(--grid 16,16,16 --periodic z --set boundary.walls=slip --set init.ic=sound --steps 6 --every 0)
run() { # label cmd...
  local label=$1
  shift
  if ! timeout 300 "$@" "${base[@]}" --dump "$dir/$label.raw" > "$dir/$label.log" 2>&1; then
    echo "FAIL: $label did not run:"; tail -5 "$dir/$label.log"; fail=1; return
  fi
  if [ -z "$ref" ]; then ref=$dir/$label.raw; echo "$label: reference"; return; fi
  cmp -s "$ref" "$dir/$label.raw" && echo "$label: bitwise" || { echo "FAIL: $label differs"; fail=1; }
}
run one "$mhd" --tiles 1
run tiles2 "$mhd" --tiles 2
run tiles4 "$mhd" --tiles 4 --mode bulk
run buffered "$mhd" --tiles 2 --mode buffered
run ranks2 $mpiexec -np 2 "$mhd" --tiles 1
out=$("$mhd" --grid 16,16,16 --periodic z --dry-run 2>&1); rc=$?
if [ "$rc" = 2 ] && printf '%s\n' "$out" | grep -q "boundary.walls = none, but some axis is not periodic"; then
  echo "walls missing: refused (exit 2)"; else echo "FAIL: walls missing: exit $rc: $out"; fail=1; fi
exit $fail
