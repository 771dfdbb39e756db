#!/usr/bin/env bash
# hdiff_checks.sh WHAT APP MPIEXEC [REFERENCE] — the horizontal-diffusion app (label hdiff):
#   reference   the final state and the last step's fluxes of a random field (the limiter acts)
#               equal a serial reference on the global array bitwise, with both strategies and
#               several decompositions; the limiter zeroes the same fluxes in both
#   strategies  exchange and recompute, overlap and bulk, 1 to 4 ranks and 1 to 8 tiles: all
#               bitwise the 1-rank exchange run
#   describe    --log info: no z ghost or z direction; recompute exchanges only in
#   checkpoint  a checkpoint holds no temporary
#   footprints  the footprint check passes for every hdiff kernel, both strategies
#   machine     auto's cost model: with a fresh StarPU history the stage bandwidth is the
#               fallback, after a run StarPU's history of the stage tasks; figures set to make
#               exchange (slow sweeps) or recompute (slow rounds and pieces) clearly costlier make
#               auto pick the other one, and the line names each figure's source
#   symbol      a Fourier mode decays per step by 1 - coeff (lx + ly)^2, lx = 4 sin^2(kx/2), to
#               round-off (both strategies, 2 ranks), and the sum of a random field is conserved
set -u
what=$1 app=$2 mpiexec=$3 ref=${4:-}
# shellcheck source=hdiff_run.sh
source "$(dirname "$0")/hdiff_run.sh"
case $what in
reference)
  grid=(24 20 3); steps=5; coeff=0.03
  common=(--grid 24,20,3 --init random --seed 7 --coeff $coeff)
  run init 1 "${common[@]}" --steps 0 --dump "$dir/init.bin"
  for cfg in "exchange 1 --tiles 1" "recompute 1 --tiles 4" "exchange 3" "recompute 4 --tiles 2" \
             "recompute 2 --mode bulk"; do
    set -- $cfg; s=$1 np=$2; shift 2
    run "$s-$np" "$np" "${common[@]}" --steps $steps --strategy "$s" "$@" \
      --dump "$dir/final.bin" --dump-fluxes "$dir/fluxes.bin"
    "$ref" "${grid[@]}" $coeff $steps "$dir/init.bin" "$dir/final.bin" "$dir/fluxes.bin" 50 || fail=1
  done ;;
strategies)
  common=(--grid 40,36,5 --init random --steps 7)
  run ref 1 "${common[@]}" --strategy exchange --tiles 1 --dump "$dir/ref.bin"
  for cfg in "recompute 1 --tiles 1" "recompute 1 --tiles 8" "recompute 2" "recompute 3" \
             "recompute 4 --mode bulk" "exchange 4 --tiles 2" "auto 2 --tiles 2" \
             "recompute 2 --tiles 2 --mode buffered"; do
    set -- $cfg; s=$1 np=$2; shift 2
    name="$s-$np${*:+-}$(echo "$*" | tr -d ' -')"
    run "$name" "$np" "${common[@]}" --strategy "$s" "$@" --dump "$dir/$name.bin"
    if cmp -s "$dir/ref.bin" "$dir/$name.bin"; then echo "  identical: $name"
    else echo "FAIL: $name differs from the 1-rank exchange run"; fail=1; fi
  done ;;
symbol)
  for s in exchange recompute; do
    procs=(); [ $s = recompute ] && procs=(--procs 2,1,1) # else the app splits z (no halo there)
    run "sine-$s" 2 --grid 32,24,2 --init sine --wave 3 --steps 40 --check --strategy "$s" "${procs[@]}"
    err=$(sed -n 's/.*error_symbol \([^ ]*\).*/\1/p' "$dir/sine-$s.log")
    echo "  $s: $(grep 'check: ampl' "$dir/sine-$s.log")"
    awk -v e="$err" 'BEGIN { exit !(e != "" && e + 0 < 1e-13) }' || { echo "FAIL: error_symbol '$err' >= 1e-13"; fail=1; }
  done
  run random 3 --grid 30,24,2 --init random --steps 50 --check
  drift=$(sed -n 's/.*drift \([^ ]*\).*/\1/p' "$dir/random.log")
  echo "  random: $(grep 'check: sum' "$dir/random.log")"
  awk -v e="$drift" 'BEGIN { exit !(e != "" && e + 0 < 1e-15) }' || { echo "FAIL: sum drift '$drift' >= 1e-15"; fail=1; } ;;
