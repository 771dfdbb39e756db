"""The critical path of a Trace (a mixin of model.Trace): the longest chain by task durations
over the DependsOn edges plus the halo edges between ranks, with and without the exchange
transfer times on those edges."""
import collections

from .tasks import TASK_KINDS


class CriticalPath:
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
