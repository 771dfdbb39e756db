# hdiff_run.sh — sourced by hdiff_checks.sh and hdiff_walls.sh after they set app and mpiexec:
# a scratch directory (removed on exit), fail=0, and run NAME NRANKS ARGS..., one run of the app
# under mpiexec into $dir/NAME.log that ends the script on failure and echoes its strategy and
# process grid lines.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
run() { # name nranks args...
  local name=$1 np=$2
  shift 2
  if ! timeout 300 "$mpiexec" --oversubscribe -np "$np" "$app" --out "$dir/out" "$@" > "$dir/$name.log" 2>&1; then
    cat "$dir/$name.log"; echo "FAIL: run '$name' failed"; exit 1
  fi
  grep -h "^strategy\|process grid" "$dir/$name.log" | sed "s/^/  $name: /"
}
