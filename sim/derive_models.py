#!/usr/bin/python3
"""derive_models.py [--write] -- the coefficients of Tessera's derived simulation models
(TESS_SIM_MODELS=measured:FILE, runtime/simulate.c; docs/simulation.md) from measured results in
bench/results/. Prints every coefficient with the file and row it comes from; --write also writes
the model files under sim/models/. Not StarPU-calibrated: a task's time is a fixed cost plus its
cells (or bytes) at one rate per kernel, fitted to one-GPU step times.

Two model files, one per measured H200 set (the kernel differs between the two commits):
  h200-derived.txt           main 2a634c9, bench/results/2026-11-27-h200x2-scaling.csv (1, 2 H200)
  h200-derived-8b5e39c.txt   main 8b5e39c, bench/results/2026-11-27-h200x4-zcut.csv (1, 2, 4 H200)
"""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RES = os.path.join(HERE, "..", "bench", "results")
MHD_STAGES = 3  # RK3: three substeps a step (codelets/mhd/mhd.c, tess_mhd_rk3_kernel)
CH_STAGES = 1  # CH fused: one ch_fused stage a step (apps/cahn_hilliard/ch.c)
CPU_FACTOR = 1000.0  # assumed, not measured (below)


def rows(name):
    """(line number in the file, row) for each CSV row; '#' lines are comments"""
    with open(os.path.join(RES, name)) as f:
        lines = [(n, l) for n, l in enumerate(f, 1) if not l.startswith("#")]
    return zip([n for n, _ in lines[1:]], csv.DictReader([l for _, l in lines]))


def pick(name, **want):
    for n, r in rows(name):
        if all(r.get(k) == v for k, v in want.items()):
            return r, n
    sys.exit("derive_models.py: no row %s in %s" % (want, name))


def grep(name, pattern):
    with open(os.path.join(RES, name)) as f:
        for n, line in enumerate(f, 1):
            m = re.search(pattern, line)
            if m:
                return float(m.group(1)), n, line.strip()
    sys.exit("derive_models.py: no line /%s/ in %s" % (pattern, name))


def derive(steps_file, step_filter, copy_file):
    out, src = [], []

    def note(what, value, text):
        out.append((what, value))
        src.append("%-22s %s" % (what, text))

    # 1. task cost: 32^3 on 8 tiles of one GPU, where a step is its tasks' fixed costs (24 tasks
    #    of 4096 cells); the cells' share is taken off with the MHD per-cell cost below.
    g, gl = pick("2026-11-27-h100-graph.csv", grid="32x32x32", tiles="8", mode="overlap")
    us_task = float(g["us_per_task"])
    # 2. MHD and CH per-cell costs: one H200, one tile, overlap mode (one chain task a 0.1 stage)
    m, ml = pick(steps_file, app="mhd", size="256", gpus="1", ranks="1", mode="overlap", **step_filter)
    c, cl = pick(steps_file, app="ch", size="512", gpus="1", ranks="1", mode="overlap", **step_filter)
    t1, tl = pick("2026-11-27-h100-graph.csv", grid="256x256x256", tiles="1", mode="overlap")
    chain = float(t1["tasks_per_tile_stage"])  # tasks a stage on a lone tile (chains)
    mhd_ms, ch_ms = float(m["median_ms"]), float(c["median_ms"])
    # task_us and the MHD cost depend on each other (little): solve the two equations
    ns = mhd_ms * 1e6 / (MHD_STAGES * 256**3)
    for _ in range(5):
        task_us = us_task - 4096 * ns * 1e-3
        ns = (mhd_ms * 1e6 - MHD_STAGES * chain * task_us * 1e3) / (MHD_STAGES * 256**3)
    ch_ns = (ch_ms * 1e6 - CH_STAGES * chain * task_us * 1e3) / (CH_STAGES * 512**3)
    note("task_us", task_us, "%.1f us = 2026-11-27-h100-graph.csv line %d (32^3, 8 tiles: "
         "us_per_task %s, one H100) less 4096 cells x cell_ns mhd_rk3" % (task_us, gl, g["us_per_task"]))
    note("cell_ns mhd_rk3", ns, "%.5f ns = (%s ms - %d x %s x task_us) / (3 x 256^3): %s line %d "
         "(MHD fp64 256^3, 1 H200, overlap); %s tasks a stage on a lone tile: "
         "2026-11-27-h100-graph.csv line %d" % (ns, m["median_ms"], MHD_STAGES, chain, steps_file,
                                                 ml, chain, tl))
    note("cell_ns ch_fused", ch_ns, "%.6f ns = (%s ms - %s x task_us) / 512^3: %s line %d (CH "
         "512^3, 1 H200, overlap)" % (ch_ns, c["median_ms"], chain, steps_file, cl))
    # 3. outer classes: the MHD kernel on a 3-cell z slab against the whole 256^3 (one H100)
    thin, nl, _ = grep("2026-11-25-h100-mhd-kernel-floor.txt", r"256\^3 z-thin NxNx3  f64 auto .* ([0-9.]+) ns/cell/substep")
    full, fl, _ = grep("2026-11-25-h100-mhd-kernel-floor.txt", r"256\^3 f64 auto .* ([0-9.]+) ns/cell/step")
    outer = thin / (full / 3)
    note("outer_factor", outer, "%.3f = %.3f ns/cell/substep (z-thin 256x256x3, f64 auto) / (%.3f "
         "ns/cell/step / 3) (256^3 f64 auto): 2026-11-25-h100-mhd-kernel-floor.txt lines %d, %d "
         "(one H100, commit e781c41)" % (outer, thin, full, nl, fl))
    bw, bl, _ = grep(copy_file, r"^d2d_copy ([0-9.]+) GB/s")
    note("move_gbps", bw, "%.1f GB/s (read+write) = d2d_copy, %s line %d (one H200)" % (bw, copy_file, bl))
    note("cpu_factor", CPU_FACTOR, "%.0f: assumed, not measured (no MHD or CH run on CPU cores "
         "of the H200 host): the scheduler keeps tasks on the GPUs"
         % CPU_FACTOR)
    return out, src


SETS = {
    "h200-derived.txt": ("2026-11-27-h200x2-scaling.csv", {}, "2026-11-27-h200x2-scaling.txt",
                         "main 2a634c9 on 2 H200s (the 1-GPU rows)"),
    "h200-derived-8b5e39c.txt": ("2026-11-27-h200x4-zcut.csv", {"build": "new"},
                                 "2026-11-27-h200x4-scaling.txt",
                                 "main 8b5e39c on 4 H200s (the 1-GPU rows of build 'new')"),
}


def main():
    write = "--write" in sys.argv[1:]
    for name, (steps, filt, copy, what) in SETS.items():
        out, src = derive(steps, filt, copy)
        print("== %s: %s" % (name, what))
        for s in src:
            print("  " + s)
        if write:
            path = os.path.join(HERE, "models", name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("# Tessera derived simulation model (TESS_SIM_MODELS=measured:%s;\n"
                        "# runtime/simulate.c): coefficients derived by sim/derive_models.py from\n"
                        "# measured runs, %s; NOT StarPU-calibrated.\n" % (name, what))
                for s in src:
                    f.write("#   %s\n" % s)
                for k, v in out:
                    f.write("%s %.6g\n" % (k, v))
            print("  wrote %s" % os.path.relpath(path))


if __name__ == "__main__":
    main()
