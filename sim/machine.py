#!/usr/bin/python3
"""machine.py — StarPU's bus model of an H200-class node with 1, 4 or 8 GPUs, for SimGrid mode.

StarPU in SimGrid mode reads, for the machine named by STARPU_HOSTNAME, the files a real run's
bus calibration writes into $STARPU_PERF_MODEL_DIR/bus/: <host>.bandwidth (MB/s) and
<host>.latency (us) as matrices over memory nodes (node 0 = RAM, node 1+i = CUDA i), and
<host>.platform.v4.xml, the SimGrid platform its transfers are simulated on. This script writes
those files for nodes that do not exist here, from the figures below, each with its source.
A real calibration of the 1-GPU machine (sim/calibrate.sh) replaces the host<->GPU figures by
measured ones: pass --from DIR/bus/HOST to take them from there.

    sim/machine.py OUTDIR [--gpus 1|4|8] [--name h200x4] [--from DIR/bus/HOST]

The GPU<->GPU links do not go through the host link (NVLink through NVSwitch, not PCIe); each
GPU has one NVLink egress and one ingress link, so several peers reading one GPU share its
NVLink bandwidth, as they do on the machine.
"""
import argparse
import os
import sys

# H200 SXM, per GPU. Sources:
#  - memory: 141 GB HBM3e (NVIDIA H200 Tensor Core GPU datasheet, 2024); 143771 MiB as
#    nvidia-smi reports it on the lent H200 (bench/results/2026-11-22-h200x8-gpus.txt).
#  - host<->GPU: PCIe Gen5 x16, 64 GB/s per direction nominal (datasheet: "PCIe Gen5 128GB/s");
#    55.5 GB/s h2d and 55.3 GB/s d2h measured (bench/results/2026-11-27-h200x4-scaling.txt).
#  - GPU<->GPU: NVLink 4 through NVSwitch, 900 GB/s per GPU both directions together (datasheet),
#    i.e. 450 GB/s each way; 396 GB/s measured GPU0->GPU1 with peer access (same file).
#  - latencies: 10 us host<->GPU and 8 us GPU<->GPU per transfer, the order of what StarPU's
#    own bus calibration records for cudaMemcpyAsync on PCIe machines (sirocco, idgraf in
#    StarPU 1.3.10's tools/perfmodels); assumed, not measured on the H200.
MEMSIZE = 143771 * 1024 * 1024
H2D = 55.5e9
D2H = 55.3e9
P2P = 396e9
LAT_HOST = 10e-6
LAT_P2P = 8e-6


