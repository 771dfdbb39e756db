#!/usr/bin/env bash
# badinput_dry.sh REGEX INI APP ARGS... — APP ARGS --dry-run is refused before anything starts:
# exit status 2 (bad input), a message matching REGEX, nothing written. INI: the text of a
# --config file to add ("-" for none; "\n" stands for a line break).
set -u
regex=$1 ini=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
cfg=()
if [ "$ini" != - ]; then printf "$ini\n" > run.ini; cfg=(--config run.ini); fi
out=$(timeout 60 "$@" "${cfg[@]}" --dry-run 2>&1); rc=$?
printf '%s\n' "$out" | tail -n 5
[ "$rc" -eq 2 ] || { echo "FAIL: exit $rc (expected 2)"; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$regex" || { echo "FAIL: output does not match /$regex/"; exit 1; }
[ -z "$(ls -A | grep -v '^run.ini$')" ] || { echo "FAIL: files made: $(ls -A)"; exit 1; }
echo "ok: exit 2, message matches /$regex/"
