"""Tessera task names and kinds: the kind constants and timeline colours, halo directions
('+x-y' <-> (1,-1,0) <-> direction index), the Task record built from one tasks.rec record,
percentiles, and die() for the command's error exit."""
import math
import re
import sys

KINDS = ("pack", "exchange", "unpack", "copy", "boundary", "inner", "outer")
TASK_KINDS = ("pack", "unpack", "copy", "boundary", "inner", "outer")
COLORS = {"pack": "#2b83ba", "exchange": "#fdae61", "unpack": "#abdda4", "copy": "#66c2a5", "boundary": "#fee08b", "inner": "#999999",
          "outer": "#d7191c", "other": "#6a3d9a"}
NAME_RE = re.compile(r"^(pack|unpack|copy|boundary|inner|outer)[ _]t(\d+)[ _]([-+xyz]+|0)[ _]s(\d+)$")
NDIRS = 27  # direction index (dx+1) + 3(dy+1) + 9(dz+1); MPI tags are (slot*ntiles+tile)*27+dir


def die(msg):
    print("trace_summary: error: " + msg, file=sys.stderr)
    sys.exit(1)


def dir_vector(text):
    """'+x-y' -> (1,-1,0); '0' -> (0,0,0)."""
    v = [0, 0, 0]
    if text != "0":
        for sign, axis in re.findall(r"([-+])([xyz])", text):
            v["xyz".index(axis)] = 1 if sign == "+" else -1
    return tuple(v)


def dir_text(v):
    s = "".join(("+" if c > 0 else "-") + "xyz"[i] for i, c in enumerate(v) if c)
    return s or "0"


def dir_index(v):
    return (v[0] + 1) + 3 * (v[1] + 1) + 9 * (v[2] + 1)


def norm_name(name):
    return " ".join(name.replace("_", " ").split())


def pct(values, q):
    """q-th percentile (0..100) by linear interpolation of the sorted values."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * q / 100.0
    lo, hi = int(math.floor(k)), int(math.ceil(k))
    return s[lo] + (s[hi] - s[lo]) * (k - lo)




class Task:
    __slots__ = ("job", "name", "rank", "worker", "start", "end", "submit", "order", "deps",
                 "kind", "tile", "dirv", "stage", "occ")

    def __init__(self, rec):
        self.job = rec.get("JobId", "")
        self.name = rec.get("Name", "")
        r = rec.get("MPIRank")
        if r is None and "_" in self.job:
            r = self.job.split("_", 1)[0]
        self.rank = max(0, int(r)) if r not in (None, "") and r.lstrip("-").isdigit() else 0
        w = rec.get("WorkerId")
        self.worker = int(w) if w not in (None, "") and w.lstrip("-").isdigit() else None
        self.start = float(rec["StartTime"]) if rec.get("StartTime") else None
        self.end = float(rec["EndTime"]) if rec.get("EndTime") else None
        self.submit = float(rec["SubmitTime"]) if rec.get("SubmitTime") else None
        so = rec.get("SubmitOrder", "")
        self.order = int(so) if so.isdigit() else 0
        self.deps = rec.get("DependsOn", "").split()
        self.kind = self.tile = self.dirv = self.stage = None
        self.occ = 0
        m = NAME_RE.match(self.name)
        if m:
            self.kind, self.tile = m.group(1), int(m.group(2))
            self.dirv, self.stage = dir_vector(m.group(3)), int(m.group(4))
            self.name = "%s t%d %s s%d" % (self.kind, self.tile, dir_text(self.dirv), self.stage)

    @property
    def timed(self):
        return self.start is not None and self.end is not None

    @property
    def dur(self):
        return self.end - self.start if self.timed else 0.0

    def label(self):
        return "%s (rank %d, #%d)" % (self.name, self.rank, self.occ)
