#!/usr/bin/python3
"""timeline.py — where a (simulated or real) run's GPU time goes, from Tessera's task logs.

    sim/timeline.py LOG.0 [LOG.1 ...]
    sim/timeline.py --list WORKER STEP LOG   one worker's tasks of one step, in start order

Reads the CSV files `--task-log PREFIX` writes (one per rank: the tasks of the last chunk of
steps, each with its start, end and StarPU worker) and prints, per rank, each worker's time per
step in each kind of task (inner, outer, pack, unpack, copy, exchange, boundary), the idle rest of the span,
and the mean over the workers. The span is first start to last end of the rank's tasks; steps
are those in the log. Standard library only.
"""
import csv
import sys
from collections import defaultdict


def summary(path):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        return None
    t0 = min(float(r['t_start']) for r in rows)
    t1 = max(float(r['t_end']) for r in rows)
    steps = len({r['step'] for r in rows})
    per = defaultdict(lambda: defaultdict(float))
    for r in rows:
        per[int(r['worker'])][r['kind']] += float(r['t_end']) - float(r['t_start'])
    return t1 - t0, steps, per, len(rows)


def listing(worker, step, path):
    """One worker's tasks of one step: start and end in ms from the log's first start, and the
    wait since the worker's previous task ended."""
    rows = list(csv.DictReader(open(path)))
    t0 = min(float(r['t_start']) for r in rows)
    mine = sorted((r for r in rows if r['worker'] == worker and r['step'] == step),
                  key=lambda r: float(r['t_start']))
    print('start_ms,end_ms,wait_ms,kind,tile,dir,stage')
    prev = None
    for r in mine:
        a, b = 1e3 * (float(r['t_start']) - t0), 1e3 * (float(r['t_end']) - t0)
        print('%.3f,%.3f,%.3f,%s,%s,%s,%s' % (a, b, a - prev if prev is not None else 0.0,
                                               r['kind'], r['tile'], r['dir'], r['stage']))
        prev = b


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().split('\n\n')[1])
    if sys.argv[1] == '--list':
        if len(sys.argv) != 5:
            sys.exit('usage: sim/timeline.py --list WORKER STEP LOG')
        listing(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    kinds = ['inner', 'outer', 'pack', 'unpack', 'copy', 'exchange', 'boundary']
    print('# ms per step; busy and idle over the span of the rank\'s tasks')
    print('rank,worker,tasks,span_ms,' + ','.join(kinds) + ',busy,idle,busy_pct')
    for path in sys.argv[1:]:
        s = summary(path)
        if not s:
            print('%s: no records' % path, file=sys.stderr)
            continue
        span, steps, per, n = s
        rank = path.rsplit('.', 1)[-1]
        mean = defaultdict(float)
        for w in sorted(per):
            busy = sum(per[w].values())
            vals = [per[w].get(k, 0.0) for k in kinds]
            for k, v in zip(kinds, vals):
                mean[k] += v / len(per)
            print('%s,%d,%d,%.3f,%s,%.3f,%.3f,%.0f' % (
                rank, w, n, 1e3 * span / steps, ','.join('%.3f' % (1e3 * v / steps) for v in vals),
                1e3 * busy / steps, 1e3 * (span - busy) / steps, 100 * busy / span))
        busy = sum(mean.values())
        print('%s,mean,%d,%.3f,%s,%.3f,%.3f,%.0f' % (
            rank, n, 1e3 * span / steps, ','.join('%.3f' % (1e3 * mean[k] / steps) for k in kinds),
            1e3 * busy / steps, 1e3 * (span - busy) / steps, 100 * busy / span))


if __name__ == '__main__':
    main()
