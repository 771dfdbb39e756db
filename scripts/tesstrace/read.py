"""Reading a trace directory's files: the records of tasks.rec (StarPU's recutils format) and,
from paje.trace, the StarPU-MPI messages (start/end, tag, size) and the worker names."""
import os
import re

def read_rec(path):
    recs, cur = [], {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if cur:
                    recs.append(cur)
                    cur = {}
                continue
            if line.startswith("#"):
                continue
            key, sep, val = line.partition(":")
            if sep and key not in cur:
                cur[key] = val.strip()
    if cur:
        recs.append(cur)
    return recs


TOKEN_RE = re.compile(r'"[^"]*"|\S+')


def read_paje(path):
    """MPI messages (PajeStartLink/EndLink of type MPIL, paired by key) and worker names."""
    if not os.path.exists(path):
        return [], {}
    defs, cur, fields = {}, None, []
    starts, ends, workers = {}, {}, {}
    with open(path, encoding="latin-1") as f:
        for line in f:
            if line.startswith("%"):
                tok = line.split()
                if tok[0] == "%EventDef" and len(tok) >= 3:
                    cur, fields = tok[2], []
                    defs[cur] = (tok[1], fields)
                elif tok[0] == "%EndEventDef":
                    cur = None
                elif cur is not None and len(tok) >= 2:
                    fields.append(tok[1])
                continue
            head = line.split(None, 1)
            if not head or head[0] not in defs:
                continue
            ev, names = defs[head[0]]
            if ev not in ("PajeStartLink", "PajeEndLink", "PajeCreateContainer"):
                continue
            tok = [t.strip('"') for t in TOKEN_RE.findall(line)[1:]]
            rec = dict(zip(names, tok))
            if ev == "PajeCreateContainer":
                if rec.get("Type") == "W":
                    workers[rec.get("Alias", "")] = rec.get("Name", "")
                continue
            if rec.get("Type") != "MPIL":
                continue
            try:
                t = float(rec["Time"])
            except (KeyError, ValueError):
                continue
            if ev == "PajeStartLink":
                starts[rec.get("Key")] = (t, rec.get("StartContainer", ""), rec.get("MPITAG"),
                                          rec.get("Value"))
            else:
                ends[rec.get("Key")] = (t, rec.get("EndContainer", ""))
    links = []
    for key, (t0, c0, tag, size) in starts.items():
        if key not in ends:
            continue
        t1, c1 = ends[key]
        try:
            src, dst = int(c0.split("_")[0]), int(c1.split("_")[0])
        except ValueError:
            continue
        links.append({"key": key, "src": src, "dst": dst, "start": t0, "end": t1,
                      "tag": int(tag) if tag and tag.lstrip("-").isdigit() else None,
                      "size": int(size) if size and size.isdigit() else None})
    return links, workers
