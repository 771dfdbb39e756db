#!/usr/bin/env python3
"""mhd_results_csv.py DIR COMMIT DEVICE [PREV [BASE]] — the CSV of one bench/mhd-kernel-call.sh run
(its o.tgz unpacked at DIR): kernel-alone times (mhd_kernel_bench: k/bench.txt, or bench.txt, for
COMMIT, base.txt for BASE's binary (default 1e0e167), prev.txt for PREV's), app-level times through the runtime
(gpu-verify: verify.txt), each against the memory floor at the copy bandwidth measured in the
same run (576 B/cell/step in fp64, 288 in fp32) and, in fp64, against Astaroth's public code
(its figures timed earlier on an H100, not in this run: column astaroth_h100_earlier_ms)."""
import re
import sys

d, commit, device = sys.argv[1], sys.argv[2], sys.argv[3]
ASTAROTH = {128: 2.42, 256: 14.98, 512: 112.9}
BPC = {"f64": 576.0, "f32": 288.0}
rows = []


def row(level, code, variant, prec, n, ms, bw):
    cells = float(n) ** 3
    floor = BPC[prec] * cells / (bw * 1e9) * 1e3
    ast = ASTAROTH[n] if prec == "f64" else None
    target = None  # the app's targets: half Astaroth (fp64), 2x floor (fp32 256^3)
    if level == "app":
        target = ast / 2 if ast else (2 * floor if n == 256 else None)
    rows.append([
        "mhd", n, 1, 1, "one tile" if level == "app" else "kernel", prec, level, code, variant,
        f"{ms:.3f}", f"{floor:.3f}", f"{ms / floor:.2f}", f"{ast:.2f}" if ast else "",
        f"{ast / ms:.2f}" if ast else "", f"{target:.3f}" if target else "",
        "yes" if target and ms <= target else ("no" if target else ""), f"{bw:.0f}", device
    ])


def kernel_rows(path, code):
    try:
        txt = open(path, errors="replace").read()
    except OSError:
        return
    bw = float(re.search(r"d2d copy (\d+) GB/s", txt).group(1))
    for m in re.finditer(r"^\s+(\d+)\^3 (f32|f64) (\S+)\s+([\d.]+) ms/step", txt, re.M):
        row("kernel", code, m.group(3), m.group(2), int(m.group(1)), float(m.group(4)), bw)


kernel_rows(f"{d}/base.txt", sys.argv[5] if len(sys.argv) > 5 else "1e0e167")
if len(sys.argv) > 4:
    kernel_rows(f"{d}/prev.txt", sys.argv[4])
kernel_rows(f"{d}/k/bench.txt", commit)
kernel_rows(f"{d}/bench.txt", commit)
try:
    v = open(f"{d}/verify.txt", errors="replace").read()
except OSError:
    v = ""
m = re.search(r"d2d_copy ([\d.]+) GB/s", v)
if m:
    bw = float(m.group(1))
    for m in re.finditer(r"^mhd (double|single) (\d+)\^3: median ([\d.]+) ms", v, re.M):
        row("app", commit, "tess-mhd", "f64" if m.group(1) == "double" else "f32", int(m.group(2)),
            float(m.group(3)), bw)
print("app,size,gpus,ranks,mode,precision,level,code,variant,median_ms,floor_ms,x_floor,"
      "astaroth_h100_earlier_ms,astaroth_over_this,target_ms,target_met,copy_GBps,device")
for r in rows:
    print(",".join(str(x) for x in r))
