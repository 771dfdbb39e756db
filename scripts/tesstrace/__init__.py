"""tesstrace — the parts of scripts/trace_summary.py, which summarises a Tessera trace directory.

    tasks.py     task kinds, names and directions, the Task record of tasks.rec, percentiles
    read.py      reading tasks.rec and the MPI messages and worker names of paje.trace
    model.py     the Trace: tasks on aligned rank clocks, each unpack's halo exchange matched
                 to its producer and MPI message, hidden (overlapped) exchange time
    stats.py     per-kind, exchange and worker statistics, outer-segment delays, --unpack
    critical.py  the critical path over DependsOn and halo edges
    report.py    the text report and the JSON document
    timeline.py  the PNG timeline (--png)
"""
