#!/bin/sh
# boundary_specs.sh HEAT — bad physical-face settings are refused before anything starts: exit 2
# (a dry run: no MPI, no StarPU), one message naming the bad part and what is allowed; good
# ones pass. Each line: expected exit, a pattern the message must hold, the arguments.
set -u
heat=$1
status=0
try() {
  want=$1 pattern=$2
  shift 2
  out=$("$heat" --dry-run "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ] || ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "FAIL: $* -> exit $rc (expected $want), output:"
    printf '%s\n' "$out"
    status=1
  else
    echo "ok: $* -> exit $rc: $(printf '%s\n' "$out" | head -n 1)"
  fi
}
g="--grid 16,16,1 --periodic z"
try 2 "value 'abc' is not a number.*finite number" $g --set 'boundary.u=x:dirichlet(abc)'
try 2 "unknown face 'w'.*allowed: x-, x\+" $g --set 'boundary.u=w:neumann(0)'
try 2 "unknown kind 'sticky'.*allowed: dirichlet" $g --set 'boundary.u=x:sticky'
try 2 "two conditions for face x-" $g --set 'boundary.u=x:dirichlet(1),x:neumann(0)'
try 2 "value 'nan' is not finite" $g --set 'boundary.u=x:dirichlet(nan)'
try 2 "value 'inf' is not finite" $g --set 'boundary.u=x:neumann(inf),y:outflow'
try 2 "field 'u' has no boundary condition on face y-" --grid 16,16,1 --periodic xz
try 2 "field 'u' has no boundary condition on face x\+" $g --set 'boundary.u=x-:dirichlet(0),y:outflow'
try 2 "face z- is on axis z, which is periodic" $g --set 'boundary.u=x:outflow,y:outflow,z-:symmetric'
try 2 "symmetric takes no value" $g --set 'boundary.u=x:symmetric(1),y:outflow'
try 2 "dirichlet needs a value" $g --set 'boundary.u=x:dirichlet,y:outflow'
try 2 "is not face:kind" $g --set 'boundary.u=dirichlet(0)'
try 2 "'q' is not an axis" --periodic xq
try 2 "names axis x twice" --periodic xx
try 2 "--check needs homogeneous conditions.*x- has dirichlet\(1\)" $g --check --set 'boundary.u=x:dirichlet(1),y:neumann(0)'
try 0 "settings OK" $g --set 'boundary.u=x:dirichlet(0),y:neumann(0)'
try 0 "settings OK" $g --set 'boundary.u=all:outflow'
try 0 "settings OK" --grid 16,16,4 --periodic none --set 'boundary.u=x-:dirichlet(-1.5e3),x+:neumann(2),y:symmetric,z:antisymmetric'
try 0 "settings OK" --grid 16,16,1 --periodic xy
exit $status
