#!/usr/bin/env bash
# precision_check.sh APP MPIEXEC COMPARE MAX_ULP CELLS ARGS... — the app run in single precision
# (--precision single) against the same run in double: every dumped value is a float, the
# two differ (single arithmetic happened), and by at most MAX_ULP float ULPs of each dumped
# variable's largest value (dump_compare --single=CELLS, CELLS values per variable). Two ranks
# with tiles, so halos travel in single too.
set -u
app=$1 mpiexec=$2 compare=$3 ulp=$4 cells=$5; shift 5
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
for p in double single; do
  if ! timeout 300 "$mpiexec" --oversubscribe -np 2 "$app" "$@" --tiles 2 --precision "$p" \
      --dump "$dir/$p.bin" > "$dir/$p.log" 2>&1; then
    cat "$dir/$p.log"; echo "FAIL: the $p run failed"; exit 1
  fi
  grep -h "process grid" "$dir/$p.log" | sed "s/^/  $p: /"
done
"$compare" --single="$cells" "$dir/double.bin" "$dir/single.bin" "$ulp"
