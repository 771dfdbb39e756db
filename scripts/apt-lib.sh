# apt-lib.sh — sourced by install-deps.sh and install-cuda-mpi.sh: the Debian steps both take.
# Needs a log function; runs apt as root, or through sudo.
APT_SUDO=""; [ "$(id -u)" -eq 0 ] || APT_SUDO=sudo

# apt_need PKG...: installs the packages not installed yet (nothing when all are).
apt_need() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  $APT_SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $APT_SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
}

# apt_deb_src: a deb-src entry for bookworm main, which `apt-get source` needs (idempotent).
apt_deb_src() {
  apt-get indextargets --format '$(IDENTIFIER)' 2>/dev/null | grep -qx 'Sources' && return 0
  log "adding a deb-src entry for bookworm main"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
    $APT_SUDO tee /etc/apt/sources.list.d/tessera-src.sources >/dev/null
  $APT_SUDO apt-get update -qq >&2
}
