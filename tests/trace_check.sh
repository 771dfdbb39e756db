#!/usr/bin/env bash
# trace_check.sh HEAT MPIEXEC [files|delay|vite|all] — the --trace path, end to end:
#   files  a traced 2-rank CPU run (tess-heat 24^3, 2 steps) leaves paje.trace, dag.dot and
#          tasks.rec; scripts/trace_summary.py finds pack, exchange, inner and outer tasks (each
#          message unpacked by the class that reads it), matches the inter-rank halos to MPI
#          messages, reports utilisation, hidden share, critical path, outer halo delays, and
#          draws a non-blank timeline PNG; the same with --unpack-in-class=false, where the
#          messages have unpack tasks of their own, finds all five kinds
#   delay  with halo +x of tile 0 held back 0.5 s (--delay 0,14,0.5, 1 step): outer segments of
#          t0 not needing +x started before that halo arrived, and exactly those with +x in
#          their direction (the ones depending on 'unpack t0 +x s0') started after it
#   vite   ViTE (the viewer users open paje.trace with) exports the merged trace: the picture
#          is non-empty and not blank, ViTE's parse log has no problem besides StarPU's own
#          unknown thread containers, and a zoomed export draws the task states in the kind
#          colours (so ViTE read the task names and colours)
# Needs /usr/bin/python3 with matplotlib, vite, and a headless display for it (Qt's offscreen
# platform, else xvfb-run): without them the test is skipped (77). TESS_TRACE_KEEP=1 keeps the
# work directory.
set -u
heat=$1 mpiexec=$2 which=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)
summary="$here/../scripts/trace_summary.py"
checks="$here/trace_checks.py"
PY=/usr/bin/python3

skip() { echo "SKIP: $*"; exit 77; }
[ -x $PY ] || skip "$PY not found (Debian's python3)"
$PY -c 'import matplotlib' 2>/dev/null || skip "matplotlib missing for $PY (apt-get install python3-matplotlib)"
if [ "$which" = all ] || [ "$which" = vite ]; then
  command -v vite >/dev/null || skip "vite missing (apt-get install vite xvfb)"
  command -v xvfb-run >/dev/null || skip "xvfb-run missing (apt-get install xvfb)"
fi

dir=$(mktemp -d)
if [ -n "${TESS_TRACE_KEEP:-}" ]; then echo "work directory: $dir"; else trap 'rm -rf "$dir"' EXIT; fi
fail=0
bad() { echo "FAIL: $*"; fail=1; }

run() { # name args... — a traced 2-rank run into $dir/name
  local name=$1; shift
  if ! timeout 300 "$mpiexec" --oversubscribe -np 2 "$heat" "$@" --trace "$dir/$name" \
      > "$dir/$name.log" 2>&1; then
    cat "$dir/$name.log"; [ -f "$dir/$name/fxt_tool.log" ] && cat "$dir/$name/fxt_tool.log"
    echo "FAIL: traced run '$name' failed: $heat $*"; exit 1
  fi
}

summarise() { # name [summary args...] — text to $dir/name.txt, JSON to $dir/name.json
  local name=$1; shift
  if ! $PY "$summary" "$dir/$name" --json "$dir/$name.json" "$@" > "$dir/$name.txt" 2>&1; then
    cat "$dir/$name.txt"; echo "FAIL: trace_summary.py failed on $name"; exit 1
  fi
}

check_files() {
  echo "== files: traced 2-rank run, summary"
  run t1 --grid 24,24,24 --steps 2
  for f in paje.trace dag.dot tasks.rec; do
    if [ -s "$dir/t1/$f" ]; then echo "  $f: $(wc -c < "$dir/t1/$f") bytes"
    else bad "$f missing or empty in the trace directory"; fi
  done
  [ -e "$dir/t1/prof_file__0" ] && [ -e "$dir/t1/prof_file__1" ] || bad "a rank's prof_file is missing"
  summarise t1 --png "$dir/t1.png" || return
  sed -n '1,/^Worker/p' "$dir/t1.txt" | sed 's/^/  | /' | head -20
  $PY "$checks" summary "$dir/t1.json" || fail=1
  $PY "$checks" png "$dir/t1.png" 6 || fail=1
  echo "== files: the same with an unpack task for each message (--unpack-in-class=false)"
  run t2 --grid 24,24,24 --steps 2 --unpack-in-class=false
  summarise t2 || return
  $PY "$checks" summary "$dir/t2.json" unpack || fail=1
}

