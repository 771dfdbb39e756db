#!/usr/bin/env bash
# fetch-hwloc-xml.sh — real machines' topologies for the topology tests, fetched once.
#
# hwloc's own test suite ships XML exports of real machines (tests/hwloc/xml/*.xml in its
# source). They are not ours to commit, so this extracts them from Debian's hwloc source
# package into a cache outside the repository and prints that directory:
#     ${TESSERA_CACHE:-$HOME/.cache/tessera}/hwloc-xml
# Idempotent (a complete cache is reused as is); safe when tests run it concurrently.
# Exits 77 (ctest: skipped) when it cannot: no apt-get, no deb-src entry, no network.
set -u
dest=${TESSERA_CACHE:-$HOME/.cache/tessera}/hwloc-xml
if [ -f "$dest/.complete" ]; then echo "$dest"; exit 0; fi
skip() { echo "fetch-hwloc-xml: $*; skipping" >&2; exit 77; }

command -v apt-get >/dev/null || skip "apt-get not found"
mkdir -p "$(dirname "$dest")" || skip "cannot create $(dirname "$dest")"
tmp=$(mktemp -d "$(dirname "$dest")/.hwloc-xml.XXXXXX") || skip "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && timeout 300 apt-get source --download-only hwloc >"$tmp/apt.log" 2>&1) ||
  skip "'apt-get source --download-only hwloc' failed (deb-src entry missing, or offline): $(tail -n1 "$tmp/apt.log")"
tarball=$(ls "$tmp"/hwloc_*.orig.tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || skip "no hwloc_*.orig.tar.* downloaded"
mkdir "$tmp/xml"
tar -xf "$tarball" -C "$tmp/xml" --wildcards --no-anchored --strip-components=4 \
  '*/tests/hwloc/xml/*.xml' 2>"$tmp/tar.log" || skip "cannot extract XML files: $(tail -n1 "$tmp/tar.log")"
ls "$tmp/xml"/*.xml >/dev/null 2>&1 || skip "no tests/hwloc/xml/*.xml in $(basename "$tarball")"
basename "$tarball" >"$tmp/xml/.complete"
# Another run may have finished first: keep its copy.
mv -T "$tmp/xml" "$dest" 2>/dev/null || [ -f "$dest/.complete" ] || skip "cannot move into $dest"
echo "$dest"
