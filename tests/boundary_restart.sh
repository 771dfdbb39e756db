#!/bin/sh
# boundary_restart.sh HEAT MPIEXEC — checkpoints record the physical faces: a walled run
# restarted with the same settings (on another decomposition) ends bitwise where the
# uninterrupted run ends; a restart with another periodicity or other conditions is refused
# (exit non-zero, a message naming the checkpoint's faces and this run's), as is a periodic
# restart of a walled checkpoint.
set -u
heat=$1 mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
w="--grid 24,16,1 --periodic z --every 0"
spec='boundary.u=x-:dirichlet(0.25),x+:outflow,y:neumann(1)'
"$heat" $w --set "$spec" --steps 20 --dump "$dir/straight.raw" > "$dir/a.log" 2>&1 || { echo "FAIL: straight run"; cat "$dir/a.log"; exit 1; }
"$heat" $w --set "$spec" --steps 10 --checkpoint-every 10 --out "$dir/ck" > "$dir/b.log" 2>&1 || { echo "FAIL: first half"; cat "$dir/b.log"; exit 1; }
$mpiexec -np 2 "$heat" $w --set "$spec" --steps 20 --restart latest --out "$dir/ck" --tiles 2 \
  --dump "$dir/restarted.raw" > "$dir/c.log" 2>&1 || { echo "FAIL: restart"; cat "$dir/c.log"; exit 1; }
if cmp -s "$dir/straight.raw" "$dir/restarted.raw"; then echo "restart with the same faces: bitwise"; else
  echo "FAIL: the restarted run differs from the straight one"; fail=1; fi
refuse() { # label args...
  label=$1
  shift
  out=$(timeout 60 "$heat" "$@" --steps 20 --restart latest --out "$dir/ck" 2>&1)
  rc=$?
  # the checkpoint's settings, as written (every refused run differs from them somewhere)
  if [ "$rc" = 0 ] || ! printf '%s\n' "$out" | grep "written with other physical faces" |
       grep -q "grid.periodic = z; boundary.u = x-:dirichlet(0.25),x+:outflow,y:neumann(1)"; then
    echo "FAIL: $label: exit $rc"; printf '%s\n' "$out" | tail -3; fail=1
  else
    echo "$label: refused (exit $rc): $(printf '%s\n' "$out" | grep 'physical faces' | head -1)"
  fi
}
refuse "other value" $w --set 'boundary.u=x-:dirichlet(0.5),x+:outflow,y:neumann(1)'
refuse "other kind" $w --set 'boundary.u=x-:dirichlet(0.25),x+:outflow,y:symmetric'
refuse "periodic y" --grid 24,16,1 --periodic yz --every 0 --set 'boundary.u=x-:dirichlet(0.25),x+:outflow'
refuse "all periodic" --grid 24,16,1 --every 0
exit $fail
