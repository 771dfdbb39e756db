#!/usr/bin/env bash
# mhd-kernel-call.sh — one device run for the MHD kernel: run on the GPU host
# from a directory holding .gpu-bundle (scripts/gpu-bundle.sh), scripts/, bench/, codelets/,
# runtime/include and, optionally, base_bench and prev_bench (bench/mhd_kernel_bench.cu of older
# commits, built with nvcc -O3 -arch=sm_90 against codelets/mhd/mhd.c built with -ffp-contract=off):
# the kernel benchmark with sanitizers, Nsight Compute and SASS (bench/mhd-kernel.sh, the
# bundle's binary), the older binaries' timings on the same card, then scripts/gpu-verify.sh (GPU
# bitwise against the CPU through the runtime, MHD against the serial model, app-level times and
# the copy bandwidth). Everything lands in $OUT/o.tgz; stdout ends with the summaries.
cd "$(dirname "$0")/.."
O=/tmp/mhd-call
rm -rf $O && mkdir -p $O
nvidia-smi -L > $O/gpu.txt 2>&1
t0=$(date +%s)
OUT=$O/k MHD_BENCH_BIN=.gpu-bundle/extra/build/bench/mhd_kernel_bench \
  timeout 300 bash bench/mhd-kernel.sh > $O/kernel.txt 2>&1
t1=$(date +%s)
[ -x base_bench ] && timeout 120 ./base_bench --no-thin > $O/base.txt 2>&1
[ -x prev_bench ] && timeout 120 ./prev_bench --no-thin > $O/prev.txt 2>&1
t2=$(date +%s)
timeout 300 bash scripts/gpu-verify.sh > $O/verify.txt 2>&1
t3=$(date +%s)
echo "times: kernel $((t1 - t0)) s, older binaries $((t2 - t1)) s, gpu-verify $((t3 - t2)) s" |
  tee -a $O/gpu.txt
tar czf "${OUT:-/tmp}/o.tgz" -C /tmp mhd-call
sed -n '/===== SUMMARY/,$p' $O/kernel.txt | grep -v "^  info\|^  top:" | head -60
sed -n '/== summary/,/^$/p' $O/base.txt $O/prev.txt 2>/dev/null
cat $O/verify.txt