check_delay() {
  echo "== delay: halo +x of tile 0 held back 0.5 s"
  run d1 --grid 24,24,24 --steps 1 --delay 0,14,0.5
  summarise d1 --unpack "unpack t0 +x s0" --details
  sed -n '/^Unpack/,$p' "$dir/d1.txt" | sed 's/^/  | /' | head -40
  $PY "$checks" delay "$dir/d1.json" "unpack t0 +x s0" "+x" || fail=1
}

vite_export() { # trace out.svg [-t T0:T1] — ViTE's own SVG export, headless; log in out.log
  local trace=$1 out=$2; shift 2
  local wd; wd=$(mktemp -d -p "$dir")
  # ViTE writes its parse log (log.txt) into the current directory
  (cd "$wd" && HOME="$wd" XDG_RUNTIME_DIR="$wd" QT_QPA_PLATFORM=offscreen \
     timeout 120 vite -f "$trace" -e "$out" "$@" > "$out.log" 2>&1)
  if [ ! -s "$out" ]; then  # no offscreen Qt platform: a virtual X server
    (cd "$wd" && HOME="$wd" XDG_RUNTIME_DIR="$wd" timeout 120 xvfb-run -a \
       vite -f "$trace" -e "$out" "$@" > "$out.log" 2>&1)
  fi
  [ -f "$wd/log.txt" ] && cp "$wd/log.txt" "$out.parse.txt"
  [ -s "$out" ]
}

check_vite() {
  echo "== vite: ViTE reads the merged trace"
  # a run with unpack tasks, so that every kind has states to draw
  [ -f "$dir/t2.json" ] || { run t2 --grid 24,24,24 --steps 2 --unpack-in-class=false; summarise t2; }
  if ! vite_export "$dir/t2/paje.trace" "$dir/vite.svg"; then
    cat "$dir/vite.svg.log"; bad "ViTE exported nothing from paje.trace"; return
  fi
  echo "  vite.svg: $(wc -c < "$dir/vite.svg") bytes, $(grep -c '<rect' "$dir/vite.svg") rectangles;" \
       "$(grep -a 'ERROR:' "$dir/vite.svg.log" | head -1)"
  if command -v rsvg-convert >/dev/null; then
    rsvg-convert "$dir/vite.svg" -o "$dir/vite.png" || bad "rsvg-convert failed on ViTE's SVG"
    [ -s "$dir/vite.png" ] && { $PY "$checks" png "$dir/vite.png" 6 || fail=1; }
  else
    n=$(grep -o 'fill="[^"]*"' "$dir/vite.svg" | sort -u | wc -l)
    echo "  (no rsvg-convert: SVG only) $n distinct fills"
    [ "$n" -ge 6 ] || bad "ViTE's export has $n distinct fill colours: blank"
  fi
  if [ -f "$dir/vite.svg.parse.txt" ]; then
    $PY "$checks" vite-log "$dir/vite.svg.parse.txt" || fail=1
  fi
  # zoomed in (2 ms from the first task) ViTE draws every state: the kinds must show
  win=$($PY "$checks" window "$dir/t2.json" 2)
  if vite_export "$dir/t2/paje.trace" "$dir/vite-zoom.svg" -t "$win"; then
    $PY "$checks" vite-colours "$dir/vite-zoom.svg" || fail=1
  else
    bad "ViTE exported nothing for the window $win"
  fi
}

case $which in
  files) check_files ;;
  delay) check_delay ;;
  vite) check_vite ;;
  all) check_files; check_delay; check_vite ;;
  *) echo "usage: $0 HEAT MPIEXEC [files|delay|vite|all]"; exit 2 ;;
esac
[ $fail -eq 0 ] && echo "PASS: trace ($which)"
exit $fail
