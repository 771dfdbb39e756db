#!/bin/sh
# fuzz_link.sh CLANG CC ARGS...: CMake's link command of a settings fuzzer (RULE_LAUNCH_LINK),
# run by clang with libFuzzer, ASan and UBSan instead of the project's C compiler CC: the
# libraries CMake resolved for the target (runtime, StarPU, MPI, HDF5, hwloc, CUDA) stay as they are.
clang=$1
shift 2
exec "$clang" -fsanitize=fuzzer,address,undefined "$@"
