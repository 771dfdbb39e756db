#!/usr/bin/env bash
# mhd-kernel.sh — builds bench/mhd_kernel_bench.cu (codelets/mhd/mhd_cuda.cu included, codelets/mhd/mhd.c
# as the CPU reference, built with -ffp-contract=off) with nvcc for sm_90 and runs it: resource
# usage, ULP checks of every kernel variant against the CPU in double and in single precision
# (f32: GPU tess_mhd_rk3_cuda_f32's kernels vs tess_mhd_rk3_cpu_f32, in float ULPs), timings of
# both at 128^3 / 256^3 / 512^3 (floors 576 and 288 B/cell/step) and of thin outer segments,
# compute-sanitizer memcheck + racecheck on small launches, and an Nsight Compute profile of one
# production launch of each precision at 256^3. No StarPU, no CMake.
# Full logs go to $OUT (or /tmp/mhd-kernel); stdout ends with a compact summary.
#   usage: bench/mhd-kernel.sh            on the GPU machine (about 4 minutes); with
#          MHD_BENCH_BIN=path (and MHD_BENCH_BUILD_LOG=its ptxas -v log) a prebuilt binary
#          bench/mhd-kernel.sh --emulate  CPU only: the kernels' code run on the host vs the CPU
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/mhd-kernel}
B=/tmp/mhd-kernel-build
mkdir -p "$out" "$B"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
t0=$(date +%s)

gcc -O2 -std=c11 -ffp-contract=off -Icodelets -Icodelets/common -Icodelets/mhd -Iruntime/include -c codelets/mhd/mhd.c -o "$B/mhd.o" ||
  exit 1
if [ "${1:-}" = --emulate ]; then
  "$nvcc" -std=c++17 -O2 -arch=sm_90 -fmad=false -Xcompiler -ffp-contract=off -Icodelets -Icodelets/common -Icodelets/mhd -Iruntime/include \
    bench/mhd_kernel_bench.cu "$B/mhd.o" -o "$B/mhd_kernel_bench" || exit 1
  "$B/mhd_kernel_bench" --emulate | tee "$out/emulate.txt" | grep -v PASS
  exit "${PIPESTATUS[0]}"
fi

if [ -n "${MHD_BENCH_BIN:-}" ]; then # built elsewhere (the bundle's, or here with -Xptxas -v)
  cp "$MHD_BENCH_BIN" "$B/mhd_kernel_bench" && build_rc=0 || build_rc=1
  [ -n "${MHD_BENCH_BUILD_LOG:-}" ] && cp "$MHD_BENCH_BUILD_LOG" "$out/build.txt"
else
  "$nvcc" -std=c++17 -O3 -arch=sm_90 -fmad=false -Xptxas -v -Xcompiler -ffp-contract=off -Icodelets -Icodelets/common -Icodelets/mhd \
    -Iruntime/include bench/mhd_kernel_bench.cu "$B/mhd.o" -o "$B/mhd_kernel_bench" \
    >"$out/build.txt" 2>&1
  build_rc=$?
fi
t1=$(date +%s)
if [ $build_rc -ne 0 ]; then
  tail -40 "$out/build.txt"
  echo "BUILD FAILED"
  exit 1
fi
nvidia-smi -L >"$out/gpu.txt" 2>&1
"$nvcc" --version | tail -2 >>"$out/gpu.txt"

# SASS instruction mix of the production kernel (per cell-step: one thread, one z step)
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$B/mhd_kernel_bench" >"$B/all.sass" 2>/dev/null
fi

echo "== bench (full log: $out/bench.txt)"
"$B/mhd_kernel_bench" >"$out/bench.txt" 2>&1
bench_rc=$?
t2=$(date +%s)

san="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)"
if [ -n "$san" ]; then
  timeout 240 "$san" --tool memcheck "$B/mhd_kernel_bench" --sanitize >"$out/memcheck.txt" 2>&1
  timeout 240 "$san" --tool racecheck --racecheck-report hazard "$B/mhd_kernel_bench" --sanitize \
    >"$out/racecheck.txt" 2>&1
fi
t3=$(date +%s)

