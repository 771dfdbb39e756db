# The build glue of a Tessera kernel and app, in the tree and outside it (installed with the
# package and included by find_package(Tessera)):
#
#   tessera_add_kernel(<target> [CPU <file.c>...] [CUDA <file.cu>...])
#       adds a kernel's sources to <target> (a library or an executable) with the flags the
#       stencil layer's bitwise contract needs: C at -O3 with -ffp-contract=off (GCC unswitches
#       and vectorises the generic row sweeps; no fused multiply-add) and -fno-trapping-math (a
#       branch of a cell function on a constant, Maxwell's first substep, may compute both sides
#       and select, so that its row still vectorises: the same values, only the floating-point
#       exception flags, which nothing reads, may differ), CUDA with -fmad=false (no
#       fused multiply-add either, so CPU == GPU bit for bit) and C++17. TESSERA_CPU_ARCH
#       (Tessera's -DTESS_CPU_ARCH=native, x86-64-v3, ...) adds -march= to the CPU sources: wider
#       vectors, the same values (each cell's operations and their order do not change, and
#       -ffp-contract=off keeps fused multiply-adds out). The CUDA sources are
#       built only when Tessera was (TESSERA_HAVE_CUDA); otherwise they are ignored. The files'
#       folders join <target>'s include path (the cell source a kernel names is found there).
#       A kernel given CPU sources only is a CPU kernel in every build (TESS_KERNEL_NO_CUDA: its
#       record has no GPU launcher; a run that puts its tiles on GPUs is refused with a message).
#
#   tessera_add_app(<name> SOURCES <app.c>... [KERNEL_CPU <file.c>...] [KERNEL_CUDA <file.cu>...])
#       an executable linking the runtime and the apps' common start-up and loop (app.h), with
#       its kernels added as above. A new app is one folder whose CMakeLists.txt calls this.
#
# Outside the tree, a project with CUDA kernels enables CUDA itself when TESSERA_HAVE_CUDA is on
# (enable_language must run at file scope): see share/tessera/app-skeleton/CMakeLists.txt.
include_guard(GLOBAL)

function(tessera_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 K "" "" "CPU;CUDA")
  if(K_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_kernel(${target}): unknown arguments '${K_UNPARSED_ARGUMENTS}' "
                        "(allowed: CPU <files>, CUDA <files>)")
  endif()
  foreach(f IN LISTS K_CPU K_CUDA) # the cell source beside them (TESS_STENCIL_SOURCE "x_cell.h")
    get_filename_component(d "${f}" ABSOLUTE)
    get_filename_component(d "${d}" DIRECTORY)
    target_include_directories(${target} PRIVATE "${d}")
  endforeach()
  foreach(f IN LISTS K_CPU)
    get_filename_component(f "${f}" ABSOLUTE)
    target_sources(${target} PRIVATE "${f}")
    set_property(SOURCE "${f}" TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS
                 -O3 -ffp-contract=off $<$<C_COMPILER_ID:GNU,Clang>:-fno-trapping-math>)
    if(TESSERA_CPU_ARCH)
      set_property(SOURCE "${f}" TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS
                   -march=${TESSERA_CPU_ARCH})
    endif()
    if(NOT K_CUDA) # no launcher to link, even in a CUDA build: GPU tiles are refused at setup
      set_property(SOURCE "${f}" TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_DEFINITIONS
                   TESS_KERNEL_NO_CUDA)
    endif()
  endforeach()
  if(TESSERA_HAVE_CUDA AND K_CUDA)
    foreach(f IN LISTS K_CUDA)
      get_filename_component(f "${f}" ABSOLUTE)
      target_sources(${target} PRIVATE "${f}")
      set_property(SOURCE "${f}" TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS
                   -fmad=false)
    endforeach()
    set_property(TARGET ${target} PROPERTY CUDA_STANDARD 17)
    if(TESSERA_CUDA_ARCHITECTURES)
      get_property(_arch TARGET ${target} PROPERTY CUDA_ARCHITECTURES)
      if(NOT _arch)
        set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${TESSERA_CUDA_ARCHITECTURES})
      endif()
    endif()
  endif()
endfunction()

function(tessera_add_app name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "" "SOURCES;KERNEL_CPU;KERNEL_CUDA")
  if(A_UNPARSED_ARGUMENTS OR NOT A_SOURCES)
    message(FATAL_ERROR "tessera_add_app(${name}): needs SOURCES <files> (also allowed: "
                        "KERNEL_CPU <files>, KERNEL_CUDA <files>); got '${A_UNPARSED_ARGUMENTS}'")
  endif()
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE Tessera::appio Tessera::tessera Tessera::warnings m)
  tessera_add_kernel(${name} CPU ${A_KERNEL_CPU} CUDA ${A_KERNEL_CUDA})
endfunction()
