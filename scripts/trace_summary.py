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
This file is the command line; the reading, analysis and output live in the tesstrace package
beside it (scripts/tesstrace/, whose __init__.py lists its modules).
"""
import argparse
import json
import re
import signal
import sys

from tesstrace.model import Trace
from tesstrace.report import json_report, print_report
from tesstrace.tasks import die
from tesstrace.timeline import draw_png


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