ncu="$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)"
if [ -n "$ncu" ]; then
  timeout 200 "$ncu" --clock-control none -k regex:mhd_tiled --launch-skip 7 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section SchedulerStats --section WarpStateStats --section Occupancy \
    --section InstructionStats --csv --page raw "$B/mhd_kernel_bench" --profile 256 \
    >"$out/ncu.csv" 2>"$out/ncu.err"
  timeout 200 "$ncu" --clock-control none -k regex:mhd_tiled --launch-skip 7 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section SchedulerStats --section WarpStateStats --section Occupancy \
    --section InstructionStats --csv --page raw "$B/mhd_kernel_bench" --profile 256 --f32 \
    >"$out/ncu-f32.csv" 2>"$out/ncu-f32.err"
fi
t4=$(date +%s)

python3 - "$out" "$B" <<'EOF'
import csv, io, os, re, subprocess, sys
out, B = sys.argv[1], sys.argv[2]
def read(name):
    try: return open(os.path.join(out, name), errors="replace").read()
    except OSError: return ""
def demangle(s):
    for tool in ("cu++filt", "c++filt"):
        try: return subprocess.run([tool, s], capture_output=True, text=True).stdout.strip()
        except OSError: pass
    return s
def short(d):
    # some c++filt versions write template arguments as (int)32 and (bool)1
    d = re.sub(r"\((?:int|bool)\)", "", d).replace(", 1>", ", true>").replace(", 0>", ", false>")
    m = re.search(r"(mhd_\w+kernel|exp_kernel|expf_kernel|fill_random_kernel)(<[^>]*>)?", d)
    return (m.group(1) + (m.group(2) or "")) if m else d[:60]

print("\n===== SUMMARY =====")
print(read("gpu.txt").strip())
# ptxas -v
cur, props, res = None, None, {}
for line in read("build.txt").splitlines():
    m = re.search(r"Compiling entry function '(\w+)'", line)
    if m: cur = m.group(1); res[cur] = {}
    m = re.search(r"Function properties for (\w+)", line)
    if m: props = m.group(1)
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
    if m and cur and props == cur: res[cur].update(stack=m.group(1), sst=m.group(2), sld=m.group(3))
    m = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", line) or re.search(r"Used (\d+) registers", line)
    if m and cur: res[cur].update(regs=m.group(1))
print("ptxas (sm_90):")
for k, v in res.items():
    d = short(demangle(k))
    if "mhd" in d:
        print(f"  {d:42s} regs {v.get('regs','?'):>3}  spill st/ld {v.get('sst','?')}/{v.get('sld','?')} B"
              f"  stack {v.get('stack','?')} B")
