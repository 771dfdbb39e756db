"""The Trace of one trace directory: its Tessera tasks with rank clocks aligned (offsets
estimated from the MPI messages), the halo exchange of every unpack (producer pack, MPI message,
sent / arrival / start; the unpack is a task of its own, or the class task that unpacks a message
from another rank before its kernel: e["hosted"]), and the busy (inner/outer) intervals that hide
exchange time.
The summaries come from the Statistics and CriticalPath mixins (stats.py, critical.py)."""
import bisect
import collections
import os

from .critical import CriticalPath
from .read import read_paje, read_rec
from .stats import Statistics
from .tasks import NDIRS, Task, die, dir_index, dir_text

# StarPU's record of a data acquisition released: how a received message shows in DependsOn
RECV_RELEASE = "_starpu_data_acquire_cb_release"

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


class Trace(Statistics, CriticalPath):
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
            elif t.name.startswith(RECV_RELEASE):
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

    def _hosted(self):
        """Class tasks that unpack a message themselves (a link from another rank unpacked in the
        class that reads it, runtime/graph/halo.c): (class task, the receive's data release it
        depends on), one pair per message."""
        pairs = []
        for t in self.tasks:
            if t.kind not in ("inner", "outer"):
                continue
            for j in t.deps:
                d = self.all.get(j)
                if d is not None and d.name.startswith(RECV_RELEASE):
                    pairs.append((t, d))
        return sorted(pairs, key=lambda p: p[0].start)

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
        for c, release in self._hosted():  # the consumer is the class that unpacks it
            link = self._match_link(c, release, by_dst, used)
            if link is not None:
                remote.add((c.tile, c.dirv, link["src"]))
            found.append((c, None, release, None, link))
        # 2. the tile grid, to name the neighbour that packed a halo sent between ranks
        self.grids = self._infer_grid(local, remote)
        if not self.grids and remote:
            self.warnings.append("no tile grid fits the exchanges; producers of inter-rank "
                                 "halos matched by time")
        pack_used = set()
        for u, pack, release, gate_end, link in found:
            e = {"unpack": u, "producer": None, "remote": False, "link": link,
                 "hosted": u.kind != "unpack"}
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
        self.exch_of = {e["unpack"].job: e for e in self.exchanges if not e["hosted"]}

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
