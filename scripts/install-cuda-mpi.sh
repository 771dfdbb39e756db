#!/usr/bin/env bash
# install-cuda-mpi.sh — optional: a CUDA-aware Open MPI for GPU hosts (not used by CI or tests).
#
# Debian's Open MPI 4.1.4 is built without CUDA, so MPI calls cannot take device pointers.
# This builds the SAME version from Debian's source package (Debian's patches applied) with
# --with-cuda into a cache outside the repo:
#     $TESSERA_CACHE/openmpi-4.1.4-cuda-<hash of the configure options and patch>
# It is ABI-compatible with Debian's libmpi.so.40: putting its lib/ first in LD_LIBRARY_PATH
# (its bin/ first in PATH, OPAL_PREFIX at the prefix) swaps it in under StarPU and our apps
# without relinking. hwloc, libevent and PMIx are Debian's, as in Debian's own build, so the
# runtime libraries the GPU bundle already carries serve both. scripts/gpu-bundle.sh packs it.
#
# Takes ~10 min on 2 cores the first time; later runs return at once. Prints the prefix as its
# last line of stdout (all else on stderr); `--prefix-only` prints it without building.
# Run as root (or with sudo) on Debian bookworm with nvcc/cuda.h in $CUDA_HOME (/usr/local/cuda).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
OMPI_VERSION=4.1.4
PATCH="$here/openmpi-$OMPI_VERSION-cuda13.patch"
CACHE=${TESSERA_CACHE:-$HOME/.cache/tessera}
CUDA_DIR=${CUDA_HOME:-/usr/local/cuda}
PMIX_DIR=/usr/lib/x86_64-linux-gnu/pmix2   # Debian's libpmix-dev (as debian/rules uses)

log() { printf '[install-cuda-mpi] %s\n' "$*" >&2; }
# shellcheck source=apt-lib.sh
source "$here/apt-lib.sh"

# Lean: C bindings, shared libraries, shared memory (vader, smcuda) and TCP transports only.
cfg=(--with-cuda="$CUDA_DIR" --with-hwloc=external --with-libevent=external
     --with-pmix="$PMIX_DIR" --enable-shared --disable-static
     --disable-mpi-fortran --disable-mpi-cxx --disable-mpi-java --disable-oshmem
     --without-ucx --without-ofi --without-verbs --without-psm --without-psm2
     --without-tm --without-slurm --without-sge --disable-silent-rules
     "--with-package-string=Tessera CUDA-aware Open MPI (Debian source)")
hash=$( { echo "${cfg[*]}"; if [ -f "$PATCH" ]; then cat "$PATCH"; fi; } | sha256sum | cut -c1-10)
prefix="$CACHE/openmpi-$OMPI_VERSION-cuda-$hash"

if [ "${1:-}" = --prefix-only ]; then echo "$prefix"; exit 0; fi
if [ -f "$prefix/.complete" ]; then
  log "already built: CUDA-aware Open MPI $OMPI_VERSION at $prefix"
  echo "$prefix"
  exit 0
fi

[ -f "$CUDA_DIR/include/cuda.h" ] && [ -x "$CUDA_DIR/bin/nvcc" ] || {
  log "no CUDA toolkit at $CUDA_DIR (need bin/nvcc and include/cuda.h; set CUDA_HOME): refusing"
  exit 1
}

pkgs=(build-essential dpkg-dev pkg-config libhwloc-dev libevent-dev libpmix-dev zlib1g-dev)
apt_need "${pkgs[@]}"

# Debian's source package needs a deb-src entry for bookworm main.
apt_deb_src

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
log "fetching Open MPI $OMPI_VERSION source from Debian (its patches are applied on unpacking)"
{ apt-get source "openmpi=$OMPI_VERSION-3" || apt-get source openmpi; } >"$work/source.log" 2>&1 ||
  { tail -20 "$work/source.log" >&2; exit 1; }
cd openmpi-$OMPI_VERSION
if [ -f "$PATCH" ]; then
  log "applying $(basename "$PATCH")"
  patch -p1 < "$PATCH" >&2
fi
# Debian's patches touch configure.ac and some Makefile.am files (Debian's openmpi3 plugin
# dir, hppa, the ofi MTL we leave out); debian/rules reruns autogen.pl for that. We keep the
# tarball's generated build files and make them newer, so make never reruns autotools.
sleep 1
find . \( -name configure -o -name aclocal.m4 -o -name Makefile.in -o -name '*config.h.in' \) \
  -exec touch {} +

log "configuring (prefix $prefix): ${cfg[*]}"
./configure --prefix="$prefix" "${cfg[@]}" >"$work/configure.log" 2>&1 ||
  { tail -40 "$work/configure.log" >&2; exit 1; }
grep -E "^(CUDA|PMIx) support|^Shared memory" "$work/configure.log" >&2 || true
log "building with $(nproc) jobs (~10 min on 2 cores)"
make -j"$(nproc)" >"$work/make.log" 2>&1 || { grep -E 'error' "$work/make.log" | head -20 >&2; tail -30 "$work/make.log" >&2; exit 1; }
rm -rf "$prefix"
make install >"$work/install.log" 2>&1 || { tail -40 "$work/install.log" >&2; exit 1; }
find "$prefix/lib" -name '*.la' -delete
find "$prefix/lib" -name '*.so*' -type f -exec strip --strip-unneeded {} +
find "$prefix/bin" -type f ! -name '*.pl' -exec strip {} +

cuda=$("$prefix/bin/ompi_info" --parsable --all | grep mpi_built_with_cuda_support:value || true)
[ "$cuda" = "mca:mpi:base:param:mpi_built_with_cuda_support:value:true" ] ||
  { log "ompi_info does not report CUDA support ($cuda)"; exit 1; }
touch "$prefix/.complete"
log "CUDA-aware Open MPI $OMPI_VERSION installed at $prefix ($cuda)"
echo "$prefix"
