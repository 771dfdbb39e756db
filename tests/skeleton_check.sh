#!/usr/bin/env bash
# skeleton_check.sh BUILD_DIR MPIEXEC WORK — the app skeleton as a user meets it: `cmake --install`
# into WORK/prefix, the skeleton copied from the installed share/tessera/app-skeleton to a folder of
# its own, configured with find_package(Tessera) against that prefix alone (tessera_add_app), built,
# and run for a few steps under mpiexec on two ranks; the app checks itself (u_1 = 2 u_0 bit for bit).
set -u
build=$1 mpiexec=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
step() { echo "== $1"; shift; "$@" >"$work/log" 2>&1 || { tail -30 "$work/log"; echo "FAIL"; exit 1; }; }
step "cmake --install" cmake --install "$build" --prefix "$work/prefix"
[ -f "$work/prefix/share/tessera/app-skeleton/CMakeLists.txt" ] || { echo "FAIL: skeleton not installed"; exit 1; }
cp -r "$work/prefix/share/tessera/app-skeleton" "$work/my-app"
step "configure (find_package(Tessera))" cmake -S "$work/my-app" -B "$work/my-app/build" \
  -DCMAKE_PREFIX_PATH="$work/prefix"
step "build" cmake --build "$work/my-app/build"
out=$("$mpiexec" --oversubscribe -np 2 "$work/my-app/build/tess-skeleton" --grid 16,12,8 --steps 6 \
  --every 2 --out "$work/run" 2>&1)
rc=$?
echo "$out" | tail -5
[ $rc -eq 0 ] || { echo "FAIL: tess-skeleton exited $rc"; exit 1; }
echo "$out" | grep -q "check: u_1 = 2 u_0 bit for bit.*: ok" || { echo "FAIL: no passing check line"; exit 1; }
echo "ok: the installed skeleton built out of tree and ran on two ranks"
