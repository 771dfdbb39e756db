#!/usr/bin/env bash
# boundaries_gpu.sh BUILD_DIR — walled runs of every app with physical faces on the GPU give the
# same bits as on the CPU (the fills share tessera_bc.h's formula, rounded op by op): heat (2nd and
# 6th order, double and single), Cahn-Hilliard (fused, no-flux), MHD (slip walls), Maxwell (PEC
# cavity), hdiff (a limited-area patch: temporaries recomputed from in's ghost fills; double,
# single, buffered), each on one GPU tile and on 2 tiles (boundary tasks when tiles are
# buffered). 77: no GPU (StarPU starts no CUDA worker).
set -u
b=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if ! "$b/apps/heat/tess-heat" --device cuda --grid 16,16,1 --steps 1 > "$dir/probe" 2>&1; then
  grep -Eq "no CUDA worker|built without CUDA" "$dir/probe" && { echo "skip: no GPU (or a build without CUDA)"; exit 77; }
  cat "$dir/probe"; exit 1
fi
fail=0
pair() { # label exe args...
  local label=$1 exe=$2
  shift 2
  for dev in cpu cuda; do
    timeout 600 "$exe" --device $dev "$@" --every 0 --dump "$dir/$label-$dev.raw" > "$dir/$label-$dev.log" 2>&1 ||
      { echo "FAIL: $label on $dev:"; tail -5 "$dir/$label-$dev.log"; fail=1; return; }
  done
  cmp -s "$dir/$label-cpu.raw" "$dir/$label-cuda.raw" && echo "$label: GPU = CPU, bitwise" ||
    { echo "FAIL: $label: GPU and CPU differ"; fail=1; }
}
hd=$b/apps/hdiff/tess-hdiff heat=$b/apps/heat/tess-heat ch=$b/apps/cahn_hilliard/tess-ch mhd=$b/apps/mhd/tess-mhd mw=$b/apps/maxwell/tess-maxwell
dw=(--periodic z --set 'boundary.in=x-:dirichlet(0.5),x+:outflow,y-:neumann(1),y+:antisymmetric')
hw=(--periodic z --set 'boundary.u=x-:dirichlet(0.5),x+:neumann(-2),y-:outflow,y+:symmetric')
for t in 1 2; do
  pair heat2-t$t "$heat" --grid 64,48,32 "${hw[@]}" --steps 20 --tiles $t
  pair heat6-t$t "$heat" --grid 64,48,32 "${hw[@]}" --order 6 --steps 20 --tiles $t
  pair heat6-single-t$t "$heat" --grid 64,48,32 "${hw[@]}" --order 6 --steps 20 --tiles $t --precision single
  pair heat6-buffered-t$t "$heat" --grid 64,48,32 "${hw[@]}" --order 6 --steps 20 --tiles $t --mode buffered
  pair ch-t$t "$ch" --grid 64,64,32 --periodic x --set 'boundary.u=y:neumann(0),z:symmetric' --variant fused --steps 20 --tiles $t
  pair mhd-t$t "$mhd" --grid 32,32,32 --periodic z --set boundary.walls=slip --steps 6 --tiles $t
  # every face physical, a kind per face: faces, edges and corners, each filled in one launch
  pair heat6-box-single-t$t "$heat" --grid 40,36,32 --periodic none --order 6 --precision single \
    --set 'boundary.u=x-:dirichlet(0.5),x+:neumann(-2),y-:outflow,y+:symmetric,z-:antisymmetric,z+:dirichlet(-1)' \
    --steps 20 --tiles $t
  # every face physical on a lone tile (t1): the heat kernels fill the ghosts as their z-march
  # stages its planes (several blocks along x and y, partial ones, several z chunks), or in a
  # launch of their own where they run cell by cell (a tile thinner than 16 cells, a flat grid)
  bw='boundary.u=x-:dirichlet(0.5),x+:neumann(-2),y-:outflow,y+:symmetric,z-:antisymmetric,z+:dirichlet(-1)'
  pair heat2-box-t$t "$heat" --grid 300,20,24 --periodic none --set "$bw" --steps 20 --tiles $t
  pair heat6-box-t$t "$heat" --grid 40,36,32 --periodic none --order 6 --set "$bw" --steps 20 --tiles $t
  pair heat2-box-tall-t$t "$heat" --grid 64,16,300 --periodic none --set "$bw" --steps 10 --tiles $t
  pair heat6-box-thin-t$t "$heat" --grid 12,40,32 --periodic none --order 6 --set "$bw" --steps 20 --tiles $t
  pair heat2-flat-t$t "$heat" --grid 64,48,1 --periodic none --set 'boundary.u=x:dirichlet(0.5),y:outflow' \
    --steps 20 --tiles $t
  pair hdiff-t$t "$hd" --grid 96,64,16 "${dw[@]}" --init random --steps 20 --tiles $t
  pair hdiff-single-t$t "$hd" --grid 96,64,16 "${dw[@]}" --init random --steps 20 --tiles $t --precision single
  pair hdiff-buffered-t$t "$hd" --grid 96,64,16 "${dw[@]}" --init random --steps 20 --tiles $t --mode buffered
  pair hdiff-box-t$t "$hd" --grid 64,96,8 --periodic none --set 'boundary.in=x:symmetric,y:dirichlet(-0.25)' \
    --init bump --steps 20 --tiles $t
  pair maxwell-t$t "$mw" --grid 32,32,32 --periodic none --set boundary.walls=pec --init cavity --wave 1,2,0 --steps 20 --tiles $t
done
exit $fail
