#!/usr/bin/env bash
# gpu-verify.sh — a quick GPU regression check on one GPU (about a minute), run from the repository
# root with a bundle in .gpu-bundle (scripts/gpu-bundle.sh): every halo path (one tile copying its
# own halos, tiles of one GPU copying each other's in their compute task, --mode buffered: pack ->
# StarPU -> unpack on one GPU, pack -> MPI -> unpack between two ranks sharing the GPU) bitwise against the CPU,
# MHD against the serial model in ulps, then MHD median times per step at 128^3, 256^3, 512^3;
# the same in single precision (GPU bitwise against the CPU's single). With TESS_CUDA_MPI=1
# (a bundle carrying scripts/install-cuda-mpi.sh's Open MPI) the two-rank lines run with halos
# from GPU memory (runtime/graph/direct.c) and say so. Its closing MHD times are a quick regression
# signal, not the benchmark: bench/mhd-app.sh measures the same runs against the memory floor
# and Astaroth with a table, bench/graph.sh the task graph's cost.
set -uo pipefail
TESS_CUDA_MPI=${TESS_CUDA_MPI:-0} source .gpu-bundle/env.sh >/dev/null 2>&1; export LD_LIBRARY_PATH=$PWD/.gpu-bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1 STARPU_HOME=/tmp/sh OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
B=.gpu-bundle/extra/build; H=$B/apps/heat/tess-heat; M=$B/apps/mhd/tess-mhd; X=$B/tests/dump_compare
# the host's CPU, for the bundle's instruction set (scripts/gpu-bundle.sh, TESS_CPU_ARCH)
echo "host CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); AVX2: $(grep -qw avx2 /proc/cpuinfo && echo yes || echo no); AVX-512F: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
two() { mpirun -np 2 --bind-to none bash -c 'STARPU_NCUDA=1 TESSERA_RUNTIME_LOG=info exec "$0" "$@"' "$@" 2>&1 | grep -o "halos between ranks: .*\|[0-9.]* tasks per step and rank (.*)" | sort -u | tr '\n' ' '; }
for p in double single; do
  P="--precision $p"
  STARPU_NCPU=8 $H --device cpu --grid 48,40,32 --order 6 --steps 20 --tiles 4 $P --dump /tmp/hc.bin > /dev/null 2>&1
  STARPU_NCUDA=1 $H --device cuda --grid 48,40,32 --order 6 --steps 20 --tiles 3 $P --dump /tmp/h1.bin > /dev/null 2>&1; echo "heat $p 1 GPU 3 tiles (local copies): $($X /tmp/hc.bin /tmp/h1.bin)"
  STARPU_NCUDA=1 $H --device cuda --grid 48,40,32 --order 6 --steps 20 --tiles 8 --mode buffered $P --dump /tmp/h5.bin > /dev/null 2>&1; echo "heat $p 1 GPU 8 tiles buffered (pack/unpack): $($X /tmp/hc.bin /tmp/h5.bin)"
  w=$(two $H --device cuda --grid 48,40,32 --order 6 --steps 20 $P --dump /tmp/h2.bin); echo "heat $p 2 ranks on 1 GPU (pack/MPI/unpack; $w): $($X /tmp/hc.bin /tmp/h2.bin)"
  w=$(TESSERA_RUNTIME_MPI_DIRECT=off two $H --device cuda --grid 48,40,32 --order 6 --steps 20 $P --dump /tmp/h4.bin); echo "heat $p 2 ranks on 1 GPU ($w): $($X /tmp/hc.bin /tmp/h4.bin)"
  STARPU_NCUDA=1 $H --device cuda --grid 48,40,32 --order 6 --steps 20 $P --dump /tmp/h3.bin > /dev/null 2>&1; echo "heat $p 1 tile (own wrap): $($X /tmp/hc.bin /tmp/h3.bin)"
