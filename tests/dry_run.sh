#!/bin/sh
# dry_run.sh APP BAD_FLAG BAD_VALUE: the dry run of APP (--dry-run) with settings that would write
# everywhere (snapshots, checkpoints, a dump, a trace, an output directory that does not exist)
# from flags, a TESSERA_* variable and a --config file: exit 0, exactly its one line on stdout,
# nothing on stderr, no file or directory made; then the same with an app check's bad value
# (BAD_FLAG BAD_VALUE, refused only by the app's own check): exit 2, one line naming the
# program, still nothing made; and an unknown snapshot variable: exit 2, its message.
set -u
app=$1 bad_flag=$2 bad_value=$3
prog=$(basename "$app")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
printf '[output]\nsnapshot_every = 1\ndump = d.raw\n[checkpoint]\nevery = 1\n' > run.ini
TESSERA_RUNTIME_TRACE=trace "$app" --config run.ini --out o/p --steps 3 --every 1 --dry-run \
  > out 2> err
rc=$?
status=0
[ "$rc" = 0 ] || { echo "dry run: exit $rc (expected 0)"; status=1; }
[ "$(cat out)" = "$prog: settings OK (dry run; nothing started or written)" ] ||
  { echo "dry run: stdout:"; cat out; status=1; }
[ -s err ] && { echo "dry run: stderr:"; cat err; status=1; }
"$app" --config run.ini --out o/p "$bad_flag" "$bad_value" --dry-run > out2 2> err2
rc=$?
[ "$rc" = 2 ] || { echo "bad value: exit $rc (expected 2)"; status=1; }
[ "$(wc -l < err2)" = 1 ] && grep -q "^$prog: " err2 ||
  { echo "bad value: stderr:"; cat err2; status=1; }
[ -s out2 ] && { echo "bad value: stdout:"; cat out2; status=1; }
# the snapshot variables too: they are the app's own names
"$app" --snapshot-vars bogus --snapshot-every 1 --dry-run > out2 2> err2
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < err2)" = 1 ] &&
  grep -q "^$prog: output.snapshot_vars: unknown variable 'bogus' (allowed: all, " err2 ||
  { echo "--snapshot-vars bogus: exit $rc, stderr:"; cat err2; status=1; }
left=$(ls -A | grep -v -x -e run.ini -e out -e err -e out2 -e err2)
[ -z "$left" ] || { echo "files made: $left"; status=1; }
[ "$status" = 0 ] && echo "dry run of $prog: OK"
exit $status
