#!/usr/bin/env bash
# boundary_tasklog.sh HEAT — the boundary tasks in the graph, from the task log: heat 32^2 between
# walls, 2 tiles in buffered mode (cut across y: several classes, so fills are tasks of their
# own), the exchange into tile 0 from the y+ side (direction 16) held back 0.5 s. Tile 0's fills
# (x- 12, x+ 14, y- 10) and its class without remote waits (which reads those faces) end before that exchange
# arrives: a fill waits only for the tile's own data. Every physical face of each tile has one
# boundary task per step, and a periodic run has none.
set -u
heat=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
"$heat" --grid 32,32,1 --periodic none --set 'boundary.u=x:dirichlet(0),y:neumann(0)' --mode buffered \
  --tiles 2 --steps 2 --every 0 --task-log "$dir/walled" --delay 0,16,0.5 > "$dir/a.log" 2>&1 ||
  { echo "FAIL: walled run"; tail -5 "$dir/a.log"; exit 1; }
grep -q "2 tile(s) per rank (1x2x1)" "$dir/a.log" || { echo "FAIL: expected 1x2x1 tiles:"; grep "^grid" "$dir/a.log"; exit 1; }
awk -F, 'NR > 1 && $6 == 0 {
  if ($1 == "unpack" && $2 == 0) arrive = $7
  if ($2 == 0 && ($1 == "boundary" || ($1 == "inner" && $3 == 13))) done[$1 "/" $3] = $7
  if ($1 == "boundary") faces[$2] = faces[$2] " " $3
}
END {
  bad = 0
  for (k in done) {
    ok = done[k] < arrive
    printf "%s tile 0 %s ends at %.3f s, the held-back exchange at %.3f s\n", ok ? "ok:" : "FAIL:", k, done[k], arrive
    bad += !ok
  }
  n0 = split(faces[0], a, " "); n1 = split(faces[1], b, " ")
  printf "boundary tasks in step 0: tile 0 dirs%s, tile 1 dirs%s\n", faces[0], faces[1]
  if (n0 != 3 || n1 != 3) { print "FAIL: expected 3 boundary tasks per tile"; bad++ }
  if (index(faces[0], "12") == 0 || index(faces[0], "14") == 0 || index(faces[0], "10") == 0) { print "FAIL: tile 0 faces"; bad++ }
  if (index(faces[1], "12") == 0 || index(faces[1], "14") == 0 || index(faces[1], "16") == 0) { print "FAIL: tile 1 faces"; bad++ }
  exit bad > 0 }' "$dir/walled.0" || fail=1
steps=$(awk -F, '$1 == "boundary" {print $6}' "$dir/walled.0" | sort -u | tr '\n' ' ')
[ "$steps" = "0 1 " ] && echo "boundary tasks in steps: $steps" || { echo "FAIL: boundary tasks in steps '$steps'"; fail=1; }
"$heat" --grid 32,32,1 --mode buffered --tiles 2 --steps 2 --every 0 --task-log "$dir/periodic" > "$dir/b.log" 2>&1 ||
  { echo "FAIL: periodic run"; exit 1; }
n=$(grep -c '^boundary,' "$dir/periodic.0")
[ "$n" = 0 ] && echo "periodic run: no boundary task" || { echo "FAIL: periodic run has $n boundary tasks"; fail=1; }
exit $fail