describe)
  # --log info lists per stage what is exchanged: horizontal footprints give no z ghost and
  # no direction with a z component; recompute exchanges only `in`, eight directions, width 2
  for s in exchange recompute; do
    TESSERA_RUNTIME_LOG=info run "log-$s" 2 --grid 16,16,8 --procs 1,1,2 --steps 1 --strategy "$s"
    grep "program:" "$dir/log-$s.log" | sed 's/^.*program: /  /'
    grep -q "ghost [12]x[12]x0" "$dir/log-$s.log" || { echo "FAIL: $s: z ghost not 0"; fail=1; }
    if grep "directions" "$dir/log-$s.log" | sed 's/.*directions//' | grep -Eq "[-0+][-0+][-+]"; then
      echo "FAIL: $s: a direction with a z component is exchanged"; fail=1; fi
  done
  n=$(grep -c "tessera\[0\].*exchanged when stale" "$dir/log-recompute.log")
  [ "$n" = 3 ] || { echo "FAIL: recompute: $n stage inputs exchanged, expected 3 (in, by lap, fli, flj)"; fail=1; }
  grep -q "reads 'lap'.*computed here" "$dir/log-recompute.log" || { echo "FAIL: lap not computed locally"; fail=1; }
  grep -q "reads 'in' at x\[-1,1\] y\[-1,1\].*width x-2+2 y-2+2 z-0+0; directions --0 0-0 +-0 -00 +00 -+0 0+0 ++0" \
    "$dir/log-recompute.log" || { echo "FAIL: recompute: in not exchanged 2 wide in 8 directions"; fail=1; } ;;
machine)
  # a private StarPU home with the bus calibration of the shared one but no codelet history
  if [ -n "${STARPU_HOME:-}" ] && [ -d "$STARPU_HOME/.starpu" ]; then cp -r "$STARPU_HOME/.starpu" "$dir/"; fi
  rm -rf "$dir/.starpu/sampling/codelets"; export STARPU_HOME=$dir
  common=(--grid 32,32,4 --init random --steps 8 --tiles 4)
  pick() { sed -n 's/^strategy \([a-z]*\): auto.*/\1/p' "$dir/$1.log"; }
  run fresh 1 "${common[@]}"
  grep -q "stages 10 GB/s (fallback)" "$dir/fresh.log" || { echo "FAIL: no history, yet the stage figure is not the fallback"; fail=1; }
  run measure 1 "${common[@]}" --strategy exchange --steps 20
  run measured 1 "${common[@]}"
  grep -o "stages [^)]*)" "$dir/measured.log" | sed 's/^/  measured: /'
  grep -q "stages [0-9.e+]* GB/s (StarPU history: [0-9]* tasks" "$dir/measured.log" || { echo "FAIL: the stage figure does not come from StarPU's history"; fail=1; }
  slow_sweep=round_us=1,local_us=1,remote_us=1,local_gbs=100,remote_gbs=100,mem_gbs=0.001
  slow_rounds=round_us=1e4,local_us=1e4,remote_us=1e4,local_gbs=100,remote_gbs=100,mem_gbs=100
  for cfg in "$slow_sweep exchange" "$slow_rounds recompute"; do
    set -- $cfg
    run "set-$2" 2 "${common[@]}" --procs 2,1,1 --machine "$1"
    p=$(pick "set-$2"); echo "  --machine $1: auto picked $p"
    [ "$p" = "$2" ] || { echo "FAIL: expected auto to pick $2"; fail=1; }
    [ "$(grep -o "(setting)" "$dir/set-$2.log" | wc -l)" = 6 ] || { echo "FAIL: the six figures set are not reported as settings"; fail=1; }
  done ;;
footprints)
  # every hdiff kernel reads only what it declares (the footprint check reruns each kernel with
  # the undeclared cells poisoned), with both strategies, on 2 ranks x 2 tiles
  for s in exchange recompute; do
    run "fp-$s" 2 --grid 16,12,2 --init random --steps 2 --tiles 2 --footprint-check --strategy "$s"
    echo "  $s: footprint check passed"
  done ;;
checkpoint)
  # temporaries are not checkpointed: the file holds in and out only
  run ck 2 --grid 16,16,2 --init random --steps 4 --checkpoint-every 4
  fields=$(/usr/bin/python3 -c 'import h5py, sys; print(" ".join(sorted(h5py.File(sys.argv[1])["fields"])))' \
           "$dir/out/tess-hdiff_00000004.h5") || { echo "FAIL: cannot read the checkpoint"; exit 1; }
  echo "  checkpoint fields: $fields"
  [ "$fields" = "in out" ] || { echo "FAIL: checkpoint holds '$fields', expected 'in out'"; fail=1; } ;;
*) echo "unknown check '$what'"; exit 2 ;;
esac
[ $fail = 0 ] && echo "ok: $what"
exit $fail
