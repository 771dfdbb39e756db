#!/usr/bin/env python3
"""restart_rule.py BUILD MPIEXEC CASE — a restart continues the checkpoint's physics, or says what
it changed (apps/common/restart.c, docs/reliability.md). BUILD is the build tree (apps/*/tess-*).

  mhd      2 ranks, a step-15 checkpoint of 16^3: an unchanged restart prints the dt it steps
           with (not 0) and ends bitwise on the uninterrupted run; physics.eta = 0.5 and
           physics.nu = 0.5 recompute dt below the checkpoint's, and the clock advances by the
           printed dt; run.dt = 1e-6 advances it by 1e-6; run.dt = 2 is warned about and its
           blow-up names the checkpoint; physics.gamma and physics.cs0 are refused, both listed
           old -> new
  forged   the same checkpoint edited as a hostile file would be, each refused with the reason:
           dt x1024 and dt = 1e300 with the header checksum recomputed, format version 1 with
           step 15 -> 16, a NaN in a field with the field checksum recomputed (named by field,
           variable and cell)
  maxwell  2 ranks, a plane wave on 32^2 checkpointed at step 10 with run.cfl 0.3 and continued
           with 0.15 to step 30: the fields match the analytic wave at the time the run reports
           (before, time advanced by the old dt while the kernels took the new one); physics.eps
           is refused
  others   Cahn-Hilliard: physics.b refused, run.dt accepted and announced; heat: physics.kappa
           refused; hdiff: physics.coeff refused
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError:
    print("skip: /usr/bin/python3 lacks numpy or h5py")
    sys.exit(77)

BUILD, MPIEXEC, CASE = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
APPS = {"mhd": "mhd/tess-mhd", "maxwell": "maxwell/tess-maxwell", "ch": "cahn_hilliard/tess-ch",
        "heat": "heat/tess-heat", "hdiff": "hdiff/tess-hdiff"}
TMP = tempfile.mkdtemp()
FAILS = []
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def run(app, np_, *args, ok=True):
    """The app on np_ ranks in TMP; (exit status, stdout + stderr)."""
    cmd = [MPIEXEC, "--oversubscribe", "-np", str(np_), os.path.join(BUILD, "apps", APPS[app])]
    p = subprocess.run(cmd + [str(a) for a in args], cwd=TMP, capture_output=True, text=True,
                       timeout=300)
    out = p.stdout + p.stderr
    if ok and p.returncode != 0:
        print(out[-3000:])
        sys.exit(f"FAIL: {app} {' '.join(map(str, args))} exited {p.returncode}")
    return p.returncode, out


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        FAILS.append(what)


def refused(app, np_, args, patterns, what):
    rc, out = run(app, np_, *args, ok=False)
    good = rc != 0 and all(re.search(p, out) for p in patterns)
    if not good:
        print(out[-2000:])
    check(good, f"{what}: exit {rc}, message names " + ", ".join(patterns))


def progress(out):
    """{step: (t, dt)} from MHD progress lines."""
    return {int(m[1]): (float(m[2]), float(m[3]))
            for m in re.finditer(r"^step +(\d+) t (\S+) dt (\S+)", out, re.M)}


# ---- the checkpoint's hashes (runtime/storage/checkpoint.c), to forge files as an editor would

def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def hash_bytes(h, b):
    h = mix64(h ^ mix64((len(b) + GOLDEN) & M64))
    for i in range(0, len(b), 8):
        w = int.from_bytes(b[i:i + 8].ljust(8, b"\0"), "little")
        h = (mix64(h ^ w) + i) & M64
    return h


def header_hash(f):
    a = f.attrs
    s = lambda k: a[k].decode() if isinstance(a[k], bytes) else str(a[k])
    h = hash_bytes(0, np.int32(a["tessera_checkpoint"]).tobytes())
    h = hash_bytes(h, np.asarray(a["grid"], np.int32).tobytes())
    h = hash_bytes(h, np.asarray(a["spacing"], np.float64).tobytes())
    h = hash_bytes(h, np.int64(a["step"]).tobytes())
    h = hash_bytes(h, np.float64(a["time"]).tobytes())
    h = hash_bytes(h, s("app_state").encode())
    return hash_bytes(h, s("config").encode())


def np_mix64(z):
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def field_checksum(values):
    v = np.ascontiguousarray(values, np.float64).reshape(-1).view(np.uint64)
    i = np.arange(v.size, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return int(np.sum(np_mix64(v ^ np_mix64(i + np.uint64(GOLDEN))), dtype=np.uint64))


def set_str(f, key, value):
    del f.attrs[key]
    f.attrs.create(key, np.bytes_(value.encode()), dtype=h5py.string_dtype("ascii", len(value) + 1))


def forge(src, name, edit):
    path = os.path.join(TMP, name)
    shutil.copy(src, path)
    with h5py.File(path, "r+") as f:
        edit(f)
    return path


# ---- cases -----------------------------------------------------------------------------------

MHD = ["--grid", "16,16,16", "--every", "5"]


def mhd_checkpoint():
    rc, a = run("mhd", 2, *MHD, "--steps", 30, "--checkpoint-every", 15, "--checkpoint-keep", 5,
                "--out", "a", "--dump", "a.bin")
    return os.path.join(TMP, "a", "tess-mhd_00000015.h5"), a


def case_mhd():
    ck, a = mhd_checkpoint()
    pa = progress(a)
    _, b = run("mhd", 2, *MHD, "--steps", 30, "--restart", ck, "--out", "b", "--dump", "b.bin")
    pb = progress(b)
    check(pb[15][1] == pa[15][1] and pb[15][1] > 0,
          f"unchanged restart prints the dt it steps with at step 15: {pb[15][1]:.6e} "
          f"(uninterrupted {pa[15][1]:.6e})")
    same = open(os.path.join(TMP, "a.bin"), "rb").read() == open(os.path.join(TMP, "b.bin"),
                                                                "rb").read()
    check(same, "unchanged restart at step 15 == uninterrupted run at step 30 (bitwise)")
    for key in ("physics.eta", "physics.nu"):
        _, c = run("mhd", 2, *MHD, "--steps", 20, "--restart", ck, "--out", "c",
                   "--set", f"{key}=0.5")
        pc = progress(c)
        dt, t15, t20 = pc[15][1], pc[15][0], pc[20][0]
        check(re.search(rf"restart: {key} changed from \S+ to 0.5 \(allowed\)", c) is not None
              and re.search(r"restart: dt \S+ from this run's settings \(the checkpoint's was", c)
              is not None, f"{key} = 0.5: the change and the new dt are announced")
        check(0 < dt < pa[15][1] / 2,
              f"{key} = 0.5: dt recomputed to {dt:.4e} (checkpoint {pa[15][1]:.4e})")
        # to the digits printed (dt: 4, t: 7); the checkpoint's dt would be 13x off
        check(abs((t20 - t15) - 5 * dt) <= 5e-4 * 5 * dt + 1e-6 * t20,
              f"{key} = 0.5: the clock advances by the printed dt ({t20 - t15:.9e} = 5 x {dt:.9e})")
    _, d = run("mhd", 2, *MHD, "--steps", 20, "--restart", ck, "--out", "d", "--set", "run.dt=1e-6")
    pd = progress(d)
    check(pd[15][1] == 1e-6 and abs(pd[20][0] - pd[15][0] - 5e-6) < 1e-15,
          f"run.dt = 1e-6: printed dt {pd[15][1]:.3e}, time advanced {pd[20][0] - pd[15][0]:.6e} "
          "over 5 steps")
    rc, e = run("mhd", 2, *MHD, "--steps", 40, "--restart", ck, "--out", "e", "--check-every", 1,
                "--set", "run.dt=2", ok=False)
    check(rc != 0 and re.search(r"warning: the time step 2 set by this run's settings exceeds", e)
          and re.search(r"non-finite value .* in a run restarted from '[^']*tess-mhd_00000015\.h5'",
                        e), f"run.dt = 2: warned, and the blow-up names the checkpoint (exit {rc})")
    refused("mhd", 2, MHD + ["--steps", 20, "--restart", ck, "--out", "e", "--set",
                             "physics.gamma=1.4", "--set", "physics.cs0=2"],
            [r"physics\.cs0: 1 \(checkpoint\) -> 2 \(this run\)",
             r"physics\.gamma: 1\.66666\d* \(checkpoint\) -> 1\.4 \(this run\)",
             r"tess-mhd_00000015\.h5"], "physics.gamma and physics.cs0 changed: refused")


def case_forged():
    ck, _ = mhd_checkpoint()
    args = MHD + ["--steps", 20, "--out", "f"]

    def dt_times(k):
        def edit(f):
            dt = float.fromhex(f.attrs["app_state"].decode().split("dt=")[1].split()[0])
            set_str(f, "app_state", f"dt={(dt * k if k < 1e100 else k).hex()}")
            f.attrs["header_checksum"] = np.uint64(header_hash(f))
        return edit
    for k, name in ((1024, "x1024"), (1e300, "1e300")):
        p = forge(ck, f"dt_{name}.h5", dt_times(k))
        refused("mhd", 2, args + ["--restart", p],
                [r"dt_%s\.h5.*refused: the checkpoint's time step exceeds the stability limit"
                 % name], f"dt forged to {name} with the header checksum recomputed")

    def v1(f):
        f.attrs["tessera_checkpoint"] = np.int32(1)
        f.attrs["step"] = np.int64(16)
        del f.attrs["header_checksum"]
    p = forge(ck, "v1.h5", v1)
    refused("mhd", 2, args + ["--restart", p], [r"v1\.h5' has format version 1"],
            "format version 1 with step 15 -> 16")

    def nan(f):
        d = f["fields/state"] if "fields" in f else f["state"]
        v = d[...]
        v[3, 2, 1, 0] = np.nan  # [z][y][x][component]: lnrho of cell (1, 2, 3)
        d[...] = v
        d.attrs["checksum"] = np.uint64(field_checksum(v))
    p = forge(ck, "nan.h5", nan)
    refused("mhd", 2, args + ["--restart", p],
            [r"nan\.h5' holds a non-finite value \(nan\) at step 15: field 'state' \(lnrho\), "
             r"global cell \(1, 2, 3\); refused"], "a NaN in a field (checksum recomputed)")


def case_maxwell():
    g = [32, 32, 1]
    args = ["--grid", ",".join(map(str, g)), "--wave", "1,1,0", "--every", "10"]
    run("maxwell", 2, *args, "--steps", 10, "--checkpoint-every", 10, "--out", "a")
    ck = os.path.join(TMP, "a", "tess-maxwell_00000010.h5")
    _, out = run("maxwell", 2, *args, "--steps", 30, "--cfl", 0.15, "--restart", ck, "--out", "b",
                 "--dump", "b.bin")
    t = float(re.findall(r"^step +30 +t (\S+)", out, re.M)[0])
    expect = 10 * 0.3 / 32 + 20 * 0.15 / 32
    check(abs(t - expect) < 1e-12, f"run.cfl 0.3 -> 0.15: reported time {t:.9f} = 10 dt(0.3) + "
          f"20 dt(0.15) = {expect:.9f}")
    check(re.search(r"restart: run\.cfl changed from 0\.3 to 0\.15 \(allowed\)", out) is not None,
          "the changed run.cfl is announced")
    u = np.fromfile(os.path.join(TMP, "b.bin")).reshape(6, g[1], g[0])
    x = (np.arange(g[0]) + 0.5) / g[0]
    y = (np.arange(g[1]) + 0.5) / g[1]
    X, Y = np.meshgrid(x, y)
    k = np.hypot(1, 1)
    phase = 2 * np.pi * (X + Y - k * t)  # c = 1
    err = max(np.abs(u[0] - np.cos(phase) / k).max(), np.abs(u[1] + np.cos(phase) / k).max(),
              np.abs(u[5] + np.cos(phase)).max())
    check(err < 1e-3, f"fields match the analytic wave at the reported time: max error {err:.2e}")
    refused("maxwell", 2, args + ["--steps", 20, "--eps", 4, "--restart", ck, "--out", "c"],
            [r"physics\.eps: 1 \(checkpoint\) -> 4 \(this run\)"], "physics.eps changed: refused")


def case_others():
    run("ch", 2, "--grid", "32,32,1", "--steps", 10, "--checkpoint-every", 10, "--out", "ch",
        "--png=false")
    ck = os.path.join(TMP, "ch", "tess-ch_00000010.h5")
    refused("ch", 2, ["--grid", "32,32,1", "--steps", 20, "--restart", ck, "--out", "ch2",
                      "--b", 2], [r"physics\.b: 1 \(checkpoint\) -> 2 \(this run\)"],
            "Cahn-Hilliard physics.b changed: refused")
    _, out = run("ch", 2, "--grid", "32,32,1", "--steps", 20, "--restart", ck, "--out", "ch3",
                 "--dt", 1e-3, "--every", 10)
    check(re.search(r"restart: run\.dt changed from 0 to 0\.001 \(allowed\)", out) is not None and
          re.search(r"restart: dt 0\.001 from this run's settings", out) is not None,
          "Cahn-Hilliard run.dt changed: accepted and announced")
    run("heat", 2, "--grid", "16,16,1", "--steps", 10, "--checkpoint-every", 10, "--out", "h")
    refused("heat", 2, ["--grid", "16,16,1", "--steps", 20, "--kappa", 2, "--out", "h2",
                        "--restart", os.path.join(TMP, "h", "tess-heat_00000010.h5")],
            [r"physics\.kappa: 1 \(checkpoint\) -> 2 \(this run\)"], "heat physics.kappa: refused")
    run("hdiff", 2, "--grid", "16,16,4", "--steps", 4, "--checkpoint-every", 4, "--out", "d")
    refused("hdiff", 2, ["--grid", "16,16,4", "--steps", 8, "--coeff", 0.01, "--out", "d2",
                         "--restart", os.path.join(TMP, "d", "tess-hdiff_00000004.h5")],
            [r"physics\.coeff: \S+ \(checkpoint\) -> 0\.01 \(this run\)"],
            "hdiff physics.coeff: refused")


try:
    {"mhd": case_mhd, "forged": case_forged, "maxwell": case_maxwell, "others": case_others}[CASE]()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
if FAILS:
    sys.exit(f"{len(FAILS)} check(s) failed")
print("all checks passed")
