#!/usr/bin/env bash
# gpu-check.sh — runs on the GPU host from inside a bundle (scripts/gpu-bundle.sh), writes
# logs under $OUT. Checks CUDA against CPU results and times the heat app, overlapped vs
# bulk-synchronous, on every GPU count the host has.
#   usage: gpu-check.sh BUNDLE_DIR [heat|ch|mhd|tiles|scale|all] [quick]
set -uo pipefail
bundle=$(cd "$1" && pwd); what=${2:-all}; quick=${3:-}
source "$bundle/env.sh"
export LD_LIBRARY_PATH=$bundle/extra/lib:$LD_LIBRARY_PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
B=$bundle/extra/build
heat=$B/apps/heat/tess-heat cmpx=$B/tests/dump_compare ch=$B/apps/cahn_hilliard/tess-ch
export STARPU_SILENT=1 STARPU_HOME=/tmp/starpu-home
ngpu=$(nvidia-smi -L | wc -l)
nvidia-smi -L
log() { echo "== $*" | tee -a "$out/summary.txt"; }
export PMIX_MCA_pcompress_base_silence_warning=1
t() { "$@" 2>&1 | tee -a "$out/runs.log" | grep -E "^median|time per step|check:|process grid|error|restarted" ; }
one_rank_per_gpu() { mpirun -np 2 bash -c 'STARPU_NCUDA=1 STARPU_WORKERS_CUDAID=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "$@"; }

log "ceilings: $($B/bench/copy_bw 1024 | tr '\n' ';')"
if [ "$what" = ch ] || [ "$what" = all ]; then
  log "Cahn-Hilliard CPU vs CUDA, 3D 64^3, Heun, 50 steps"
  for v in composed fused; do
    STARPU_NCPU=8 t $ch --device cpu --grid 64,64,64 --scheme heun --variant $v --steps 50 --dump /tmp/chc.bin
    STARPU_NCUDA=1 t $ch --device cuda --grid 64,64,64 --scheme heun --variant $v --steps 50 --tiles 2 --dump /tmp/chg.bin
    log "$($cmpx /tmp/chc.bin /tmp/chg.bin) [ch $v: cpu vs cuda]"
  done
  for v in fused composed; do for mode in overlap bulk; do
    log "ch 3D 512^3 euler $v, 1 GPU, $mode"
    STARPU_NCUDA=1 t $ch --device cuda --grid 512,512,512 --variant $v --steps 60 --every 60 --mode $mode
    if [ "$ngpu" -ge 2 ]; then
      log "ch 3D 512^3 euler $v, 1 rank x 2 GPUs, $mode"
      t $ch --device cuda --grid 512,512,512 --variant $v --steps 60 --every 60 --mode $mode
      log "ch 3D 512^3 euler $v, 2 ranks x 1 GPU, $mode"
      t one_rank_per_gpu $ch --device cuda --grid 512,512,512 --variant $v --steps 60 --every 60 --mode $mode
    fi
  done; done
fi
[ "$what" = ch ] && exit 0

mhd=$B/apps/mhd/tess-mhd mhdref=$B/tests/test_mhd_reference
if [ "$what" = mhd ]; then
  log "MHD CUDA vs the serial CPU model, one RK3 step, random IC (ulps)"
  STARPU_NCUDA=1 t $mhdref --device cuda --grid 32,32,32 --tiles 2 | tail -3
  STARPU_NCUDA=1 $mhdref --device cuda --grid 32,32,32 --tiles 2 2>&1 | tail -12 >> "$out/summary.txt"
  for n in 128 256 512; do
    steps=$(( n > 256 ? 30 : 100 ))
    log "MHD ${n}^3 random IC, dt 2^-23, 1 GPU"
    STARPU_NCUDA=1 t $mhd --device cuda --set init.ic=random --dt 1.1920929e-7 --grid $n,$n,$n --every 0 --steps $steps
  done
  if [ "$ngpu" -ge 2 ]; then for mode in overlap bulk; do
    log "MHD 512^3, 1 rank x 2 GPUs, $mode"
    t $mhd --device cuda --set init.ic=random --dt 1.1920929e-7 --grid 512,512,512 --every 0 --steps 30 --mode $mode
    log "MHD 512^3, 2 ranks (hwloc: one per GPU), $mode"
    t mpirun -np 2 $mhd --device cuda --set init.ic=random --dt 1.1920929e-7 --grid 512,512,512 --every 0 --steps 30 --mode $mode
  done; fi
  exit 0
fi
if [ "$what" = tiles ]; then
  # One rank, one tile on a GPU: one task per tess_sim_run call (tasks.c, chains). Correctness
  # first, then timings against 8 tiles on the same GPU (one task per tile and stage).
  A="--grid 32,32,32 --set init.ic=abc --set init.amp=0.1 --steps 20 --every 0"
  log "MHD one RK3 step, one tile on the GPU vs the serial CPU model (ulps)"
  STARPU_NCUDA=1 $mhdref --device cuda --grid 32,32,32 --tiles 1 2>&1 | tail -1 | tee -a "$out/summary.txt"
  rm -rf /tmp/gout
  STARPU_NCUDA=1 t $mhd --device cuda $A --dump /tmp/g.bin --out /tmp/gout --checkpoint-every 10
  STARPU_NCPU=4 t $mhd --device cpu --tiles 2 $A --dump /tmp/c.bin
  log "$(cmp /tmp/g.bin /tmp/c.bin && echo identical) [mhd 20 steps: GPU 1 tile vs CPU 2 tiles]"
  t mpirun -np 2 $mhd --device cpu $A --restart /tmp/gout/tess-mhd_00000010.h5 --dump /tmp/r.bin --out /tmp/rout
  log "$(cmp /tmp/g.bin /tmp/r.bin && echo identical) [mhd: GPU run vs CPU 2 ranks restarted from the GPU's step-10 checkpoint]"
  STARPU_NCUDA=1 t $heat --device cuda --grid 64,64,64 --order 6 --steps 50 --dump /tmp/hg.bin
  STARPU_NCPU=4 t $heat --device cpu --grid 64,64,64 --order 6 --steps 50 --tiles 4 --dump /tmp/hc.bin
  log "$($cmpx /tmp/hc.bin /tmp/hg.bin) [heat 64^3 order 6: GPU 1 tile vs CPU 4 tiles]"
  for n in 128 256 512; do for tiles in 1 8; do
    steps=$(( n > 256 ? 40 : 100 ))
    log "MHD ${n}^3 random IC, 1 GPU, $tiles tile(s)"
    STARPU_NCUDA=1 t $mhd --tiles $tiles --device cuda --set init.ic=random --dt 1.1920929e-7 --grid $n,$n,$n --every 0 --warmup 10 --steps $((steps + 10))
  done; done
  for tiles in 1 8; do
    log "CH 512^3 fused Euler, 1 GPU, $tiles tile(s)"
    STARPU_NCUDA=1 t $ch --tiles $tiles --device cuda --grid 512,512,512 --variant fused --every 0 --warmup 10 --steps 110
  done
  exit 0
fi
if [ "$what" = scale ]; then
  # MHD 256^3 on 1, 2, 4 ... GPUs: one rank driving them all, and one rank per GPU (hwloc)
  for g in 1 2 4 8; do
    [ "$g" -gt "$ngpu" ] && break
    for mode in overlap bulk; do
      log "MHD 256^3, 1 rank x $g GPU(s), $mode"
      STARPU_NCUDA=$g t $mhd --device cuda --set init.ic=random --dt 1.1920929e-7 --grid 256,256,256 --every 0 --steps 40 --mode $mode
      if [ "$g" -gt 1 ]; then
        log "MHD 256^3, $g ranks x 1 GPU, $mode"
        t mpirun -np $g $mhd --device cuda --set init.ic=random --dt 1.1920929e-7 --grid 256,256,256 --every 0 --steps 40 --mode $mode
      fi
    done
  done
  exit 0
fi
if [ "$what" = topo ]; then
  $B/topology/tessera-topo --ranks "$ngpu" | tee -a "$out/summary.txt"
  $B/topology/tessera-topo --ranks "$ngpu" --json > "$out/topo.json"
  nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv -lms 300 > "$out/smi.csv" 2>&1 &
  smi=$!
  TESSERA_RUNTIME_LOG=info mpirun -np "$ngpu" $ch --device cuda --grid 256,256,256 --variant fused --steps 300 --every 300 2>&1 |
    grep -E "node-local|StarPU started|rank  |^ +[0-9]+ |time per" | tee -a "$out/summary.txt"
  kill $smi; sort -u "$out/smi.csv" | tee -a "$out/summary.txt"
  exit 0
fi

log "CPU vs CUDA, heat 3D order 6, 64^3, 20 steps"
STARPU_NCPU=4 t $heat --device cpu --grid 64,64,64 --order 6 --steps 20 --dump /tmp/cpu.bin
STARPU_NCUDA=1 t $heat --device cuda --grid 64,64,64 --order 6 --steps 20 --dump /tmp/gpu1.bin
STARPU_NCUDA=1 t $heat --device cuda --tiles 4 --grid 64,64,64 --order 6 --steps 20 --dump /tmp/gpu4.bin
log "$($cmpx /tmp/cpu.bin /tmp/gpu1.bin) [cpu vs 1 gpu tile]"
log "$($cmpx /tmp/cpu.bin /tmp/gpu4.bin) [cpu vs 4 tiles on gpu]"
if [ "$ngpu" -ge 2 ]; then
  t $heat --device cuda --tiles 2 --grid 64,64,64 --order 6 --steps 20 --dump /tmp/gpu2.bin
  log "$($cmpx /tmp/cpu.bin /tmp/gpu2.bin) [cpu vs 1 rank x 2 gpus]"
  t mpirun -np 2 bash -c 'STARPU_NCUDA=1 STARPU_WORKERS_CUDAID=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    $heat --device cuda --grid 64,64,64 --order 6 --steps 20 --dump /tmp/gpu2r.bin
  log "$($cmpx /tmp/cpu.bin /tmp/gpu2r.bin) [cpu vs 2 ranks x 1 gpu]"
fi
[ -n "$quick" ] && exit 0

for n in 256 512; do
  steps=$(( n > 256 ? 30 : 100 ))
  for mode in overlap bulk; do
    log "heat 3D order 6 ${n}^3, 1 GPU, $mode"
    STARPU_NCUDA=1 t $heat --device cuda --grid $n,$n,$n --order 6 --steps $steps --mode $mode
    log "heat 3D order 6 ${n}^3, 1 GPU x 8 tiles, $mode"
    STARPU_NCUDA=1 t $heat --device cuda --tiles 8 --grid $n,$n,$n --order 6 --steps $steps --mode $mode
    if [ "$ngpu" -ge 2 ]; then
      log "heat 3D order 6 ${n}^3, 1 rank x 2 GPUs, $mode"
      t $heat --device cuda --tiles 2 --grid $n,$n,$n --order 6 --steps $steps --mode $mode
      log "heat 3D order 6 ${n}^3, 2 ranks x 1 GPU, $mode"
      t mpirun -np 2 bash -c 'STARPU_NCUDA=1 STARPU_WORKERS_CUDAID=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
        $heat --device cuda --grid $n,$n,$n --order 6 --steps $steps --mode $mode
    fi
  done
done
