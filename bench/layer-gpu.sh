#!/usr/bin/env bash
# layer-gpu.sh — the stencil layer on one GPU, from the repository root with a bundle in
# .gpu-bundle (scripts/gpu-bundle.sh): (1) kernels of mixed component counts, GPU against CPU bit
# for bit: the app skeleton (a 2-component state beside a 1-component coefficient, per-cell path)
# in double and single, one tile and several; (2) the layer's kernels against their memory floor
# (bench/stencil.sh: heat 2/6, CH fused, Maxwell at 256^3 and 512^3, double and single), written
# to $OUT/stencil.csv.
set -uo pipefail
source .gpu-bundle/env.sh >/dev/null 2>&1
export LD_LIBRARY_PATH=$PWD/.gpu-bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1 STARPU_HOME=/tmp/sh
B=.gpu-bundle/extra/build; S=$B/apps/skeleton/tess-skeleton; X=$B/tests/dump_compare
for p in double single; do
  STARPU_NCPU=8 $S --device cpu --grid 48,40,32 --steps 20 --tiles 4 --precision $p --dump /tmp/sc.bin >/dev/null 2>&1
  for t in 1 3; do
    STARPU_NCUDA=1 $S --device cuda --grid 48,40,32 --steps 20 --tiles $t --precision $p --dump /tmp/sg.bin >/dev/null 2>&1
    echo "skeleton (mixed component counts) $p, 1 GPU $t tiles vs CPU: $($X /tmp/sc.bin /tmp/sg.bin)"
  done
done
bench/stencil.sh .gpu-bundle
