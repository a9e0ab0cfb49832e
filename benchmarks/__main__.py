"""Run the benchmark modules and write their sections of docs/performance.md.

Each section comes from one run of its module, in which semreport and every
peer of that section are measured on the same machine with the same data.
``--only NAME`` reruns some modules and keeps the other sections as they are,
so a slow section need not be measured again to refresh a fast one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import platform
import re
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "performance.md"
_ORDER = re.compile(r"^ORDER = (\d+)$", re.M)
_SECTION = re.compile(
    r"<!-- section: (?P<name>[\w.]+) -->\n(?P<body>.*?)<!-- end: (?P=name) -->\n", re.S
)


def _modules(only: list[str]) -> list[ModuleType]:
    names = sorted(p.stem for p in (ROOT / "benchmarks").glob("bench_*.py"))
    if only:
        names = [n for n in names if any(o in n for o in only)]
    return [importlib.import_module(f"benchmarks.{n}") for n in names]


def _cpu() -> str:
    """The processor's name, with its family and model where ``/proc/cpuinfo`` gives them.

    The name alone does not tell machines apart: two "AMD EPYC" machines ran the
    same interpreted code at speeds two times apart.
    """
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if not key:
                break  # the first processor's block is enough
            fields.setdefault(key, value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or "unknown CPU"
    if "cpu family" in fields and "model" in fields:
        return f"{name}, family {fields['cpu family']} model {fields['model']}"
    return name


def _calibration() -> str:
    """Four fixed workloads timed on this machine (the best of 7 repetitions, as ``timeit``).

    A peer's query is mostly a few large numpy passes and a top 10 by
    ``np.argpartition``; semreport's request adds interpreted code and many
    small numpy calls. Machines weigh these differently, and so does an
    interpreter built with or without profile-guided optimisation: these
    figures show how a section's machine treats each, so that ratios from
    different machines can be compared. numpy's selection dispatches on the
    processor's SIMD extensions (:func:`_simd`), and its speed varies most.
    """
    import numpy as np

    table = {str(i): i for i in range(1_000)}
    keys = list(table)
    small = np.zeros(10)
    rng = np.random.default_rng(0)
    rows = np.sort(rng.choice(100_000, 50_000, replace=False))
    values = rng.random(50_000)
    scores = np.zeros(100_000)
    # A short query's BM25 scores, as bm25s holds them: float32, one row in ten above zero.
    query_scores = np.zeros(100_000, dtype=np.float32)
    query_scores[rng.choice(100_000, 10_000, replace=False)] = rng.random(10_000)

    def interpreted() -> int:
        return sum(len(key) + table[key] for key in keys)

    def numpy_call() -> object:
        return small + 1.0

    def scatter() -> None:
        np.add.at(scores, rows, values)

    def top_10() -> object:
        return np.argpartition(-query_scores, 10)[:10]

    def best(fn: Callable[[], object], number: int) -> float:
        return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6

    return (
        f"reference workloads (best of 7): 1,000 dict reads in a generator "
        f"{best(interpreted, 200):.0f} µs, a numpy call on 10 floats "
        f"{best(numpy_call, 20_000):.2f} µs, a scatter-add of 50,000 floats "
        f"{best(scatter, 50):.0f} µs, a top 10 of 100,000 float32 scores by "
        f"`np.argpartition` {best(top_10, 20):.0f} µs (numpy's SIMD targets: {_simd()})"
    )


def _simd() -> str:
    """The SIMD targets numpy dispatches to on this machine, lowest first.

    Read from numpy's own record of the processor's features (what
    ``numpy.show_runtime()`` prints as found).
    """
    try:
        from numpy._core._multiarray_umath import (  # type: ignore[attr-defined]
            __cpu_dispatch__,
            __cpu_features__,
        )
    except ImportError:  # pragma: no cover - another numpy layout
        return "unknown"
    found = [target for target in __cpu_dispatch__ if __cpu_features__.get(target)]
    return ", ".join(found) or "the baseline only"


def _machine() -> str:
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({_cpu()}), "
        f"Python {platform.python_version()}"
    )


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only", action="append", default=[], help="run modules matching")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    existing = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    sections = {m["name"]: m.group(0) for m in _SECTION.finditer(existing)}
    # Section order comes from each module's ORDER, read without importing it.
    order = {
        path.stem: int(found[1]) if (found := _ORDER.search(path.read_text())) else 100
        for path in (ROOT / "benchmarks").glob("bench_*.py")
    }

    for module in _modules(args.only):
        name = module.__name__.rsplit(".", 1)[-1]
        started = time.perf_counter()
        print(f"== {name}", file=sys.stderr, flush=True)
        body = module.run(quick=args.quick)
        took = time.perf_counter() - started
        command = f"nox -s bench -- --only {name}{' --quick' if args.quick else ''}"
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        sections[name] = (
            f"<!-- section: {name} -->\n## {module.TITLE}\n\n"
            f"_Measured {stamp} by `{command}` on {_machine()}; load average {_load()} at "
            f"the end; the section took {took:.0f} s; {_calibration()}._\n\n{body.strip()}\n"
            f"<!-- end: {name} -->\n"
        )

    header = (
        "# Performance\n\n"
        "Each section below comes from one run of its benchmark module: within a section,\n"
        "semreport and every peer were measured in the same run, on the same machine and data,\n"
        "single-threaded. Ratios are semreport's median divided by the peer's median (below\n"
        "1.0 is faster). These machines are shared and noisy: compare ratios, not absolute\n"
        "times, and mind the load average each section reports.\n\n"
        "- Reproduce everything: `nox -s bench` (or `python -m benchmarks`); one section:\n"
        "  `nox -s bench -- --only bench_search`; a smoke run: `nox -s bench -- --quick`.\n"
        "- Each section names the machine it ran on: ratios measured on different\n"
        "  processors differ (a peer's numpy kernels, for one, are not equally fast on all).\n"
        "  Its reference workloads, timed at the end of the section, show how that machine\n"
        "  runs interpreted code, a small numpy call, a large numpy pass and a top 10 by\n"
        "  `np.argpartition`: processors of the same name have run semreport's interpreted\n"
        "  share at speeds two times apart, and numpy's selection (most of a bm25s query)\n"
        "  at speeds six times apart, by the SIMD code numpy dispatches to.\n\n"
    )
    ordered = sorted(sections, key=lambda n: (order.get(n, 100), n))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + "\n".join(sections[n] for n in ordered), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
