#!/usr/bin/env bash
# sched.sh BUNDLE_DIR [N] — MHD N^3 (default 512) on every GPU of the host under several StarPU
# scheduler settings, one rank driving all GPUs and one rank per GPU (halos from GPU memory when
# the bundle has the CUDA-aware Open MPI: TESS_CUDA_MPI=1): STARPU_SCHED x STARPU_NWORKER_PER_CUDA,
# two samples each, median ms per step (SCHEDS, default "dmdas eager"; WORKERS, default
# "1 2 4"). Output: $OUT/sched.txt (default /tmp/sched).
set -uo pipefail
bundle=$(cd "${1:?usage: sched.sh BUNDLE_DIR [N]}" && pwd); n=${2:-512}
TESS_CUDA_MPI=${TESS_CUDA_MPI:-1} source "$bundle/env.sh" >/dev/null 2>&1
export LD_LIBRARY_PATH=$bundle/extra/lib:$LD_LIBRARY_PATH STARPU_SILENT=1 STARPU_HOME=/tmp/sched-home
export PMIX_MCA_pcompress_base_silence_warning=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${OUT:-/tmp/sched}; mkdir -p "$out"
g=$(nvidia-smi -L | wc -l)
mhd=("$bundle/extra/build/apps/mhd/tess-mhd" --device cuda --grid "$n,$n,$n" --every 0 --warmup 10
     --steps 50 --set init.ic=random --dt 1.1920929e-7)
med() { awk '/^median/ {print $2}'; }
for sched in ${SCHEDS:-dmdas eager}; do for w in ${WORKERS:-1 2 4}; do for s in 1 2; do
  one=$(STARPU_SCHED=$sched STARPU_NWORKER_PER_CUDA=$w STARPU_NCUDA=$g timeout 120 "${mhd[@]}" 2>&1 | med)
  per=$(STARPU_SCHED=$sched STARPU_NWORKER_PER_CUDA=$w timeout 120 mpirun -np "$g" --bind-to none \
        -x STARPU_SCHED -x STARPU_NWORKER_PER_CUDA bash -c \
        'STARPU_NCUDA=1 STARPU_WORKERS_CUDAID=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "${mhd[@]}" 2>&1 | med)
  printf 'mhd %d^3 %d GPUs  STARPU_SCHED=%-6s workers/GPU %d  sample %d:  1 rank %s ms   %d ranks %s ms\n' \
    "$n" "$g" "$sched" "$w" "$s" "${one:-?}" "$g" "${per:-?}" | tee -a "$out/sched.txt"
done; done; done
