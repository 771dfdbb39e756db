#!/usr/bin/env python3
"""trace_states.py — where each thread's time goes, from StarPU's own state records.

    /usr/bin/python3 scripts/trace_states.py DIR [--steps N] [--csv FILE] [--tool PATH]

DIR is a merged trace (`--trace DIR`: DIR/trace.rec, written by starpu_fxt_tool). StarPU 1.3
records every thread's states there: each worker thread sets Scheduling, FetchingInput,
PushingOutput, Overhead, Progressing, Sleeping and, while it runs a task, the task's name (on a
second stream of the same worker, thread id -1); the submitting (main) thread pushes
"Submitting task", "Scheduling" (pushing a ready task) and "Waiting task"; the StarPU-MPI thread
of each rank sets its own states. This script replays both streams of every thread in time
order, keeping a stack for Push/Pop, and adds up the time in each state between the first and
the last task of the run (the makespan), then groups them:

    kernels        tasks named inner_/outer_                 (the stencil sweeps)
    copies         tasks named pack_/unpack_/copy_           (moving halo boxes)
    other tasks    any other named task (acquisitions, StarPU's own); the top names are printed
    scheduling     Scheduling (popping a task; pushing the tasks it released)
    data           FetchingInput, PushingOutput              (acquiring/releasing handles)
    callbacks      Callback: a task's callback (StarPU-MPI hands a send or receive to its thread)
    overhead       Overhead: job termination, dependency release, callbacks
    progress/idle  Progressing, Sleeping, Idle               (a worker with nothing to run)
    submission     main thread: Submitting task (+ its nested Scheduling)
    waiting        main thread: Waiting task
    mpi            the MPI thread: its states by name

The merged trace of several ranks does not say which rank a worker belongs to (each rank's
workers are numbered from 0), so with several DIR/prof_file_* the script first converts each
rank's file alone into DIR/rank<R>/ (starpu_fxt_tool from PATH, or --tool) and reports each
rank. With --steps N it also prints each group per step (makespan / N: the traced run's steps).
"""
import argparse
import collections
import glob
import os
import shutil
import subprocess
import sys


