#!/usr/bin/env bash
# snapshot_check.sh MPIEXEC NP TEST_SNAPSHOT [tiles] — writes a snapshot with NP ranks
# (test_snapshot) and reads it back with h5py and VTK (snapshot_readback.py, Debian's python).
set -u
mpiexec=$1 np=$2 prog=$3 tiles=${4:-0}
py=/usr/bin/python3
[ -x "$py" ] || { echo "skip: $py not found"; exit 77; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
timeout 120 "$mpiexec" -np "$np" "$prog" "$dir" "$tiles" || { echo "FAIL: test_snapshot failed"; exit 1; }
"$py" "$(dirname "$0")/snapshot_readback.py" "$dir"
