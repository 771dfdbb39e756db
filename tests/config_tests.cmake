# config_tests.cmake — the [config] tests: the configuration layer alone and every app's dry
# run and settings (included by tests/CMakeLists.txt, whose tess_test and TESS_MPIEXEC it uses).

# [config] the configuration layer alone (runtime/settings/config*.c + libinih; no MPI, no StarPU):
# precedence, every message with file:line, strict values, round trip, atomic save, --help.
# The parser is fuzzed with libFuzzer for 20 s when clang can link -fsanitize=fuzzer (Debian:
# clang + libclang-rt-14-dev); otherwise config_fuzz is skipped (77). New inputs go to a corpus
# in the build tree, seeded from tests/fuzz/config; a crash leaves build/tests/fuzz-config-*.
add_executable(test_config test_config.c ${PROJECT_SOURCE_DIR}/runtime/settings/config.c
               ${PROJECT_SOURCE_DIR}/runtime/settings/config_sources.c)
target_include_directories(test_config PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include
                                               ${MPI_C_INCLUDE_DIRS}) # tessera.h includes mpi.h
target_link_libraries(test_config PRIVATE PkgConfig::INIH m tessera_warnings)
tess_test(config_unit "robustness;config;sanitize" $<TARGET_FILE:test_config>)
find_program(TESS_CLANG NAMES clang clang-14)
set(fuzz_ok 1)
if(TESS_CLANG)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe.c "#include <stddef.h>\n#include <stdint.h>\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND ${TESS_CLANG} -fsanitize=fuzzer,address,undefined fuzz_probe.c
                          -o fuzz_probe
                  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} RESULT_VARIABLE fuzz_ok
                  OUTPUT_QUIET ERROR_QUIET)
endif()
if(fuzz_ok EQUAL 0)
  set(fuzz_flags -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Wall -Wextra -Wshadow
      -Wdouble-promotion -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
  if(TESS_WERROR)
    list(APPEND fuzz_flags -Werror)
  endif()
  foreach(dir ${PROJECT_SOURCE_DIR}/runtime/include ${INIH_INCLUDE_DIRS} ${MPI_C_INCLUDE_DIRS})
    list(APPEND fuzz_flags -I${dir})
  endforeach()
  add_custom_command(OUTPUT fuzz_config
    COMMAND ${TESS_CLANG} ${fuzz_flags} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_config.c
            ${PROJECT_SOURCE_DIR}/runtime/settings/config.c
            ${PROJECT_SOURCE_DIR}/runtime/settings/config_sources.c ${INIH_LINK_LIBRARIES} -lm
            -o fuzz_config
    DEPENDS fuzz_config.c config_fixture.h ${PROJECT_SOURCE_DIR}/runtime/settings/config.c
            ${PROJECT_SOURCE_DIR}/runtime/settings/config_sources.c
            ${PROJECT_SOURCE_DIR}/runtime/settings/config_impl.h
            ${PROJECT_SOURCE_DIR}/runtime/include/tessera_config.h
    COMMENT "Building the config fuzzer with ${TESS_CLANG}" VERBATIM)
  add_custom_target(fuzz_config_build ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/fuzz_config)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz-config-corpus)
  tess_test(config_fuzz "robustness;config" ${CMAKE_CURRENT_BINARY_DIR}/fuzz_config
            -max_total_time=20 -rss_limit_mb=1024 -timeout=10
            -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz-config-
            ${CMAKE_CURRENT_BINARY_DIR}/fuzz-config-corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/config)
else()
  tess_test(config_fuzz "robustness;config" sh -c
            "echo 'config_fuzz skipped: no clang that links -fsanitize=fuzzer' && exit 77")
endif()
set_tests_properties(config_unit config_fuzz PROPERTIES FIXTURES_REQUIRED "") # no StarPU

# [config] the dry run of every app: nothing made, its one line; a value only the app's own
# check refuses (before MPI, also in a dry run): exit 2 with one message
foreach(spec "tess-heat;--order;4" "tess-ch;--m;-1" "tess-mhd;--spacing;0,1,1"
             "tess-maxwell;--wave;0,0,1" "tess-hdiff;--coeff;0.05")
  list(GET spec 0 prog)
  list(GET spec 1 flag)
  list(GET spec 2 value)
  tess_test(dry_run_${prog} "config;badinput" ${CMAKE_CURRENT_SOURCE_DIR}/dry_run.sh
            $<TARGET_FILE:${prog}> ${flag} ${value})
  set_tests_properties(dry_run_${prog} PROPERTIES FIXTURES_REQUIRED "") # no StarPU
endforeach()

# Each app's whole settings path is fuzzed too (tests/fuzz_app.c: its main up to the dry run,
# argv + TESS* environment + an INI file from the input): the app's .c, apps/common/{app,cli,
# image}.c and runtime/settings/config*.c compiled by clang with libFuzzer + ASan + UBSan, the runtime
# (never reached: tess_init aborts) linked as built, by clang (fuzz_link.sh). 10 s per app;
# seeds in tests/fuzz/<app>, new inputs in the build tree, a crash leaves
# build/tests/fuzz-<app>-*. Not in sanitizer builds (their libraries hold GCC's ASan code).
set(fuzz_apps heat:heat/heat.c:tess-heat ch:cahn_hilliard/ch.c:tess-ch mhd:mhd/mhd.c:tess-mhd
              maxwell:maxwell/maxwell.c:tess-maxwell hdiff:hdiff/hdiff.c:tess-hdiff)
