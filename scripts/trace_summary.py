#!/usr/bin/python3
"""trace_summary.py — summarise a Tessera trace directory (written by an app run with --trace DIR).

    /usr/bin/python3 scripts/trace_summary.py DIR [--png FILE [--window T0:T1] [--title T]]
        [--unpack NAME [--details]]... [--worst N] [--path] [--json FILE] [--no-align]

Reads DIR/tasks.rec (one record per task: name, JobId, DependsOn, worker, start/end in ms, MPI
rank) and the MPI messages of DIR/paje.trace (start/end of every StarPU-MPI transfer and its
tag), and prints, for the Tessera tasks (names "<kind> t<tile> <dir> s<stage>", spaces or
underscores):

  * time per kind: pack, exchange, unpack, copy (same-node halo), boundary (ghost fills at a
    physical face), inner, outer
  * worker utilisation over the makespan
  * the share of exchange time hidden behind computation (inner/outer) on the receiving rank
  * the critical path (longest DependsOn chain by task durations) against the makespan
  * per outer segment, the delay between its last halo arriving and its start
  * with --unpack NAME: which outer segments started before that unpack ended, and when the
    ones that need it started
and with --png a timeline (workers x time, coloured by kind, one exchange lane per rank).

Definitions (docs/tracing.md has the long form):
  exchange of a halo = from the end of the pack that produced it (on the neighbour tile, maybe
  on another rank) to the start of the unpack that consumes it, split at the halo's arrival:
  transfer = pack end -> arrival, wait = arrival -> unpack start.  Arrival is the end of the
  pack itself within a rank (StarPU copies the buffer while the unpack is fetched) or the end
  of the MPI receive between ranks, and never before a debug delay gate (--delay) let it go.
  hidden = the part of an exchange interval during which at least one worker of the receiving
  rank was running an inner or outer task.
StarPU-internal records (_starpu_*, starpu_data_unregister, data acquisitions, delay gates)
are not counted as tasks; they are only followed as links of the dependency graph.

Ranks record their traces with their own clocks: the offset of each rank to rank 0 is
estimated from the MPI messages (the minimum apparent latency each way, assumed symmetric) and
applied to every time stamp; --no-align turns that off.

Exit status: 0, 1 on a trace that cannot be read (missing tasks.rec, no Tessera task).
Python 3 standard library only; --png needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import bisect
import collections
import json
import math
import os
import re
import signal
import sys

KINDS = ("pack", "exchange", "unpack", "copy", "boundary", "inner", "outer")
TASK_KINDS = ("pack", "unpack", "copy", "boundary", "inner", "outer")
COLORS = {"pack": "#2b83ba", "exchange": "#fdae61", "unpack": "#abdda4", "copy": "#66c2a5", "boundary": "#fee08b", "inner": "#999999",
          "outer": "#d7191c", "other": "#6a3d9a"}
NAME_RE = re.compile(r"^(pack|unpack|copy|boundary|inner|outer)[ _]t(\d+)[ _]([-+xyz]+|0)[ _]s(\d+)$")
NDIRS = 27  # direction index (dx+1) + 3(dy+1) + 9(dz+1); MPI tags are (slot*ntiles+tile)*27+dir


def die(msg):
    print("trace_summary: error: " + msg, file=sys.stderr)
    sys.exit(1)


def dir_vector(text):
    """'+x-y' -> (1,-1,0); '0' -> (0,0,0)."""
    v = [0, 0, 0]
    if text != "0":
        for sign, axis in re.findall(r"([-+])([xyz])", text):
            v["xyz".index(axis)] = 1 if sign == "+" else -1
    return tuple(v)


def dir_text(v):
    s = "".join(("+" if c > 0 else "-") + "xyz"[i] for i, c in enumerate(v) if c)
    return s or "0"


def dir_index(v):
    return (v[0] + 1) + 3 * (v[1] + 1) + 9 * (v[2] + 1)


def norm_name(name):
    return " ".join(name.replace("_", " ").split())


def pct(values, q):
    """q-th percentile (0..100) by linear interpolation of the sorted values."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * q / 100.0
    lo, hi = int(math.floor(k)), int(math.ceil(k))
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


# ---- reading ------------------------------------------------------------------------------

class Task:
    __slots__ = ("job", "name", "rank", "worker", "start", "end", "submit", "order", "deps",
                 "kind", "tile", "dirv", "stage", "occ")

    def __init__(self, rec):
        self.job = rec.get("JobId", "")
        self.name = rec.get("Name", "")
        r = rec.get("MPIRank")
        if r is None and "_" in self.job:
            r = self.job.split("_", 1)[0]
        self.rank = max(0, int(r)) if r not in (None, "") and r.lstrip("-").isdigit() else 0
        w = rec.get("WorkerId")
        self.worker = int(w) if w not in (None, "") and w.lstrip("-").isdigit() else None
        self.start = float(rec["StartTime"]) if rec.get("StartTime") else None
        self.end = float(rec["EndTime"]) if rec.get("EndTime") else None
        self.submit = float(rec["SubmitTime"]) if rec.get("SubmitTime") else None
        so = rec.get("SubmitOrder", "")
        self.order = int(so) if so.isdigit() else 0
        self.deps = rec.get("DependsOn", "").split()
        self.kind = self.tile = self.dirv = self.stage = None
        self.occ = 0
        m = NAME_RE.match(self.name)
        if m:
            self.kind, self.tile = m.group(1), int(m.group(2))
            self.dirv, self.stage = dir_vector(m.group(3)), int(m.group(4))
            self.name = "%s t%d %s s%d" % (self.kind, self.tile, dir_text(self.dirv), self.stage)

    @property
    def timed(self):
        return self.start is not None and self.end is not None

    @property
    def dur(self):
        return self.end - self.start if self.timed else 0.0

    def label(self):
        return "%s (rank %d, #%d)" % (self.name, self.rank, self.occ)


