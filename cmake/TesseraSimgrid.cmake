# Decides TESS_SIMGRID: StarPU was built in SimGrid mode (scripts/install-simgrid.sh), so this
# build simulates runs instead of making them (docs/simulation.md). That StarPU is static (StarPU-
# MPI under SimGrid's SMPI needs it): its dependencies (SimGrid, hwloc) come from the .pc files'
# private part. The C compiler must be SimGrid's smpicc (scripts/build.sh does it), whose MPI is
# SMPI's.
set(TESS_SIMGRID OFF)
if(TESS_STARPU_CONFIG)
  file(STRINGS "${TESS_STARPU_CONFIG}" _line REGEX "^#define STARPU_SIMGRID 1")
  if(_line)
    set(TESS_SIMGRID ON)
  endif()
endif()
if(TESS_SIMGRID)
  get_filename_component(_cc "${CMAKE_C_COMPILER}" NAME)
  if(NOT _cc MATCHES "^smpicc")
    message(FATAL_ERROR "StarPU (${STARPU_INCLUDE_DIRS}) is built for SimGrid: configure with "
                        "CC=smpicc (TESS_SIMGRID=1 scripts/build.sh does)")
  endif()
  add_compile_definitions(TESS_SIMGRID)
  # Tessera's MPI calls go through StarPU-MPI there (runtime/simgrid_mpi.h says why).
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:SHELL:-include ${CMAKE_SOURCE_DIR}/runtime/simgrid_mpi.h>")
endif()
message(STATUS "Tessera: SimGrid simulation build = ${TESS_SIMGRID}")