def read_matrix(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            rows.append([float(x) for x in line.split()])
    return rows


def write_matrix(path, m):
    with open(path, 'w') as f:
        f.write('# ' + '\t'.join('to %d' % j for j in range(len(m))) + '\n')
        for row in m:
            f.write('\t'.join('%e' % v for v in row) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--gpus', type=int, default=1)
    ap.add_argument('--name')
    ap.add_argument('--cpus', type=int, default=4,
                    help='CPU workers per node (the runtime drives GPUs from them)')
    ap.add_argument('--from', dest='src',
                    help='a calibrated bus model (path without extension) for host<->GPU figures')
    a = ap.parse_args()
    if a.gpus not in (1, 2, 4, 8):
        sys.exit('machine.py: --gpus %d is invalid (allowed: 1, 2, 4, 8)' % a.gpus)
    name = a.name or 'h200x%d' % a.gpus
    h2d, d2h, lat_h = H2D, D2H, LAT_HOST
    if a.src:
        bw = read_matrix(a.src + '.bandwidth')
        lat = read_matrix(a.src + '.latency')
        h2d, d2h = bw[0][1] * 1e6, bw[1][0] * 1e6
        lat_h = lat[0][1] * 1e-6
    g = a.gpus
    n = 1 + g
    # Matrices in StarPU's units: MB/s and us; 0 on the diagonal.
    bw = [[0.0] * n for _ in range(n)]
    lat = [[0.0] * n for _ in range(n)]
    for i in range(1, n):
        bw[0][i], bw[i][0] = h2d / 1e6, d2h / 1e6
        lat[0][i] = lat[i][0] = lat_h * 1e6
        for j in range(1, n):
            if i != j:
                bw[i][j], lat[i][j] = P2P / 1e6, LAT_P2P * 1e6
    bus = os.path.join(a.outdir, 'bus')
    os.makedirs(bus, exist_ok=True)
    base = os.path.join(bus, name)
    write_matrix(base + '.bandwidth', bw)
    write_matrix(base + '.latency', lat)
    with open(base + '.config', 'w') as f:
        f.write('# Current configuration\n%d # Number of CPUs\n%d # Number of CUDA devices\n'
                '0 # Number of OpenCL devices\n0 # Number of MIC devices\n' % (a.cpus, g))
    x = ["<?xml version='1.0'?>",
         '<!DOCTYPE platform SYSTEM "http://simgrid.gforge.inria.fr/simgrid/simgrid.dtd">',
         '<platform version="4">',
         ' <config id="General">',
         '   <prop id="network/TCP-gamma" value="-1"></prop>',
         '   <prop id="network/latency-factor" value="1"></prop>',
         '   <prop id="network/bandwidth-factor" value="1"></prop>',
         '   <prop id="network/crosstraffic" value="0"></prop>',
         '   <prop id="network/weight-S" value="0.0"></prop>',
         ' </config>',
         ' <AS  id="AS0"  routing="Full">',
         '   <host id="MAIN" speed="1f"/>']
    x += ['   <host id="CPU%d" speed="2000000000f"/>' % c for c in range(a.cpus)]
    for i in range(g):
        x += ['   <host id="CUDA%d" speed="2000000000f">' % i,
              '     <prop id="memsize" value="%d"/>' % MEMSIZE,
              '     <prop id="memcpy_peer" value="1"/>',
              '   </host>']
    x += ['   <host id="RAM" speed="1f"/>',
          # StarPU's name for the host side (a route through it is not a direct GPU-GPU one):
          # here no limit of its own beyond the GPUs' PCIe links, both directions of all at once
          '   <link id="Host" bandwidth="%fBps" latency="0.000000s"/>' % ((h2d + d2h) * g)]
    for i in range(g):
        x += ['   <link id="RAM-CUDA%d" bandwidth="%fBps" latency="%fs"/>' % (i, h2d, lat_h),
              '   <link id="CUDA%d-RAM" bandwidth="%fBps" latency="%fs"/>' % (i, d2h, lat_h),
              '   <link id="CUDA%d-NVL" bandwidth="%fBps" latency="%fs"/>' % (i, P2P, LAT_P2P / 2),
              '   <link id="NVL-CUDA%d" bandwidth="%fBps" latency="%fs"/>' % (i, P2P, LAT_P2P / 2)]
    for i in range(g):
        x += ['   <route src="RAM" dst="CUDA%d" symmetrical="NO"><link_ctn id="RAM-CUDA%d"/>'
              '<link_ctn id="Host"/></route>' % (i, i),
              '   <route src="CUDA%d" dst="RAM" symmetrical="NO"><link_ctn id="CUDA%d-RAM"/>'
              '<link_ctn id="Host"/></route>' % (i, i)]
        for j in range(g):
            if i != j:
                x.append('   <route src="CUDA%d" dst="CUDA%d" symmetrical="NO"><link_ctn id="CUDA%d-NVL"/>'
                         '<link_ctn id="NVL-CUDA%d"/></route>' % (i, j, i, j))
    x += [' </AS>', ' </platform>']
    with open(base + '.platform.v4.xml', 'w') as f:
        f.write('\n'.join(x) + '\n')
    print(base)


if __name__ == '__main__':
    main()
