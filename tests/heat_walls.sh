#!/usr/bin/env bash
# heat_walls.sh HEAT MPIEXEC WHAT — the heat app with physical faces.
#   order    the spatial error (run vs forward Euler on the exact mode) falls at the declared
#            order, 2 and 6, with Dirichlet and Neumann walls on every axis
#   bitwise  a walled 3D run with non-zero face values and every kind gives the same bits on
#            1 rank (1 and 4 tiles, three modes) and 2 ranks (2 tiles), in double and in single
set -u
heat=$1 mpiexec=$2 what=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
case $what in
order)
  err() { timeout 300 "$heat" "$@" --check 2>&1 | awk '/^check: error/ {print $5}'; }
  walls='boundary.u=x-:dirichlet(0),x+:neumann(0),y:dirichlet(0),z-:neumann(0),z+:antisymmetric'
  check() { # label order coarse-args | fine-args
    local label=$1 p=$2 e1 e2 slope
    e1=$(err $3 --order "$p" --periodic none --set "$walls")
    e2=$(err $4 --order "$p" --periodic none --set "$walls")
    slope=$(awk -v a="$e1" -v b="$e2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", log(a / b) / log(2); else print "nan" }')
    echo "$label: error $e1 -> $e2, observed order $slope (declared $p)"
    awk -v s="$slope" -v p="$p" 'BEGIN { exit !(s != "nan" && s > p - 0.15 && s < p + 0.15) }' ||
      { echo "FAIL: $label order $slope not within 0.15 of $p"; fail=1; }
  }
  check "2D walls order 2" 2 "--grid 16,16,1 --dt 1e-5 --steps 1000" "--grid 32,32,1 --dt 1e-5 --steps 1000"
  check "2D walls order 6" 6 "--grid 16,16,1 --dt 1e-5 --steps 1000" "--grid 32,32,1 --dt 1e-5 --steps 1000"
  check "3D walls order 2" 2 "--grid 12,12,12 --dt 1e-5 --steps 100 --tiles 2" "--grid 24,24,24 --dt 1e-5 --steps 100 --tiles 2"
  ;;
bitwise)
  spec='boundary.u=x-:dirichlet(0.5),x+:neumann(-2),y-:outflow,y+:symmetric'
  base=(--grid 24,24,12 --periodic z --set "$spec" --order 6 --steps 12 --every 0)
  for prec in double single; do
    ref=""
    run() { # label args...
      local label=$1
      shift
      if ! timeout 300 "$@" "${base[@]}" --precision $prec --dump "$dir/$label.raw" > "$dir/$label.log" 2>&1; then
        echo "FAIL: $label ($prec) did not run:"; tail -5 "$dir/$label.log"; fail=1; return
      fi
      if [ -z "$ref" ]; then ref=$dir/$label.raw; echo "$prec $label: reference"; return; fi
      if cmp -s "$ref" "$dir/$label.raw"; then echo "$prec $label: bitwise"; else
        echo "FAIL: $prec $label differs from the reference"; fail=1; fi
    }
    run one "$heat" --tiles 1
    run tiles4 "$heat" --tiles 4
    run bulk "$heat" --tiles 4 --mode bulk
    run buffered "$heat" --tiles 2 --mode buffered
    run ranks2 $mpiexec -np 2 "$heat" --tiles 2
    run ranks2x $mpiexec -np 2 "$heat" --tiles 1 --procs 2,1,1
  done
  ;;
*) echo "unknown check '$what'"; exit 2 ;;
esac
exit $fail
