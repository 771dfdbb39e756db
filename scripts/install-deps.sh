#!/usr/bin/env bash
# install-deps.sh — everything Tessera needs on a fresh Debian bookworm machine.
#
#   1. Debian packages (compilers, CMake, Open MPI, hwloc, FxT, libpng, ...), via apt-get.
#   2. StarPU 1.3.10 built from Debian's own source package with MPI + FxT, and CUDA when
#      `nvcc` is found (the project's CUDA-13 patch applied), into a cache outside the repo:
#         $TESSERA_CACHE/starpu-1.3.10-<patch hash>-<cuda|cpu>     (default ~/.cache/tessera)
#      A cached install is reused as is, so CI and later runs pay the ~3 min build once.
#
# Prints the StarPU prefix as its last line of stdout and one line per step on stderr; what
# apt, dpkg, configure and make print goes to $TESSERA_CACHE/setup.log (TESSERA_SETUP_LOG),
# whose path is printed with its last lines when a step fails. Callers can do:
#   prefix=$(scripts/install-deps.sh | tail -n1)
# Run as root (or with sudo available) on Debian; idempotent.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
STARPU_VERSION=1.3.10
PATCH="$here/starpu-$STARPU_VERSION-cuda13.patch"
CACHE=${TESSERA_CACHE:-$HOME/.cache/tessera}
# Compile-time limits: tasks of the runtime read up to 27 interior pieces + halo pieces of
# one field group and write one; 64 buffers leaves room for stages reading two groups.
MAXBUFFERS=64 MAXCPUS=128 MAXCUDADEV=8

log() { printf '[install-deps] %s\n' "$*" >&2; }
# shellcheck source=apt-lib.sh
source "$here/apt-lib.sh"

pkgs=(build-essential cmake pkg-config dpkg-dev ca-certificates
      libopenmpi-dev openmpi-bin libhwloc-dev hwloc libfxt-dev fxt-tools
      libpng-dev libinih-dev clang-format
      clang libclang-rt-dev  # the config fuzzer (libFuzzer; only a Recommends of clang-14)
      vite xvfb xauth python3-matplotlib librsvg2-bin
      libhdf5-openmpi-dev python3-h5py python3-numpy)
apt_need "${pkgs[@]}"

variant=cpu
NVCC=$(command -v nvcc || true)
[ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
[ -n "${TESS_NO_CUDA:-}" ] && NVCC=""   # CPU-only build even where nvcc exists (CI has nvcc but no GPU: it builds the CUDA code too)
[ -n "$NVCC" ] && variant=cuda
phash=$( { cat "$PATCH"; echo "$MAXBUFFERS $MAXCPUS $MAXCUDADEV"; } | sha256sum | cut -c1-10)
prefix="$CACHE/starpu-$STARPU_VERSION-$phash-$variant"

if [ -f "$prefix/.complete" ]; then
  log "StarPU $STARPU_VERSION ($variant) cached at $prefix"
  echo "$prefix"
  exit 0
fi

# Debian's source package needs a deb-src entry for bookworm main.
apt_deb_src

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
log "fetching StarPU $STARPU_VERSION source from Debian"
fetch_starpu() {
  apt-get source --download-only "starpu=$STARPU_VERSION+dfsg-2" ||
    apt-get source --download-only starpu
}
quietly fetch_starpu
tar xzf starpu_$STARPU_VERSION+dfsg.orig.tar.gz
cd starpu-$STARPU_VERSION+dfsg

cfg=(--prefix="$prefix" --enable-mpi --with-fxt
     --enable-maxcpus=$MAXCPUS --enable-maxcudadev=$MAXCUDADEV --enable-maxbuffers=$MAXBUFFERS
     --disable-opencl --disable-build-doc --disable-build-examples --disable-build-tests
     --disable-socl --disable-starpufft --disable-fortran --disable-hdf5 --disable-mlr)
if [ "$variant" = cuda ]; then
  log "nvcc found ($NVCC): building with CUDA, applying $(basename "$PATCH")"
  quietly patch -p1 -i "$PATCH"
  cudadir=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
  cfg+=(--enable-cuda --with-cuda-dir="$cudadir" NVCCFLAGS="-arch=sm_90")
else
  cfg+=(--disable-cuda)
fi
log "configuring StarPU ($variant)"
quietly ./configure "${cfg[@]}"
log "building StarPU (a few minutes)"
quietly make -j"$(nproc)"
rm -rf "$prefix"
quietly make install
touch "$prefix/.complete"
log "StarPU installed at $prefix"
echo "$prefix"
