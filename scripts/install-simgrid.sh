#!/usr/bin/env bash
# install-simgrid.sh — the SimGrid flavour of StarPU, for predicting runs on machines we do not
# have (docs/simulation.md).
#
#   1. Debian's SimGrid (libsimgrid-dev 3.32: libsimgrid, smpicc, smpirun), via apt-get.
#   2. StarPU 1.3.10 from the same Debian source package as scripts/install-deps.sh, with the
#      same compile-time limits (the simulated machine must match the calibrated one), built
#      with --enable-simgrid into a cache beside the normal build:
#         $TESSERA_CACHE/starpu-1.3.10-<hash>-simgrid     (default ~/.cache/tessera)
#
# What differs from the normal build, and why:
#   - no CUDA toolkit: in SimGrid mode StarPU simulates CUDA workers without CUDA (a codelet
#     only needs a non-NULL cuda_funcs entry; kernels never run, their calibrated times are used);
#   - --disable-shared: StarPU-MPI under SMPI only works with a static libstarpu (configure
#     refuses otherwise), and MPI is SimGrid's SMPI (smpicc), not Open MPI;
#   - no FxT: SMPI would need a static, -fPIC libfxt, which Debian does not ship.
#
# Prints the StarPU prefix as its last line of stdout (everything else goes to stderr).
# Run as root (or with sudo available) on Debian; idempotent.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
STARPU_VERSION=1.3.10
CACHE=${TESSERA_CACHE:-$HOME/.cache/tessera}
# Same limits as install-deps.sh: a model calibrated there must fit the simulated machine.
MAXBUFFERS=64 MAXCPUS=128 MAXCUDADEV=8

log() { printf '[install-simgrid] %s\n' "$*" >&2; }
# shellcheck source=apt-lib.sh
source "$here/apt-lib.sh"

# xsltproc: starpu_smpirun builds the platform of all ranks with it
apt_need build-essential pkg-config dpkg-dev ca-certificates libhwloc-dev hwloc libsimgrid-dev xsltproc

# The hash covers this script's configure line, so changing it rebuilds.
phash=$( { sed -n '/^cfg=(/,/)$/p' "$0"; echo "$MAXBUFFERS $MAXCPUS $MAXCUDADEV"; } | sha256sum | cut -c1-10)
prefix="$CACHE/starpu-$STARPU_VERSION-$phash-simgrid"

if [ -f "$prefix/.complete" ]; then
  log "StarPU $STARPU_VERSION (simgrid) cached at $prefix"
  echo "$prefix"
  exit 0
fi

apt_deb_src

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
log "fetching StarPU $STARPU_VERSION source from Debian"
apt-get source --download-only "starpu=$STARPU_VERSION+dfsg-2" >&2 2>/dev/null ||
  apt-get source --download-only starpu >&2
tar xzf starpu_$STARPU_VERSION+dfsg.orig.tar.gz
cd starpu-$STARPU_VERSION+dfsg

cfg=(--prefix="$prefix" --enable-simgrid --enable-mpi --disable-shared --without-fxt
     --disable-cuda --disable-opencl --disable-build-doc --disable-build-examples
     --disable-build-tests --disable-socl --disable-starpufft --disable-fortran
     --disable-hdf5 --disable-mlr
     --enable-maxcpus=$MAXCPUS --enable-maxcudadev=$MAXCUDADEV --enable-maxbuffers=$MAXBUFFERS)
log "configuring: ${cfg[*]}"
./configure "${cfg[@]}" >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log" >&2; exit 1; }
grep -E "simgrid enabled|MPI +enabled" "$work/configure.log" >&2 || true
log "building (a few minutes)"
nice make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -40 "$work/make.log" >&2; exit 1; }
rm -rf "$prefix"
make install >"$work/install.log" 2>&1 || { tail -40 "$work/install.log" >&2; exit 1; }
touch "$prefix/.complete"
log "StarPU (simgrid) installed at $prefix"
echo "$prefix"