def records(path):
    rec = {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if rec:
                    yield rec
                rec = {}
                continue
            if line.startswith("#") or ": " not in line:
                continue
            k, v = line.split(": ", 1)
            rec[k] = v
    if rec:
        yield rec


KERNEL = ("inner_", "outer_")
COPY = ("pack_", "unpack_", "copy_")
IDLE = {"Progressing", "Sleeping", "Idle"}
DATA = {"FetchingInput", "PushingOutput"}


def group(state, role):
    if role == "main":
        return {"Submitting task": "submission", "Waiting task": "waiting",
                "Scheduling": "submission"}.get(state, "main other")
    if role == "mpi":
        return "mpi " + state
    if state.startswith(KERNEL):
        return "kernels"
    if state.startswith(COPY):
        return "copies"
    if state == "Scheduling":
        return "scheduling"
    if state in DATA:
        return "data"
    if state == "Overhead":
        return "overhead"
    if state in IDLE:
        return "progress/idle"
    if state == "Callback":
        return "callbacks"
    if state in ("Initializing", "Deinitializing"):
        return "start/stop"
    return "other tasks"


def split_ranks(d, tool):
    """One directory per rank's FxT file, each converted alone; [d] for a single rank."""
    files = sorted(glob.glob(os.path.join(d, "prof_file_*")))
    if len(files) < 2:
        return [d]
    tool = tool or shutil.which("starpu_fxt_tool") or next(
        iter(sorted(glob.glob(os.path.expanduser("~/.cache/tessera/starpu-*/bin/starpu_fxt_tool")))),
        None)
    if not tool:
        sys.exit("trace_states: starpu_fxt_tool not found (give --tool PATH)")
    out = []
    for f in files:
        r = f.rsplit("_", 1)[-1]
        sub = os.path.join(d, "rank" + r)
        os.makedirs(sub, exist_ok=True)
        if not os.path.exists(os.path.join(sub, "trace.rec")):
            subprocess.run([tool, "-i", os.path.abspath(f)], cwd=sub, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append(sub)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--steps", type=int, default=0, help="steps in the traced run")
    ap.add_argument("--csv", help="write thread,group,ms rows here (rank,thread,group,ms)")
    ap.add_argument("--tool", help="starpu_fxt_tool to split a multi-rank trace with")
    a = ap.parse_args()
    rows = []
    for d in split_ranks(a.dir, a.tool):
        if d != a.dir:
            print(f"== {os.path.basename(d)}")
        rows += [(os.path.basename(d),) + r for r in analyse(d, a.steps)]
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("rank,thread,group,ms\n")
            for rank, key, k, v in rows:
                f.write(f"{rank},{key},{k},{v:.4f}\n")


def analyse(d, steps):
    path = os.path.join(d, "trace.rec")
    if not os.path.exists(path):
        sys.exit(f"trace_states: {path} not found (run with --trace {d} first)")
    # One timeline per (worker or thread) key. Workers have two streams (their thread and
    # tid -1); both describe the same worker, the later event winning.
    events = collections.defaultdict(list)
    role = {}
    first_task, last_task = None, None
    for r in records(path):
        e, name, w, t = r.get("E"), r.get("N", ""), r.get("W", "-1"), r.get("T", "-1")
        try:
            s = float(r["S"])
        except (KeyError, ValueError):
            continue
        if e not in ("SetState", "PushState", "PopState"):
            continue
        if w != "-1":
            key = "worker " + w
            role[key] = "worker"
        else:
            key = "thread " + t
            role.setdefault(key, "main")
        if name.startswith("Polling") or name.startswith("Driver") or "MPI" in name or \
                name.startswith("Testing") or name.startswith("Sleeping") and w == "-1":
            role[key] = "mpi"
        events[key].append((s, e, name))
        if e == "SetState" and name.startswith(KERNEL + COPY):
            first_task = s if first_task is None else min(first_task, s)
            last_task = s if last_task is None else max(last_task, s)
    if first_task is None:
        sys.exit("trace_states: no Tessera task in the trace")
    # The last task's end: the next event of any worker after it.
    end = max(s for ev in events.values() for s, _, _ in ev if s >= last_task)
    t0, t1 = first_task, end
    span = t1 - t0
    totals = collections.defaultdict(lambda: collections.defaultdict(float))
    # what the catch-all groups hold, by state name (a task's, or StarPU's own)
    others = collections.defaultdict(lambda: collections.defaultdict(float))
    for key, ev in events.items():
        ev.sort(key=lambda x: x[0])
        base, stack, prev = None, [], t0
        for s, e, name in ev:
            cur = stack[-1] if stack else base
            lo, hi = max(prev, t0), min(s, t1)
            if cur is not None and hi > lo:
                gname = group(cur, role[key])
                totals[key][gname] += hi - lo
                if gname in ("other tasks", "main other"):
                    others[gname][cur] += hi - lo
            prev = s
            if e == "SetState":
                base = name
            elif e == "PushState":
                stack.append(name)
            elif stack:
                stack.pop()
        cur = stack[-1] if stack else base
        if cur is not None and t1 > max(prev, t0):
            gname = group(cur, role[key])
            totals[key][gname] += t1 - max(prev, t0)
            if gname in ("other tasks", "main other"):
                others[gname][cur] += t1 - max(prev, t0)
    print(f"makespan {span:.3f} ms (first Tessera task to the end of the last)"
          + (f", {steps} steps: {span / steps:.3f} ms per step" if steps else ""))
    rows = []
    order = ["kernels", "copies", "other tasks", "scheduling", "data", "callbacks", "overhead",
             "progress/idle", "submission", "waiting", "main other", "start/stop"]
    summed = collections.defaultdict(lambda: collections.defaultdict(float))
    for key in sorted(totals, key=lambda k: (role[k], k)):
        g = totals[key]
        if sum(g.values()) < 0.01 * span:
            continue
        summed[role[key]]
        for k, v in g.items():
            summed[role[key]][k] += v
        parts = sorted(g.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else 99,
                                                 -kv[1]))
        line = ", ".join(f"{k} {v:.2f} ms ({100 * v / span:.0f}%)" for k, v in parts if v > 0)
        print(f"  {role[key]:6s} {key:14s} {line}")
        rows += [(key, k, v) for k, v in parts]
    for r, g in summed.items():
        per = f" = {sum(g.values()) / steps:.3f} ms per step" if steps else ""
        parts = sorted(g.items(), key=lambda kv: -kv[1])
        print(f"all {r}s: " + ", ".join(
            f"{k} {v:.2f} ms" + (f" ({v / steps:.3f}/step)" if steps else "")
            for k, v in parts if v > 0) + per)
    for gname, by in others.items():
        top = sorted(by.items(), key=lambda kv: -kv[1])[:6]
        print(f"{gname} by state (all threads): " + ", ".join(f"'{n}' {v:.2f} ms" for n, v in top))
    return rows


if __name__ == "__main__":
    main()
