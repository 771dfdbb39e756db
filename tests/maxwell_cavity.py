#!/usr/bin/env python3
"""maxwell_cavity.py APP MPIEXEC — a perfectly conducting cavity (boundary.walls = pec) against
the analytic cavity and the scheme's own prediction, computed here with numpy.

  E_z = sin(pi l x) sin(pi m y), H = 0 (a TM_lm standing mode of the unit square) between PEC
  walls on x and y. The fills mirror it exactly (tangential E odd, normal H odd, the rest even),
  so the 6th-order operator sees the mode of the periodic box twice as large:
    frequency  the mode's amplitude after n steps is Re(R^n), R = RK3's factor at omega* dt
               (omega* from the 6th-order symbol), within 1e-9; and cos(omega t) of the analytic
               cavity, omega = c pi sqrt(l^2 + m^2), within 1e-5 (lowest modes (1,1), (2,1))
    energy     1/2 <eps E^2 + mu H^2> decays only by RK3's damping: E_n / E_0 = |R|^(2n) to 1e-9
    bitwise    a 3D cavity walled on every axis: 1 rank x 1 tile and 2 ranks x 2 tiles give the
               same bits
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

APP, MPIEXEC = sys.argv[1:3]
TMP = tempfile.mkdtemp()
fail = 0


def run(n, steps, *args, np_=1, name="d.bin"):
    out = os.path.join(TMP, name)
    cmd = [MPIEXEC, "--oversubscribe", "-np", str(np_), APP, "--grid", ",".join(map(str, n)),
           "--steps", str(steps), "--every", str(steps), "--dump", out, "--init", "cavity",
           "--set", "boundary.walls=pec"] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode:
        sys.exit("FAIL: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    lines = [l.split() for l in r.stdout.splitlines() if l.startswith("step")]
    t = float(lines[-1][3])
    energy = [float(l[5]) for l in lines]
    return np.fromfile(out).reshape(6, n[2], n[1], n[0]), t, energy


def k_star(theta):  # the 6th-order first difference's symbol, times h
    return 2 * (3 / 4 * math.sin(theta) - 3 / 20 * math.sin(2 * theta) + 1 / 60 * math.sin(3 * theta))


def rk3(y):  # RK3's amplification factor for u' = i omega u, y = omega dt
    return 1 + 1j * y - y * y / 2 - 1j * y ** 3 / 6


def check(ok, msg):
    global fail
    print(("ok: " if ok else "FAIL: ") + msg)
    fail |= not ok


eps, mu = 2.0, 0.5
c = 1 / math.sqrt(eps * mu)
for l, m in ((1, 1), (2, 1)):
    n, steps = 32, 120
    f, t, energy = run((n, n, 1), steps, "--periodic", "z", "--wave", "%d,%d,0" % (l, m),
                       "--eps", str(eps), "--mu", str(mu))
    h = 1 / n
    dt = t / steps
    x = (np.arange(n) + 0.5) / n
    mode = np.outer(np.sin(math.pi * m * x), np.sin(math.pi * l * x))  # [y][x]
    amp = float((f[2, 0] * mode).sum() / (mode * mode).sum())
    w_star = c * math.hypot(k_star(math.pi * l * h), k_star(math.pi * m * h)) / h
    R = rk3(w_star * dt)
    pred, exact = (R ** steps).real, math.cos(c * math.pi * math.hypot(l, m) * t)
    check(abs(amp - pred) < 1e-9, "TM%d%d: amplitude %.12f, scheme %.12f (diff %.2e)" % (l, m, amp, pred, abs(amp - pred)))
    check(abs(amp - exact) < 1e-5, "TM%d%d: amplitude %.9f, analytic cavity cos(omega t) %.9f (diff %.2e)" % (l, m, amp, exact, abs(amp - exact)))
    ratio, want = energy[-1] / energy[0], abs(R) ** (2 * steps)
    check(abs(ratio - want) < 1e-9, "TM%d%d: energy ratio %.12f, RK3 damping %.12f" % (l, m, ratio, want))

a, _, _ = run((16, 16, 16), 12, "--periodic", "none", "--wave", "1,2,0", "--tiles", "1", name="a.bin")
b, _, _ = run((16, 16, 16), 12, "--periodic", "none", "--wave", "1,2,0", "--tiles", "2", np_=2, name="b.bin")
check(a.tobytes() == b.tobytes(), "3D cavity walled on every axis: 2 ranks x 2 tiles = 1 tile, bitwise")
sys.exit(fail)
