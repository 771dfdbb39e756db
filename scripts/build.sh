#!/usr/bin/env bash
# build.sh [BUILD_DIR] — install what is missing (scripts/install-deps.sh), configure, build.
# CUDA kernels are built when nvcc is found (StarPU is then built with CUDA too);
# TESS_NO_CUDA=1 forces a CPU-only build. TESS_SIMGRID=1 builds the apps against StarPU in
# SimGrid mode (scripts/install-simgrid.sh; docs/simulation.md). Extra CMake flags:
# TESS_CMAKE_FLAGS; TESS_TARGETS="a b" builds only those targets (and what they need).
# TESS_CPU_ARCH: the kernels' CPU instruction set (-march=), native by default since a build
# runs where it is built (with AVX2 the sweeps that compute run 1.5-2x faster than with the
# compiler's portable default; docs/kernels.md); a build for other machines names a level the machines
# have (x86-64-v3: AVX2) or TESS_CPU_ARCH= (empty): the compiler's default (scripts/gpu-bundle.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cuda=ON; [ -n "${TESS_NO_CUDA:-}" ] && cuda=OFF
if [ -n "${TESS_SIMGRID:-}" ]; then
  scripts/install-deps.sh >/dev/null # the rest of what Tessera needs (CMake, HDF5, inih, ...)
  prefix=$(scripts/install-simgrid.sh | tail -n1)
  export CC=smpicc
  cuda=OFF
  # the apps only: in SimGrid mode StarPU's static library holds main(), tests have their own
  TESS_CMAKE_FLAGS="-DBUILD_TESTING=OFF ${TESS_CMAKE_FLAGS:-}"
  TESS_TARGETS=${TESS_TARGETS:-tess-mhd tess-ch tess-heat}
else
  prefix=$(scripts/install-deps.sh | tail -n1)
fi
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
# TESS_QUIET=1 (the demo): CMake's and the compilers' output go to BUILD_DIR/build.log, one
# line a step here; on failure the log's last lines and its path.
run() { "$@" >&2; }
if [ -n "${TESS_QUIET:-}" ]; then
  mkdir -p "$build"
  blog=$build/build.log
  : >"$blog"
  run() {
    "$@" >>"$blog" 2>&1 && return 0
    tail -n 30 "$blog" >&2
    echo "[build] failed: $*; the whole output is in $blog" >&2
    return 1
  }
  echo "[build] building Tessera${TESS_TARGETS:+ ($TESS_TARGETS)} in $build (log: $blog)" >&2
fi
# Another StarPU than the one this build was configured with (a changed patch gives a new cache
# folder): configure afresh, or CMake keeps linking the old one.
configured=$(sed -n 's/^STARPU_starpu-1.3_PREFIX:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ -n "$configured" ] && [ "$configured" != "$prefix" ]; then
  echo "[build] StarPU is now $prefix: configuring $build afresh" >&2
  rm -f "$build/CMakeCache.txt"
fi
arch=${TESS_CPU_ARCH-native}
if [ ! -f "$build/CMakeCache.txt" ]; then
  run cmake -S . -B "$build" -DTESS_WERROR=ON -DTESS_ENABLE_CUDA=$cuda -DTESS_CPU_ARCH="$arch" \
    ${TESS_CMAKE_FLAGS:-}
elif [ "$(sed -n 's/^TESS_CPU_ARCH:STRING=//p' "$build/CMakeCache.txt")" != "$arch" ]; then
  run cmake -S . -B "$build" -DTESS_CPU_ARCH="$arch"
fi
run cmake --build "$build" -j"$(nproc)" ${TESS_TARGETS:+--target $TESS_TARGETS}
echo "$prefix" > "$build/starpu-prefix"
