#!/usr/bin/env bash
# real-xml.sh TEST_TOPOLOGY — runs `TEST_TOPOLOGY real DIR` on the real machines' topologies
# that fetch-hwloc-xml.sh caches (exit 77, skipped, when they cannot be fetched).
set -u
dir=$("$(dirname "$0")/fetch-hwloc-xml.sh") || exit $?
exec "$1" real "$dir"
