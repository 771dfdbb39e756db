# build-or-bundle.sh — sourced by the bench scripts that run from a build directory here or from a
# GPU bundle on the GPU host (scripts/gpu-bundle.sh): `tess_build_dir ARG` sets B to the build
# tree, and for a bundle first loads its environment and libraries.
tess_build_dir() {
  if [ -f "$1/env.sh" ]; then
    local bundle
    bundle=$(cd "$1" && pwd)
    # shellcheck disable=SC1091
    source "$bundle/env.sh"
    export LD_LIBRARY_PATH=$bundle/extra/lib:${LD_LIBRARY_PATH:-}
    B=$bundle/extra/build
  else
    B=$(cd "$1" && pwd)
  fi
}
