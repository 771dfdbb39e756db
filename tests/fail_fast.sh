#!/usr/bin/env bash
# fail_fast.sh MPIEXEC HEAT MHD — a failure in any phase of a run ends every rank, 1 and 2 ranks,
# with a non-zero status and our message, and no rank waits for another that will not come
# (before, a refused trace directory left the job in StarPU-MPI's shutdown barrier for good).
# Each failure is made without privileges: a regular file where a directory must be, a
# directory where a file must be written.
#
#   settings    a grid too small for the stencil, found after MPI started
#   outdir      output.dir below a regular file
#   tracedir    runtime.trace below a regular file (and the names '-x' and "it's", which are
#               plain directory names, traced and merged)
#   snapshot0   the first snapshot's name taken by a directory
#   midrun      the step-4 snapshot's name taken by a directory
#   checkpoint  the step-4 checkpoint's name taken by a directory
#   finalize    the merged trace's paje.trace taken by a directory: rank 0 finds it after MPI
#               is down, and the run's status says so
# A hang shows as the 60 s timeout; a failing run here ends in seconds (StarPU start-up).
set -u
mpiexec=$1 heat=$2 mhd=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
touch afile
fail=0

# case NAME NP REGEX ARGS... — the run must exit non-zero, within 60 s, and print REGEX
case_() {
  local name=$1 np=$2 regex=$3 t0=$SECONDS rc
  shift 3
  if [ "$np" = 1 ]; then # no launcher: the singleton case of a user's plain run
    timeout 60 "$@" >"$name.log" 2>&1
  else
    timeout 60 "$mpiexec" --oversubscribe -np "$np" "$@" >"$name.log" 2>&1
  fi
  rc=$?
  local t=$((SECONDS - t0)) why=
  if [ $rc -eq 124 ]; then why="hung (killed after 60 s)"
  elif [ $rc -eq 0 ]; then why="exit status 0"
  elif ! grep -Eq -- "$regex" "$name.log"; then why="no message matching /$regex/"
  fi
  if [ -z "$why" ]; then
    echo "ok: $name on $np rank(s): exit $rc after $t s"
  else
    echo "FAIL: $name on $np rank(s): $why"
    tail -15 "$name.log"
    fail=1
  fi
}

h=(--grid 16,16,1 --every 0)
for np in 1 2; do
  o=out$np
  rm -rf "$o" && mkdir -p "$o"
  case_ settings "$np" "too small for stencil radius" "$heat" --grid 4,4,4 --order 6 --out "$o/s"
  case_ outdir "$np" "cannot create output directory 'afile/o'" "$heat" "${h[@]}" --steps 4 \
    --snapshot-every 2 --out afile/o
  case_ tracedir "$np" "cannot create a writable trace directory 'afile/t': Not a directory" \
    "$mhd" --grid 16,16,16 --steps 2 --every 0 --out "$o/m" --trace afile/t
  mkdir -p "$o/a/tess-heat_00000000.vtkhdf/x"
  case_ snapshot0 "$np" "error \(I/O error\).*tess-heat_00000000\.vtkhdf" "$heat" "${h[@]}" \
    --steps 4 --snapshot-every 2 --out "$o/a"
  mkdir -p "$o/b/tess-heat_00000004.vtkhdf/x"
  case_ midrun "$np" "error \(I/O error\).*tess-heat_00000004\.vtkhdf" "$heat" "${h[@]}" \
    --steps 8 --snapshot-every 2 --out "$o/b"
  mkdir -p "$o/c/tess-heat_00000004.h5/x"
  case_ checkpoint "$np" "error \(I/O error\).*tess-heat_00000004\.h5" "$heat" "${h[@]}" \
    --steps 8 --checkpoint-every 4 --out "$o/c"
  mkdir -p "$o/t/paje.trace/x"
  case_ finalize "$np" "the trace in '$o/t' is incomplete: .*its merged files were removed" \
    "$heat" "${h[@]}" --steps 2 --trace "$o/t"
  # names a shell would misread are plain names now: traced, merged, exit 0, in seconds
  for t in "-x" "$o/it's"; do
    rm -rf -- "$t"
    if [ "$np" = 1 ]; then timeout 60 "$mhd" --grid 16,16,16 --steps 2 --every 0 --out "$o/m" \
        --trace="$t" >trace.log 2>&1
    else timeout 60 "$mpiexec" --oversubscribe -np "$np" "$mhd" --grid 16,16,16 --steps 2 \
        --every 0 --out "$o/m" --trace="$t" >trace.log 2>&1
    fi
    rc=$?
    if [ $rc -eq 0 ] && [ -s "$t/paje.trace" ]; then echo "ok: --trace='$t' on $np rank(s): traced"
    else echo "FAIL: --trace='$t' on $np rank(s): exit $rc"; tail -10 trace.log; fail=1; fi
  done
done
exit $fail
