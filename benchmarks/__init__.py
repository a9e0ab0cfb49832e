"""Benchmarks: ``nox -s bench`` (or ``python -m benchmarks``) writes docs/performance.md.

Each ``benchmarks/bench_*.py`` module offers ``TITLE`` (its section heading),
``ORDER`` (where the section goes) and ``run(quick: bool) -> str`` (the
section's Markdown). Peers are measured in the same run on the same machine.
"""

import os

# Single-threaded, as the peers are measured: pin every native thread pool before any
# benchmark imports numpy (bm25s runs its numpy backend, n_threads=0, without numba).
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