def read_rec(path):
    recs, cur = [], {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if cur:
                    recs.append(cur)
                    cur = {}
                continue
            if line.startswith("#"):
                continue
            key, sep, val = line.partition(":")
            if sep and key not in cur:
                cur[key] = val.strip()
    if cur:
        recs.append(cur)
    return recs


TOKEN_RE = re.compile(r'"[^"]*"|\S+')


def read_paje(path):
    """MPI messages (PajeStartLink/EndLink of type MPIL, paired by key) and worker names."""
    if not os.path.exists(path):
        return [], {}
    defs, cur, fields = {}, None, []
    starts, ends, workers = {}, {}, {}
    with open(path, encoding="latin-1") as f:
        for line in f:
            if line.startswith("%"):
                tok = line.split()
                if tok[0] == "%EventDef" and len(tok) >= 3:
                    cur, fields = tok[2], []
                    defs[cur] = (tok[1], fields)
                elif tok[0] == "%EndEventDef":
                    cur = None
                elif cur is not None and len(tok) >= 2:
                    fields.append(tok[1])
                continue
            head = line.split(None, 1)
            if not head or head[0] not in defs:
                continue
            ev, names = defs[head[0]]
            if ev not in ("PajeStartLink", "PajeEndLink", "PajeCreateContainer"):
                continue
            tok = [t.strip('"') for t in TOKEN_RE.findall(line)[1:]]
            rec = dict(zip(names, tok))
            if ev == "PajeCreateContainer":
                if rec.get("Type") == "W":
                    workers[rec.get("Alias", "")] = rec.get("Name", "")
                continue
            if rec.get("Type") != "MPIL":
                continue
            try:
                t = float(rec["Time"])
            except (KeyError, ValueError):
                continue
            if ev == "PajeStartLink":
                starts[rec.get("Key")] = (t, rec.get("StartContainer", ""), rec.get("MPITAG"),
                                          rec.get("Value"))
            else:
                ends[rec.get("Key")] = (t, rec.get("EndContainer", ""))
    links = []
    for key, (t0, c0, tag, size) in starts.items():
        if key not in ends:
            continue
        t1, c1 = ends[key]
        try:
            src, dst = int(c0.split("_")[0]), int(c1.split("_")[0])
        except ValueError:
            continue
        links.append({"key": key, "src": src, "dst": dst, "start": t0, "end": t1,
                      "tag": int(tag) if tag and tag.lstrip("-").isdigit() else None,
                      "size": int(size) if size and size.isdigit() else None})
    return links, workers


# ---- analysis -----------------------------------------------------------------------------

def estimate_offsets(links, ranks):
    """Per-rank clock offsets (ms, added to that rank's times) relative to the lowest rank."""
    m = {}
    for l in links:
        if l["src"] != l["dst"]:
            k = (l["src"], l["dst"])
            m[k] = min(m.get(k, float("inf")), l["end"] - l["start"])
    off, bound = {}, {}
    ranks = sorted(ranks)
    if not ranks:
        return off, bound
    off[ranks[0]] = 0.0
    bound[ranks[0]] = 0.0
    todo = [ranks[0]]
    while todo:
        a = todo.pop()
        for b in ranks:
            if b in off or (a, b) not in m or (b, a) not in m:
                continue
            # end_b - start_a = L + off_a - off_b, both ways, with the same minimum latency L
            off[b] = off[a] + (m[(b, a)] - m[(a, b)]) / 2.0
            bound[b] = bound[a] + max(0.0, (m[(a, b)] + m[(b, a)]) / 2.0)
            todo.append(b)
    return off, bound


def merge_intervals(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def overlap(merged, starts, a, b):
    """Length of [a,b] covered by the merged (sorted, disjoint) intervals."""
    if b <= a:
        return 0.0
    i = max(0, bisect.bisect_right(starts, a) - 1)
    tot = 0.0
    while i < len(merged) and merged[i][0] < b:
        lo, hi = max(a, merged[i][0]), min(b, merged[i][1])
        if hi > lo:
            tot += hi - lo
        i += 1
    return tot


class Trace:
    def __init__(self, d, align=True):
        self.dir = d
        path = os.path.join(d, "tasks.rec")
        if not os.path.exists(path):
            die("%s not found (run the app with --trace DIR; rank 0 runs starpu_fxt_tool)" % path)
        self.all = {}
        for rec in read_rec(path):
            t = Task(rec)
            if t.job:
                self.all[t.job] = t
        self.tasks = [t for t in self.all.values() if t.kind and t.timed]
        if not self.tasks:
            die("no Tessera task (pack/unpack/inner/outer) with start and end times in " + path)
        self.other = [t for t in self.all.values() if not t.kind and t.timed]
        self.ranks = sorted({t.rank for t in self.tasks})
        self.links, self.worker_names = read_paje(os.path.join(d, "paje.trace"))
        self.offsets, self.offset_bound = estimate_offsets(self.links, self.ranks) if align else ({}, {})
        for t in self.all.values():
            o = self.offsets.get(t.rank, 0.0)
            if o:
                for a in ("start", "end", "submit"):
                    v = getattr(t, a)
                    if v is not None:
                        setattr(t, a, v + o)
        for l in self.links:
            l["start"] += self.offsets.get(l["src"], 0.0)
            l["end"] += self.offsets.get(l["dst"], 0.0)
        occ = collections.Counter()
        for t in sorted(self.tasks, key=lambda t: (t.rank, t.order, t.job)):
            occ[(t.rank, t.name)] += 1
            t.occ = occ[(t.rank, t.name)]
        self.t0 = min(t.start for t in self.tasks)
        self.t1 = max(t.end for t in self.tasks)
        self.makespan = self.t1 - self.t0
        self.ntiles = max(t.tile for t in self.tasks) + 1
        self.warnings = []
        self._exchanges()
        self._busy()

    # -- exchange of each unpack
    def _source(self, u):
        """Walk back from unpack u through delay gates: (pack, cb_release, gate_end)."""
        pack = release = None
        gate_end = None
        seen, stack = set(), list(u.deps)
        while stack:
            j = stack.pop()
            if j in seen or j not in self.all:
                continue
            seen.add(j)
            t = self.all[j]
            if t.kind == "pack":
                pack = t
            elif t.name.startswith("_starpu_data_acquire_cb_release"):
                release = t
            elif t.name == "delay" and not t.kind:
                if t.timed:
                    gate_end = t.end if gate_end is None else max(gate_end, t.end)
                stack.extend(t.deps)
        return pack, release, gate_end

    def _match_link(self, u, release, by_dst, used):
        """The MPI message that delivered unpack u's halo: tag = (slot*ntiles + tile)*27 + dir,
        to u's rank, the last one received before the receive's data release was submitted."""
        cands = by_dst.get((u.rank, (u.tile, dir_index(u.dirv)))) or by_dst.get((u.rank, "any"), [])
        limit = (release.submit if release.submit is not None else u.start) + 0.05
        link = None
        for l in cands:
            if l["end"] > limit:
                break
            if l["key"] not in used:
                link = l
        if link is None:
            link = next((l for l in cands if l["key"] not in used), None)
        if link is not None:
            used.add(link["key"])
        return link

    def _infer_grid(self, local, remote):
        """Tile grids (G0,G1,G2), global tile id = x + G0*(y + G1*z), that agree with every
        observed exchange: local (tile, dir, producer tile), remote (tile, dir, sender rank)."""
        owner = {}
        for t in self.tasks:
            owner.setdefault(t.tile, t.rank)
        n = self.ntiles
        grids = []
        for g0 in range(1, n + 1):
            for g1 in range(1, n // g0 + 1):
                if n % (g0 * g1):
                    continue
                g = (g0, g1, n // (g0 * g1))
                ok = all(self._neighbour(g, t, h) == p for t, h, p in local) and \
                    all(owner.get(self._neighbour(g, t, h)) == r for t, h, r in remote)
                if ok:
                    grids.append(g)
        return grids

    @staticmethod
    def _neighbour(g, tile, h):
        c = [tile % g[0], (tile // g[0]) % g[1], tile // (g[0] * g[1])]
        c = [(c[i] + h[i]) % g[i] for i in range(3)]
        return c[0] + g[0] * (c[1] + g[1] * c[2])

    def _exchanges(self):
        self.exchanges = []
        unpacks = sorted((t for t in self.tasks if t.kind == "unpack"), key=lambda t: t.start)
        by_dst = collections.defaultdict(list)
        for l in self.links:
            tag = l["tag"]
            key = None
            if tag is not None and tag >= 0:
                key = ((tag // NDIRS) % self.ntiles, tag % NDIRS)
            by_dst[(l["dst"], key)].append(l)
            by_dst[(l["dst"], "any")].append(l)
        for v in by_dst.values():
            v.sort(key=lambda l: l["end"])
        pack_by_name = {(p.rank, p.name, p.occ): p for p in self.tasks if p.kind == "pack"}
        packs = collections.defaultdict(list)  # (rank, dir, stage) -> packs by end
        for p in self.tasks:
            if p.kind == "pack":
                packs[(p.rank, p.dirv, p.stage)].append(p)
        for v in packs.values():
            v.sort(key=lambda p: p.end)
        # 1. where each halo came from: a pack of this rank (DAG), or an MPI message
        used, local, remote = set(), set(), set()
        found = []
        for u in unpacks:
            pack, release, gate_end = self._source(u)
            link = None
            if pack is None and release is not None:
                link = self._match_link(u, release, by_dst, used)
                if link is not None:
                    remote.add((u.tile, u.dirv, link["src"]))
            elif pack is not None:
                local.add((u.tile, u.dirv, pack.tile))
            found.append((u, pack, release, gate_end, link))
        # 2. the tile grid, to name the neighbour that packed a halo sent between ranks
        self.grids = self._infer_grid(local, remote)
        if not self.grids and remote:
            self.warnings.append("no tile grid fits the exchanges; producers of inter-rank "
                                 "halos matched by time")
        pack_used = set()
        for u, pack, release, gate_end, link in found:
            e = {"unpack": u, "producer": None, "remote": False, "link": link}
            if pack is not None:
                e["producer"] = pack
                sent = arrival = pack.end
            elif release is not None:
                e["remote"] = True
                if link is None:
                    arrival = release.submit if release.submit is not None else u.start
                    sent = arrival
                    self.warnings.append("no MPI message found for %s" % u.label())
                else:
                    arrival = link["end"]
                    mdir = tuple(-c for c in u.dirv)
                    best = None
                    nbs = {self._neighbour(g, u.tile, u.dirv) for g in self.grids}
                    if len(nbs) == 1:
                        # the k-th unpack of (tile, h, stage) takes the k-th pack of (N, -h, stage),
                        # or of (N, 0, stage): one pack for all the links N sends
                        nb = nbs.pop()
                        for d in (dir_text(mdir), "0"):
                            name = "pack t%d %s s%d" % (nb, d, u.stage)
                            best = best or pack_by_name.get((link["src"], name, u.occ))
                    if best is None:  # by time: the last such pack before the send was posted
                        for p in packs.get((link["src"], mdir, u.stage), []):
                            if p.end > link["start"] + 0.01:
                                break
                            if p.job not in pack_used:
                                best = p
                    if best is None:  # a pack for several links, used by each of them
                        for p in packs.get((link["src"], (0, 0, 0), u.stage), []):
                            if p.end > link["start"] + 0.01:
                                break
                            best = p
                    if best is not None:
                        pack_used.add(best.job)
                        e["producer"] = best
                        sent = best.end
                    else:
                        sent = link["start"]
            else:
                preds = [self.all[j] for j in u.deps if j in self.all and self.all[j].timed]
                arrival = max((p.end for p in preds), default=u.start)
                sent = arrival
                self.warnings.append("no producer found for %s" % u.label())
            if gate_end is not None:
                arrival = max(arrival, gate_end)
            arrival = min(max(arrival, sent), u.start)
            e.update(sent=sent, arrival=arrival, start=u.start, total=u.start - sent,
                     transfer=arrival - sent, wait=u.start - arrival)
            self.exchanges.append(e)
        self.exch_of = {e["unpack"].job: e for e in self.exchanges}

    def _busy(self):
        self.busy = {}
        for r in self.ranks:
            m = merge_intervals([(t.start, t.end) for t in self.tasks
                                 if t.rank == r and t.kind in ("inner", "outer")])
            self.busy[r] = (m, [a for a, _ in m])
        for e in self.exchanges:
            m, s = self.busy[e["unpack"].rank]
            e["hidden"] = overlap(m, s, e["sent"], e["start"])
            e["transfer_hidden"] = overlap(m, s, e["sent"], e["arrival"])

    # -- summaries
    def kind_table(self):
        rows = {}
        busy_total = sum(t.dur for t in self.tasks)
        for k in TASK_KINDS:
            d = [t.dur for t in self.tasks if t.kind == k]
            rows[k] = {"count": len(d), "total_ms": sum(d), "mean_ms": sum(d) / len(d) if d else 0,
                       "p50_ms": pct(d, 50), "max_ms": max(d) if d else 0,
                       "share_of_busy": sum(d) / busy_total if busy_total else 0}
        d = [e["total"] for e in self.exchanges]
        rows["exchange"] = {"count": len(d), "total_ms": sum(d),
                            "mean_ms": sum(d) / len(d) if d else 0, "p50_ms": pct(d, 50),
                            "max_ms": max(d) if d else 0, "share_of_busy": None}
        return rows

    def exchange_summary(self):
        tot = sum(e["total"] for e in self.exchanges)
        hid = sum(e["hidden"] for e in self.exchanges)
        tr = [e["transfer"] for e in self.exchanges]
        trh = sum(e["transfer_hidden"] for e in self.exchanges)
        wa = [e["wait"] for e in self.exchanges]
        rem = [e for e in self.exchanges if e["remote"] and e["link"] and e["producer"]]
        post = [max(0.0, e["link"]["start"] - e["sent"]) for e in rem]
        wire = [e["link"]["end"] - e["link"]["start"] for e in rem]
        return {"count": len(self.exchanges),
                "between_ranks": sum(1 for e in self.exchanges if e["remote"]),
                "total_ms": tot, "hidden_ms": hid, "exposed_ms": tot - hid,
                "hidden_share": hid / tot if tot > 0 else 1.0,
                "transfer": {"total_ms": sum(tr), "p50_ms": pct(tr, 50), "max_ms": max(tr, default=0),
                             "hidden_ms": trh,
                             "hidden_share": trh / sum(tr) if sum(tr) > 0 else 1.0},
                "wait": {"total_ms": sum(wa), "p50_ms": pct(wa, 50), "max_ms": max(wa, default=0)},
                "mpi_send_posted": {"count": len(post), "total_ms": sum(post),
                                    "p50_ms": pct(post, 50), "max_ms": max(post, default=0)},
                "mpi_message": {"count": len(wire), "total_ms": sum(wire),
                                "p50_ms": pct(wire, 50), "max_ms": max(wire, default=0)}}

    def utilisation(self):
        per = collections.defaultdict(lambda: collections.Counter())
        for t in self.tasks + self.other:
            if t.worker is not None:
                per[(t.rank, t.worker)][t.kind or "other"] += t.dur
        for alias in self.worker_names:  # workers that ran nothing
            m = re.match(r"^(\d+)_w(\d+)$", alias)
            if m and int(m.group(1)) in self.ranks:
                per[(int(m.group(1)), int(m.group(2)))]
        rows = []
        for (r, w), c in sorted(per.items()):
            name = self.worker_names.get("%d_w%d" % (r, w), "w%d" % w)
            name = re.sub(r"^%d_" % r, "", name)
            busy = sum(c.values())
            rows.append({"rank": r, "worker": w, "name": name, "busy_ms": busy,
                         "utilisation": busy / self.makespan if self.makespan else 0,
                         "by_kind_ms": {k: c.get(k, 0.0) for k in TASK_KINDS + ("other",)}})
        return rows

    def outer_delays(self):
        out = []
        for o in self.tasks:
            if o.kind != "outer":
                continue
            ups = [self.all[j] for j in o.deps if j in self.all and self.all[j].kind == "unpack"]
            if not ups:
                continue
            last = max(ups, key=lambda u: u.end)
            # ready: every dependency done and the task submitted
            ends = [self.all[j].end for j in o.deps if j in self.all and self.all[j].timed]
            ready = max(ends + [o.submit if o.submit is not None else last.end])
            why = "halo"
            if ready > last.end:
                why = "submission" if o.submit is not None and ready == o.submit else "other input"
            out.append({"outer": o, "last": last, "arrival": last.end, "delay": o.start - last.end,
                        "ready": ready, "after_ready": o.start - ready, "gated_by": why})
        return out

    def critical_path(self):
        """Longest path by task durations over DependsOn edges plus the inter-rank halo edges
        (producer pack -> unpack); also the same with exchange transfer times on those edges."""
        nodes = self.all
        succ = collections.defaultdict(list)
        indeg = {j: 0 for j in nodes}
        for j, t in nodes.items():
            for d in t.deps:
                if d in nodes:
                    succ[d].append((j, 0.0, False))
                    indeg[j] += 1
        for e in self.exchanges:
            p = e["producer"]
            if p is not None:
                succ[p.job].append((e["unpack"].job, e["transfer"], True))
                indeg[e["unpack"].job] += 1
        order, q = [], [j for j, n in indeg.items() if n == 0]
        while q:
            j = q.pop()
            order.append(j)
            for s, _, _ in succ[j]:
                indeg[s] -= 1
                if indeg[s] == 0:
                    q.append(s)
        if len(order) < len(nodes):
            self.warnings.append("dependency cycle in tasks.rec: critical path over %d of %d "
                                 "records" % (len(order), len(nodes)))
        res = {}
        for variant, use_w in (("tasks", False), ("with_transfers", True)):
            best_in, dist, prev = {}, {}, {}
            for j in order:  # dist[j]: the longest path ending with j, j's own duration included
                dist[j] = best_in.get(j, 0.0) + (nodes[j].dur if nodes[j].kind else 0.0)
                for s, ew, _ in succ[j]:
                    cand = dist[j] + (ew if use_w else 0.0)
                    if cand > best_in.get(s, -1.0):
                        best_in[s] = cand
                        prev[s] = j
            end = max(order, key=lambda j: dist.get(j, 0.0))
            path = [end]
            while path[-1] in prev:
                path.append(prev[path[-1]])
            path.reverse()
            ours = [nodes[j] for j in path if nodes[j].kind]
            kinds = collections.Counter(t.kind for t in ours)
            exch = remote = 0
            for a, b in zip(ours, ours[1:]):
                if a.kind == "pack" and b.kind == "unpack":
                    exch += 1
                    remote += a.rank != b.rank
            res[variant] = {"length_ms": dist[end], "tasks": len(ours),
                            "by_kind": {k: kinds.get(k, 0) for k in TASK_KINDS},
                            "time_by_kind_ms": {k: sum(t.dur for t in ours if t.kind == k)
                                                for k in TASK_KINDS},
                            "exchanges": exch, "exchanges_between_ranks": remote,
                            "share_of_makespan": dist[end] / self.makespan if self.makespan else 0,
                            "path": ours}
        return res

    def unpack_report(self, name):
        want = norm_name(name)
        m = NAME_RE.match(want.replace(" ", "_"))
        if m:
            want = "%s t%s %s s%s" % (m.group(1), m.group(2), dir_text(dir_vector(m.group(3))),
                                      m.group(4))
        hits = sorted((t for t in self.tasks if t.name == want), key=lambda t: (t.rank, t.occ))
        nocc = collections.Counter((t.rank, t.name) for t in self.tasks)
        reports = []
        for u in hits:
            e = self.exch_of.get(u.job)
            # the outer segments of the same tile, stage and step (the k-th of their name; when
            # a stage exchanges m fields, m unpacks of one name per step)
            sib = []
            for o in self.tasks:
                if o.kind != "outer" or o.rank != u.rank or o.tile != u.tile or o.stage != u.stage:
                    continue
                m = max(1, nocc[(u.rank, u.name)] // max(1, nocc[(o.rank, o.name)]))
                if o.occ == (u.occ - 1) // m + 1:
                    sib.append(o)
            need = [o for o in self.tasks if o.kind == "outer" and u.job in o.deps]
            needj = {o.job for o in need}
            before = sorted((o for o in sib if o.job not in needj and o.start < u.end),
                            key=lambda o: o.start)
            after = sorted((o for o in sib if o.job not in needj and o.start >= u.end),
                           key=lambda o: o.start)
            need.sort(key=lambda o: o.start)
            reports.append({"unpack": u, "exchange": e, "before": before, "after_others": after,
                            "needing": need,
                            "needing_started_before": [o for o in need if o.start < u.end]})
        return reports


# ---- output -------------------------------------------------------------------------------

def fmt_ms(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return "%.3f" % x


def histogram(values, edges):
    counts = [0] * (len(edges) + 1)
    for v in values:
        counts[bisect.bisect_right(edges, v)] += 1
    return counts


DELAY_EDGES = [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]


def print_report(tr, args, out=sys.stdout):
    P = lambda *a: print(*a, file=out)  # noqa: E731
    nrem = sum(1 for e in tr.exchanges if e["remote"])
    nworkers = len({(t.rank, t.worker) for t in tr.tasks})
    P("Trace %s: %d rank(s), %d worker(s) running tasks, %d tile(s), %d Tessera tasks, "
      "%d halo exchanges (%d between ranks)" % (tr.dir, len(tr.ranks), nworkers, tr.ntiles,
                                                len(tr.tasks), len(tr.exchanges), nrem))
    # tasks per tile and stage: every Tessera task over the stage executions of all tiles (a
    # stage execution of a tile = the occurrences of its most frequent compute task name there)
    occ = collections.Counter((t.tile, t.stage, t.name) for t in tr.tasks
                              if t.kind in ("inner", "outer"))
    runs = collections.defaultdict(int)
    for (tile, stage, _), n in occ.items():
        runs[(tile, stage)] = max(runs[(tile, stage)], n)
    if runs:
        per_kind = collections.Counter(t.kind for t in tr.tasks)
        nruns = sum(runs.values())
        P("  tasks per tile and stage: %.1f (%s)" % (len(tr.tasks) / nruns, ", ".join(
            "%s %.1f" % (k, per_kind[k] / nruns) for k in TASK_KINDS if per_kind[k])))
    if tr.other:
        c = collections.Counter(t.name for t in tr.other)
        P("  other timed StarPU tasks (not counted): " +
          ", ".join("%s x%d" % kv for kv in sorted(c.items())))
    if len(tr.ranks) > 1:
        if tr.offsets and len(tr.offsets) == len(tr.ranks):
            P("  rank clocks aligned on rank %d from %d MPI messages: %s" % (
                tr.ranks[0], len(tr.links), ", ".join(
                    "rank %d %+.3f ms (+-%.3f)" % (r, tr.offsets[r], tr.offset_bound[r])
                    for r in tr.ranks[1:])))
        else:
            P("  rank clocks NOT aligned (%s): times of different ranks are not comparable" %
              ("--no-align" if args.no_align else "no MPI messages both ways in paje.trace"))
    P("  makespan (first task start -> last task end): %.3f ms  [%.3f .. %.3f ms]" %
      (tr.makespan, tr.t0, tr.t1))
    P("")
    P("Time per kind         count     total ms    mean ms     p50 ms     max ms  share of task time")
    kt = tr.kind_table()
    for k in KINDS:
        r = kt[k]
        share = "%5.1f %%" % (100 * r["share_of_busy"]) if r["share_of_busy"] is not None else \
            "(interval, not worker time)"
        P("  %-16s %8d %12s %10s %10s %10s  %s" % (k, r["count"], fmt_ms(r["total_ms"]),
                                                  fmt_ms(r["mean_ms"]), fmt_ms(r["p50_ms"]),
                                                  fmt_ms(r["max_ms"]), share))
    es = tr.exchange_summary()
    P("")
    P("Exchange = producing pack end -> unpack start (%d halos, %d between ranks):" %
      (es["count"], es["between_ranks"]))
    P("  transfer (pack end -> halo arrived):     total %s ms, p50 %s ms, max %s ms" % (
        fmt_ms(es["transfer"]["total_ms"]), fmt_ms(es["transfer"]["p50_ms"]),
        fmt_ms(es["transfer"]["max_ms"])))
    if es["mpi_message"]["count"]:
        P("    between ranks, pack end -> MPI send posted: total %s ms, p50 %s ms, max %s ms" % (
            fmt_ms(es["mpi_send_posted"]["total_ms"]), fmt_ms(es["mpi_send_posted"]["p50_ms"]),
            fmt_ms(es["mpi_send_posted"]["max_ms"])))
        P("    between ranks, MPI send posted -> received: total %s ms, p50 %s ms, max %s ms" % (
            fmt_ms(es["mpi_message"]["total_ms"]), fmt_ms(es["mpi_message"]["p50_ms"]),
            fmt_ms(es["mpi_message"]["max_ms"])))
    P("  wait     (arrived -> unpack started):    total %s ms, p50 %s ms, max %s ms" % (
        fmt_ms(es["wait"]["total_ms"]), fmt_ms(es["wait"]["p50_ms"]),
        fmt_ms(es["wait"]["max_ms"])))
    P("  hidden behind inner/outer computation on the receiving rank: %s of %s ms = %.1f %% "
      "(exposed %s ms)" % (fmt_ms(es["hidden_ms"]), fmt_ms(es["total_ms"]),
                            100 * es["hidden_share"], fmt_ms(es["exposed_ms"])))
    P("    of the transfer parts alone: %s of %s ms = %.1f %%" % (
        fmt_ms(es["transfer"]["hidden_ms"]), fmt_ms(es["transfer"]["total_ms"]),
        100 * es["transfer"]["hidden_share"]))
    P("")
    P("Worker utilisation over the makespan (%.3f ms):" % tr.makespan)
    P("  rank worker      busy    pack  unpack    copy boundary  inner   outer   other   (% of makespan)")
    for w in tr.utilisation():
        f = lambda k: 100 * w["by_kind_ms"][k] / tr.makespan if tr.makespan else 0  # noqa: E731
        P("  %4d %-8s %6.1f%% %6.1f%% %6.1f%% %6.1f%% %7.1f%% %6.1f%% %6.1f%% %6.1f%%" % (
            w["rank"], w["name"], 100 * w["utilisation"], f("pack"), f("unpack"), f("copy"),
            f("boundary"), f("inner"), f("outer"), f("other")))
    P("")
    od = tr.outer_delays()
    dl = [x["delay"] for x in od]
    P("Outer segments: last halo arrival (end of the last unpack it depends on) -> start, "
      "%d segments:" % len(od))
    if od:
        P("  p50 %s ms, p90 %s ms, p99 %s ms, max %s ms, mean %s ms" % (
            fmt_ms(pct(dl, 50)), fmt_ms(pct(dl, 90)), fmt_ms(pct(dl, 99)), fmt_ms(max(dl)),
            fmt_ms(sum(dl) / len(dl))))
        counts = histogram(dl, DELAY_EDGES)
        labels = ["< %g ms" % DELAY_EDGES[0]] + \
            ["%g-%g ms" % (a, b) for a, b in zip(DELAY_EDGES, DELAY_EDGES[1:])] + \
            [">= %g ms" % DELAY_EDGES[-1]]
        top = max(counts) or 1
        for lab, c in zip(labels, counts):
            P("  %-14s %6d %s" % (lab, c, "#" * int(round(40.0 * c / top))))
        ar = [x["after_ready"] for x in od]
        g = collections.Counter(x["gated_by"] for x in od)
        P("  ready later than the halo: %d submitted after it arrived, %d waiting for another "
          "input; start - ready: p50 %s ms, p90 %s ms, max %s ms" % (
              g["submission"], g["other input"], fmt_ms(pct(ar, 50)), fmt_ms(pct(ar, 90)),
              fmt_ms(max(ar))))
        P("  worst %d:" % min(args.worst, len(od)))
        for x in sorted(od, key=lambda x: -x["delay"])[:args.worst]:
            P("    %10s ms  %-28s started %s ms, last halo %s ended %s ms%s" % (
                fmt_ms(x["delay"]), x["outer"].label(), fmt_ms(x["outer"].start),
                x["last"].name, fmt_ms(x["arrival"]),
                "" if x["gated_by"] == "halo" else ", ready at %s ms (%s)" % (
                    fmt_ms(x["ready"]), x["gated_by"])))
    P("")
    cp = tr.critical_path()
    c = cp["tasks"]
    P("Critical path (longest DependsOn chain by task durations; inter-rank halos as edges):")
    P("  %s ms = %.1f %% of the makespan %s ms; %d tasks: %s; %d exchanges crossed "
      "(%d between ranks)" % (fmt_ms(c["length_ms"]), 100 * c["share_of_makespan"],
                              fmt_ms(tr.makespan), c["tasks"],
                              ", ".join("%s %d (%s ms)" % (k, c["by_kind"][k],
                                                           fmt_ms(c["time_by_kind_ms"][k]))
                                        for k in TASK_KINDS),
                              c["exchanges"], c["exchanges_between_ranks"]))
    w = cp["with_transfers"]
    P("  with exchange transfer times on its halo edges: %s ms = %.1f %% of the makespan "
      "(%d tasks, %d exchanges)" % (fmt_ms(w["length_ms"]), 100 * w["share_of_makespan"],
                                    w["tasks"], w["exchanges"]))
    if args.path:
        for t in c["path"]:
            P("    %12s .. %12s ms  %s" % (fmt_ms(t.start), fmt_ms(t.end), t.label()))
    for name in args.unpack:
        P("")
        reps = tr.unpack_report(name)
        if not reps:
            P("Unpack '%s': not in the trace" % name)
            continue
        detail = args.details or len(reps) <= 2
        if not detail:
            P("Unpack %s: %d occurrences (one line each; --details lists the segments)" % (
                reps[0]["unpack"].name, len(reps)))
        for r in reps:
            u, e = r["unpack"], r["exchange"]
            nsib = len(r["before"]) + len(r["after_others"])
            if not detail:
                P("  rank %d #%-3d ran %s..%s ms, halo arrived %s ms (transfer %s ms); other "
                  "outer segments started before it ended: %d of %d; needing it: %d, started "
                  "before it ended: %d" % (
                      u.rank, u.occ, fmt_ms(u.start), fmt_ms(u.end),
                      fmt_ms(e["arrival"]) if e else "-", fmt_ms(e["transfer"]) if e else "-",
                      len(r["before"]), nsib, len(r["needing"]),
                      len(r["needing_started_before"])))
                continue
            P("Unpack %s: ran %s .. %s ms" % (u.label(), fmt_ms(u.start), fmt_ms(u.end)))
            if e:
                P("  halo %s: sent (pack end) %s ms%s, arrived %s ms (transfer %s ms)" % (
                    "between ranks" if e["remote"] else "within the rank", fmt_ms(e["sent"]),
                    " by " + e["producer"].label() if e["producer"] else "",
                    fmt_ms(e["arrival"]), fmt_ms(e["transfer"])))
            P("  outer segments of t%d s%d (#%d) not needing it that started before it ended: "
              "%d of %d" % (u.tile, u.stage, u.occ, len(r["before"]), nsib))
            for o in r["before"]:
                P("    %-22s started %s ms (%s ms before)" % (o.name, fmt_ms(o.start),
                                                              fmt_ms(u.end - o.start)))
            P("  outer segments needing it (DependsOn): %d, started before it ended: %d" % (
                len(r["needing"]), len(r["needing_started_before"])))
            for o in r["needing"]:
                P("    %-22s started %s ms (%+.3f ms after it ended)" % (
                    o.name, fmt_ms(o.start), o.start - u.end))
    if tr.warnings:
        P("")
        for wmsg in tr.warnings[:10]:
            P("warning: " + wmsg)
        if len(tr.warnings) > 10:
            P("warning: ... %d more" % (len(tr.warnings) - 10))


def task_json(t):
    return {"name": t.name, "rank": t.rank, "job": t.job, "occurrence": t.occ,
            "start_ms": t.start, "end_ms": t.end}


def json_report(tr, args):
    kt = tr.kind_table()
    cp = tr.critical_path()
    od = tr.outer_delays()
    dl = [x["delay"] for x in od]
    res = {
        "dir": tr.dir, "ranks": tr.ranks, "tiles": tr.ntiles, "tasks": len(tr.tasks),
        "makespan_ms": tr.makespan, "t0_ms": tr.t0, "t1_ms": tr.t1,
        "clock_offsets_ms": {str(r): o for r, o in tr.offsets.items()},
        "kinds": kt, "kinds_found": [k for k in KINDS if kt[k]["count"] > 0],
        "exchange": tr.exchange_summary(),
        "workers": tr.utilisation(),
        "outer_delay": {"count": len(dl), "p50_ms": pct(dl, 50), "p90_ms": pct(dl, 90),
                        "p99_ms": pct(dl, 99), "max_ms": max(dl, default=0),
                        "gated_by": dict(collections.Counter(x["gated_by"] for x in od)),
                        "after_ready_p50_ms": pct([x["after_ready"] for x in od], 50),
                        "histogram": {"edges_ms": DELAY_EDGES,
                                      "counts": histogram(dl, DELAY_EDGES)},
                        "worst": [dict(task_json(x["outer"]), delay_ms=x["delay"],
                                       last_unpack=x["last"].name, ready_ms=x["ready"],
                                       gated_by=x["gated_by"])
                                  for x in sorted(od, key=lambda x: -x["delay"])[:args.worst]]},
        "critical_path": {k: {kk: vv for kk, vv in v.items() if kk != "path"}
                          for k, v in cp.items()},
        "unpacks": {},
        "warnings": tr.warnings,
    }
    for name in args.unpack:
        res["unpacks"][name] = [{
            "unpack": task_json(r["unpack"]),
            "remote": r["exchange"]["remote"] if r["exchange"] else None,
            "sent_ms": r["exchange"]["sent"] if r["exchange"] else None,
            "arrival_ms": r["exchange"]["arrival"] if r["exchange"] else None,
            "before": [task_json(o) for o in r["before"]],
            "after_others": [task_json(o) for o in r["after_others"]],
            "needing": [task_json(o) for o in r["needing"]],
            "needing_started_before": [task_json(o) for o in r["needing_started_before"]],
        } for r in tr.unpack_report(name)]
    return res


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


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="trace directory (the app's --trace DIR)")
    ap.add_argument("--png", metavar="FILE", help="draw the timeline (workers x time) to FILE")
    ap.add_argument("--window", metavar="T0:T1",
                    help="time window of the timeline, ms in the trace's (rank-0) clock; "
                         "'+A:B' is relative to the first task")
    ap.add_argument("--title", help="timeline title")
    ap.add_argument("--dpi", type=int, default=100)
    ap.add_argument("--unpack", metavar="NAME", action="append", default=[],
                    help="report which outer segments started before this unpack ended "
                         "(e.g. 'unpack t0 +x s0'); repeatable")
    ap.add_argument("--details", action="store_true",
                    help="with --unpack: list the segments of every occurrence")
    ap.add_argument("--worst", type=int, default=5, help="how many worst outer delays to list")
    ap.add_argument("--path", action="store_true", help="list the critical path's tasks")
    ap.add_argument("--json", metavar="FILE", help="also write every number as JSON ('-': stdout)")
    ap.add_argument("--no-align", action="store_true",
                    help="do not shift rank clocks by the offsets estimated from MPI messages")
    args = ap.parse_args()
    tr = Trace(args.dir, align=not args.no_align)
    window = None
    if args.window:
        m = re.match(r"^(\+?)([-0-9.eE]+):([-0-9.eE]+)$", args.window)
        if not m:
            die("--window '%s' is invalid (T0:T1 in ms, or +T0:T1 from the first task)" %
                args.window)
        lo, hi = float(m.group(2)), float(m.group(3))
        if m.group(1):
            lo, hi = lo + tr.t0, hi + tr.t0
        if hi <= lo:
            die("--window '%s' is empty" % args.window)
        window = (lo, hi)
    print_report(tr, args, sys.stdout if args.json != "-" else sys.stderr)
    if args.json:
        data = json.dumps(json_report(tr, args), indent=1, default=float)
        if args.json == "-":
            print(data)
        else:
            with open(args.json, "w") as f:
                f.write(data + "\n")
    if args.png:
        draw_png(tr, args.png, window, args.title, args.dpi)
        print("timeline: %s" % args.png, file=sys.stdout if args.json != "-" else sys.stderr)


if __name__ == "__main__":
    main()
