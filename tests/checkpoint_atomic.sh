#!/usr/bin/env bash
# checkpoint_atomic.sh MPIEXEC TEST_CHECKPOINT DIR — failed checkpoint writes leave no file, and
# rotation (test_checkpoint atomic), on 2 ranks. The write that runs out of space mid-file needs a
# small file system: a 96 KiB tmpfs mounted in a private mount namespace (unshare -m, as root),
# written by one rank, which gets the error back (several ranks end the job instead: HDF5 cannot
# close a parallel file after a failed write; tests/disk_full.sh checks that); where a mount is
# not allowed, that case is skipped and the rest still runs.
set -u
mpiexec=$1 prog=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir/small" || exit 1
if unshare -m true 2>/dev/null; then
  "$mpiexec" -np 2 "$prog" atomic "$dir" || exit 1
  exec unshare -m sh -c "mount -t tmpfs -o size=96k tmpfs '$dir/small' &&
    '$mpiexec' -np 1 '$prog' atomic '$dir' --file '$dir/small'"
fi
echo "note: cannot create a mount namespace here; the full-file-system case is skipped"
exec "$mpiexec" -np 2 "$prog" atomic "$dir"
