#!/usr/bin/env python3
"""costmodel.py — a per-step cost model of Tessera's halo path (standard library only).

Predicts the time per step of a stencil app on g GPUs from one-GPU figures, and, with --measured,
prints the prediction beside measured runs (bench/run.sh's CSVs) with its error.

Per exchanging stage (S a step: MHD's three RK3 substeps, CH fused one), on each GPU's tile:
  C      = T1 / S x cells(tile) / cells(grid)       compute (T1: one GPU, one tile, same mode)
  C_out  = C x (cells within r of a cut face) / cells(tile)     the outer classes; C_in = C - C_out
  chain  = k x c + lat + B / bw                     outer -> pack -> copy/message -> unpack -> outer
           k: tasks on the chain: pack, unpack (a task of its own only from another rank; in one
              rank a compute task unpacks, runtime/graph/halo.c), the outer class; c: one task
           B: bytes the tile receives: element size x components x (both faces r x t_j x t_k of
              every cut axis i, and the in-plane edges r x r x t_k beside them, once); the run
              summary's "halo messages" line (tess_sim_halo_counts) agrees for MHD 24^3 on 1x1x2,
              1x1x4 and 2x2x1 ranks and CH 24^3 on 1x1x2
  busy   = n x c                                    n: tasks per tile and stage (plan.c's count:
           classes + fill + unpacks from other ranks + pack), all run by the GPU's one worker
  overlap: T_stage = max(max(C_in, chain) + C_out, C + busy)
  bulk:    T_stage = max(C + chain, C + busy)
  T = S x T_stage; efficiency T1 / (g T) (strong), T1 / T (weak: N^3 cells per GPU, grid grown in z)
g = 1 is T1 itself (a lone tile fills its own ghosts). The decomposition is Tessera's GPU cut
(runtime/graph/decomp.c, ported below): ranks and tiles cut z first, then y, then x.

Defaults and their sources:
  --bw 450        GB/s, GPU<->GPU: NVLink 4 of an H200, per direction (NVIDIA's figure);
                  bench/copy_bw measured 396 GB/s peer to peer on the H200 hosts (--ceilings FILE
                  reads that line, and d2h / h2d, from a result file)
  --staged-bw 27.7 GB/s, ranks through StarPU-MPI staged in main RAM: 1 / (1/d2h + 1/h2d) with
                  d2h 55.3, h2d 55.4 GB/s (bench/results/2026-11-27-h200x2-scaling.txt)
  --task-us 27.2  one task, MHD 32^3 in 8 tiles on one H100 (2026-11-27-h100-graph.csv,
                  mhd32-8tiles-pertask); --graph CSV takes it (and T1) from a graph.sh CSV.
                  No H200 figure exists.
  --lat-us 0      per hop; no latency was measured in the repository (c stands for the hops).

  costmodel.py --app mhd --grid 512 --t1 63.3       # predict 1, 2, 4, 8 GPUs
  costmodel.py --measured R/2026-11-27-h200x4-zcut.csv:R/2026-11-27-h200x4-scaling.txt  # validate
"""
import argparse
import csv
import re
import statistics

# components, ghost width, exchanging stages per step, bytes per element (codelets/mhd/mhd.h:
# 8 fields, TESS_MHD_RADIUS 3, apps/mhd/mhd_program.c: 3 stages; apps/cahn_hilliard/ch.c: fused,
# star_diag r = 2, one stage). Both footprints are star_diag: faces and in-plane edges, no corners.
APPS = {"mhd": (8, 3, 3, 8), "mhd32": (8, 3, 3, 4), "ch": (1, 2, 1, 8)}
W_GPU = (4, 2, 1)  # decomp.c gpu_axis_weight


