#!/usr/bin/env bash
# hdiff.sh BUNDLE_DIR [RUNS_CSV] — the horizontal-diffusion program under both strategies and auto
# on the CPU (1 rank x 16 workers, 4 ranks x 4 workers) and on one GPU (1 and 4 tiles), over grid
# sizes, each configuration run BENCH_REPS times (default 5) per strategy: repetitions are rounds
# over all configurations and strategies (the strategies' order rotating each round), so that a
# drift of the machine touches every column alike. Each run: median time per step (50 steps after
# 10 warm-up); auto's runs also give the model's halo pieces, bytes and estimate per tile and step
# for both strategies, and its pick. First (BENCH_CHECKS=1, the default) GPU against CPU bitwise,
# both strategies and precisions. BENCH_BUDGET=S: no configuration's runs start after S seconds
# (the summary gives the repetitions each configuration got). One row per run goes to RUNS_CSV (default
# ./hdiff-runs.csv); the summary (medians) goes to stdout:
#   reps                                 the fewest runs of the three (NA runs left out)
#   exchange_ms, recompute_ms, auto_ms   medians over the repetitions
#   picked                               auto's pick (or each pick's count when they differ)
#   picked_over_faster                   median of the picked strategy / the faster median
#   within_10pct                         picked_over_faster <= 1.10 (the target, per
#                                        configuration; auto_over_faster: auto's own runs)
# BENCH_DEVICES="cpu cuda" (the default) selects the devices measured.
# hdiff.sh --summarize RUNS_CSV prints the summary of a runs file again. Run on the GPU host with
# a bundle from scripts/gpu-bundle.sh.
set -uo pipefail

summarize() { # runs.csv -> summary CSV on stdout, then the count of configurations within 10%
  awk -F, 'NR > 1 {
    k = $1 "," $2 "," $3 "," $4
    if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
    if ($7 != "NA" && $7 != "") { n[k, $5]++; v[k, $5, n[k, $5]] = $7 }
    if ($5 == "auto") { pick[k, $8]++; if ($9 != "") model[k] = $9 "," $10 "," $11 "," $12 "," $13 "," $14 }
  }
  function median(k, s,   m, i, j, t, a) {
    m = n[k, s]; if (!m) return ""
    for (i = 1; i <= m; i++) a[i] = v[k, s, i] + 0
    for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    print "device,grid,ranks,tiles,reps,exchange_ms,recompute_ms,auto_ms,picked,faster,picked_over_faster,auto_over_faster,within_10pct,model_ex_pieces,model_ex_MB,model_ex_us,model_re_pieces,model_re_MB,model_re_us"
    for (i = 1; i <= nk; i++) {
      k = order[i]; e = median(k, "exchange"); r = median(k, "recompute"); a = median(k, "auto")
      pe = pick[k, "exchange"] + 0; pr = pick[k, "recompute"] + 0
      picked = pe && pr ? "exchange " pe "/recompute " pr : pe ? "exchange" : pr ? "recompute" : "NA"
      reps = n[k, "exchange"] + 0; if (n[k, "recompute"] < reps) reps = n[k, "recompute"] + 0
      if (n[k, "auto"] < reps) reps = n[k, "auto"] + 0
      if (e == "" || r == "") { printf "%s,%d,%s,%s,%s,%s,NA,NA,NA,NA,%s\n", k, reps, e == "" ? "NA" : e, r == "" ? "NA" : r, a == "" ? "NA" : a, picked, model[k]; continue }
      fast = e <= r ? e : r; faster = e <= r ? "exchange" : "recompute"
      pm = pe >= pr ? e : r # the strategy auto picked most often
      ratio = pm / fast; aratio = a != "" ? sprintf("%.3f", a / fast) : "NA"
      within = ratio <= 1.10 ? "yes" : "no"; total++; ok += within == "yes"
      printf "%s,%d,%.3f,%.3f,%s,%s,%s,%.3f,%s,%s,%s\n", k, reps, e, r, a == "" ? "NA" : sprintf("%.3f", a), picked, faster, ratio, aratio, within, model[k]
    }
    printf "# auto within 10%% of the faster median in %d of %d configurations\n", ok, total
  }' "$1"
}
if [ "${1:-}" = --summarize ]; then summarize "${2:?usage: hdiff.sh --summarize RUNS_CSV}"; exit; fi

