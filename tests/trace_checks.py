#!/usr/bin/python3
"""trace_checks.py CHECK ARGS... — the assertions of tests/trace_check.sh (exit 0 pass, 1 fail).

  summary JSON [unpack]        the summary (scripts/trace_summary.py --json) found pack,
                               exchange, inner and outer tasks (with 'unpack', unpack tasks too:
                               by default a class unpacks the messages it reads), inter-rank
                               exchanges, a worker row per rank, a critical path
  delay JSON UNPACK AXIS       with UNPACK's halo held back: other outer segments of its tile
                               started before it ended, every segment needing it (DependsOn)
                               started after, and those are exactly the segments whose direction
                               has AXIS (e.g. +x); the transfer shows the delay (>= 0.4 s)
  png FILE [MIN_COLOURS]       an image exists, is not blank: >= MIN_COLOURS (default 6)
                               distinct colours, no colour on more than 97 % of the pixels
  vite-log LOG                 ViTE's parse log (log.txt) has no error or warning except
                               StarPU's own 'Unknown container: <rank>_t<thread>'
  vite-colours SVG             ViTE drew states in the task kind colours (pack, unpack, inner,
                               outer): it read the task states and their colours
  window JSON WIDTH_MS         print 'T0:T1', WIDTH_MS from the first task (rank 0's clock),
                               for vite -t
"""
import json
import re
import sys

KIND_RGB = {"pack": (0x2b, 0x83, 0xba), "unpack": (0xab, 0xdd, 0xa4),
            "inner": (0x99, 0x99, 0x99), "outer": (0xd7, 0x19, 0x1c)}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def load(path):
    with open(path) as f:
        return json.load(f)


def check_summary(path, want_unpack=False):
    s = load(path)
    kinds = s["kinds"]
    counts = {k: kinds[k]["count"] for k in ("pack", "exchange", "unpack", "inner", "outer")}
    print("  kinds found: " + ", ".join("%s %d" % kv for kv in counts.items()))
    missing = [k for k, n in counts.items() if n == 0 and (k != "unpack" or want_unpack)]
    if missing:
        fail("the summary found no %s" % ", ".join(missing))
    if len(s["ranks"]) < 2:
        fail("expected a 2-rank trace, ranks %s" % s["ranks"])
    ex = s["exchange"]
    print("  exchanges: %d (%d between ranks), hidden %.1f %%; makespan %.3f ms" % (
        ex["count"], ex["between_ranks"], 100 * ex["hidden_share"], s["makespan_ms"]))
    if ex["between_ranks"] == 0:
        fail("no exchange between ranks was matched to an MPI message")
    if not 0.0 <= ex["hidden_share"] <= 1.0:
        fail("hidden share %.3f outside [0, 1]" % ex["hidden_share"])
    ranks = {w["rank"] for w in s["workers"]}
    if ranks != set(s["ranks"]):
        fail("worker utilisation rows for ranks %s, trace ranks %s" % (sorted(ranks), s["ranks"]))
    for w in s["workers"]:
        if not 0.0 <= w["utilisation"] <= 1.0 + 1e-9:
            fail("worker %s utilisation %.3f outside [0, 1]" % (w["name"], w["utilisation"]))
    cp = s["critical_path"]["tasks"]
    print("  critical path %.3f ms (%d tasks), %.1f %% of the makespan" % (
        cp["length_ms"], cp["tasks"], 100 * cp["share_of_makespan"]))
    if cp["tasks"] < 1 or cp["length_ms"] <= 0:
        fail("empty critical path")
    if cp["length_ms"] > s["makespan_ms"] * 1.001 + 1e-3:  # a chain runs one task after another
        fail("critical path %.3f ms longer than the makespan %.3f ms" % (
            cp["length_ms"], s["makespan_ms"]))
    od = s["outer_delay"]
    if od["count"] == 0:
        fail("no outer segment with a halo dependency")
    print("  outer halo delay p50 %.3f ms, max %.3f ms over %d segments" % (
        od["p50_ms"], od["max_ms"], od["count"]))
    if s["warnings"]:
        fail("summary warnings: %s" % "; ".join(s["warnings"][:5]))


