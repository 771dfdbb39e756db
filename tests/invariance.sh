#!/usr/bin/env bash
# invariance.sh APP MPIEXEC ARGS... — an app's final field after N steps (--dump) is bitwise
# identical across decompositions and modes: 1 rank x 1 tile (the reference), the same with every
# periodic halo copied (--wrap=false: no kernel writes or reads periodic images), 1 x 8 tiles,
# 2 ranks x 2 tiles, 4 ranks, 3 ranks, and bulk-synchronous mode.
set -u
app=$1 mpiexec=$2; shift 2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
run() { # name nranks args...
  local name=$1 np=$2; shift 2
  if ! timeout 300 "$mpiexec" --oversubscribe -np "$np" "$app" "$@" --dump "$dir/$name.bin" > "$dir/$name.log" 2>&1; then
    cat "$dir/$name.log"; echo "FAIL: run '$name' failed"; exit 1
  fi
  grep -h "process grid" "$dir/$name.log" | sed "s/^/  $name: /"
}
run ref 1 "$@" --tiles 1
run copies 1 "$@" --tiles 1 --wrap=false
run tiles8 1 "$@" --tiles 8
run r2t2 2 "$@" --tiles 2
run r4 4 "$@"
run r3 3 "$@"
run bulk 2 "$@" --tiles 2 --mode bulk
run bulk1 1 "$@" --tiles 8 --mode bulk
fail=0
for f in "$dir"/*.bin; do
  if cmp -s "$dir/ref.bin" "$f"; then echo "  identical: $(basename "$f" .bin)"
  else echo "FAIL: $(basename "$f" .bin) differs from 1 rank x 1 tile"; fail=1; fi
done
exit $fail
