#!/usr/bin/python3
"""scaling_table.py CSV [SCHED] — bench/simulate.sh's sim.csv (or a result file made of its rows,
'#' lines skipped) as Markdown tables, one per case and grid: GPUs, ranks x GPUs per node, and
for overlap and bulk the simulated median ms per step, the efficiency, the wall time and peak
memory of the simulation; a row without a time says why. Efficiency: weak, the 1-GPU step time
over this one; strong, GPU-time of the series' first run over this one's (t0 g0 / (t g)).
SCHED (default dmda) picks the scheduler's rows. A text plot of the efficiencies follows each
table (one '#' per 0.05; o overlap, b bulk)."""
import csv
import sys


def rows(path, sched):
    with open(path) as f:
        lines = [l for l in f if not l.startswith('#')]
    return [r for r in csv.DictReader(lines) if r['sched'] == sched]


def main():
    path = sys.argv[1]
    sched = sys.argv[2] if len(sys.argv) > 2 else 'dmda'
    series = {}
    for r in rows(path, sched):
        key = (r['case'], r['app'], '' if r['case'] == 'weak' else r['grid'])
        series.setdefault(key, {}).setdefault(int(r['gpus']), {})[r['mode']] = r
    for (case, app, grid), by_g in series.items():
        title = '%s %s %s' % (case, app, grid or '256^3 per GPU')
        print('%s, %s\n' % (title, sched))
        print('| GPUs | grid | ranks x GPUs | overlap: ms (eff) | wall s, MB | bulk: ms (eff) | wall s, MB |')
        print('|---|---|---|---|---|---|---|')
        plot = []
        for g in sorted(by_g):
            cells, effs = [], {}
            any_row = next(iter(by_g[g].values()))
            for mode in ('overlap', 'bulk'):
                r = by_g[g].get(mode)
                if not r:
                    cells += ['not run', '']
                    continue
                if r['median_ms']:
                    cells.append('%s (%s)' % (r['median_ms'], r['efficiency'] or '?'))
                    if r['efficiency']:
                        effs[mode] = float(r['efficiency'])
                else:
                    why = r['timed_steps'] if not r['timed_steps'].isdigit() else \
                        'killed past its memory limit' if r['maxrss_mb'].startswith('>') else \
                        'stopped past its time limit'
                    cells.append(why)
                cells.append('%.0f, %s' % (float(r['wall_s']), r['maxrss_mb']))
            print('| %d | %s | %s x %s | %s |' % (g, any_row['grid'], any_row['ranks'],
                                                 any_row['gpus_per_node'], ' | '.join(cells)))
            plot.append((g, effs))
        print()
        for g, effs in plot:
            for mode in ('overlap', 'bulk'):
                if mode in effs:
                    print('%5d %s %-20s %.3f' % (g, mode[0], '#' * int(round(effs[mode] / 0.05)),
                                                 effs[mode]))
        print()


if __name__ == '__main__':
    main()
