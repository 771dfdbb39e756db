#!/usr/bin/env bash
# gpu-bundle.sh — builds with CUDA here and packs the runtime libraries, StarPU and the build
# into .gpu-bundle/ (git-ignored) for the device tool: run(carry=[".gpu-bundle"], command=
# "scripts/gpu-check.sh .gpu-bundle").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh build-gpu
prefix=$(cat build-gpu/starpu-prefix)
rm -rf /tmp/tess-bundle-build && mkdir -p /tmp/tess-bundle-build
# Only what runs: binaries, not object files.
(cd build-gpu && find apps tests bench topology -maxdepth 2 -type f -executable -print0 | cpio -0pdm /tmp/tess-bundle-build/build 2>/dev/null)
# Debian libraries the GPU host (Ubuntu) lacks
mkdir -p /tmp/tess-bundle-build/lib
for lib in libinih.so.1 libhdf5_openmpi.so.103 libsz.so.2 libaec.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" /tmp/tess-bundle-build/lib/
done
"$(cd ../shared 2>/dev/null && pwd || echo /work/shared)"/gpu-host/make-bundle.sh .gpu-bundle "$prefix" /tmp/tess-bundle-build/build /tmp/tess-bundle-build/lib
