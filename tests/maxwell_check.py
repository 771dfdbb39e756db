#!/usr/bin/env python3
"""maxwell_check.py APP MPIEXEC CHECK — the Maxwell app (apps/maxwell) against analytic answers.

The fields come back through --dump (raw float64: Ex Ey Ez Hx Hy Hz, each [z][y][x]); every number
below is computed here, independently of the kernel, with numpy.

  phase   a plane wave k = 2pi(1,1,0) on 32^2 travels at c = 1/sqrt(eps mu) within 1e-6, and at
          the speed the semi-discrete dispersion (6th-order symbol) and RK3's amplification
          factor predict within 2e-9 (eps = 2, mu = 0.5, so c = 1 but E and H differ)
  order   the phase-speed error on 16^2, 24^2, 32^2 and 48^2 falls at order 6 +- 0.3
  energy  the energy 1/2 <eps E^2 + mu H^2> decays only by RK3's damping: at dt and dt/2 the
          drift falls at order 3 +- 0.3, and each is |R(i omega* dt)|^(2 steps) within 1%
  div     random E = curl A, H = curl B on 24^3 (2 ranks x 2 tiles): the discrete div E and
          div H (the kernel's operator, here in numpy) stay below 1e-14 of max|E| / h
"""
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("skip: /usr/bin/python3 lacks numpy")
    sys.exit(77)

APP, MPIEXEC, CHECK = sys.argv[1:4]
W = (3 / 4, -3 / 20, 1 / 60)
TMP = tempfile.mkdtemp()


def run(n, steps, *args, np_=1):
    out = os.path.join(TMP, "d.bin")
    cmd = [MPIEXEC, "--oversubscribe", "-np", str(np_), APP, "--grid", ",".join(map(str, n)),
           "--steps", str(steps), "--dump", out] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode:
        sys.exit("FAIL: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return np.fromfile(out).reshape(6, n[2], n[1], n[0])


def k_star(theta):  # the 6th-order first difference's symbol, times h
    return 2 * sum(W[j] * math.sin((j + 1) * theta) for j in range(3))


def rk3(y):  # RK3's amplification factor for u' = i omega u, y = omega dt
    return 1 + 1j * y - y * y / 2 - 1j * y ** 3 / 6


def wave(n, cfl, steps, eps=2.0, mu=0.5):
    """Measured and predicted phase speed and energy ratio of the (1,1,0) wave on n^2."""
    f = run((n, n, 1), steps, "--wave", "1,1,0", "--cfl", str(cfl), "--eps", str(eps),
            "--mu", str(mu), "--every", "0")
    c, dt = 1 / math.sqrt(eps * mu), cfl / n * math.sqrt(eps * mu)
    x = (np.arange(n) + 0.5) / n
    th = 2 * math.pi * (x[None, :] + x[:, None])  # k . x on [y][x]
    e0 = np.array([1, -1, 0]) / math.sqrt(2)  # k x z, normalised
    s = sum(e0[i] * f[i, 0] for i in range(3))
    phi = math.atan2((s * np.sin(th)).sum(), (s * np.cos(th)).sum())
    k = 2 * math.pi * math.sqrt(2)
    w = 0.5 * (eps * (f[:3] ** 2).sum() + mu * (f[3:] ** 2).sum()) / n ** 2
    ks = math.sqrt(2) * k_star(2 * math.pi / n) * n  # |k*| along the diagonal
    r = rk3(c * ks * dt)
    return dict(c=phi / (k * steps * dt), c_pred=math.atan2(r.imag, r.real) / (k * dt),
                ratio=w / (0.5 * eps),  # at t = 0: |E| = 1, |H| = sqrt(eps/mu), <cos^2> = 1/2
                ratio_pred=abs(r) ** (2 * steps), err=abs(phi / (k * steps * dt) / c - 1))


def div(f, n):
    d = lambda g, a: sum(W[j] * (np.roll(g, -j - 1, 2 - a) - np.roll(g, j + 1, 2 - a))
                         for j in range(3)) * n[a]
    return [abs(sum(d(f[o + a], a) for a in range(3))).max() for o in (0, 3)]


fail = 0
def check(ok, msg):
    global fail
    print(("  ok   " if ok else "  FAIL ") + msg)
    fail |= not ok


if CHECK == "phase":
    r = wave(32, 0.05, 160)
    check(r["err"] < 1e-6, "32^2: c = %.12f, |c - 1| = %.3e (< 1e-6)" % (r["c"], r["err"]))
    check(abs(r["c"] / r["c_pred"] - 1) < 2e-9, "predicted %.12f (semi-discrete + RK3), "
          "relative difference %.2e (< 2e-9)" % (r["c_pred"], abs(r["c"] / r["c_pred"] - 1)))
elif CHECK == "order":
    ns = [16, 24, 32, 48]
    errs = [wave(n, 0.05, 5 * n)["err"] for n in ns]
    for i in range(len(ns) - 1):
        p = math.log(errs[i] / errs[i + 1]) / math.log(ns[i + 1] / ns[i])
        check(abs(p - 6) <= 0.3, "n %d -> %d: error %.3e -> %.3e, order %.2f (6 +- 0.3)"
              % (ns[i], ns[i + 1], errs[i], errs[i + 1], p))
elif CHECK == "energy":
    a, b = wave(32, 0.4, 20), wave(32, 0.2, 40)
    da, db = 1 - a["ratio"], 1 - b["ratio"]
    p = math.log(da / db) / math.log(2)
    check(abs(p - 3) <= 0.3, "drift %.4e (dt) and %.4e (dt/2): order %.2f (3 +- 0.3)" % (da, db, p))
    for r, d in ((a, da), (b, db)):
        dp = 1 - r["ratio_pred"]
        check(abs(d / dp - 1) < 0.01, "drift %.6e, predicted 1 - |R|^2N = %.6e" % (d, dp))
elif CHECK == "div":
    n = (24, 24, 24)
    f0 = run(n, 0, "--init", "curl", "--tiles", "2", np_=2)
    f1 = run(n, 10, "--init", "curl", "--tiles", "2", np_=2)
    scale = max(abs(f0[:3]).max(), abs(f0[3:]).max()) * 24
    for name, f in (("start", f0), ("after 10 steps", f1)):
        de, dh = div(f, n)
        check(max(de, dh) < 1e-14 * scale, "%s: max |div E| %.2e, max |div H| %.2e (fields "
              "max/h %.2e)" % (name, de, dh, scale))
    check(abs(f1 - f0).max() > 1e-3 * abs(f0).max(), "the fields did change")
else:
    sys.exit("unknown check '%s' (allowed: phase, order, energy, div)" % CHECK)
sys.exit(1 if fail else 0)
