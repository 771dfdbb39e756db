#!/usr/bin/env bash
# direct-auto.sh MPIEXEC HEAT DUMP_COMPARE — ranks that topology/ places with no core to spare
# for the MPI thread (workers asked for every core of the rank) send their halos by Tessera's own
# MPI requests, say so at start-up, and end with the fields of the same run through StarPU-MPI,
# bit for bit; a user who binds by hand keeps StarPU-MPI (no such line).
set -u
mpiexec=$1 heat=$2 cmp=$3
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The test environment binds nothing by hand; this test needs the placement's own decision.
unset STARPU_WORKERS_NOBIND STARPU_MPI_NOBIND STARPU_WORKERS_CPUID STARPU_WORKERS_COREID \
      STARPU_MPI_THREAD_CPUID STARPU_MAIN_THREAD_CPUID
export OMPI_MCA_hwloc_base_binding_policy=none # topology/ binds, mpiexec must not
# Two ranks in mode cores own about nproc/2 cores each: asking for that many workers leaves the
# MPI thread none of its own.
export STARPU_NCPU=$((($(nproc) + 1) / 2))
A=(--device cpu --grid 24,24,24 --order 6 --steps 4 --every 0 --topo cores --log info)
auto=$("$mpiexec" -np 2 -x STARPU_NCPU "$heat" "${A[@]}" --dump "$tmp/auto.raw" 2>&1) ||
  fail "auto run: $auto"
printf '%s\n' "$auto" | grep '^placement:'
printf '%s\n' "$auto" | grep -q "^placement: .*(shared with a worker).*Tessera's MPI requests" ||
  fail "no start-up line naming the MPI thread's shared core and the own requests"
[ "$(printf '%s\n' "$auto" | grep -c 'halos between ranks: MPI from main RAM (direct.c)')" = 2 ] ||
  fail "the runtime did not take its own requests on both ranks"
off=$("$mpiexec" -np 2 -x STARPU_NCPU "$heat" "${A[@]}" --mpi-direct off --dump "$tmp/off.raw" 2>&1) ||
  fail "StarPU-MPI run: $off"
printf '%s\n' "$off" | grep -q "halos between ranks: StarPU-MPI$" ||
  fail "--mpi-direct off did not go through StarPU-MPI"
"$cmp" "$tmp/auto.raw" "$tmp/off.raw" 0 || fail "fields differ between the two halo paths"
hand=$(STARPU_WORKERS_NOBIND=1 "$mpiexec" -np 2 -x STARPU_NCPU -x STARPU_WORKERS_NOBIND "$heat" \
  "${A[@]}" 2>&1) || fail "by-hand run: $hand"
printf '%s\n' "$hand" | grep -q '^placement: set by the user' || fail "by hand: placement line"
printf '%s\n' "$hand" | grep -q "halos between ranks: MPI from main RAM" && fail "by hand: own requests taken"
echo "PASS"
