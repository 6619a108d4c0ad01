"""Benchmark suite of opendp-graph (issue 7: "fast at scale").

Run from the repository root::

    python -m benchmarks.run                 # the issue's full table (tens of minutes on 2 cores)
    python -m benchmarks.run --quick         # CI-sized (well under a minute)
    python -m benchmarks.run --out DIR       # where results.json and results.md go

Each group of cases runs in its own Python process, so one case's memory does not inflate the
next; inside a process the peak resident memory is reset before each case (Linux
``/proc/self/clear_refs``) and read back from ``VmHWM`` afterwards. Timings are medians of
repeated runs (wall clock, ``time.perf_counter``). See :mod:`benchmarks.run` for the cases.

``benchmarks/results/`` (the default ``--out``) is git-ignored scratch; the run quoted in the
documentation is copied to ``benchmarks/RESULTS.md`` and ``benchmarks/RESULTS.json``.

Modules: :mod:`benchmarks.data` (data sets: Enron, Deezer with shared genres, synthetic),
:mod:`benchmarks.naive` (the straightforward NetworkX Global model, the speed-up baseline),
:mod:`benchmarks.run` (the runner and report).
"""
