#!/usr/bin/env bash
# tool.sh TESSERA_TOPO — the tessera-topo command: table, JSON and environment of the
# hand-written nodes in this directory, and this machine's map.
set -u
topo=$1
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
# Variables the test environment sets would hide what the tool exports.
unset STARPU_NCPU STARPU_NCUDA STARPU_WORKERS_NOBIND STARPU_WORKERS_CPUID STARPU_WORKERS_CUDAID \
      STARPU_MPI_THREAD_CPUID STARPU_MAIN_THREAD_CPUID UCX_NET_DEVICES

out=$("$topo" --xml "$here/gpu4-nic2-2s.xml") || fail "table: exit $?"
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -Eq '^ +3 +1 +3 \(0000:44:00.0\) .* mlx5_1:1$' || fail "table: rank 3 line"

json=$("$topo" --xml "$here/gpu8-nic4-2s.xml" --json) || fail "json: exit $?"
if command -v python3 >/dev/null; then
  printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["ranks"]
assert d["mode"] == "gpu" and len(r) == 8, d["mode"]
assert [x["gpus"][0]["cuda"] for x in r] == list(range(8))
assert [x["nic"] for x in r] == ["mlx5_%d:1" % (i // 2) for i in range(8)]
cores = [c for x in r for c in x["driver_cores"] + x["cpu_cores"] + [x["mpi_core"], x["main_core"]]]
assert len(cores) == len(set(cores)), "a core is shared"
' || fail "json: content"
fi

env_out=$("$topo" --xml "$here/gpu4-nic2-2s.xml" --env 2) || fail "env: exit $?"
printf '%s\n' "$env_out"
for want in "STARPU_WORKERS_CUDAID='2'" "STARPU_WORKERS_CPUID='32 34 36 38 40 42'" "STARPU_NCPU='5'" \
            "STARPU_MPI_THREAD_CPUID='46'" "STARPU_MAIN_THREAD_CPUID='44'" "UCX_NET_DEVICES='mlx5_1:1'"; do
  printf '%s\n' "$env_out" | grep -qxF "export $want" || fail "env: missing $want"
done

"$topo" >/dev/null || fail "this machine: exit $?"
"$topo" --json | { command -v python3 >/dev/null && python3 -m json.tool >/dev/null || cat >/dev/null; } ||
  fail "this machine: invalid JSON"
echo "ok"