bundle=$(cd "${1:?usage: hdiff.sh BUNDLE_DIR [RUNS_CSV]}" && pwd)
runs=${2:-$PWD/hdiff-runs.csv}
reps=${BENCH_REPS:-5} budget=${BENCH_BUDGET:-0}
source "$bundle/env.sh" >/dev/null 2>&1
export LD_LIBRARY_PATH=$bundle/extra/lib:${LD_LIBRARY_PATH:-} STARPU_SILENT=1 STARPU_HOME=/tmp/sh \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_pcompress_base_silence_warning=1
B=$bundle/extra/build; A=$B/apps/hdiff/tess-hdiff
tmp=$(mktemp -d)
if [ "${BENCH_CHECKS:-1}" = 1 ]; then # GPU against CPU, bitwise
  for p in double single; do
    c="--grid 64,48,8 --init random --steps 10 --precision $p"
    STARPU_NCPU=4 STARPU_NCUDA=0 $A --device cpu $c --strategy exchange --dump $tmp/c.bin > /dev/null 2>&1
    for s in exchange recompute; do for t in 1 3; do
      STARPU_NCUDA=1 $A --device cuda $c --strategy $s --tiles $t --dump $tmp/g.bin > /dev/null 2>&1
      echo "check: $p GPU $s $t tile(s) vs CPU exchange: $(cmp -s $tmp/c.bin $tmp/g.bin && echo identical || echo DIFFERENT)"
    done; done
  done
fi
echo "device,grid,ranks,tiles,strategy,round,ms_per_step,picked,model_ex_pieces,model_ex_MB,model_ex_us,model_re_pieces,model_re_MB,model_re_us,figures" > "$runs"
one() { # device grid ranks tiles strategy round: run it, append its row
  local dev=$1 g=$2 np=$3 t=$4 s=$5 log=$tmp/r.log med picked m fig
  local args=(--device "$dev" --grid "$g" --init random --strategy "$s" --every 0 --warmup 10 --steps 60)
  if [ "$dev" = cuda ]; then STARPU_NCUDA=1 $A "${args[@]}" --tiles "$t" > "$log" 2>&1
  elif [ "$np" = 1 ]; then STARPU_NCPU=16 STARPU_NCUDA=0 $A "${args[@]}" > "$log" 2>&1
  else mpirun -np "$np" --bind-to none -x STARPU_NCPU=$((16 / np)) -x STARPU_NCUDA=0 $A "${args[@]}" > "$log" 2>&1; fi
  med=$(awk '/^median/ {print $2}' "$log")
  picked=$(sed -n 's/^strategy \([a-z]*\):.*/\1/p' "$log" | head -1)
  m=$(sed -n 's/.*exchange [0-9]* round(s) of \([0-9]*\) halo pieces (\([^ ]*\) MB) + [0-9]* cells = \([^ ]*\) us, recompute [0-9]* round(s) of \([0-9]*\) pieces (\([^ ]*\) MB) + [0-9]* cells = \([^ ]*\) us.*/\1,\2,\3,\4,\5,\6/p' "$log" | head -1)
  fig=$(sed -n 's/.* figures: \(.*\)/\1/p' "$log" | head -1 | tr -d ',')
  echo "$dev,${g//,/x},$np,$t,$s,$6,${med:-NA},$picked,${m:-,,,,,},\"$fig\"" >> "$runs"
}
configs=("cpu 128,128,32 1 auto" "cpu 128,128,32 4 auto" "cpu 256,256,32 1 auto" "cpu 256,256,32 4 auto"
         "cuda 256,256,64 1 1" "cuda 256,256,64 1 4" "cuda 512,512,64 1 1" "cuda 512,512,64 1 4")
strategies=(exchange recompute auto)
start=$SECONDS
devices=" ${BENCH_DEVICES:-cpu cuda} "
for ((r = 1; r <= reps; r++)); do
  for c in "${configs[@]}"; do
    [[ $devices == *" ${c%% *} "* ]] || continue
    if [ "$budget" -gt 0 ] && [ $((SECONDS - start)) -ge "$budget" ]; then
      echo "# budget of ${budget} s spent in round $r of $reps"; break 2; fi
    for ((i = 0; i < 3; i++)); do one $c "${strategies[$(((i + r) % 3))]}" "$r"; done
  done
  echo "# round $r done at $((SECONDS - start)) s"
done
rm -rf "$tmp"
summarize "$runs"
