#!/usr/bin/env bash
# format.sh [--check] — applies .clang-format to the project's C/CUDA sources (git-tracked),
# or with --check lists the files that differ and exits 1 (the `format` ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format not installed"; exit 77; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null || find runtime codelets apps topology tests bench -name '*.[ch]' -o -name '*.cu')
if [ "${1:-}" = --check ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then echo "needs formatting: $f"; bad=1; fi
  done
  [ $bad = 0 ] && echo "${#files[@]} files formatted"
  exit $bad
fi
clang-format -i "${files[@]}"
