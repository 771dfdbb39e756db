#!/usr/bin/env bash
# halo_counts.sh HEAT MPIEXEC — the run summary's halo line against what the decomposition
# implies, counted by hand. Heat order 6 (a star of radius 3: a tile reads the 6 face halos,
# 3 cells deep), 24^3, double (8 bytes a cell), one stage a step:
#   2 ranks, 1x1x2, 1 tile each, periodic: each rank's tile has the other rank's tile below and
#     above it: 1 message a step each way, both z faces, 2 x 24 x 24 x 3 cells; a step is a pack
#     and 2 classes (the z slabs, which unpack the message first, and the rest): the tile is its
#     own neighbour across x and y, and the kernel writes those images as it sweeps, so there is
#     no copy task; with --wrap=false it is copied (4 tasks a step), with
#     --unpack-in-class=false the message has an unpack task (4 a step), and the field is
#     bitwise the same each time;
#   the same with walls in z: only one face between the ranks, 1 message of 24 x 24 x 3 cells;
#   1 rank, 8 tiles buffered, cut z first (1x2x4: 24 x 12 x 6 cells, so no inner slab in z):
#     no message; each tile has 4 buffered links in (itself across x, the one other tile across
#     both y faces, the tiles below and above); its owned cells fall into 8 classes by the links
#     they wait on ({x or not} x {y or not} x {below or above}); the link from below is read by
#     the classes {below}, {x, below}, {y, below}, {x, y, below}, so {below} unpacks it, and
#     {above} the one from above; the x link's readers {x, below} and {x, above} hold neither
#     within the other, so it has an unpack task, as has the y link: 8 packs, 16 unpack tasks,
#     16 unpacks in compute tasks and 8 x 8 classes, 88 tasks a step;
#   the same with --unpack-in-class=false: each of the 4 links has its unpack task: 8 packs,
#     32 unpack tasks, none in compute tasks, 104 tasks a step, and the field bitwise the same;
#   1 rank, 2 tiles sharing memory: no halo path, so no halo line.
set -u
heat=$1 mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 STARPU_MPI_NOBIND=1
fail=0
args=(--device cpu --grid 24,24,24 --order 6 --every 0 --warmup 1 --steps 4)

# check NAME LOG SENT SENT_BYTES RECEIVED RECEIVED_BYTES [PACKS UNPACKS HOSTED TASKS]
check() {
  local name=$1 log=$2
  local line
  line=$(grep '^halo messages per step and rank:' "$log") ||
    { echo "FAIL: $name: no halo line in the summary"; tail -5 "$log"; fail=1; return; }
  echo "$name: $line"
  local want="sent $3 ($4 bytes), received $5 ($6 bytes)"
  case $line in *"$want"*) ;; *) echo "FAIL: $name: expected '$want'"; fail=1 ;; esac
  if [ $# -gt 6 ]; then
    want="${10} tasks per step and rank ($7 pack, $8 unpack, $9 unpacked by compute tasks)"
    case $line in *"$want"*) ;; *) echo "FAIL: $name: expected '$want'"; fail=1 ;; esac
  fi
}

face=$((24 * 24 * 3 * 8))
timeout 300 "$mpiexec" --oversubscribe -np 2 "$heat" "${args[@]}" --procs 1,1,2 --tiles 1 \
  --dump "$dir/images.bin" > "$dir/periodic.log" 2>&1 ||
  { echo "FAIL: periodic run"; tail -5 "$dir/periodic.log"; exit 1; }
grep -q "1x1x2" "$dir/periodic.log" || { echo "FAIL: expected a 1x1x2 process grid"; grep -m3 -i grid "$dir/periodic.log"; fail=1; }
check "2 ranks, periodic" "$dir/periodic.log" 1 $((2 * face)) 1 $((2 * face)) 1.0 0.0 1.0 3.0
timeout 300 "$mpiexec" --oversubscribe -np 2 "$heat" "${args[@]}" --procs 1,1,2 --tiles 1 \
  --wrap=false --dump "$dir/copies.bin" > "$dir/copies.log" 2>&1 ||
  { echo "FAIL: periodic run with copies"; tail -5 "$dir/copies.log"; exit 1; }
check "2 ranks, periodic, --wrap=false" "$dir/copies.log" 1 $((2 * face)) 1 $((2 * face)) 1.0 0.0 1.0 4.0
if cmp -s "$dir/images.bin" "$dir/copies.bin"; then echo "ok: images give the same field as copies"
else echo "FAIL: the field with images differs from the one with copies"; fail=1; fi
timeout 300 "$mpiexec" --oversubscribe -np 2 "$heat" "${args[@]}" --procs 1,1,2 --tiles 1 \
  --unpack-in-class=false --dump "$dir/utask.bin" > "$dir/utask.log" 2>&1 ||
  { echo "FAIL: periodic run with unpack tasks"; tail -5 "$dir/utask.log"; exit 1; }
check "2 ranks, periodic, --unpack-in-class=false" "$dir/utask.log" 1 $((2 * face)) 1 $((2 * face)) 1.0 1.0 0.0 4.0
if cmp -s "$dir/images.bin" "$dir/utask.bin"; then echo "ok: an unpack task gives the same field as the class unpacking"
else echo "FAIL: the field with an unpack task differs from the one unpacked by the class"; fail=1; fi

timeout 300 "$mpiexec" --oversubscribe -np 2 "$heat" "${args[@]}" --procs 1,1,2 --tiles 1 \
  --periodic xy --set 'boundary.u=z:dirichlet(0)' > "$dir/walls.log" 2>&1 ||
  { echo "FAIL: walled run"; tail -5 "$dir/walls.log"; exit 1; }
check "2 ranks, walls in z" "$dir/walls.log" 1 $face 1 $face

timeout 300 "$heat" "${args[@]}" --tiles 8 --mode buffered --dump "$dir/tiles.bin" > "$dir/tiles.log" 2>&1 ||
  { echo "FAIL: buffered run"; tail -5 "$dir/tiles.log"; exit 1; }
grep -q "(1x2x4)" "$dir/tiles.log" || { echo "FAIL: expected 1x2x4 tiles"; grep -m3 -i tile "$dir/tiles.log"; fail=1; }
check "1 rank, 8 tiles buffered" "$dir/tiles.log" 0 0 0 0 8.0 16.0 16.0 88.0
timeout 300 "$heat" "${args[@]}" --tiles 8 --mode buffered --unpack-in-class=false \
  --dump "$dir/tasks.bin" > "$dir/tasks.log" 2>&1 ||
  { echo "FAIL: buffered run with unpack tasks"; tail -5 "$dir/tasks.log"; exit 1; }
check "1 rank, 8 tiles buffered, unpack tasks" "$dir/tasks.log" 0 0 0 0 8.0 32.0 0.0 104.0
# the two graphs compute the same field, bit for bit
if cmp -s "$dir/tiles.bin" "$dir/tasks.bin"; then echo "ok: unpack tasks give the same field as unpacks in classes"
else echo "FAIL: the field with unpack tasks differs from the one with unpacks in classes"; fail=1; fi

# one rank, tiles sharing memory: no halo path, no line
timeout 300 "$heat" "${args[@]}" --tiles 2 > "$dir/shared.log" 2>&1 ||
  { echo "FAIL: 2-tile run"; tail -5 "$dir/shared.log"; exit 1; }
if grep -q '^halo messages' "$dir/shared.log"; then
  echo "FAIL: a halo line for one rank with no buffered link"; fail=1
else echo "ok: 1 rank, 2 tiles sharing memory: no halo line"; fi
exit $fail