def cost_paper(n, p, r, tiles):
    """decomp.c tess_cost (all periodic): halo cells of a block minus, for tiles, the inner ones."""
    ext = lambda e: (n[0] // p[0] + e[0]) * (n[1] // p[1] + e[1]) * (n[2] // p[2] + e[2])  # noqa
    halo = [2 * r if n[i] > 1 else 0 for i in range(3)]
    inner = [r if tiles and p[i] >= 2 else 0 for i in range(3)]
    return ext(halo) - ext(inner)


def cost_gpu(n, p, r):
    if any(p[i] >= 2 and n[i] // p[i] < 2 * r for i in range(3)):
        return float("inf")
    c = 0
    for i in range(3):
        if p[i] >= 2:
            o = [n[j] // p[j] for j in range(3) if j != i]
            c += W_GPU[i] * 2 * r * o[0] * o[1]
    return c


def decomp(n, count, r, tiles):
    """tess_decomp_best with gpu = 1: cheapest GPU cost, then the paper's; ties to larger p0, p1."""
    best = None
    for p0 in range(count, 0, -1):
        if count % p0 or n[0] % p0:
            continue
        rest = count // p0
        for p1 in range(rest, 0, -1):
            if rest % p1 or n[1] % p1 or n[2] % (rest // p1):
                continue
            q = (p0, p1, rest // p1)
            thin = any(q[i] >= 2 and n[i] // q[i] < 2 * r for i in range(3))
            key = (thin, cost_gpu(n, q, r), cost_paper(n, q, r, tiles))
            if best is None or key < best[0]:
                best = (key, q)
    return best[1]


def halo_bytes(app, t, cut):
    """Bytes a tile of extents t receives per stage; cut[i]: axis i is cut (a neighbour across it)."""
    nc, r, _, es = APPS[app]
    cells = 0
    for i in range(3):
        if cut[i]:
            j, k = [a for a in range(3) if a != i]
            cells += 2 * r * t[j] * t[k]
    for i in range(3):
        for j in range(i + 1, 3):
            if cut[i] or cut[j]:
                k = 3 - i - j
                cells += 4 * r * r * t[k]
    return cells * nc * es


def tile_tasks(G, ranks):
    """Tasks per tile and exchanging stage, as tess_plan_describe (runtime/graph/plan.c) counts them
    for a star_diag footprint, one tile per GPU on a periodic grid of G tiles: compute classes (the
    pieces grouped by the links they wait on) + one fill (ghosts from the tile itself, when it has
    several classes) + one unpack per link from another rank + one pack. For MHD 24^3 on 1x1x2,
    1x1x4 and 2x2x1 ranks the plan: lines print 5, 7 and 9."""
    src = lambda h: tuple(h[i] % G[i] if G[i] > 1 else 0 for i in range(3))  # noqa: E731
    waits, links, local = set(), set(), False
    for d in [(x, y, z) for x in (-1, 0, 1) for y in (-1, 0, 1) for z in (-1, 0, 1)]:
        w = set()
        for h in [(x, y, z) for x in {0, d[0]} for y in {0, d[1]} for z in {0, d[2]}]:
            if h == (0, 0, 0) or sum(map(abs, h)) > 2:  # star_diag: no corners
                continue
            if src(h) == (0, 0, 0):
                local = True
            else:
                w.add(src(h))
        waits.add(frozenset(w))
        links |= w
    return len(waits) + (len(waits) > 1 and local) + (len(links) if ranks > 1 else 0) + 1


def predict(app, grid, procs, tiles, t1_ms, mode, ranks, a, ref_cells=None):
    """The model's terms (ms per stage) and T (ms per step) for one layout; ref_cells: the cells
    of the one-GPU run T1 measured (default the grid's; weak scaling: N^3)."""
    nc, r, S, es = APPS[app]
    G = [procs[i] * tiles[i] for i in range(3)]
    g = G[0] * G[1] * G[2]
    t = [grid[i] // G[i] for i in range(3)]
    cut = [G[i] >= 2 for i in range(3)]
    C = t1_ms / S * (t[0] * t[1] * t[2]) / (ref_cells or grid[0] * grid[1] * grid[2])
    if g == 1:
        return {"C_in": C, "C_out": 0.0, "tasks": 0.0, "xfer": 0.0, "busy": 0.0, "T": t1_ms,
                "g": 1, "kt": 1}
    inner = 1
    for i in range(3):
        inner *= t[i] - 2 * r if cut[i] else t[i]
    C_out = C * (1 - inner / (t[0] * t[1] * t[2]))
    direct = mode.endswith("+direct")
    bw = a.bw if (ranks == 1 or direct) else a.staged_bw
    k = 3 if ranks > 1 else 2
    tasks = k * a.task_us / 1e3
    xfer = halo_bytes(app, t, cut) / (bw * 1e9) * 1e3 + a.lat_us / 1e3
    chain = tasks + xfer
    kt = tile_tasks(G, ranks)
    busy = kt * a.task_us / 1e3  # every task of the tile runs on its GPU's one worker
    if mode.startswith("bulk"):
        ts = C + chain
    else:
        ts = max(C - C_out, chain) + C_out
    ts = max(ts, C + busy)
    return {"C_in": C - C_out, "C_out": C_out, "tasks": tasks, "xfer": xfer, "busy": busy,
            "T": S * ts, "g": g, "kt": kt}


def read_ceilings(path, a):
    """bench/copy_bw's lines in a result file: GPU->GPU, and the staged path from d2h and h2d."""
    bw = {m.group(1): float(m.group(2)) for m in
          (re.match(r"(\w+) ([\d.]+) GB/s", x) for x in open(path)) if m}
    if "gpu0_to_gpu1" in bw:
        a.bw = bw["gpu0_to_gpu1"]
    if "d2h" in bw and "h2d" in bw:
        a.staged_bw = 1 / (1 / bw["d2h"] + 1 / bw["h2d"])


def read_graph(path, grid):
    """graph.sh CSV: the per-task cost (32^3 in 8 tiles, overlapped) and T1 of the grid (1 tile)."""
    task = t1 = None
    for row in csv.DictReader(x for x in open(path) if not x.startswith("#")):
        key = (row["build"], row["grid"], row["ranks"], row["tiles"], row["mode"])
        if key == ("new", "32x32x32", "1", "8", "overlap"):
            task = float(row["us_per_task"])
        if key == ("new", "x".join([str(grid)] * 3), "1", "1", "overlap"):
            t1 = float(row["median_ms"])
    return task, t1


def layout_of(row):
    """procs and tiles columns (run.sh's runs.csv), or summarize.py's layout column."""
    m = re.match(r"(\S+) ranks x (\S+) tiles", row.get("layout") or "")
    pt = (m.group(1), m.group(2)) if m else (row["procs"], row["tiles"])
    return [[int(x) for x in s.split("x")] for s in pt]


HEAD = ("%-5s %5s %2s %2s %-14s %-13s %6s %6s %6s %6s %8s %9s %5s" %
        ("app", "size", "g", "rk", "mode", "ranks x tiles", "C_in", "C_out", "k x c", "B/bw",
         "n, n x c", "model ms", "eff"))


def line(app, n, g, ranks, mode, procs, tiles, m):
    lay = "%s x %s" % ("x".join(map(str, procs)), "x".join(map(str, tiles)))
    return "%-5s %4d^3 %2d %2d %-14s %-13s %6.3f %6.3f %6.3f %6.3f %2d %5.3f %9.3f %5.2f" % (
        app, n, g, ranks, mode, lay, m["C_in"], m["C_out"], m["tasks"], m["xfer"], m["kt"],
        m["busy"], m["T"], m["eff"])


def validate(a, path):
    rows = [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))
            if r["app"] in APPS]
    one = {}  # T1 by (build, app, size, mode); build "" = the first of any build
    for r in (r for r in rows if r["gpus"] == "1"):
        for b in {r.get("build", ""), ""}:
            one.setdefault((b, r["app"], r["size"], r["mode"]), float(r["median_ms"]))
    print("## %s: T1 = its one-GPU rows; link %.0f GB/s, staged %.1f GB/s, task %.1f us; "
          "err = (model - measured) / measured" % (path, a.bw, a.staged_bw, a.task_us))
    if not a.summary:
        print(("%-4s " % "run") + HEAD + " %9s %5s %7s" % ("meas ms", "eff", "err"))
    errs = []
    for r in rows:
        g, ranks, n = int(r["gpus"]), int(r["ranks"]), int(r["size"])
        if g == 1:
            continue
        b = r.get("build", "")
        t1, t1o = [one.get((b, r["app"], r["size"], md)) or one.get(("", r["app"], r["size"], md))
                   for md in (r["mode"].split("+")[0], "overlap")]
        if t1 is None:
            continue
        procs, tiles = layout_of(r)
        m = predict(r["app"], [n] * 3, procs, tiles, t1, r["mode"], ranks, a)
        m["eff"] = t1o / (g * m["T"])
        meas = float(r["median_ms"])
        err = (m["T"] - meas) / meas
        errs.append((r["mode"], ranks, r["app"], n, err))
        if not a.summary:
            print("%-4s " % (b or "-") + line(r["app"], n, g, ranks, r["mode"], procs, tiles, m) +
                  " %9.3f %5.2f %+6.0f%%" % (meas, t1o / (g * meas), 100 * err))
    groups = [("all", lambda e: True),
              ("MHD 512^3", lambda e: e[2] == "mhd" and e[3] == 512),
              ("MHD 256^3", lambda e: e[2] in ("mhd", "mhd32") and e[3] == 256),
              ("CH 512^3", lambda e: e[2] == "ch"),
              ("1 rank", lambda e: e[1] == 1),
              ("ranks", lambda e: e[1] > 1),
              ("overlap", lambda e: e[0].startswith("overlap")),
              ("bulk", lambda e: e[0].startswith("bulk"))]
    for name, f in groups:
        sel = [e[4] for e in errs if f(e)]
        if sel:
            print("# %-9s %2d runs: median error %+.0f%%, median |error| %.0f%%, range %+.0f%% .. "
                  "%+.0f%%" % (name, len(sel), 100 * statistics.median(sel),
                               100 * statistics.median(abs(x) for x in sel), 100 * min(sel),
                               100 * max(sel)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--app", choices=sorted(APPS), default="mhd")
    p.add_argument("--grid", type=int, help="N: N^3 cells (weak: N^3 per GPU)")
    p.add_argument("--t1", type=float, help="ms per step, one GPU, one tile (overlapped)")
    p.add_argument("--t1-bulk", type=float, help="the same, bulk-synchronous (default: --t1)")
    p.add_argument("--graph", help="graph.sh CSV: per-task cost and T1 from it")
    p.add_argument("--task-us", type=float, default=27.2)
    p.add_argument("--bw", type=float, default=450.0, help="GB/s GPU<->GPU")
    p.add_argument("--staged-bw", type=float, default=27.7, help="GB/s host-staged")
    p.add_argument("--lat-us", type=float, default=0.0)
    p.add_argument("--ceilings", help="a result .txt with bench/copy_bw's lines")
    p.add_argument("--gpus", default="1,2,4,8")
    p.add_argument("--weak", action="store_true")
    p.add_argument("--staged", action="store_true", help="ranks host-staged (default: direct)")
    p.add_argument("--measured", action="append", metavar="CSV[:TXT]",
                   help="bench/run.sh CSV (repeatable): the model beside each multi-GPU row; "
                   ":TXT reads the link figures from that result file (as --ceilings)")
    p.add_argument("--summary", action="store_true", help="with --measured: the errors only")
    a = p.parse_args()
    if a.graph:
        task, t1 = read_graph(a.graph, a.grid)
        a.task_us = task if task is not None else a.task_us
        a.t1 = a.t1 if a.t1 is not None else t1
    if a.ceilings:
        read_ceilings(a.ceilings, a)
    for path, _, txt in (m.partition(":") for m in a.measured or []):
        read_ceilings(txt, a) if txt else None
        validate(a, path)
    if a.measured:
        return
    if a.grid is None or a.t1 is None:
        p.error("--grid and --t1 (or --graph with a 1-tile row of that grid) are needed")
    _, r, _, _ = APPS[a.app]
    print("# %s %d^3%s, T1 %.3f ms; link %.0f GB/s, staged %.1f GB/s, task %.1f us; per-stage "
          "terms in ms" % (a.app, a.grid, " per GPU (weak)" if a.weak else "", a.t1, a.bw,
                           a.staged_bw, a.task_us))
    print(HEAD)
    for g in [int(x) for x in a.gpus.split(",")]:
        grid = [a.grid, a.grid, a.grid * g] if a.weak else [a.grid] * 3
        for ranks in ((1,) if g == 1 else (1, g)):
            procs = decomp(grid, ranks, r, False) if ranks > 1 else (1, 1, 1)
            block = [grid[i] // procs[i] for i in range(3)]
            tiles = decomp(block, g // ranks, r, True) if ranks == 1 else (1, 1, 1)
            for mode in ("overlap", "bulk"):
                md = mode + ("+direct" if ranks > 1 and not a.staged else "")
                t1 = a.t1_bulk if (mode == "bulk" and a.t1_bulk) else a.t1
                m = predict(a.app, grid, procs, tiles, t1, md, ranks, a, a.grid ** 3)
                m["eff"] = a.t1 * (1 if a.weak else 1 / g) / m["T"]
                print(line(a.app, a.grid, g, ranks, md, procs, tiles, m))


if __name__ == "__main__":
    main()