done
# The stencil layer's kernels (codelets/stencil/): Cahn–Hilliard (fused 3D: z-march; 2D and
# composed: per cell) and Maxwell; and the multi-stage horizontal diffusion (temporaries,
# one-sided footprints) in both strategies: GPU bitwise against the CPU, double and single.
C=$B/apps/cahn_hilliard/tess-ch; W=$B/apps/maxwell/tess-maxwell; D=$B/apps/hdiff/tess-hdiff
for p in double single; do
  for a in "$C --variant fused --grid 40,36,32 --steps 20" "$C --variant composed --scheme heun --grid 40,36,32 --steps 10" \
           "$C --variant fused --grid 64,48,1 --steps 20" "$W --init curl --grid 40,36,32 --steps 10" \
           "$D --init random --grid 48,40,6 --steps 10 --strategy exchange" \
           "$D --init random --grid 48,40,6 --steps 10 --strategy recompute"; do
    STARPU_NCPU=8 $a --device cpu --tiles 4 --precision $p --dump /tmp/sc.bin > /dev/null 2>&1
    STARPU_NCUDA=1 $a --device cuda --precision $p --dump /tmp/s1.bin > /dev/null 2>&1
    STARPU_NCUDA=1 $a --device cuda --tiles 8 --mode buffered --precision $p --dump /tmp/s8.bin > /dev/null 2>&1
    echo "${a#$B/apps/} $p: 1 tile $($X /tmp/sc.bin /tmp/s1.bin); 8 tiles buffered $($X /tmp/sc.bin /tmp/s8.bin)"
  done
done
A="--grid 32,32,32 --set init.ic=abc --set init.amp=0.1 --steps 10 --every 0 --dt 1e-3"
for p in double single; do
  STARPU_NCPU=8 $M --device cpu --tiles 2 $A --precision $p --dump /tmp/mc.bin > /dev/null 2>&1
  STARPU_NCUDA=1 $M --device cuda --tiles 2 $A --precision $p --dump /tmp/m1.bin > /dev/null 2>&1; echo "mhd $p 1 GPU 2 tiles: $(cmp /tmp/mc.bin /tmp/m1.bin && echo identical)"
  STARPU_NCUDA=1 $M --device cuda $A --precision $p --dump /tmp/m2.bin > /dev/null 2>&1; echo "mhd $p 1 tile: $(cmp /tmp/mc.bin /tmp/m2.bin && echo identical)"
  STARPU_NCUDA=1 $M --device cuda --tiles 8 --mode buffered $A --precision $p --dump /tmp/m4.bin > /dev/null 2>&1; echo "mhd $p 1 GPU 8 tiles buffered: $(cmp /tmp/mc.bin /tmp/m4.bin && echo identical)"
  w=$(two $M --device cuda $A --precision $p --dump /tmp/m3.bin); echo "mhd $p 2 ranks on 1 GPU ($w): $(cmp /tmp/mc.bin /tmp/m3.bin && echo identical)"
done
# a lone tile the size of the timings below: in single precision its march fills its own ghosts
# (codelets/mhd/mhd_cuda_fill.cuh), a path the 32^3 runs above do not take
L="--grid 256,256,256 --set init.ic=abc --set init.amp=0.1 --steps 2 --every 0 --dt 1e-3 --precision single"
STARPU_NCPU=$(nproc) $M --device cpu --tiles 2 $L --dump /tmp/lc.bin > /dev/null 2>&1
STARPU_NCUDA=1 $M --device cuda $L --dump /tmp/l1.bin > /dev/null 2>&1; echo "mhd single 256^3 1 tile: $(cmp /tmp/lc.bin /tmp/l1.bin && echo identical)"
rm -f /tmp/lc.bin /tmp/l1.bin
$B/tests/test_mhd_reference --device cuda --grid 32,32,32 --tiles 1 2>&1 | tail -1
$B/tests/test_mhd_reference --device cuda --grid 32,32,32 --tiles 8 --mode buffered 2>&1 | tail -1
$B/bench/copy_bw 1024 | head -1
for p in double single; do for n in 128 256 512; do s=110; [ $n = 512 ] && s=60; echo "mhd $p $n^3: $(STARPU_NCUDA=1 $M --device cuda --set init.ic=random --dt 1.1920929e-7 --grid $n,$n,$n --every 0 --warmup 10 --steps $s --precision $p 2>&1 | grep '^median')"; done; done
