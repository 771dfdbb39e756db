#!/usr/bin/env bash
# expect_fail.sh REGEX CMD... — passes when CMD exits non-zero within 60 s (no hang), its
# output matches REGEX (the message names the bad value) and the refusal was clean: every rank
# knew and ended itself, no MPI_ABORT (a setting refused after MPI started included).
set -u
regex=$1; shift
out=$(timeout 60 "$@" 2>&1); rc=$?
printf '%s\n' "$out" | tail -n 15
if [ "$rc" -eq 0 ]; then echo "FAIL: exited 0"; exit 1; fi
if [ "$rc" -eq 124 ]; then echo "FAIL: timed out (hang?)"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then echo "FAIL: output does not match /$regex/"; exit 1; fi
# a refusal must be clean: a sanitizer report on the way out fails the test too
if printf '%s\n' "$out" | grep -Eq -- "runtime error:|AddressSanitizer|LeakSanitizer"; then
  echo "FAIL: a sanitizer reported an error"; exit 1
fi
if printf '%s\n' "$out" | grep -q -- "MPI_ABORT was invoked"; then
  echo "FAIL: the job was aborted (MPI_ABORT) instead of every rank ending cleanly"; exit 1
fi
echo "ok: exit $rc, message matches /$regex/"
