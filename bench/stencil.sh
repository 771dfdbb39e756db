#!/usr/bin/env bash
# stencil.sh BUNDLE_DIR [OLD_BUILD] — the stencil layer's kernels through the whole runtime on one
# GPU: heat (order 2 and 6), Cahn–Hilliard (fused Euler) and Maxwell (RK3), double and single,
# median ms per step over 50 steps (5 chunks of 10) after 10 warm-up steps, against the memory
# floor (bytes each step must move at least, at the device copy bandwidth measured in the same
# run) and, with OLD_BUILD (a CUDA build of the hand-written kernels, commit 1e0e167), against
# the hand kernels timed in the same run; with OLD_LABEL=<name> OLD_BUILD is any other build
# (e.g. main's) and runs beside every layer row. Writes $OUT/stencil.csv and prints it. STENCIL_APPS
# (default "heat ch maxwell") picks apps, STENCIL_REPS (default 1) repeats every run (the
# hand/layer pairs alternate, so drift of the machine shows in both). STENCIL_NOWRAP=1: each
# layer row is followed by the same run with --wrap=false (impl layer-copy: the lone tile's halos
# copied before each stage instead of read at their periodic images by the kernel).
#   floor bytes per cell and step: heat, CH: read u + write u_new (2 words); Maxwell: 3 substeps
#   each reading u (6 components) and reading + writing u_old (12): 54 words.
set -uo pipefail
bundle=$(cd "${1:?usage: stencil.sh BUNDLE_DIR [OLD_BUILD]}" && pwd)
old=${2:-}
ol=${OLD_LABEL:-hand} # what OLD_BUILD is (the CSV's impl column); other than hand: every row runs it
source "$bundle/env.sh" >/dev/null 2>&1
export LD_LIBRARY_PATH=$bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1 STARPU_NCUDA=1
export STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home}
B=$bundle/extra/build
out=${OUT:-/tmp/stencil}; mkdir -p "$out"
bw=$("$B/bench/copy_bw" 1024 | awk '/d2d_copy/ {print $2}')
csv=$out/stencil.csv
echo "app,impl,precision,n,median_ms,p90_ms,words_per_cell,floor_ms,x_floor,copy_GBs" > "$csv"

# one APP IMPL PREC N WORDS BIN ARGS...: one row from the run's median line
one() {
  local app=$1 impl=$2 prec=$3 n=$4 words=$5 bin=$6; shift 6
  local log=$out/$app-$impl-$prec-$n.log
  timeout 300 "$bin" --device cuda --grid $n,$n,$n --every 0 --warmup 10 --steps 60 \
    --precision "$prec" "$@" > "$log" 2>&1
  read -r med p90 < <(awk '/^median/ {gsub(/\)/, "", $7); print $2, $7}' "$log")
  [ -n "${med:-}" ] || { echo "$app $impl $prec $n: failed (see $log)"; tail -3 "$log"; return; }
  [ "$prec" = double ] && w=8 || w=4
  awk -v a="$app" -v i="$impl" -v p="$prec" -v n="$n" -v m="$med" -v q="$p90" -v wd="$words" \
      -v w="$w" -v bw="$bw" 'BEGIN { f = wd * w * n^3 / (bw * 1e9) * 1e3;
      printf "%s,%s,%s,%d,%s,%s,%d,%.4f,%.2f,%s\n", a, i, p, n, m, q, wd, f, m / f, bw }' >> "$csv"
}

# layer APP PREC N WORDS BIN ARGS...: the layer's row (and, with STENCIL_NOWRAP, its copying twin)
layer() {
  local app=$1 prec=$2 n=$3 words=$4 bin=$5; shift 5
  one "$app" layer "$prec" "$n" "$words" "$bin" "$@"
  [ -n "${STENCIL_NOWRAP:-}" ] && one "$app" layer-copy "$prec" "$n" "$words" "$bin" "$@" --wrap=false
  true
}

H=$B/apps/heat/tess-heat C=$B/apps/cahn_hilliard/tess-ch X=$B/apps/maxwell/tess-maxwell
apps=${STENCIL_APPS:-heat ch maxwell}
for rep in $(seq "${STENCIL_REPS:-1}"); do
  for prec in double single; do
    if [[ " $apps " == *" heat "* ]]; then
      for o in 2 6; do
        [ -n "$old" ] && one heat$o $ol $prec 512 2 "$old/apps/heat/tess-heat" --order $o
        layer heat$o $prec 512 2 "$H" --order $o
      done
    fi
    if [[ " $apps " == *" ch "* ]]; then
      [ -n "$old" ] && { [ $prec = double ] || [ $ol != hand ]; } &&
        one ch $ol $prec 512 2 "$old/apps/cahn_hilliard/tess-ch" --variant fused
      layer ch $prec 512 2 "$C" --variant fused
    fi
    if [[ " $apps " == *" maxwell "* ]]; then
      for n in 256 512; do
        [ -n "$old" ] && [ $ol != hand ] && one maxwell $ol $prec $n 54 "$old/apps/maxwell/tess-maxwell" --init wave --wave 1,1,0
        layer maxwell $prec $n 54 "$X" --init wave --wave 1,1,0
      done
    fi
  done
done
echo "device copy bandwidth $bw GB/s (read+write)"
tr , "\t" < "$csv" | tee "$out/stencil.txt"
