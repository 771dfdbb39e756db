#!/usr/bin/env python3
"""gen_xml.py — writes the hand-made hwloc 2.x XML nodes of the topology tests (run once by a
developer; the XML files it writes are committed next to it, the tests do not run it).

Each node is described below as packages > NUMA domains > (cores, PCIe switches); a switch
holds GPUs and NICs, so "near" in the generated tree means "behind the same switch", as on
real GPU nodes. PU OS numbers follow Linux: first hardware threads of all cores, then the
second ones, so hwloc's logical PU index (what StarPU takes) differs from the OS index when
cores have 2 threads.

  gpu4-nic2-2s.xml  2 sockets x 16 cores x 2 threads; per socket one switch with 2 GPUs and
                    1 InfiniBand NIC (the paper's node: a CPU drives its 2 GPUs, 2 GPUs share
                    a NIC); plus an onboard Ethernet port on socket 0.
  gpu8-nic4-2s.xml  2 sockets x 2 NUMA domains (SNC2) x 12 cores; per domain one switch with
                    2 GPUs and 1 InfiniBand NIC (8 GPUs, 4 NICs).
  gpu1-1s.xml       1 socket, 8 cores x 2 threads, 1 GPU (VGA class 0x0300), 1 Ethernet NIC.
  gpu1-16c-1s.xml   1 socket, 16 cores x 1 thread, 1 GPU, no NIC (the lent H200 host's shape:
                    CPU ranks from 1 to 16 per node).
Validate with: lstopo-no-graphics --input FILE.xml
"""
import os

GPU_H100 = "0302 [10de:2330] [10de:16c1] a1"  # 3D controller
GPU_RTX = "0300 [10de:2684] [1043:889c] a1"   # VGA controller
NIC_CX7 = "0207 [15b3:1021] [15b3:0023] 00"   # InfiniBand, ConnectX-7
NIC_ETH = "0200 [8086:1533] [8086:0001] 03"   # Ethernet, I210
BRIDGE = "0604 [1000:c030] [1000:a064] b0"


