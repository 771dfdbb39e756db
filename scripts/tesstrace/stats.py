"""Statistics of a Trace (a mixin of model.Trace): time per task kind, the exchange summary
(hidden share, transfer and wait, MPI posting and wire times), worker utilisation, the delay of
each outer segment after its last halo, and the --unpack report of which outer segments
started before an unpack ended."""
import collections
import re

from .tasks import NAME_RE, TASK_KINDS, dir_text, dir_vector, norm_name, pct


class Statistics:
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
        # a class that unpacks messages itself: its halos arrive with the messages (exchanges)
        hosted = collections.defaultdict(list)
        for e in self.exchanges:
            if e["hosted"]:
                hosted[e["unpack"].job].append(e)
        for o in self.tasks:
            if o.kind != "outer":
                continue
            # (arrival, what brought it): unpack tasks it depends on, messages it unpacks
            arr = [(self.all[j].end, self.all[j].name) for j in o.deps
                   if j in self.all and self.all[j].kind == "unpack"]
            arr += [(e["arrival"], "message unpacked by %s" % o.name) for e in hosted[o.job]]
            if not arr:
                continue
            arrival, last = max(arr)
            # ready: every dependency done and the task submitted
            ends = [self.all[j].end for j in o.deps if j in self.all and self.all[j].timed]
            ready = max(ends + [o.submit if o.submit is not None else arrival, arrival])
            why = "halo"
            if ready > arrival:
                why = "submission" if o.submit is not None and ready == o.submit else "other input"
            out.append({"outer": o, "last": last, "arrival": arrival, "delay": o.start - arrival,
                        "ready": ready, "after_ready": o.start - ready, "gated_by": why})
        return out

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
