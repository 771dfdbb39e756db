#!/usr/bin/env bash
# test.sh — the README's test command: set up a fresh Debian machine (packages, StarPU),
# build, and run the whole ctest suite (CPU only; GPU checks live in scripts/gpu-check.sh).
# Then the `sanitize` subset again under AddressSanitizer + UBSan, in a second build with
# -DTESS_SANITIZE=ON (build-asan, same StarPU, about a minute on 2 cores); TESS_NO_SANITIZE=1
# skips it. Arguments go to the first ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
scripts/build.sh "$build"
# The `simulation` tests run Tessera under SimGrid: they need StarPU's SimGrid flavour, built once
# into the same cache (scripts/install-simgrid.sh, about 15 min on 2 cores) and reused after.
# TESS_NO_SIMULATION=1 leaves it out (those tests then skip).
case ${TESS_NO_SIMULATION:-} in "" | 0) scripts/install-simgrid.sh > /dev/null ;; esac
(cd "$build" && ctest --output-on-failure -j"$(nproc)" "$@")

case ${TESS_NO_SANITIZE:-} in "" | 0) ;; *) exit 0 ;; esac
asan=${BUILD_ASAN:-build-asan}
TESS_CMAKE_FLAGS="${TESS_CMAKE_FLAGS:-} -DTESS_SANITIZE=ON -DTESS_ENABLE_CUDA=OFF" \
  scripts/build.sh "$asan"
grep -q '^TESS_SANITIZE:BOOL=ON' "$asan/CMakeCache.txt" ||
  { echo "test.sh: $asan was configured without TESS_SANITIZE=ON; remove it" >&2; exit 1; }
# A report ends the process (abort_on_error, halt_on_error) and goes to a file: tests that
# expect a failure (expect_fail.sh) accept any non-zero exit and show only the tail of the
# output, so a report under them would pass unseen; any file here fails this step. Leaks are
# off: Open MPI and StarPU leak at exit (not ours). Our executables link the runtimes
# statically (mpiexec's children need no LD_PRELOAD); the Python readers run uninstrumented.
# STARPU_NCUDA=0: the CPU path only, also where StarPU was built with CUDA.
logs=$(cd "$asan" && pwd)/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:log_path=$logs/asan:log_exe_name=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan:log_exe_name=1
export STARPU_NCUDA=0
echo "== sanitize: ctest -L sanitize in $asan (ASan + UBSan)"
rc=0
(cd "$asan" && ctest --output-on-failure -j"$(nproc)" -L sanitize) || rc=$?
if [ -n "$(ls -A "$logs")" ]; then
  for f in "$logs"/*; do echo "== $f"; cat "$f"; done
  echo "FAIL: sanitizer reports (above; files in $logs)"
  exit 1
fi
exit $rc
