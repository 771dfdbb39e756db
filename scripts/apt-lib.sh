# apt-lib.sh — sourced by install-deps.sh and install-cuda-mpi.sh: the Debian steps both take.
# Needs a log function; runs apt as root, or through sudo.
APT_SUDO=""; [ "$(id -u)" -eq 0 ] || APT_SUDO=sudo

# What apt, dpkg and the source builds print goes to one file, so that a first run shows one
# line per set-up step (the log function's) instead of pages of package output.
SETUP_LOG=${TESSERA_SETUP_LOG:-${TESSERA_CACHE:-$HOME/.cache/tessera}/setup.log}
mkdir -p "$(dirname "$SETUP_LOG")"

# quietly CMD...: runs CMD (a command or a function) with its output appended to SETUP_LOG;
# on failure shows the log's last lines and its path, and returns CMD's status.
quietly() {
  printf '\n==== %s: %s\n' "$(date -u +%FT%TZ)" "$*" >>"$SETUP_LOG"
  local rc=0
  "$@" >>"$SETUP_LOG" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] && return 0
  tail -n 20 "$SETUP_LOG" >&2
  log "failed (exit $rc): $*; the whole output is in $SETUP_LOG"
  return "$rc"
}

# apt_need PKG...: installs the packages not installed yet (nothing when all are).
apt_need() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${#missing[@]} Debian packages (output: $SETUP_LOG)"
  quietly $APT_SUDO apt-get update -qq
  quietly env DEBIAN_FRONTEND=noninteractive $APT_SUDO apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
}

# apt_deb_src: a deb-src entry for bookworm main, which `apt-get source` needs (idempotent).
apt_deb_src() {
  apt-get indextargets --format '$(IDENTIFIER)' 2>/dev/null | grep -qx 'Sources' && return 0
  log "adding a deb-src entry for bookworm main"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
    $APT_SUDO tee /etc/apt/sources.list.d/tessera-src.sources >/dev/null
  quietly $APT_SUDO apt-get update -qq
}
