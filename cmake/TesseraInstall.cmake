# cmake --install: the static libraries, the public headers (runtime API and the bundled
# kernels) under include/tessera, the CMake package (find_package(Tessera): Tessera::tessera)
# and tessera.pc, and the apps.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(_pkgdir ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
set_target_properties(tessera PROPERTIES EXPORT_NAME tessera)
set_target_properties(tessera_codelets PROPERTIES EXPORT_NAME codelets)
set_target_properties(tessera_topology PROPERTIES EXPORT_NAME topology)
set_target_properties(tessera_warnings PROPERTIES EXPORT_NAME warnings)
set_target_properties(tessera_error PROPERTIES EXPORT_NAME error)
set_target_properties(tessera_appio PROPERTIES EXPORT_NAME appio)
install(TARGETS tessera tessera_codelets tessera_topology tessera_error tessera_warnings tessera_appio
        EXPORT TesseraTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tessera-topo tess-heat tess-ch tess-mhd tess-maxwell RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB _api ${PROJECT_SOURCE_DIR}/runtime/include/*.h)
install(FILES ${_api} ${PROJECT_SOURCE_DIR}/codelets/heat/heat.h
              ${PROJECT_SOURCE_DIR}/codelets/cahn_hilliard/cahn_hilliard.h ${PROJECT_SOURCE_DIR}/codelets/mhd/mhd.h
              ${PROJECT_SOURCE_DIR}/codelets/maxwell/maxwell.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera)
# The stencil layer, for kernels written outside (see README, "Write your own app"): their C files
# need -ffp-contract=off and their .cu files -fmad=false, as codelets/CMakeLists.txt sets.
install(FILES ${PROJECT_SOURCE_DIR}/codelets/common/region.h ${PROJECT_SOURCE_DIR}/codelets/common/zchunk.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera)
install(FILES ${PROJECT_SOURCE_DIR}/codelets/stencil/stencil.h ${PROJECT_SOURCE_DIR}/codelets/stencil/cpu.h
              ${PROJECT_SOURCE_DIR}/codelets/stencil/cuda.cuh
              ${PROJECT_SOURCE_DIR}/codelets/stencil/cuda_staged.cuh ${PROJECT_SOURCE_DIR}/codelets/stencil/cuda_window.cuh
              ${PROJECT_SOURCE_DIR}/codelets/stencil/cuda_walls.cuh
              ${PROJECT_SOURCE_DIR}/codelets/stencil/cell.h
              ${PROJECT_SOURCE_DIR}/codelets/stencil/passes.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera/stencil)
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${_pkgdir})
list(GET STARPU_LIBRARY_DIRS 0 _starpu_libdir)
set(TESS_STARPU_PCDIR ${_starpu_libdir}/pkgconfig)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TesseraConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/TesseraConfig.cmake
                              INSTALL_DESTINATION ${_pkgdir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/TesseraConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TesseraConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/TesseraConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/TesseraKernel.cmake DESTINATION ${_pkgdir})
# What every app includes (Tessera::appio) and the skeleton of a new app (docs/kernels.md).
install(FILES ${PROJECT_SOURCE_DIR}/apps/common/app.h ${PROJECT_SOURCE_DIR}/apps/common/noise.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/app-skeleton/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tessera/app-skeleton)
set(TESS_PC_CFLAGS "")
set(TESS_PC_LIBS "")
if(TESS_HAVE_CUDA)
  set(TESS_PC_CFLAGS "-DTESS_HAVE_CUDA")
  set(TESS_PC_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart -lstdc++") # nvcc host code is C++
endif()
file(RELATIVE_PATH TESS_PC_UP /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p) # e.g. ../..
configure_file(${CMAKE_CURRENT_LIST_DIR}/tessera.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tessera.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
