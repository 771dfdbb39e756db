#!/usr/bin/env bash
# deb-src.sh — makes sure apt knows Debian bookworm's source packages (a deb-src entry for main),
# which `apt-get source` needs; install-deps.sh (StarPU) and install-cuda-mpi.sh (Open MPI) call
# it. Idempotent; as root, or through sudo.
set -euo pipefail
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
if ! apt-get indextargets --format '$(IDENTIFIER)' 2>/dev/null | grep -qx 'Sources'; then
  printf '[deb-src] adding a deb-src entry for bookworm main\n' >&2
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
    $SUDO tee /etc/apt/sources.list.d/tessera-src.sources >/dev/null
  $SUDO apt-get update -qq >&2
fi
