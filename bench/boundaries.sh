#!/usr/bin/env bash
# boundaries.sh [cpu|gpu] — walled / periodic time per step at the same size, heat and MHD, in
# one run: walled = every axis non-periodic (heat: Dirichlet(0) on every face; MHD: free-slip,
# perfectly conducting walls, boundary.walls = slip), periodic = today's box. Runs alternate
# periodic / walled BENCH_REPS times (default 5) so that a drift of the machine touches both
# alike; each run is the app's own median time per step (run.warmup steps untimed first).
#   cpu: BUILD=build (default), 1 rank, all CPU workers, heat 128^3, MHD 64^3
#   gpu: BUILD=build-cuda (default), 1 rank, one GPU, heat 256^3, MHD 256^3
# Sizes: HEAT_N, MHD_N; steps: BENCH_STEPS (default 50). Prints one CSV row per run, then per
# app: median periodic ms, median walled ms, and their ratio (the targets: <= 1.10 on the CPU,
# <= 1.05 on one GPU at 256^3).
set -uo pipefail
device=${1:-cpu}
case $device in
cpu) build=${BUILD:-build} heat_n=${HEAT_N:-128} mhd_n=${MHD_N:-64} dev=(--device cpu) ;;
gpu) build=${BUILD:-build-cuda} heat_n=${HEAT_N:-256} mhd_n=${MHD_N:-256} dev=(--device cuda) ;;
*) echo "usage: $0 [cpu|gpu]" >&2; exit 2 ;;
esac
reps=${BENCH_REPS:-5} steps=${BENCH_STEPS:-50}
heat=$build/apps/heat/tess-heat mhd=$build/apps/mhd/tess-mhd
for exe in "$heat" "$mhd"; do [ -x "$exe" ] || { echo "no $exe (build first: scripts/build.sh $build)" >&2; exit 1; }; done
echo "# commit $(git rev-parse --short HEAD 2>/dev/null), $(date -u +%Y-%m-%dT%H:%MZ), $0 $*"
echo "app,grid,faces,rep,ms_per_step"
ms() { awk '/^median [0-9.]+ ms per step/ {print $2}'; }
declare -A all
for rep in $(seq 1 "$reps"); do
  for faces in periodic walled; do
    if [ $faces = periodic ]; then hw=(); mw=(); else
      hw=(--periodic none --set 'boundary.u=all:dirichlet(0)')
      mw=(--periodic none --set boundary.walls=slip); fi
    t=$("$heat" "${dev[@]}" --grid $heat_n,$heat_n,$heat_n --steps $((steps + 10)) --warmup 10 \
        --every 0 "${hw[@]}" 2>&1 | ms)
    echo "heat,${heat_n}^3,$faces,$rep,${t:-NA}"; all[heat,$faces]+="${t:-} "
    t=$("$mhd" "${dev[@]}" --grid $mhd_n,$mhd_n,$mhd_n --steps $((steps + 10)) --warmup 10 \
        --every 0 "${mw[@]}" 2>&1 | ms)
    echo "mhd,${mhd_n}^3,$faces,$rep,${t:-NA}"; all[mhd,$faces]+="${t:-} "
  done
done
median() { tr ' ' '\n' | awk 'NF' | sort -g | awk '{a[n++] = $1} END {if (!n) print "NA"; else print n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2}'; }
echo "app,device,periodic_ms,walled_ms,walled_over_periodic"
for app in heat mhd; do
  p=$(echo "${all[$app,periodic]}" | median) w=$(echo "${all[$app,walled]}" | median)
  r=$(awk -v p="$p" -v w="$w" 'BEGIN { if (p > 0 && w > 0) printf "%.3f", w / p; else print "NA" }')
  echo "$app,$device,$p,$w,$r"
done