if(fuzz_ok EQUAL 0 AND NOT TESS_SANITIZE)
  find_package(PNG REQUIRED) # apps/common/image.c
  set(fuzz_app_flags ${fuzz_flags})
  foreach(dir ${PROJECT_SOURCE_DIR}/codelets ${PROJECT_SOURCE_DIR}/codelets/common
              ${PROJECT_SOURCE_DIR}/codelets/heat ${PROJECT_SOURCE_DIR}/codelets/cahn_hilliard
              ${PROJECT_SOURCE_DIR}/codelets/maxwell ${PROJECT_SOURCE_DIR}/codelets/mhd
              ${PROJECT_SOURCE_DIR}/codelets/hdiff ${PROJECT_SOURCE_DIR}/apps/common
              ${STARPU_INCLUDE_DIRS} ${PNG_INCLUDE_DIRS})
    list(APPEND fuzz_app_flags -I${dir})
  endforeach()
  if(TESS_HAVE_CUDA)
    list(APPEND fuzz_app_flags -DTESS_HAVE_CUDA)
  endif()
  set(fuzz_common_objs)
  foreach(src apps/common/app.c apps/common/loop.c apps/common/cli.c apps/common/image.c apps/common/restart.c
              runtime/settings/config.c
              runtime/settings/config_sources.c)
    get_filename_component(stem ${src} NAME_WE)
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/fuzz-app-objs/${stem}.o)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${TESS_CLANG} ${fuzz_app_flags} -c ${PROJECT_SOURCE_DIR}/${src} -o ${obj}
      DEPENDS ${PROJECT_SOURCE_DIR}/${src} ${PROJECT_SOURCE_DIR}/apps/common/app.h
              ${PROJECT_SOURCE_DIR}/apps/common/cli.h
              ${PROJECT_SOURCE_DIR}/runtime/include/tessera_config.h
      COMMENT "Building ${stem}.o for the settings fuzzers with ${TESS_CLANG}" VERBATIM)
    list(APPEND fuzz_common_objs ${obj})
  endforeach()
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz-app-objs)
  add_custom_target(fuzz_app_common DEPENDS ${fuzz_common_objs})
  foreach(spec ${fuzz_apps})
    string(REPLACE ":" ";" spec ${spec})
    list(GET spec 0 app)
    list(GET spec 1 src)
    list(GET spec 2 prog)
    get_filename_component(appdir ${PROJECT_SOURCE_DIR}/apps/${src} DIRECTORY)
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/fuzz-app-objs/fuzz_app_${app}.o)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${TESS_CLANG} ${fuzz_app_flags} -I${appdir}
              -DFUZZ_APP_SOURCE=\"${PROJECT_SOURCE_DIR}/apps/${src}\" -DFUZZ_PROG=\"${prog}\"
              -c ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_app.c -o ${obj}
      DEPENDS fuzz_app.c ${PROJECT_SOURCE_DIR}/apps/${src} ${PROJECT_SOURCE_DIR}/apps/common/app.h
      COMMENT "Building the ${prog} settings fuzzer with ${TESS_CLANG}" VERBATIM)
    set_source_files_properties(${obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    add_executable(fuzz_app_${app} ${obj})
    add_dependencies(fuzz_app_${app} fuzz_app_common)
    set_target_properties(fuzz_app_${app} PROPERTIES LINKER_LANGUAGE C
      LINK_DEPENDS "${fuzz_common_objs};${CMAKE_CURRENT_SOURCE_DIR}/fuzz_link.sh"
      RULE_LAUNCH_LINK "sh ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_link.sh ${TESS_CLANG}")
    target_link_options(fuzz_app_${app} PRIVATE
                        -Wl,--wrap=fopen,--wrap=mkdir,--wrap=rename,--wrap=tess_init)
    # not tessera_appio: its GCC objects of app.c and cli.c would clash with the clang ones
    target_link_libraries(fuzz_app_${app} PRIVATE ${fuzz_common_objs} tessera PNG::PNG)
    if(app STREQUAL "mhd")
      target_link_libraries(fuzz_app_${app} PRIVATE tessera_mhd)
    endif()
    file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz-${app}-corpus)
    tess_test(app_fuzz_${app} "robustness;config" $<TARGET_FILE:fuzz_app_${app}>
              -max_total_time=10 -rss_limit_mb=2048 -timeout=10
              -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz-${app}-
              ${CMAKE_CURRENT_BINARY_DIR}/fuzz-${app}-corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${app})
    set_tests_properties(app_fuzz_${app} PROPERTIES FIXTURES_REQUIRED "") # no StarPU
  endforeach()
else()
  foreach(spec ${fuzz_apps})
    string(REPLACE ":" ";" spec ${spec})
    list(GET spec 0 app)
    tess_test(app_fuzz_${app} "robustness;config" sh -c
              "echo 'app_fuzz_${app} skipped: no clang that links -fsanitize=fuzzer (or a sanitizer build)' && exit 77")
    set_tests_properties(app_fuzz_${app} PROPERTIES FIXTURES_REQUIRED "")
  endforeach()
endif()
