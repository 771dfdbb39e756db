#!/usr/bin/python3
"""snapshot_readback.py OUTDIR — checks the snapshot test_snapshot wrote into OUTDIR.

With h5py (Debian's python3-h5py; run with /usr/bin/python3): the VTKHDF ImageData attributes,
every variable bitwise equal to the gathered raw fields, the step, time and parameter
attributes, and no temporary file left. With VTK's own reader when `import vtk` works (VTK >=
9.1, what ParaView uses): the dimensions, spacing and arrays as ParaView would see them.
Exit 0: pass, 1: a check failed, 77: h5py or numpy missing (skip).
"""
import os
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skip: {e} (install python3-h5py and python3-numpy, run with /usr/bin/python3)")
    sys.exit(77)

N = (24, 20, 16)  # nx, ny, nz
H = (0.5, 0.25, 1.0)
failures = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def main(out):
    path = os.path.join(out, "snap.vtkhdf")
    nx, ny, nz = N
    u = np.fromfile(os.path.join(out, "u.raw"), dtype=np.float64).reshape(nz, ny, nx)
    v = np.fromfile(os.path.join(out, "v.raw"), dtype=np.float64).reshape(nz, ny, nx, 3)
    step, time = open(os.path.join(out, "clock.txt")).read().split()
    step, time = int(step), float.fromhex(time)
    check(not os.path.exists(path + ".tmp"), "no temporary file left")

    with h5py.File(path, "r") as f:
        g = f["VTKHDF"]
        check(g.attrs["Type"] == b"ImageData", f"Type = {g.attrs['Type']!r}")
        check(list(g.attrs["Version"]) == [1, 0], f"Version = {list(g.attrs['Version'])}")
        check(list(g.attrs["WholeExtent"]) == [0, nx - 1, 0, ny - 1, 0, nz - 1],
              f"WholeExtent = {list(g.attrs['WholeExtent'])}")
        check(list(g.attrs["Spacing"]) == list(H), f"Spacing = {list(g.attrs['Spacing'])}")
        check(list(g.attrs["Origin"]) == [0, 0, 0], f"Origin = {list(g.attrs['Origin'])}")
        check(list(g.attrs["Direction"]) == [1, 0, 0, 0, 1, 0, 0, 0, 1], "Direction = identity")
        pd = g["PointData"]
        check(sorted(pd.keys()) == ["u", "velocity", "vy"], f"arrays {sorted(pd.keys())}")
        check(same_bits(pd["u"][...], u), f"u {pd['u'].shape} {pd['u'].dtype} bitwise equal to the field")
        check(same_bits(pd["velocity"][...], v), f"velocity {pd['velocity'].shape} bitwise equal to v")
        check(same_bits(pd["vy"][...], v[..., 1]), "vy bitwise equal to component 1 of v")
        t = f["Tessera"].attrs
        check(int(t["step"]) == step, f"step = {int(t['step'])} (expected {step})")
        check(float(t["time"]).hex() == time.hex(), f"time = {float(t['time'])!r} (expected {time!r})")
        check(float(t["kappa"]) == 0.01 and float(t["dt"]) == 0.05, "kappa and dt attributes")
        check(bytes(t["text"]).startswith(b"grid = 24,20,16\n"), "text attribute")

    try:
        import vtk
        from vtk.util import numpy_support
    except ImportError:
        print("skip: VTK's Python module is not installed (python3-vtk9): reader check skipped")
        return
    r = vtk.vtkHDFReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    check(img.GetDimensions() == (nx, ny, nz), f"VTK {vtk.vtkVersion.GetVTKVersion()}: dimensions {img.GetDimensions()}")
    check(img.GetSpacing() == H, f"VTK: spacing {img.GetSpacing()}")
    a = img.GetPointData().GetArray("velocity")
    check(a is not None and a.GetNumberOfComponents() == 3, "VTK: 'velocity' is a 3-vector")
    if a is not None:
        check(same_bits(numpy_support.vtk_to_numpy(a), v.reshape(-1, 3)), "VTK: 'velocity' bitwise equal to v")
    s = img.GetPointData().GetArray("u")
    check(s is not None and same_bits(numpy_support.vtk_to_numpy(s), u.reshape(-1)), "VTK: 'u' bitwise equal")


if __name__ == "__main__":
    main(sys.argv[1])
    print(f"{len(failures)} failures")
    sys.exit(1 if failures else 0)