def bitmap(bits):
  """hwloc bitmap string: 32-bit words, most significant first, zero words written out."""
  if not bits:
    return "0x0"
  words = [0] * (max(bits) // 32 + 1)
  for b in bits:
    words[b // 32] |= 1 << (b % 32)
  return ",".join("0x%08x" % w for w in reversed(words))


class Node:
  def __init__(self, name, packages, threads):
    """packages: [[domain, ...], ...]; domain: (ncores, [switch, ...]);
    switch: [(kind, osdev names), ...] with kind 'gpu', 'gpuvga', 'ib' or 'eth'."""
    self.name, self.packages, self.threads = name, packages, threads
    self.ncores = sum(d[0] for p in packages for d in p)
    self.gp = 0
    self.out = []

  def gpidx(self):
    self.gp += 1
    return self.gp

  def sets(self, pus, nodes):
    c, n = bitmap(pus), bitmap(nodes)
    return 'cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s"' % (c, c, n, n)

  def line(self, depth, text):
    self.out.append("  " * depth + text)

  def core_pus(self, core):
    return [core + t * self.ncores for t in range(self.threads)]

  def pci_tree(self, depth, domain_index, switches, bus0):
    """One host bridge per domain, one root port + switch per entry of switches."""
    busmax = bus0 + 0x0f
    self.line(depth, '<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
              'bridge_pci="0000:[%02x-%02x]">' % (self.gpidx(), bus0, busmax))
    bus = bus0 + 1
    for s, devices in enumerate(switches):
      port, up = bus, bus + 1  # root port's secondary bus, switch's internal bus
      self.line(depth + 1, '<object type="Bridge" gp_index="%d" bridge_type="1-1" depth="1" '
                'bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:%02x.0" pci_type="%s">' %
                (self.gpidx(), port, port + len(devices) + 1, bus0, s + 1, BRIDGE))
      self.line(depth + 2, '<object type="Bridge" gp_index="%d" bridge_type="1-1" depth="2" '
                'bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:00.0" pci_type="%s">' %
                (self.gpidx(), up, up + len(devices), port, BRIDGE))
      for i, (kind, osdevs) in enumerate(devices):
        dev_bus = up + 1 + i
        self.line(depth + 3, '<object type="Bridge" gp_index="%d" bridge_type="1-1" depth="3" '
                  'bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:%02x.0" pci_type="%s">' %
                  (self.gpidx(), dev_bus, dev_bus, up, i, BRIDGE))
        self.device(depth + 4, kind, osdevs, "0000:%02x:00.0" % dev_bus)
        self.line(depth + 3, "</object>")
      self.line(depth + 2, "</object>")
      self.line(depth + 1, "</object>")
      bus += 2 + len(devices)
    self.line(depth, "</object>")

  def device(self, depth, kind, osdevs, busid):
    pci_type = {"gpu": GPU_H100, "gpuvga": GPU_RTX, "ib": NIC_CX7, "eth": NIC_ETH}[kind]
    self.line(depth, '<object type="PCIDev" gp_index="%d" pci_busid="%s" pci_type="%s" '
              'pci_link_speed="31.507692">' % (self.gpidx(), busid, pci_type))
    for name in osdevs:
      if name.startswith("mlx5"):
        self.line(depth + 1, '<object type="OSDev" gp_index="%d" name="%s" osdev_type="3">' %
                  (self.gpidx(), name))
        self.line(depth + 2, '<info name="Port1State" value="4"/>')
        self.line(depth + 1, "</object>")
      else:
        self.line(depth + 1, '<object type="OSDev" gp_index="%d" name="%s" osdev_type="2"/>' %
                  (self.gpidx(), name))
    self.line(depth, "</object>")

  def write(self, path):
    all_pus = [p for c in range(self.ncores) for p in self.core_pus(c)]
    ndomains = sum(len(p) for p in self.packages)
    head = ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
            '<topology version="2.0">']
    self.line(1, '<object type="Machine" os_index="0" %s allowed_cpuset="%s" allowed_nodeset="%s" '
              'gp_index="%d">' % (self.sets(all_pus, range(ndomains)), bitmap(all_pus),
                                  bitmap(range(ndomains)), self.gpidx()))
    self.line(2, '<info name="Backend" value="Linux"/>')
    self.line(2, '<info name="HostName" value="%s"/>' % self.name)
    core, numa, bus = 0, 0, 0x00
    for p, domains in enumerate(self.packages):
      pcores = sum(d[0] for d in domains)
      ppus = [x for c in range(core, core + pcores) for x in self.core_pus(c)]
      self.line(2, '<object type="Package" os_index="%d" %s gp_index="%d">' %
                (p, self.sets(ppus, range(numa, numa + len(domains))), self.gpidx()))
      for ncores, switches in domains:
        dpus = [x for c in range(core, core + ncores) for x in self.core_pus(c)]
        depth = 3
        if len(domains) > 1:  # sub-NUMA clustering: a group per domain
          self.line(3, '<object type="Group" %s gp_index="%d" kind="1001" subkind="0">' %
                    (self.sets(dpus, [numa]), self.gpidx()))
          depth = 4
        self.line(depth, '<object type="NUMANode" os_index="%d" %s gp_index="%d" '
                  'local_memory="%d"/>' % (numa, self.sets(dpus, [numa]), self.gpidx(), 256 << 30))
        self.line(depth, '<object type="L3Cache" %s gp_index="%d" cache_size="%d" depth="3" '
                  'cache_linesize="64" cache_associativity="16" cache_type="0">' %
                  (self.sets(dpus, [numa]), self.gpidx(), 32 << 20))
        for c in range(core, core + ncores):
          self.line(depth + 1, '<object type="Core" os_index="%d" %s gp_index="%d">' %
                    (c, self.sets(self.core_pus(c), [numa]), self.gpidx()))
          for pu in self.core_pus(c):
            self.line(depth + 2, '<object type="PU" os_index="%d" %s gp_index="%d"/>' %
                      (pu, self.sets([pu], [numa]), self.gpidx()))
          self.line(depth + 1, "</object>")
        self.line(depth, "</object>")
        if switches:
          self.pci_tree(depth, numa, switches, bus)
        if len(domains) > 1:
          self.line(3, "</object>")
        core += ncores
        numa += 1
        bus += 0x40
      self.line(2, "</object>")
    self.line(1, "</object>")
    with open(path, "w") as f:
      f.write("\n".join(head + self.out + ["</topology>", ""]))


here = os.path.dirname(os.path.abspath(__file__))
Node("gpu4-nic2-2s", threads=2, packages=[
    [(16, [[("gpu", []), ("gpu", []), ("ib", ["ib0", "mlx5_0"])], [("eth", ["eno1"])]])],
    [(16, [[("gpu", []), ("gpu", []), ("ib", ["ib1", "mlx5_1"])]])],
]).write(os.path.join(here, "gpu4-nic2-2s.xml"))
Node("gpu8-nic4-2s", threads=1, packages=[
    [(12, [[("gpu", []), ("gpu", []), ("ib", ["ib%d" % d, "mlx5_%d" % d])]]) for d in (0, 1)],
    [(12, [[("gpu", []), ("gpu", []), ("ib", ["ib%d" % d, "mlx5_%d" % d])]]) for d in (2, 3)],
]).write(os.path.join(here, "gpu8-nic4-2s.xml"))
Node("gpu1-1s", threads=2, packages=[
    [(8, [[("gpuvga", [])], [("eth", ["enp5s0"])]])],
]).write(os.path.join(here, "gpu1-1s.xml"))
Node("gpu1-16c-1s", threads=1, packages=[
    [(16, [[("gpu", [])]])],
]).write(os.path.join(here, "gpu1-16c-1s.xml"))
