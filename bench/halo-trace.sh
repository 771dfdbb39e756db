#!/usr/bin/env bash
# halo-trace.sh BUILD_OR_BUNDLE [WORKERS|gpu] — the traced breakdown of docs/halo-path.md: heat order
# 6, 96^3, 12 steps, CPU workers: 1 tile, 8 tiles, 8 tiles buffered (one rank of WORKERS workers,
# default 2), and 2 ranks through StarPU-MPI and through Tessera's own requests; each trace
# summed by scripts/trace_states.py (time per state and thread, per step). With `gpu` (a bundle
# on a GPU host): MHD fp64 on one GPU, 22 steps, at 32^3 (tasks of a few microseconds) and
# 128^3: 1 tile, 8 tiles buffered, 2 ranks sharing the GPU through StarPU-MPI and, where the
# bundle carries a CUDA-aware MPI (source it with TESS_CUDA_MPI=1), from GPU memory. Output under
# $OUT (default /tmp/halo-trace): one directory per run (its FxT files, trace.rec, log) and
# states.txt (with `gpu`, also scripts/trace_summary.py's reading of the buffered runs' tasks).
# A bundle (scripts/gpu-bundle.sh) is sourced as bench/cpu-node.sh does.
set -uo pipefail
arg=${1:?usage: halo-trace.sh BUILD_OR_BUNDLE [WORKERS|gpu]}
workers=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=build-or-bundle.sh
source "$here/build-or-bundle.sh"
tess_build_dir "$arg"
out=${OUT:-/tmp/halo-trace}
mkdir -p "$out"
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home-halo-trace} TESSERA_RUNTIME_LOG=info
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
summary() { # RUN...: each run's log lines and its states per step
  echo "# $(date -u +%FT%TZ) $(hostname) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for t in "$@"; do
    echo "=== $t"
    grep -E "^placement|tile\(s\) per rank|halos between ranks|run: 10 steps|^median" "$out/$t.log"
    /usr/bin/env python3 "$here/../scripts/trace_states.py" "$out/$t" --steps "$steps"
  done
}
if [ "$workers" = gpu ]; then
  M=$B/apps/mhd/tess-mhd
  [ -x "$M" ] || { echo "halo-trace.sh: no $M" >&2; exit 2; }
  export STARPU_NCUDA=1
  steps=22
  A=(--device cuda --set init.ic=random --dt 1.1920929e-7 --every 0 --warmup 2 --steps 20)
  "$M" "${A[@]}" --grid 32,32,32 --tiles 8 --mode buffered >"$out/calibrate.log" 2>&1
  "$M" "${A[@]}" --grid 128,128,128 --tiles 8 --mode buffered >>"$out/calibrate.log" 2>&1
  one() { timeout 300 "$M" "${A[@]}" "$@" >"$out/$name.log" 2>&1; }
  two() { timeout 300 mpirun --oversubscribe --bind-to none -np 2 "$M" "${A[@]}" --procs 1,1,2 "$@" >"$out/$name.log" 2>&1; }
  runs=()
  for n in 32 128; do
    g=$n,$n,$n
    name=m$n-t1 && one --grid $g --tiles 1 --trace "$out/$name" && runs+=("$name")
    name=m$n-t8b && one --grid $g --tiles 8 --mode buffered --trace "$out/$name" && runs+=("$name")
    name=m$n-r2off && two --grid $g --mpi-direct off --trace "$out/$name" && runs+=("$name")
    name=m$n-r2 && two --grid $g --mpi-direct on --trace "$out/$name" && runs+=("$name")
  done
  summary "${runs[@]}" 2>&1 | tee "$out/states.txt"
  # the buffered runs' tasks as StarPU recorded them (tasks.rec: a CUDA task ends when its
  # kernel does): time per kind, the GPU's use and the critical path against the makespan
  for name in m32-t8b m128-t8b; do
    echo "=== $name: scripts/trace_summary.py --path"
    /usr/bin/env python3 "$here/../scripts/trace_summary.py" "$out/$name" --path
  done 2>&1 | tee -a "$out/states.txt"
  exit 0
fi
H=$B/apps/heat/tess-heat
[ -x "$H" ] || { echo "halo-trace.sh: no $H" >&2; exit 2; }
unset STARPU_NCPU STARPU_WORKERS_CPUID STARPU_WORKERS_NOBIND STARPU_MPI_NOBIND
A=(--device cpu --grid 96,96,96 --order 6 --every 0 --warmup 2 --steps 12)
"$H" "${A[@]}" --tiles 8 >"$out/calibrate.log" 2>&1 # dmda's models, untimed
one() { STARPU_NCPU=$workers timeout 300 "$H" "${A[@]}" "$@" >"$out/$name.log" 2>&1; }
two() { timeout 300 mpirun --oversubscribe --bind-to none -np 2 "$H" "${A[@]}" "$@" >"$out/$name.log" 2>&1; }
name=t1 && one --tiles 1 --trace "$out/t1"
name=t8 && one --tiles 8 --trace "$out/t8"
name=t8b && one --tiles 8 --mode buffered --trace "$out/t8b"
name=r2off && two --mpi-direct off --trace "$out/r2off"
name=r2 && two --trace "$out/r2"
steps=12
summary t1 t8 t8b r2off r2 2>&1 | tee "$out/states.txt"
