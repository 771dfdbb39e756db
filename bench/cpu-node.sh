#!/usr/bin/env bash
# cpu-node.sh BUILD_OR_BUNDLE [--quick] — every core of a CPU node at work: Tessera's heat app
# (order 2, double, CPU workers only) against a plain OpenMP loop, ratios measured in one run.
#
#   BUILD_OR_BUNDLE  a build directory, or a bundle (scripts/gpu-bundle.sh: its env.sh is sourced
#                    and its extra/build used), as on the GPU host, which has no package access
#   --quick          one small grid and a few configurations (the 2-core development machine)
#
# On a node of C cores (nproc), at 128^3 and 256^3:
#   default      1 rank, no tile or worker setting (what a user gets)
#   tiles-N      1 rank, C-1 workers, N tiles: the powers of two nearest 1, 2, 4 and 8 tiles per
#                worker (the grids are powers of two, so only those cut them), and 8
#   RxW          R ranks of W workers each (1x(C-1), 2x(C/2-1), 2x(C/2), 4x(C/4), 8x(C/8), 16x1 as
#                far as C allows), default tiles; the ones whose MPI thread shares a worker's
#                core also with --mpi-direct off (halos through StarPU-MPI: its progress thread
#                polls without pause; what the placement avoids)
#   Rxdefault    R = 2, 4, 8 ranks with no worker setting (the placement's own choice)
#   omp-T        bench/omp_heat.c (ghost fill + 7-point sweep, gcc -O3 -march=native -fopenmp,
#                built here) on T threads; its best T is the anchor
# Every Tessera run prints its median time per step over chunks of 10 steps after warm-up; one
# run per configuration. AB_WRAP=1: each Tessera configuration is run again right after itself
# with --wrap=false (NAME-copies: every periodic halo copied, no kernel writing images; the
# ratios below leave those runs out and add images / copies per configuration). Output under $OUT (default /tmp/cpu-node): cpu-node.csv, summary.txt
# (the ratios: default / best tiling, 16x1 (or most ranks of 1 worker) / best 1-rank, Tessera's
# best / OpenMP's best), logs/. COMMIT=... names the commit where the tree has no .git.
set -uo pipefail
arg=${1:?usage: cpu-node.sh BUILD_OR_BUNDLE [--quick]}
quick=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=build-or-bundle.sh
source "$here/build-or-bundle.sh"
tess_build_dir "$arg"
heat=$B/apps/heat/tess-heat
[ -x "$heat" ] || { echo "cpu-node.sh: no $heat" >&2; exit 2; }
out=${OUT:-/tmp/cpu-node}
mkdir -p "$out/logs"
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-/tmp/starpu-home-cpu-node}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
unset STARPU_NCPU STARPU_WORKERS_CPUID STARPU_WORKERS_NOBIND STARPU_MPI_NOBIND TESSERA_RUNTIME_TILES
C=$(nproc)
csv=$out/cpu-node.csv
sum=$out/summary.txt
{
  echo "# ${COMMIT:-$(cd "$here/.." && git rev-parse --short HEAD 2>/dev/null || echo '?')} $0 $*"
  echo "# $(date -u +%FT%TZ) $(hostname) $C cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} | tee "$sum"
echo "n,config,ranks,workers,tiles,mpi_direct,median_ms,placement" >"$csv"

# run N NAME RANKS WORKERS(0: default) ARGS...: one CSV row
run() {
  local n=$1 name=$2 ranks=$3 workers=$4
  shift 4
  local log=$out/logs/$n-$name.log steps=110 warm=10 envs=()
  [ "$n" -ge 256 ] && steps=45 warm=5
  [ -n "$quick" ] && steps=25 warm=5
  [ "$workers" -gt 0 ] && envs=(-x STARPU_NCPU="$workers")
  local A=(--device cpu --order 2 --precision double --grid "$n,$n,$n" --every 0 --warmup $warm
    --steps $steps "$@")
  if [ "$ranks" -eq 1 ]; then
    if [ "$workers" -gt 0 ]; then
      STARPU_NCPU=$workers timeout 120 "$heat" "${A[@]}" >"$log" 2>&1
    else
      timeout 120 "$heat" "${A[@]}" >"$log" 2>&1
    fi
  else # Tessera binds its ranks (topology/): mpirun must not
    timeout 120 mpirun --oversubscribe --bind-to none -np "$ranks" "${envs[@]}" "$heat" "${A[@]}" \
      >"$log" 2>&1
  fi
  local rc=$? med tiles direct place
  med=$(awk '/^median/ {print $2}' "$log")
  tiles=$(grep -o '[0-9]* tile(s) per rank' "$log" | head -1 | awk '{print $1}')
  direct=$(grep -q "Tessera's MPI requests" "$log" && echo auto-on || echo "${MPIDIRECT:-auto}")
  place=$(grep -m1 '^placement:' "$log" | cut -c12- | tr ',' ';' | cut -c1-160)
  [ -z "$med" ] && med=NA && echo "  $name: rc $rc, no median (see $log)"
  [ "$workers" -gt 0 ] || workers=$(grep -m1 '^placement:' "$log" | grep -oE '[0-9]+ CPU and' |
    awk '{print $1}')
  printf '%5s %-22s %2s ranks x %3s workers  %4s tiles  %9s ms\n' "$n" "$name" "$ranks" \
    "$workers" "${tiles:-?}" "$med" | tee -a "$sum"
  echo "$n,$name,$ranks,$workers,${tiles:-},${direct},$med,\"$place\"" >>"$csv"
  if [ -n "${AB_WRAP:-}" ] && [ "${name%-copies}" = "$name" ]; then
    run "$n" "$name-copies" "$ranks" "$workers" "$@" --wrap=false
  fi
}

# The anchor, built here (the GPU host has gcc 13 and no package access)
omp=$out/omp_heat
gcc -O3 -march=native -fopenmp -std=c11 "$here/omp_heat.c" -o "$omp" || exit 1

pow2_near() { # the power of two nearest $1 (by ratio)
  awk -v x="$1" 'BEGIN {p = 1; while (p * 2 <= x) p *= 2; print (x / p < 2 * p / x) ? p : 2 * p}'
}

sizes="128 256"
[ -n "$quick" ] && sizes=64
W1=$((C > 1 ? C - 1 : 1))
for n in $sizes; do
  # untimed: the first run of a grid calibrates dmdas's models (STARPU_HOME), 3x slower here
  timeout 120 "$heat" --device cpu --order 2 --grid "$n,$n,$n" --every 0 --steps 30 --tiles 8 \
    >"$out/logs/$n-calibrate.log" 2>&1
  run "$n" default 1 0
  for k in 1 2 4 8; do
    t=$(pow2_near $((k * W1)))
    [ $((n * n * n / t)) -ge 512 ] && run "$n" "tiles-$t" 1 "$W1" --tiles "$t"
  done
  [ -z "$quick" ] && run "$n" tiles-8 1 "$W1" --tiles 8
  for rw in "1 $W1" "2 $((C / 2 - 1))" "2 $((C / 2))" "4 $((C / 4))" "8 $((C / 8))" "16 1" \
    "2 0" "4 0" "8 0"; do
    read -r r w <<<"$rw"
    [ "$r" -le "$C" ] && [ "$w" -ge 0 ] && [ $((r * w)) -le "$C" ] || continue
    [ "$r" -eq 1 ] && [ "$w" -eq "$W1" ] && continue # tiles-* above, and default
    [ "$w" -eq 0 ] && [ -n "$quick" ] && continue
    if [ "$w" -eq 0 ]; then
      run "$n" "${r}xdefault" "$r" 0
      continue
    fi
    run "$n" "${r}x${w}" "$r" "$w"
    if [ "$r" -gt 1 ] && [ $((r * w)) -ge "$C" ]; then
      MPIDIRECT=off run "$n" "${r}x${w}-starpu-mpi" "$r" "$w" --mpi-direct off
    fi
  done
  for t in $(seq 1 "$C" | awk -v c="$C" '$1 == 1 || $1 % 4 == 0 || $1 == c - 1 || $1 == c'); do
    [ -n "$quick" ] && [ "$t" -gt 2 ] && continue
    steps=200
    [ "$n" -ge 256 ] && steps=50
    res=$(OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores "$omp" "$n" $steps 10)
    med=$(echo "$res" | grep -oE 'median_ms=[0-9.]+' | cut -d= -f2)
    printf '%5s %-22s %2s ranks x %3s threads            %9s ms\n' "$n" "omp-$t" 1 "$t" "$med" |
      tee -a "$sum"
    echo "$n,omp-$t,1,$t,,,$med,\"$res\"" >>"$csv"
  done
done

# Ratios, all from this run's CSV
/usr/bin/env python3 - "$csv" <<'EOF' | tee -a "$sum"
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
copies = {(r["n"], r["config"][:-len("-copies")]): r for r in rows if r["config"].endswith("-copies")}
rows = [r for r in rows if not r["config"].endswith("-copies")]
def ms(r):
    try: return float(r["median_ms"])
    except ValueError: return None
for n in sorted({r["n"] for r in rows}, key=int):
    R = [r for r in rows if r["n"] == n and ms(r) is not None]
    get = lambda f: [r for r in R if f(r)]
    best = lambda rs: min(rs, key=ms) if rs else None
    d = best(get(lambda r: r["config"] == "default"))
    bt = best(get(lambda r: r["config"].startswith("tiles-")))
    b1 = best(get(lambda r: r["ranks"] == "1" and not r["config"].startswith("omp")))
    rmax = max([int(r["ranks"]) for r in R] + [1])
    r16 = best(get(lambda r: int(r["ranks"]) == rmax and rmax > 1 and r["workers"] == "1"
                   and "starpu-mpi" not in r["config"]))
    tb = best(get(lambda r: not r["config"].startswith("omp")))
    om = best(get(lambda r: r["config"].startswith("omp")))
    def ratio(a, b, what):
        if a and b:
            print(f"{n}^3 {what}: {ms(a):.3f} / {ms(b):.3f} ms = {ms(a) / ms(b):.2f}"
                  f"  ({a['config']} / {b['config']})")
        else:
            print(f"{n}^3 {what}: not measured")
    ratio(d, bt, "default / best tiling (target <= 1.2)")
    ratio(r16, b1, f"{rmax}x1 / best 1-rank (target for 16x1 <= 1.3)")
    ratio(tb, om, "Tessera's best / OpenMP's best (target <= 1.5)")
    for r in R:
        c = copies.get((n, r["config"]))
        if c and ms(c):
            ratio(r, c, f"{r['config']} images / copies (--wrap=false)")
EOF
echo "csv: $csv"
