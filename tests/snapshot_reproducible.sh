#!/usr/bin/env bash
# snapshot_reproducible.sh MPIEXEC APP ARGS... — two identical runs write byte-identical files:
# the app runs twice with the same arguments into the same output directory (the first run's
# files moved aside in between, so that the configuration stored in each file, output.dir
# included, is the same), and every snapshot and checkpoint of the first run is compared byte
# for byte (cmp) with the second's. HDF5 stores no object timestamps in our files
# (runtime/storage/h5util.c); a file that differs names the first differing byte.
set -u
mpiexec=$1 app=$2
shift 2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
run() { timeout 300 "$mpiexec" -np 2 "$app" "$@" --out "$dir/out" >"$dir/log" 2>&1 || { cat "$dir/log"; echo "FAIL: run failed"; exit 1; }; }
run "$@"
mv "$dir/out" "$dir/first"
sleep 1.1 # a timestamp of one-second resolution would differ between the runs
run "$@"
n=0
for f in "$dir"/first/*.vtkhdf "$dir"/first/*.h5; do
  [ -e "$f" ] || continue
  b=$dir/out/$(basename "$f")
  [ -e "$b" ] || { echo "FAIL: the second run wrote no $(basename "$b")"; exit 1; }
  cmp "$f" "$b" || { echo "FAIL: $(basename "$f") differs between identical runs"; exit 1; }
  n=$((n + 1))
done
[ "$n" -ge 2 ] || { ls -l "$dir/first"; echo "FAIL: expected snapshots and a checkpoint, found $n files"; exit 1; }
echo "PASS: $n files byte-identical between two identical runs"
