#!/usr/bin/env bash
# install_check.sh BUILD_DIR SOURCE_DIR STARPU_PCDIR WORK — Tessera as a library others build on:
# `cmake --install` into WORK/prefix, then the out-of-tree example (examples/outside) built
# only against that prefix, once with find_package(Tessera) and once with pkg-config + mpicc,
# and both run (the example checks conservation and a mode's decay itself); and a table written
# with the installed option shorthands (TESS_OPT_ENTRY) compiled strictly and parsed.
set -u
build=$1 src=$2 starpu_pc=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
step() { echo "== $1"; shift; "$@" >"$work/log" 2>&1 || { tail -30 "$work/log"; echo "FAIL"; exit 1; }; }
step "cmake --install" cmake --install "$build" --prefix "$work/prefix"
for f in lib/cmake/Tessera/TesseraConfig.cmake lib/pkgconfig/tessera.pc include/tessera/tessera.h \
  include/tessera/tessera_config.h lib/libtessera.a bin/tess-mhd; do
  [ -e "$work/prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
export STARPU_SILENT=1
step "find_package(Tessera)" cmake -S "$src/examples/outside" -B "$work/cmake" \
  -DCMAKE_PREFIX_PATH="$work/prefix"
step "build" cmake --build "$work/cmake"
"$work/cmake/heat-outside" || { echo "FAIL: heat-outside (CMake)"; exit 1; }
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig:$starpu_pc
# shellcheck disable=SC2046
step "pkg-config tessera + mpicc" mpicc -std=c11 -D_POSIX_C_SOURCE=200809L \
  "$src/examples/outside/main.c" $(pkg-config --cflags --libs tessera) -o "$work/heat-pc"
LD_LIBRARY_PATH=$(pkg-config --variable=libdir starpu-1.3)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  "$work/heat-pc" || { echo "FAIL: heat-outside (pkg-config)"; exit 1; }
# The option-table shorthands of the installed tessera_config.h, strict C11: a flag, a range and
# a string entry parse into the app's variables; an out-of-range value is refused.
cat >"$work/opts.c" <<'EOF'
#include <string.h>

#include "tessera_config.h"
int main(void) {
  double kappa = 1;
  int wave = 1;
  char init[8] = "sine";
  const tess_opt opts[] = {
      TESS_OPT_ENTRY("physics.kappa", TESS_OPT_DOUBLE, &kappa, "kappa", "d", TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("init.wave", TESS_OPT_INT, &wave, NULL, "w", .min = 1, .max = 64),
      TESS_OPT_STRING_ENTRY("init.kind", init, "init", "k", .choices = "sine|bump"),
  };
  char *ok[] = {"t", "--kappa", "2.5", "--init", "bump", "--set", "init.wave=3", NULL};
  char *bad[] = {"t", "--kappa", "0", NULL};
  tess_config_t cfg = NULL;
  int quit = 0;
  if (tess_config_create("t", &cfg) || tess_config_add(cfg, opts, 3) ||
      tess_config_parse(cfg, 7, ok, &quit) || kappa != 2.5 || wave != 3 || strcmp(init, "bump") ||
      tess_config_parse(cfg, 3, bad, &quit) != TESS_ERR_ARG)
    return 1;
  tess_config_destroy(&cfg);
  return 0;
}
EOF
# shellcheck disable=SC2046
step "option shorthands (C11, -pedantic)" mpicc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra \
  -pedantic -Werror "$work/opts.c" $(pkg-config --cflags --libs tessera) -o "$work/opts"
LD_LIBRARY_PATH=$(pkg-config --variable=libdir starpu-1.3)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  "$work/opts" || { echo "FAIL: the option shorthands of the installed tessera_config.h"; exit 1; }
echo "ok: installed, and an app outside the tree built and ran against it both ways"