warn = [l for l in read("build.txt").splitlines() if "warning" in l.lower()]
if warn: print("  build warnings:", len(warn), "(see build.txt)")
# SASS mix
try:
    sass = open(os.path.join(B, "all.sass")).read()
    for fn in re.split(r"\n\s+Function : ", sass)[1:]:
        name = short(demangle(fn.split("\n")[0].strip()))
        if not re.match(r"mhd_tiled_kernel<32, (8, (double|float)|16, float)", name):
            continue
        with open(os.path.join(out, "sass-" + re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") + ".txt"), "w") as fh:
            fh.write(fn)
        ops = {}
        for l in fn.split("\n"):
            m = re.match(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)", l)
            if m: ops[m.group(1)] = ops.get(m.group(1), 0) + 1
        dp = sum(v for k, v in ops.items() if k in ("DFMA", "DADD", "DMUL"))
        sp = sum(v for k, v in ops.items() if k in ("FFMA", "FADD", "FMUL"))
        top = sorted(ops.items(), key=lambda kv: -kv[1])[:16]
        print(f"SASS {name}: {sum(ops.values())} instr (static), FP64 {dp}, FP32 {sp}, "
              f"LDS {ops.get('LDS',0)}, LDGSTS {ops.get('LDGSTS',0)}, "
              f"LDL/STL {ops.get('LDL',0)}/{ops.get('STL',0)}")
        print("  top:", " ".join(f"{k}:{v}" for k, v in top))
except OSError:
    print("SASS: cuobjdump not available")
bench = read("bench.txt")
for l in bench.splitlines():
    if l.startswith(("device:", "exp", "divf")) or re.match(r"\s+f(32|64) (tiled|generic)\S*\s+regs", l):
        print(l)
# correctness
checks = [l for l in bench.splitlines() if re.search(r" (PASS|FAIL)(\s|$)", l) and "k=" in l]
fails = [l for l in checks if " FAIL" in l]
print(f"correctness: {len(checks)} checks, {sum(' PASS' in l for l in checks)} PASS, {len(fails)} FAIL")
for pr in ("f64", "f32"):
    mine = [l for l in checks if f" {pr} " in l]
    exact = [l for l in mine if " PASS" in l or " FAIL" in l]
    worst = max((float(m.group(1)) for l in exact for m in [re.search(r"max (\S+)", l)] if m),
                default=float("nan"))
    print(f"  {pr}: {len(exact)} exact-variant checks, {sum(' FAIL' in l for l in exact)} FAIL, "
          f"{sum('max 0 ' not in l for l in exact)} not bitwise, worst {worst:g} ULP ({pr} ULPs)")
for l in fails[:12]: print("  " + re.sub(r"\s+", " ", l.strip())[:230])
zero = [l for l in checks if " PASS" in l and "max 0 " not in l]
print(f"  exact variants: {len(zero)} PASS checks with a nonzero max ULP (all others bitwise equal)")
for l in zero[:6]: print("  " + re.sub(r"\s+", " ", l.strip())[:230])
if "correctness:" not in bench:
    print("bench did not finish; its last lines:"); print("\n".join(bench.splitlines()[-25:]))
# timing
m = re.search(r"== timing.*", bench)
if m: print(m.group(0))
for l in bench.splitlines():
    if re.search(r"us/substep", l): print(l)
m = bench.find("== summary")
if m >= 0: print(bench[m:].split("\ncorrectness:")[0])
# sanitizers
for f in ("memcheck.txt", "racecheck.txt"):
    t = read(f)
    if not t: print(f"{f}: not run"); continue
    s = [l for l in t.splitlines() if "SUMMARY" in l or l.startswith("PASS") or l.startswith("FAIL")]
    print(f"{f}: " + " | ".join(s[-3:]) if s else f"{f}: " + " | ".join(t.splitlines()[-3:]))
# ncu
for suffix in ("", "-f32"):
    raw = read(f"ncu{suffix}.csv")
    rows = list(csv.reader(io.StringIO(raw[raw.find('"ID"'):]))) if '"ID"' in raw else []
    if len(rows) >= 3:
        hdr, units, vals = rows[0], rows[1], rows[2]
        met = {h: (v, u) for h, u, v in zip(hdr, units, vals)}
        want = ["gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                "dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum",
                "dram__bytes_write.sum", "lts__t_bytes.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
                "smsp__issue_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum",
                "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
                "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
                "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                "l1tex__throughput.avg.pct_of_peak_sustained_active",
                "smsp__average_warp_latency_per_inst_issued.ratio", "sm__cycles_elapsed.avg.per_second"]
        print(f"ncu{suffix} (one tiled launch, 256^3, substep 1):")
        for w in want:
            if w in met: print(f"  {w:78s} {met[w][0]} {met[w][1]}")
        pipes = sorted(((float(v[0].replace(',', '')), k) for k, v in met.items()
                        if re.match(r"sm__inst_executed_pipe_\w+\.avg\.pct_of_peak_sustained_active$", k)
                        and v[0].replace(',', '').replace('.', '', 1).isdigit()), reverse=True)[:6]
        if pipes: print("  pipes %:", ", ".join(f"{k.split('pipe_')[1].split('.')[0]} {v:.1f}" for v, k in pipes))
        st = []
        for k, v in met.items():
            m = re.match(r"smsp__average_warp_latency_issue_stalled_(\w+)\.ratio$", k) or \
                re.match(r"smsp__warp_issue_stalled_(\w+)_per_warp_active\.pct$", k)
            if m:
                try: st.append((float(v[0].replace(',', '')), m.group(1)))
                except ValueError: pass
        if st: print("  stalls (top):", ", ".join(f"{n} {x:.2f}" for x, n in sorted(st, reverse=True)[:8]))
    else:
        e = read(f"ncu{suffix}.err").strip().splitlines()
        print(f"ncu{suffix}: no data" + (": " + " | ".join(e[-3:]) if e else ""))
EOF
echo "times: build $((t1 - t0)) s, bench $((t2 - t1)) s, sanitizers $((t3 - t2)) s, ncu $((t4 - t3)) s;" \
  "bench exit $bench_rc; logs in $out"
exit $bench_rc
