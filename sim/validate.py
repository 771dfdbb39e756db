#!/usr/bin/python3
"""validate.py OUT.csv MODEL[:SCHED]=SIM.csv... -- simulated step times (bench/simulate.sh's sim.csv, case
validate) against the measured runs they model, one row per simulated run: the measured row's
file and line, and the error (simulated - measured) / measured in %. SCHED names the StarPU
scheduler the simulation ran under (bench/simulate.sh's SIM_SCHED; default dmdas).

MODEL names a derived model file (sim/models/MODEL.txt) and picks the measured set:
  h200-derived           2026-11-27-h200x2-scaling.csv (main 2a634c9, 1 and 2 H200s)
  h200-derived-8b5e39c   2026-11-27-h200x4-zcut.csv, build 'new' (main 8b5e39c, 1, 2, 4 H200s)
The measured runs with one rank per GPU moved halos from GPU memory (CUDA-aware MPI, mode
'overlap+direct'); the simulation stages them through the host (docs/simulation.md).
"""
import csv
import os
import sys

RES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "results")
SETS = {
    "h200-derived": ("2026-11-27-h200x2-scaling.csv", {}),
    "h200-derived-8b5e39c": ("2026-11-27-h200x4-zcut.csv", {"build": "new"}),
}


def measured(name, filt):
    with open(os.path.join(RES, name)) as f:
        lines = [(n, l) for n, l in enumerate(f, 1) if not l.startswith("#")]
    return list(zip([n for n, _ in lines[1:]], csv.DictReader([l for _, l in lines])))


def sim_rows(path):
    with open(path) as f:
        rd = csv.reader(f)
        head = next(rd)
        for r in rd:
            if len(r) == len(head) + 2:  # a grid written with commas
                r = r[:2] + ["x".join(r[2:5])] + r[5:]
            yield dict(zip(head, r))


def main():
    out, pairs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    rows, seen = [], set()
    for spec, path in pairs:
        model, _, sched = spec.partition(":")
        sched = sched or "dmdas"
        mfile, filt = SETS[model]
        meas = measured(mfile, filt)
        for s in sim_rows(path):
            if s["case"] != "validate" or not s["median_ms"]:
                continue
            size = s["grid"].split("x")[0]
            g, r = int(s["gpus"]), int(s["ranks"])
            mode = s["mode"] + ("+direct" if r > 1 else "")
            hit = [(n, m) for n, m in meas
                   if all(m.get(k) == v for k, v in filt.items()) and m["app"] == s["app"]
                   and m["size"] == size and int(m["gpus"]) == g and int(m["ranks"]) == r
                   and m["mode"] == mode]
            key = (model, sched, s["app"], s["grid"], g, r, mode)
            if not hit or key in seen:  # a run given twice: the first counts
                continue
            seen.add(key)
            n, m = hit[0]
            sim, ms = float(s["median_ms"]), float(m["median_ms"])
            note = "1 GPU: the model's fit point" if g == 1 and size == "256" and s["app"] == "mhd" \
                else "1 GPU: the per-cell cost of 256^3 applied" if g == 1 and s["app"] == "mhd" \
                else "1 GPU: the model's fit point" if g == 1 \
                else "measured halos from GPU memory; simulated host-staged" if r > 1 \
                else "one rank driving the GPUs"
            rows.append([model, sched, s["app"], s["grid"], g, r, s["gpus_per_node"], mode,
                         "%.3f" % sim, "%.3f" % ms, "%+.1f" % (100 * (sim - ms) / ms),
                         "%s:%d" % (mfile, n), s["wall_s"], note])
    head = ["model", "sched", "app", "grid", "gpus", "ranks", "gpus_per_node", "mode", "sim_ms",
            "measured_ms", "error_pct", "measured_row", "wall_s", "note"]
    with open(out, "a") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(head)
        w.writerows(rows)
    fmt = "%-21s %-5s %-3s %-11s %2s %2s %-15s %8s %8s %7s %5s  %s"
    print(fmt % ("model", "sched", "app", "grid", "g", "r", "mode", "sim ms", "meas ms", "err %",
                 "wall", "note"))
    for r in rows:
        print(fmt % (r[0], r[1], r[2], r[3], r[4], r[5], r[7], r[8], r[9], r[10], r[12], r[13]))


if __name__ == "__main__":
    main()
