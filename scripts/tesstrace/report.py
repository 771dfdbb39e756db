"""The output of trace_summary.py: the text report (time per kind, exchanges, workers, outer
delays, critical path, --unpack) and the JSON document (--json)."""
import bisect
import collections
import math
import sys

from .tasks import KINDS, TASK_KINDS, pct

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
    P("Exchange = producing pack end -> unpack start (%d halos, %d between ranks; %d unpacked by "
      "the class that reads them, the exchange ending where that class starts):" %
      (es["count"], es["between_ranks"], sum(1 for e in tr.exchanges if e["hosted"])))
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
    P("Outer segments: last halo arrival (end of the last unpack it depends on, or of the last "
      "message it unpacks) -> start, "
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
                x["last"], fmt_ms(x["arrival"]),
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
                                       last_unpack=x["last"], ready_ms=x["ready"],
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
