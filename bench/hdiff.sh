#!/usr/bin/env bash
# hdiff.sh BUNDLE_DIR — the horizontal-diffusion program under both strategies (and auto) on the
# CPU (1 rank x 16 workers, 4 ranks x 4 workers) and on one GPU (1 and 4 tiles), over grid sizes:
# median time per step (60 steps after 10 warm-up), the model's estimate of halo pieces, bytes and
# cells per tile and step for both strategies, and which one auto picked; then whether auto's
# time is within 10% of the faster strategy's. First, GPU against CPU bitwise (both strategies,
# both precisions). CSV on stdout after the checks; run on the GPU host with a bundle from
# scripts/gpu-bundle.sh.
set -uo pipefail
bundle=$(cd "${1:?usage: hdiff.sh BUNDLE_DIR}" && pwd)
source "$bundle/env.sh" >/dev/null 2>&1
export LD_LIBRARY_PATH=$bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1 STARPU_HOME=/tmp/sh \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
B=$bundle/extra/build; A=$B/apps/hdiff/tess-hdiff
tmp=$(mktemp -d)
# GPU against CPU, bitwise
for p in double single; do
  c="--grid 64,48,8 --init random --steps 10 --precision $p"
  STARPU_NCPU=4 STARPU_NCUDA=0 $A --device cpu $c --strategy exchange --dump $tmp/c.bin > /dev/null 2>&1
  for s in exchange recompute; do for t in 1 3; do
    STARPU_NCUDA=1 $A --device cuda $c --strategy $s --tiles $t --dump $tmp/g.bin > /dev/null 2>&1
    echo "check: $p GPU $s $t tile(s) vs CPU exchange: $(cmp -s $tmp/c.bin $tmp/g.bin && echo identical || echo DIFFERENT)"
  done; done
done
echo "device,grid,ranks,tiles,strategy,ms_per_step,picked,model_ex_pieces,model_ex_MB,model_ex_us,model_re_pieces,model_re_MB,model_re_us"
row() { # device grid ranks tiles strategy log
  local log=$6 med picked m
  med=$(awk '/^median/ {print $2}' "$log")
  picked=$(sed -n 's/^strategy \([a-z]*\):.*/\1/p' "$log" | head -1)
  m=$(sed -n 's/.*exchange [0-9]* round(s) of \([0-9]*\) halo pieces (\([^ ]*\) MB) + [0-9]* cells = \([^ ]*\) us, recompute [0-9]* round(s) of \([0-9]*\) pieces (\([^ ]*\) MB) + [0-9]* cells = \([^ ]*\) us.*/\1,\2,\3,\4,\5,\6/p' "$log" | head -1)
  echo "$1,$2,$3,$4,$5,${med:-NA},$picked,${m:-,,,,,}"
}
for g in 128,128,32 256,256,32; do for np in 1 4; do for s in exchange recompute auto; do
  w=$((16 / np))
  mpirun -np $np --bind-to none -x STARPU_NCPU=$w -x STARPU_NCUDA=0 $A --device cpu --grid $g --init random \
    --strategy $s --every 0 --warmup 10 --steps 70 > $tmp/r.log 2>&1
  row cpu "${g//,/x}" $np auto $s $tmp/r.log
done; done; done
for g in 256,256,64 512,512,64; do for t in 1 4; do for s in exchange recompute auto; do
  STARPU_NCUDA=1 $A --device cuda --grid $g --init random --strategy $s --tiles $t --every 0 --warmup 10 \
    --steps 70 > $tmp/r.log 2>&1
  row cuda "${g//,/x}" 1 $t $s $tmp/r.log
done; done; done
rm -rf "$tmp"
