#!/usr/bin/env bash
# gpu-bundle.sh — builds with CUDA here and packs the runtime libraries, StarPU and the build
# into .gpu-bundle/ (git-ignored), to be copied to a GPU host and run there with
# `scripts/gpu-check.sh .gpu-bundle` or `scripts/gpu-verify.sh` (docs/gpu.md).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[gpu-bundle] $*" >&2; }
# shellcheck source=apt-lib.sh
source scripts/apt-lib.sh
apt_need cpio rsync # the copies below; fail loudly (set -e) when they cannot be installed
# The GPU host is another machine, whose instruction set this one cannot see: the kernels' CPU
# sweeps keep the compiler's portable default, not this machine's (scripts/build.sh), unless
# TESS_CPU_ARCH names a level the host is known to have (x86-64-v3: AVX2; docs/kernels.md).
TESS_CPU_ARCH=${TESS_CPU_ARCH-} scripts/build.sh build-gpu
prefix=$(cat build-gpu/starpu-prefix)
rm -rf /tmp/tess-bundle-build && mkdir -p /tmp/tess-bundle-build
# Only what runs: binaries, not object files; of the tests only the two the GPU scripts call (the
# rest are CPU tests, 40 MB; a copy to the GPU host is limited to 64 MiB in all, the CUDA-aware MPI included).
(cd build-gpu && { find apps bench topology -maxdepth 2 -type f -executable -print0
                   printf '%s\0' tests/dump_compare tests/test_mhd_reference; } |
   cpio -0pdm /tmp/tess-bundle-build/build 2>/dev/null)
# Debian libraries the GPU host (Ubuntu) lacks
mkdir -p /tmp/tess-bundle-build/lib
for lib in libinih.so.1 libhdf5_openmpi.so.103 libsz.so.2 libaec.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" /tmp/tess-bundle-build/lib/
done
"$(cd ../shared 2>/dev/null && pwd || echo /work/shared)"/gpu-host/make-bundle.sh .gpu-bundle "$prefix" /tmp/tess-bundle-build/build /tmp/tess-bundle-build/lib

# Optional CUDA-aware Open MPI (scripts/install-cuda-mpi.sh, same 4.1.4 ABI as Debian's), packed
# only when it has been built. Off by default on the GPU host: `TESS_CUDA_MPI=1 source env.sh`.
ompi=$(scripts/install-cuda-mpi.sh --prefix-only)
if [ -f "$ompi/.complete" ]; then
  o=.gpu-bundle/extra/ompi-cuda
  mkdir -p "$o/lib" "$o/share"
  cp -a "$ompi"/lib/*.so* "$ompi/lib/openmpi" "$o/lib/"        # libraries + MCA plugins
  [ -d "$ompi/lib/pmix" ] && cp -a "$ompi/lib/pmix" "$o/lib/"   # only with an internal PMIx
  cp -a "$ompi/bin" "$ompi/etc" "$o/"                            # mpirun, orted, ompi_info; params
  cp -a "$ompi/share/openmpi" "$o/share/"                        # help texts mpirun prints from
  cat >>.gpu-bundle/env.sh <<'EOF'
# CUDA-aware Open MPI (scripts/install-cuda-mpi.sh), added by scripts/gpu-bundle.sh. With
# TESS_CUDA_MPI=1 at source time its mpirun and libmpi.so.40 (same ABI as Debian's 4.1.4) come
# first, and ranks on one host talk through smcuda (shared memory with CUDA IPC; vader would
# crash on device pointers). smcuda pins its segment, which lives in Open MPI's per-job directory: on /tmp
# (ext4) the kernel refuses the pin (a warning), on /dev/shm (tmpfs) it works. Where libcuda
# is missing it runs as plain Open MPI (CUDA support off), without the page-long warning.
if [ "${TESS_CUDA_MPI:-}" = 1 ]; then
  _o=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/extra/ompi-cuda
  export OPAL_PREFIX=$_o PATH=$_o/bin:$PATH LD_LIBRARY_PATH=$_o/lib:$LD_LIBRARY_PATH
  export OMPI_MCA_btl=self,smcuda OMPI_MCA_orte_tmpdir_base=/dev/shm
  export OMPI_MCA_opal_warn_on_missing_libcuda=0
  echo "bundle: CUDA-aware Open MPI (TESS_CUDA_MPI=1): mpirun is $(command -v mpirun)" >&2
  unset _o
fi
EOF
  echo "CUDA-aware Open MPI packed from $ompi (TESS_CUDA_MPI=1 selects it)" >&2
else
  echo "no CUDA-aware Open MPI at $ompi (scripts/install-cuda-mpi.sh builds it): not packed" >&2
fi
# Debug sections dropped from the binaries and libraries (71 -> 43 MB on 2026-12-07): a copy to
# the GPU host is limited to 64 MiB in all, and every bench binary then fits beside the apps.
find .gpu-bundle/extra .gpu-bundle/starpu -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
  xargs -0 -r sh -c 'for f; do strip --strip-debug "$f" 2>/dev/null || true; done' sh
# the commit built, for result headers on a host where the tree has no .git (sim/calibrate.sh)
git rev-parse --short HEAD > .gpu-bundle/commit.txt 2>/dev/null || echo unknown > .gpu-bundle/commit.txt
du -sh .gpu-bundle