def check_delay(path, name, axis):
    s = load(path)
    reps = s["unpacks"].get(name)
    if not reps:
        fail("'%s' not in the trace" % name)
    if len(reps) != 1:
        fail("expected one '%s' (1 step), found %d" % (name, len(reps)))
    r = reps[0]
    u = r["unpack"]
    transfer = r["arrival_ms"] - r["sent_ms"]
    print("  %s: sent %.3f ms, arrived %.3f ms (transfer %.1f ms), unpack ended %.3f ms" % (
        name, r["sent_ms"], r["arrival_ms"], transfer, u["end_ms"]))
    if transfer < 400:
        fail("the held-back halo's transfer is %.1f ms, expected >= 400 ms (delay 0.5 s)" %
             transfer)
    before = r["before"]
    print("  outer segments not needing it that started before it ended: %d of %d: %s" % (
        len(before), len(before) + len(r["after_others"]),
        " ".join(o["name"].split()[2] for o in before)))
    if not before:
        fail("no outer segment of another direction started before '%s' ended: the other "
             "segments waited for the delayed halo (no overlap)" % name)
    need = r["needing"]
    print("  outer segments needing it: %d, started before it ended: %d" % (
        len(need), len(r["needing_started_before"])))
    if not need:
        fail("no outer segment depends on '%s'" % name)
    if r["needing_started_before"]:
        fail("segments needing '%s' started before it ended: %s" % (
            name, ", ".join(o["name"] for o in r["needing_started_before"])))
    for o in need:
        if o["start_ms"] < u["end_ms"]:
            fail("%s started %.3f ms before %s ended" % (o["name"], u["end_ms"] - o["start_ms"],
                                                          name))
    tile = name.split()[1]
    with_axis = lambda o: axis in o["name"].split()[2]  # noqa: E731
    mine = [o for o in before + r["after_others"] + need if o["name"].split()[1] == tile]
    expect = sorted(o["name"] for o in mine if with_axis(o))
    got = sorted(o["name"] for o in need)
    if expect != got:
        fail("segments needing %s: %s; segments with %s in their direction: %s" % (
            name, got, axis, expect))
    late = [o["name"] for o in before if with_axis(o)]
    if late:
        fail("segments with %s started before the %s halo arrived: %s" % (axis, axis, late))
    print("  ok: the %d segments with %s waited for it, %d others ran before it arrived" % (
        len(need), axis, len(before)))


def check_png(path, min_colours):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.image as mpimg
    except ImportError:
        fail("matplotlib missing")
    import collections
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    px = (img[:, :, :3] * 255).round().astype("uint8").reshape(-1, 3)
    counts = collections.Counter(map(bytes, px))
    top = counts.most_common(1)[0][1] / float(len(px))
    print("  %s: %dx%d, %d distinct colours, most common on %.1f %% of the pixels" % (
        path, w, h, len(counts), 100 * top))
    if w < 100 or h < 100:
        fail("image %dx%d too small" % (w, h))
    if len(counts) < min_colours:
        fail("image has %d distinct colours (< %d): blank" % (len(counts), min_colours))
    if top > 0.97:
        fail("one colour covers %.1f %% of the image: blank" % (100 * top))


def check_vite_log(path):
    try:
        text = open(path, encoding="latin-1").read()
    except OSError:
        fail("no ViTE log %s" % path)
    section, bad, starpu = None, [], 0
    for line in text.splitlines():
        if line.startswith("Errors"):
            section = "error"
        elif line.startswith("Warnings"):
            section = "warning"
        elif section and re.match(r"^\d+ : ", line):
            if re.match(r"^\d+ : Unknown container: \d+_t\d+$", line):
                starpu += 1  # StarPU 1.3 pushes states on a thread container it never created
            else:
                bad.append("%s %s" % (section, line))
    print("  ViTE: %d problems of StarPU's own (unknown thread containers), %d others" % (
        starpu, len(bad)))
    if bad:
        hint = ""
        if any("Unknown entity type" in b or "extra token" in b for b in bad):
            hint = (" -- StarPU 1.3 writes task names unquoted into paje.trace "
                    "(PajeDefineEntityValue, worker SetState): a task name with a space "
                    "breaks those lines, and ViTE loses the task states' names and colours")
        fail("ViTE could not parse the trace cleanly (%d problems), first: %s%s" % (
            len(bad), "; ".join(bad[:3]), hint))


def check_vite_colours(path):
    text = open(path, encoding="latin-1").read()
    fills = re.findall(r'fill="rgb\((\d+),\s*(\d+),\s*(\d+)\)"', text)
    seen = {}
    for f in fills:
        c = tuple(int(x) for x in f)
        seen[c] = seen.get(c, 0) + 1
    found = {k: seen.get(rgb, 0) for k, rgb in KIND_RGB.items()}
    print("  ViTE states drawn in the kind colours: " +
          ", ".join("%s %d" % kv for kv in found.items()))
    missing = [k for k, n in found.items() if n == 0]
    if missing:
        fail("ViTE drew no state in the colour of %s: it did not read the task states "
             "(names, colours) of paje.trace" % ", ".join(missing))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "summary":
        check_summary(args[0], len(args) > 1 and args[1] == "unpack")
    elif cmd == "delay":
        check_delay(args[0], args[1], args[2])
    elif cmd == "png":
        check_png(args[0], int(args[1]) if len(args) > 1 else 6)
    elif cmd == "vite-log":
        check_vite_log(args[0])
    elif cmd == "vite-colours":
        check_vite_colours(args[0])
    elif cmd == "window":
        s = load(args[0])
        off = s["clock_offsets_ms"].get(str(s["ranks"][0]), 0.0)
        t0 = s["t0_ms"] - off
        print("%.6f:%.6f" % (t0, t0 + float(args[1])))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
