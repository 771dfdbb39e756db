"""The PNG timeline (--png): one row per worker, bars coloured by task kind, and one exchange
lane per rank (transfer solid, wait for the unpack lighter). Needs matplotlib."""
import collections
import os
import re

from .tasks import COLORS, KINDS, die

def draw_png(tr, path, window, title, dpi):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        die("--png needs matplotlib (Debian: apt-get install python3-matplotlib; run with "
            "/usr/bin/python3)")
    a, b = window if window else (tr.t0, tr.t1)
    rows, labels = [], []
    workers = sorted({(t.rank, t.worker) for t in tr.tasks + tr.other if t.worker is not None})
    for r in tr.ranks:
        for (rr, w) in workers:
            if rr == r:
                name = tr.worker_names.get("%d_w%d" % (r, w), "w%d" % w)
                rows.append(("w", r, w))
                labels.append("rank %d %s" % (r, re.sub(r"^%d_" % r, "", name)))
        rows.append(("x", r, None))
        labels.append("rank %d exchange" % r)
    ypos = {row: len(rows) - 1 - i for i, row in enumerate(rows)}
    height = max(2.2, 0.55 * len(rows) + 1.3)
    fig, ax = plt.subplots(figsize=(12, height), dpi=dpi)
    bars = collections.defaultdict(list)
    minw = (b - a) / (12.0 * dpi)  # draw every task at least one pixel wide
    for t in tr.tasks + tr.other:
        if t.worker is None or t.end < a or t.start > b:
            continue
        bars[(("w", t.rank, t.worker), t.kind or "other")].append((t.start - a, max(t.dur, minw)))
    for (row, kind), segs in bars.items():
        y = ypos[row]
        ax.broken_barh(segs, (y - 0.4, 0.8), facecolors=COLORS[kind], edgecolor="none",
                       linewidth=0)
    # exchange lanes: intervals packed into sub-lanes; transfer solid, wait lighter
    for r in tr.ranks:
        y = ypos[("x", r, None)]
        ex = sorted((e for e in tr.exchanges if e["unpack"].rank == r
                     and e["start"] >= a and e["sent"] <= b), key=lambda e: e["sent"])
        lane_end = []
        placed = []
        for e in ex:
            for i, le in enumerate(lane_end):
                if le <= e["sent"]:
                    lane_end[i] = e["start"]
                    placed.append((i, e))
                    break
            else:
                lane_end.append(e["start"])
                placed.append((len(lane_end) - 1, e))
        n = max(1, min(len(lane_end), 12))
        hgt = 0.8 / n
        solid, light = collections.defaultdict(list), collections.defaultdict(list)
        for i, e in placed:
            solid[i % n].append((e["sent"] - a, e["transfer"]))
            light[i % n].append((e["arrival"] - a, e["wait"]))
        for i in range(n):
            yy = y - 0.4 + i * hgt
            if solid[i]:
                ax.broken_barh(solid[i], (yy, hgt * 0.9), facecolors=COLORS["exchange"],
                               edgecolor="none")
            if light[i]:
                ax.broken_barh(light[i], (yy, hgt * 0.9), facecolors=COLORS["exchange"],
                               alpha=0.35, edgecolor="none")
    ax.set_yticks([ypos[row] for row in rows])
    ax.set_yticklabels(labels)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0, b - a)
    ax.set_xlabel("time since %.3f ms (ms)" % a)
    ax.grid(axis="x", color="#dddddd", linewidth=0.5)
    ax.set_axisbelow(True)
    handles = [Patch(color=COLORS[k], label=k) for k in KINDS]
    handles.append(Patch(color=COLORS["exchange"], alpha=0.35, label="halo arrived, unpack waits"))
    if tr.other:
        handles.append(Patch(color=COLORS["other"], label="other StarPU task"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.18 if len(rows) < 5
                                                                   else -0.08),
              ncol=len(handles), fontsize=8, frameon=False)
    ax.set_title(title or "Tessera trace %s" % os.path.basename(os.path.normpath(tr.dir)))
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
