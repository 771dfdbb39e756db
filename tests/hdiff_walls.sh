#!/usr/bin/env bash
# hdiff_walls.sh WHAT APP MPIEXEC REFERENCE — horizontal diffusion on a limited-area patch
# (labels boundaries, hdiff): x and/or y with physical faces, conditions on `in` only, lap, fli
# and flj computed at the faces from in's ghost fills (the recompute strategy).
#   reference   a random field (the limiter acts) with a kind per face, x walled with y
#               periodic, and every face walled (z too, which takes no condition): the final state and the last step's fluxes are bitwise the serial
#               reference's (tests/hdiff_reference.c --bc: its own ghost fills) on 1, 2 and 3
#               ranks, 1 to 4 tiles, overlap, bulk and buffered modes, auto and recompute
#   conservation  mirror walls (symmetric: lap is even about the face, so no flux crosses it)
#               keep the sum of a random field to round-off over 50 steps on 2 ranks; Dirichlet
#               walls (a flux through the face) do not
#   badspec     refused before anything runs, exit 2, with a message naming the setting: a
#               missing face (field and face named), an unknown kind, a condition on a periodic
#               axis, strategy exchange with physical faces
set -u
what=$1 app=$2 mpiexec=$3 ref=$4
# shellcheck source=hdiff_run.sh
source "$(dirname "$0")/hdiff_run.sh"
refuse() { # pattern args...: exit 2 and the pattern on stderr
  local pat=$1; shift
  timeout 120 "$mpiexec" --oversubscribe -np 1 "$app" --out "$dir/out" --steps 1 "$@" > "$dir/bad.log" 2>&1
  local rc=$?
  if [ $rc = 2 ] && grep -q -- "$pat" "$dir/bad.log"; then echo "  refused (exit 2): $pat"
  else cat "$dir/bad.log"; echo "FAIL: exit $rc, expected 2 and '$pat'"; fail=1; fi
}
case $what in
reference)
  coeff=0.03 steps=5
  # periodic box spec | grid | reference args | decompositions
  cases=(
    "z|x-:dirichlet(0.5),x+:outflow,y-:neumann(1),y+:antisymmetric|24,18,3"
    "yz|x-:outflow,x+:symmetric|24,18,2"
    "none|all:dirichlet(-0.25)|18,24,2"
  )
  for c in "${cases[@]}"; do
    IFS='|' read -r per bc grid <<< "$c"
    common=(--grid "$grid" --init random --seed 7 --coeff $coeff --periodic "$per" --set "boundary.in=$bc")
    tag=$(echo "$per-$bc" | tr -c 'a-z0-9\n' '_')
    echo "grid.periodic = $per, boundary.in = $bc, grid $grid"
    run "init-$tag" 1 "${common[@]}" --steps 0 --dump "$dir/init.bin"
    # the ranks split x or y (the decomposer would split z, which needs no halo)
    for cfg in "auto 1 --tiles 1" "recompute 1 --tiles 4" "auto 2 --procs 2,1,1" \
               "recompute 2 --tiles 2 --mode bulk --procs 1,2,1" "auto 3 --procs 3,1,1" \
               "recompute 3 --tiles 2 --mode buffered --procs 1,3,1" \
               "auto 2 --tiles 3 --mode overlap --procs 1,2,1"; do
      set -- $cfg; s=$1 np=$2; shift 2
      run "$tag-$s-$np$(echo "$*" | tr -d ' -')" "$np" "${common[@]}" --steps $steps --strategy "$s" "$@" \
        --dump "$dir/final.bin" --dump-fluxes "$dir/fluxes.bin"
      "$ref" --periodic "$per" --bc "$bc" ${grid//,/ } $coeff $steps "$dir/init.bin" "$dir/final.bin" \
        "$dir/fluxes.bin" 20 > "$dir/ref.log" || { cat "$dir/ref.log"; echo "FAIL: $cfg"; fail=1; }
      grep -h "^final state" "$dir/ref.log" | sed "s/^/    $cfg: /"
    done
  done
  # the walls matter: the same run against the periodic reference differs
  if "$ref" ${grid//,/ } $coeff $steps "$dir/init.bin" "$dir/final.bin" > "$dir/ref.log"; then
    echo "FAIL: a walled run equals the periodic reference"; fail=1
  fi ;;
conservation)
  for bc in all:symmetric 'all:dirichlet(0)'; do
    run "sum-$bc" 2 --grid 30,24,2 --periodic z --set "boundary.in=$bc" --init random --steps 50 \
      --check --procs 2,1,1 --tiles 2
    drift=$(sed -n 's/.*drift \([^ ]*\).*/\1/p' "$dir/sum-$bc.log")
    echo "  $bc: drift $drift"
    if [ "$bc" = all:symmetric ]; then ok='d != "" && d + 0 < 1e-13'; else ok='d != "" && d + 0 > 1e-4'; fi
    awk -v d="$drift" "BEGIN { exit !($ok) }" || { echo "FAIL: $bc: drift '$drift'"; fail=1; }
  done ;;
badspec)
  refuse "field 'in' has no boundary condition on face y+" --grid 16,16,2 --periodic z \
    --set 'boundary.in=x:outflow,y-:dirichlet(0)'
  refuse "boundary.in: unknown kind 'wall'" --grid 16,16,2 --periodic z --set 'boundary.in=all:wall'
  refuse "face x- is on axis x, which is periodic" --grid 16,16,2 --periodic xz --set 'boundary.in=x:outflow,y:outflow'
  refuse "run.strategy = 'exchange' is invalid with physical faces (grid.periodic = yz).*allowed: recompute, auto" \
    --grid 16,16,2 --periodic yz --set 'boundary.in=x:outflow' --strategy exchange
  refuse "field 'in' has no boundary condition on face x-" --grid 16,16,2 --periodic none --dry-run ;;
*) echo "usage: hdiff_walls.sh reference|conservation|badspec APP MPIEXEC REFERENCE"; exit 2 ;;
esac
[ $fail = 0 ] && echo ok
exit $fail
