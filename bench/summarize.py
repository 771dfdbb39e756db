#!/usr/bin/env python3
"""summarize.py RUNS_CSV BW_TXT OUT_CSV — the table of bench/run.sh (standard library only).

Per run (app, size n^3, GPUs g, ranks, mode):
  ns/cell/step   median step time / n^3
  floor          the memory floor at the measured device copy bandwidth, over g GPUs:
                 bytes_per_cell_step * n^3 / (g * copy_bw)     (MHD fp64: 576 B; CH fused: 16 B)
  x floor        median / floor
  ovl/bulk       bulk median / overlapped median of the same app, size, GPUs and ranks
  eff            strong-scaling efficiency T(1 GPU) / (g * T(g)), same app, size and mode;
                 for mhdweak (size^3 cells per GPU) the weak-scaling efficiency T(1 GPU) / T(g)
  model          T = max(tau_W, tau_Q) + tau_0 (digest 2.10) with
                 tau_W = W / pi: W = n^3 / g cells per GPU, 1/pi = the 1-GPU overlapped
                         ns/cell/step of the same app and size (measured in this run)
                 tau_Q = Q / beta: Q = halo bytes a GPU receives per step from other GPUs
                         (faces of the split axes plus the edges between two split axes: the
                         star_diag / star footprints need no corners), beta = GPU<->GPU bandwidth
                         (one rank: StarPU copies peer to peer; mode +direct: CUDA-aware MPI)
                         or host-staged bandwidth 1 / (1/d2h + 1/h2d) (one rank per GPU through
                         StarPU-MPI, which stages in main RAM)
                 tau_0 = 0 (the model's sequential part; the difference to the measurement is it)
"""
import csv
import re
import sys

# bytes moved per cell per step at the floor; halo: (components, radius, exchanges per step)
APPS = {"mhd": {"bytes": 576, "nc": 8, "r": 3, "exch": 3, "esize": 8},
        "mhd32": {"bytes": 288, "nc": 8, "r": 3, "exch": 3, "esize": 4},  # single precision
        "ch": {"bytes": 16, "nc": 1, "r": 2, "exch": 1, "esize": 8}}
APPS["mhdweak"] = APPS["mhd"]  # weak scaling: size^3 cells per GPU (bench/run.sh)


def bandwidths(path):
    bw = {}
    for line in open(path):
        m = re.match(r"(\w+) ([\d.]+) GB/s", line)
        if m:
            bw[m.group(1)] = float(m.group(2)) * 1e9
    return bw


def halo_bytes(app, procs, tiles, tile):
    """Bytes one GPU receives per step from other GPUs (one tile per GPU)."""
    a = APPS[app]
    t = [int(x) for x in tile.split("x")]
    grid = [int(p) * int(q) for p, q in zip(procs.split("x"), tiles.split("x"))]
    split = [i for i in range(3) if grid[i] > 1]
    cells = 0
    for i in split:
        o = [t[j] for j in range(3) if j != i]
        cells += 2 * a["r"] * o[0] * o[1]
    for x in range(len(split)):
        for y in range(x + 1, len(split)):
            k = 3 - split[x] - split[y]
            cells += 4 * a["r"] * a["r"] * t[k]
    return cells * a["nc"] * a["esize"] * a["exch"]


def main():
    runs = list(csv.DictReader(open(sys.argv[1])))
    bw = bandwidths(sys.argv[2])
    copy = bw.get("d2d_copy")
    staged = 1 / (1 / bw["d2h"] + 1 / bw["h2d"]) if "d2h" in bw and "h2d" in bw else None
    peer = bw.get("gpu0_to_gpu1")
    for r in runs:
        for k in ("size", "gpus", "ranks"):
            r[k] = int(r[k])
        r["median_ms"], r["p90_ms"] = float(r["median_ms"]), float(r["p90_ms"])
    key = lambda r: (r["app"], r["size"], r["gpus"], r["ranks"], r["mode"])  # noqa: E731
    by = {key(r): r for r in runs}
    rows = []
    for r in runs:
        app, n, g, nr, mode = key(r)
        base, direct = mode.split("+")[0], mode.endswith("+direct")
        suffix = "+direct" if direct else ""
        weak = app.endswith("weak")
        cells = n ** 3 * (g if weak else 1)
        floor = APPS[app]["bytes"] * cells / (g * copy) * 1e3 if copy else float("nan")
        bulk = by.get((app, n, g, nr, "bulk" + suffix))
        one = by.get((app, n, 1, 1, base))
        one_ovl = by.get((app, n, 1, 1, "overlap"))
        tau_w = one_ovl["median_ms"] / (1 if weak else g) if one_ovl else float("nan")
        beta = peer if (nr == 1 or direct) else staged
        q = halo_bytes(app, r["procs"], r["tiles"], r["tile"]) if g > 1 else 0
        tau_q = q / beta * 1e3 if (beta and q) else 0.0
        rows.append({
            "app": app, "size": n, "gpus": g, "ranks": nr, "mode": mode,
            "median_ms": r["median_ms"], "p90_ms": r["p90_ms"],
            "ns_cell_step": 1e6 * r["median_ms"] / cells,
            "floor_ms": floor, "floor_ratio": r["median_ms"] / floor,
            "ovl_over_bulk": (bulk["median_ms"] / r["median_ms"]) if (bulk and base == "overlap")
            else float("nan"),
            "efficiency": one["median_ms"] / ((1 if weak else g) * r["median_ms"]) if one
            else float("nan"),
            "model_ms": max(tau_w, tau_q), "tau_w_ms": tau_w, "tau_q_ms": tau_q,
            "layout": "%s ranks x %s tiles" % (r["procs"], r["tiles"])})
    with open(sys.argv[3], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for row in rows:
            w.writerow({k: ("%.4g" % v if isinstance(v, float) else v) for k, v in row.items()})
    print("ceilings: copy %.0f GB/s (read+write), h2d %.1f, d2h %.1f, GPU->GPU %s GB/s" % (
        (copy or 0) / 1e9, bw.get("h2d", 0) / 1e9, bw.get("d2h", 0) / 1e9,
        "%.0f" % (peer / 1e9) if peer else "-"))
    print("app     size  GPUs ranks mode            median ms   p90 ms  ns/cell  x floor  ovl/bulk  "
          "eff    model ms (tau_W, tau_Q)")
    for x in rows:
        print("%-7s %4d^3 %4d %5d %-15s %9.3f %8.3f %8.3f %8.2f %9s %5s %9.3f (%.3f, %.3f)" % (
            x["app"], x["size"], x["gpus"], x["ranks"], x["mode"], x["median_ms"], x["p90_ms"],
            x["ns_cell_step"], x["floor_ratio"],
            "%.2f" % x["ovl_over_bulk"] if x["ovl_over_bulk"] == x["ovl_over_bulk"] else "",
            "%.2f" % x["efficiency"] if x["efficiency"] == x["efficiency"] else "",
            x["model_ms"], x["tau_w_ms"], x["tau_q_ms"]))


if __name__ == "__main__":
    main()
