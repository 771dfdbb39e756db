#!/usr/bin/env bash
# layer-cpu.sh [--quick] [layer_cpu args...] — the stencil layer's CPU sweep against plain
# hand-written C loops of the same arithmetic (bench/layer_cpu/hand_loops.h), built with the same
# flags (tessera_add_kernel: -O3 -ffp-contract=off), one thread, same grid, in one run: heat order 2
# and 6, Cahn–Hilliard fused, Maxwell RK3 and a two-component reaction–diffusion kernel written in
# the bench (bench/layer_cpu/rd2_cell.h), double and single. Each case is first checked bit for bit
# against its hand loop, then timed in alternating rounds (best round of each, thread CPU time:
# other jobs of a shared machine are not counted). One row per case;
# the last column is layer / hand. Ends with the worst ratio.
#   BUILD=dir     the build to use (default: build; `cmake --build dir --target layer_cpu`)
#   --quick       7 rounds (within two minutes on 2 shared cores); default 15 rounds
#   other args    passed on (--grid N: default 128, --only KERNEL)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
rounds=15
args=()
for a in "$@"; do
  if [ "$a" = --quick ]; then rounds=7; else args+=("$a"); fi
done
exe=$build/bench/layer_cpu
if [ ! -x "$exe" ]; then
  echo "layer-cpu.sh: $exe not found (build it: cmake --build $build --target layer_cpu)" >&2
  exit 2
fi
echo "# layer-cpu.sh: commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%Y-%m-%dT%H:%MZ)," \
  "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), rounds $rounds"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
out=$("$exe" --rounds "$rounds" "${args[@]}")
echo "$out"
echo "$out" | awk '!/^#/ { if ($NF > w) { w = $NF; k = $1 " " $2 } }
  END { printf "# worst layer/hand: %.2f (%s)\n", w, k }'
