#!/usr/bin/env bash
# mhd-app.sh BUNDLE_DIR — MHD through the whole runtime on one GPU: median time per step over
# 100 steps (10 chunks of 10) after 10 warm-up steps at 128^3, 256^3, 512^3, Astaroth's
# benchmark set-up (random fields in [0,1], dt = 2^-23), with the memory floor (576 B/cell/step
# in fp64) at the device-to-device copy bandwidth measured in the same run.
# Run on the GPU host with a bundle from scripts/gpu-bundle.sh; prints a table last.
#
# A peer's column only when the peer ran here: with ASTAROTH_BENCH=CMD the script runs
# `CMD N` for each size N on the same GPU, right after Tessera's run of that size, and takes
# the last number CMD prints as Astaroth's ms per step (CMD wraps Astaroth's own benchmark,
# e.g. its samples/benchmark, for an N^3 grid in double). Its output goes to $OUT/astaroth-N.log.
# Without ASTAROTH_BENCH the table holds Tessera's figures and the floor only.
set -uo pipefail
bundle=$(cd "${1:?usage: mhd-app.sh BUNDLE_DIR}" && pwd)
source "$bundle/env.sh" >/dev/null 2>&1
export LD_LIBRARY_PATH=$bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1 STARPU_NCUDA=1
B=$bundle/extra/build
out=${OUT:-/tmp/mhd-app}; mkdir -p "$out"
bw=$("$B/bench/copy_bw" 1024 | awk '/d2d_copy/ {print $2}')
peer=${ASTAROTH_BENCH:-}
rows=()
for n in 128 256 512; do
  line=$("$B/apps/mhd/tess-mhd" --device cuda --set init.ic=random --dt 1.1920929e-7 --grid $n,$n,$n \
         --every 0 --warmup 10 --steps 110 2>&1 | tee "$out/mhd-$n.log" | grep '^median')
  med=$(awk '{print $2}' <<<"$line")
  a=
  if [ -n "$peer" ]; then
    # shellcheck disable=SC2086 # CMD may carry its own arguments
    a=$($peer "$n" 2>&1 | tee "$out/astaroth-$n.log" | grep -Eo '[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?' | tail -n1)
    [ -n "$a" ] || { echo "mhd-app.sh: no number in the output of '$peer $n' ($out/astaroth-$n.log)" >&2; exit 1; }
  fi
  rows+=("$(awk -v n=$n -v m="$med" -v bw="$bw" -v a="$a" 'BEGIN {
      cells = n^3; floor = 576 * cells / (bw * 1e9) * 1e3;
      printf "%5d  %9.3f  %9.3f  %9.3f  %6.2f", n, m, 1e6 * m / cells, floor, m / floor
      if (a != "") printf "  %11.3f  %8.2f", a, a / m
      printf "\n" }')")
done
echo "device copy bandwidth $bw GB/s (read+write)"
if [ -n "$peer" ]; then
  echo " size  median ms  ns/cell   floor ms  x floor  Astaroth ms  Astaroth/Tessera   (Astaroth: $peer, same GPU, same run)"
else
  echo " size  median ms  ns/cell   floor ms  x floor"
fi
printf '%s\n' "${rows[@]}" | tee "$out/table.txt"
