#!/usr/bin/env bash
# install_check.sh BUILD_DIR SOURCE_DIR STARPU_PCDIR WORK — Tessera as a library others build on:
# `cmake --install` into WORK/prefix, then the out-of-tree example (examples/outside) built
# only against that prefix, once with find_package(Tessera) and once with pkg-config + mpicc,
# and both run (the example checks conservation and a mode's decay itself).
set -u
build=$1 src=$2 starpu_pc=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
step() { echo "== $1"; shift; "$@" >"$work/log" 2>&1 || { tail -30 "$work/log"; echo "FAIL"; exit 1; }; }
step "cmake --install" cmake --install "$build" --prefix "$work/prefix"
for f in lib/cmake/Tessera/TesseraConfig.cmake lib/pkgconfig/tessera.pc include/tessera/tessera.h \
  lib/libtessera.a bin/tess-mhd; do
  [ -e "$work/prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
export STARPU_SILENT=1
step "find_package(Tessera)" cmake -S "$src/examples/outside" -B "$work/cmake" \
  -DCMAKE_PREFIX_PATH="$work/prefix"
step "build" cmake --build "$work/cmake"
"$work/cmake/heat-outside" || { echo "FAIL: heat-outside (CMake)"; exit 1; }
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig:$starpu_pc
# shellcheck disable=SC2046
step "pkg-config tessera + mpicc" mpicc -std=c11 -D_POSIX_C_SOURCE=200809L \
  "$src/examples/outside/main.c" $(pkg-config --cflags --libs tessera) -o "$work/heat-pc"
LD_LIBRARY_PATH=$(pkg-config --variable=libdir starpu-1.3)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  "$work/heat-pc" || { echo "FAIL: heat-outside (pkg-config)"; exit 1; }
echo "ok: installed, and an app outside the tree built and ran against it both ways"
