#!/usr/bin/env bash
# run.sh BUNDLE_DIR [APPS] [SIZES_MHD] [SIZES_CH] — the speed benchmark of Tessera,
# in one run on the GPU host, with a bundle from scripts/gpu-bundle.sh:
#
#   1. ceilings measured in the same run (bench/copy_bw): device copy, host<->GPU, GPU<->GPU
#   2. for every app and size, on 1, 2, 4, 8 GPUs (as many as the host has): one rank driving all
#      GPUs and one rank per GPU, overlapped and bulk-synchronous; the median time per step
#      over chunks of 10 steps after warm-up (the apps' '^median' line)
#   3. bench/summarize.py: the CSV (one row per run) and the table: ns/cell/step, ratio to the
#      memory floor, overlapped / bulk, strong-scaling efficiency, and the performance model
#      T = max(tau_W, tau_Q) + tau_0 (digest 2.10) from pi and beta measured here
#
# Output under $OUT (default /tmp/bench): runs.csv (raw), bench.csv, table.txt, logs/.
#   APPS default "mhd ch" (also: mhd32, MHD in single precision; mhdweak, weak scaling with
#   SIZES_MHD cells per GPU); SIZES_MHD default "256 512"; SIZES_CH default "512".
#   BENCH_CUDA_MPI=1: the bundle's CUDA-aware Open MPI (scripts/install-cuda-mpi.sh); runs
#   with one rank per GPU are then made twice, host-staged through StarPU-MPI (modes overlap,
#   bulk) and from GPU memory (runtime/graph/direct.c: modes overlap+direct, bulk+direct).
#   BENCH_GPUS: the GPU counts to try (default "1 2 4 8", as many as the host has).
#   BENCH_MODES: the modes (default "overlap bulk"). BENCH_STAGED=0 (with BENCH_CUDA_MPI=1): skip
#   the host-staged runs of one rank per GPU, keeping the ones from GPU memory. BENCH_WARM=0: no
#   untimed 30-step run before each app, size and GPU count (the first run of a shape was 2.8x slower).
set -uo pipefail
bundle=$(cd "${1:?usage: run.sh BUNDLE_DIR [APPS] [SIZES_MHD] [SIZES_CH]}" && pwd)
apps=${2:-mhd ch} sizes_mhd=${3:-256 512} sizes_ch=${4:-512}
here=$(cd "$(dirname "$0")" && pwd)
cuda_mpi=${BENCH_CUDA_MPI:-0}
TESS_CUDA_MPI=$cuda_mpi source "$bundle/env.sh" >/dev/null 2>&1
export LD_LIBRARY_PATH=$bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1
export STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home} PMIX_MCA_pcompress_base_silence_warning=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=$bundle/extra/build
out=${OUT:-/tmp/bench}; mkdir -p "$out/logs"
ngpu=$(nvidia-smi -L | wc -l)
nvidia-smi -L | tee "$out/gpus.txt"
"$B/bench/copy_bw" 1024 | tee "$out/bw.txt"

declare -A bin=([mhd]=$B/apps/mhd/tess-mhd [mhd32]=$B/apps/mhd/tess-mhd [mhdweak]=$B/apps/mhd/tess-mhd
                [ch]=$B/apps/cahn_hilliard/tess-ch)
# Astaroth's benchmark set-up (random fields, dt = 2^-23); CH: fused forward Euler, 3D.
declare -A args=([mhd]="--set init.ic=random --dt 1.1920929e-7"
                 [mhd32]="--set init.ic=random --dt 1.1920929e-7 --precision single"
                 [mhdweak]="--set init.ic=random --dt 1.1920929e-7"
                 [ch]="--variant fused")
csv=$out/runs.csv
echo "app,size,gpus,ranks,mode,median_ms,p90_ms,procs,tiles,tile" > "$csv"

# run APP N GPUS RANKS MODE: one line of runs.csv from the app's output. APP mhdweak is weak
# scaling: n^3 cells per GPU, the grid grown along z (n x n x g n). MODE overlap or bulk, with
# +direct: halos between ranks from GPU memory (runtime.mpi_direct on), else host-staged.
run() {
  local app=$1 n=$2 g=$3 r=$4 mode=$5 log=$out/logs/$1-$2-g$3-r$4-$5.log steps=60 nz=$2
  [ "$n" -ge 512 ] && [ "$app" != ch ] && steps=40
  [ "$app" = mhdweak ] && nz=$((n * g))
  local direct=off; [ "$mode" != "${mode%+direct}" ] && direct=on
  local cmd=("${bin[$app]}" --device cuda --grid "$n,$n,$nz" --every 0 --warmup 10
             --steps $((10 + steps)) --mode "${mode%+direct}" ${args[$app]})
  local t0=$SECONDS
  export TESSERA_RUNTIME_MPI_DIRECT=$direct
  if [ "$r" -eq 1 ]; then
    STARPU_NCUDA=$g timeout 300 "${cmd[@]}" > "$log" 2>&1
  else
    timeout 300 mpirun -np "$r" --bind-to none bash -c \
      'STARPU_NCUDA=1 STARPU_WORKERS_CUDAID=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
      "${cmd[@]}" > "$log" 2>&1
  fi
  local rc=$? med p90 procs tiles tile
  read -r med p90 < <(awk '/^median/ {gsub(/\)/, "", $7); print $2, $7}' "$log")
  procs=$(grep -o 'process grid [0-9][0-9x]*' "$log" | head -1 | awk '{print $3}')
  tiles=$(grep -o 'per rank ([0-9x]*)' "$log" | head -1 | tr -d '()' | awk '{print $3}')
  tile=$(grep -o 'of [0-9x]* cells' "$log" | head -1 | awk '{print $2}')
  printf '%-3s %4d^3  %d GPU  %d rank(s)  %-7s  median %s ms  (rc %d, %d s)\n' \
    "$app" "$n" "$g" "$r" "$mode" "${med:-?}" "$rc" $((SECONDS - t0))
  [ -n "$med" ] && echo "$app,$n,$g,$r,$mode,$med,$p90,$procs,$tiles,$tile" >> "$csv"
}

for app in $apps; do
  sizes=$sizes_mhd; [ "$app" = ch ] && sizes=$sizes_ch
  for n in $sizes; do
    for g in ${BENCH_GPUS:-1 2 4 8}; do
      [ "$g" -le "$ngpu" ] || continue
      # untimed: the first run of a new tile shape was slow, most likely dmdas calibrating (4 H200s,
      # MHD 256^3 on one rank: 8.1 ms a step in the first run, 2.9 in the next)
      nz=$n; [ "$app" = mhdweak ] && nz=$((n * g))
      [ "${BENCH_WARM:-1}" = 1 ] && STARPU_NCUDA=$g timeout 120 "${bin[$app]}" --device cuda \
        --grid "$n,$n,$nz" --steps 30 --every 0 ${args[$app]} > "$out/logs/warm-$app-$n-g$g.log" 2>&1
      for mode in ${BENCH_MODES:-overlap bulk}; do
        run "$app" "$n" "$g" 1 "$mode"
        [ "$g" -gt 1 ] && { [ "$cuda_mpi" = 1 ] && [ "${BENCH_STAGED:-1}" = 0 ] || run "$app" "$n" "$g" "$g" "$mode"; }
        [ "$g" -gt 1 ] && [ "$cuda_mpi" = 1 ] && run "$app" "$n" "$g" "$g" "$mode+direct"
      done
    done
  done
done
if command -v python3 > /dev/null; then
  python3 "$here/summarize.py" "$csv" "$out/bw.txt" "$out/bench.csv" | tee "$out/table.txt"
fi
