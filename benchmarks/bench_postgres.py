"""Storage at scale: PostgreSQL (COPY) beside SQLite.

Ingest: one project of 1,000,000 decisions (20,000 with ``--quick``), appended
in batches of 10,000 by a fresh process per backend, so that the peak memory
(``ru_maxrss``) is that backend's alone. The rate counts the time spent inside
``record`` only; building the decisions is not timed. Read back: a project of
100,000 decisions (5,000 with ``--quick``) read whole, in sequence order, as
the search index does. Search index build from each backend, when
``semreport.search`` is installed.

The server is ``SEMREPORT_BENCH_POSTGRES_URL`` (else ``SEMREPORT_TEST_POSTGRES_URL``,
else ``postgresql://postgres@127.0.0.1:5432/test``); the run works in a schema
of its own and drops it afterwards.
"""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing
import os
import resource
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from semreport.domain import Decision, Evidence, Link, Storage
from semreport.wire import to_wire

TITLE = "Storage at scale (PostgreSQL beside SQLite)"
ORDER = 11

BATCH = 10_000
TARGET_RATE = 50_000
TARGET_INDEX_RATIO = 1.5


def _url() -> str:
    return (
        os.environ.get("SEMREPORT_BENCH_POSTGRES_URL")
        or os.environ.get("SEMREPORT_TEST_POSTGRES_URL")
        or "postgresql://postgres@127.0.0.1:5432/test"
    )


def _batch(project: str, start: int, size: int) -> list[Decision]:
    return [
        Decision(
            id=f"d-{i:07d}",
            project_id=project,
            title=f"Fire door to stair core {i}",
            statement="Use an FD60S door set with intumescent seals and a self-closer.",
            agent=f"agent-{i % 5}",
            rationale="Approved Document B requires 60 minutes between the stair and the lobby.",
            domain=("regulation", "material", "cost", "lifecycle")[i % 4],
            status=("accepted", "proposed")[i % 2],
            tags={"fire", "door", f"level-{i % 7}"},
            attributes={"cost_eur": 1250.0 + i % 100, "fire_resistance_min": 60, "ok": True},
            evidence=[Evidence("regulation", "ADB Vol 2, 3.23", title="Approved Document B")],
            links=[Link("relates_to", f"d-{i + 1:07d}")],
            elements={f"door-{i % 1000}", "core-1"},
        )
        for i in range(start, start + size)
    ]


def _open(backend: str, where: str) -> Storage:
    if backend == "postgresql":
        from semreport.storage.postgres import open_postgres

        return open_postgres(_url(), schema=where)
    from semreport.storage.sqlite import open_sqlite

    return open_sqlite(f"sqlite:///{where}")


def _ingest(backend: str, where: str, project: str, count: int, results: Any) -> None:
    """Child process: append ``count`` decisions in batches; report time and peak memory."""
    store = _open(backend, where)
    spent = cpu = 0.0
    for start in range(0, count, BATCH):
        batch = _batch(project, start, min(BATCH, count - start))
        began, began_cpu = time.perf_counter(), time.process_time()
        store.record(batch)
        spent += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
    assert store.latest_sequence(project) == count
    store.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    results.put((spent, cpu, peak_mb))


def _run_child(backend: str, where: str, project: str, count: int) -> tuple[float, float, float]:
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    child = ctx.Process(target=_ingest, args=(backend, where, project, count, results))
    child.start()
    outcome: tuple[float, float, float] = results.get(timeout=3600)
    child.join()
    if child.exitcode != 0:
        raise RuntimeError(f"the {backend} ingest process failed ({child.exitcode})")
    return outcome


def _median(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def _index_builder() -> Callable[[Storage, str], object] | None:
    """The search index build (a fresh scorer each time, so nothing is cached), if installed."""
    if importlib.util.find_spec("semreport.search") is None:
        return None
    scorer_cls = getattr(importlib.import_module("semreport.search"), "HeuristicScorer", None)
    if scorer_cls is None or not hasattr(scorer_cls, "index"):
        return None
    return lambda store, project: scorer_cls().index(store, project)


def _comparable(store: Storage) -> list[Any]:
    # The two ingest processes ran at different times: compare all but recorded_at.
    return [to_wire(attrs.evolve(d, recorded_at=None)) for d in store.decisions("read")]


def _drop(schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(_url(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def run(quick: bool) -> str:
    """Ingest and read back on both backends; return Markdown."""
    big = 20_000 if quick else 1_000_000
    small = 5_000 if quick else 100_000
    repeat = 3
    schema = f"semreport_bench_{secrets.token_hex(4)}"
    load = os.getloadavg()
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        try:
            ingest = {
                "postgresql": _run_child("postgresql", schema, "big", big),
                "sqlite": _run_child("sqlite", db, "big", big),
            }
            for backend, where in (("postgresql", schema), ("sqlite", db)):
                _run_child(backend, where, "read", small)
            stores = {"postgresql": _open("postgresql", schema), "sqlite": _open("sqlite", db)}
            read = {
                name: _median(lambda s=store: sum(1 for _ in s.decisions("read")), repeat)
                for name, store in stores.items()
            }
            same = _comparable(stores["postgresql"]) == _comparable(stores["sqlite"])
            builder = _index_builder()
            index = (
                {
                    name: _median(lambda s=store: builder(s, "read"), repeat)
                    for name, store in stores.items()
                }
                if builder is not None
                else None
            )
            for store in stores.values():
                store.close()
        finally:
            _drop(schema)

    pg_rate = big / ingest["postgresql"][0]
    lines += [
        f"Ingest: {big:,} decisions into one project, batches of {BATCH:,}, one process "
        "per backend (peak memory is that process's maximum resident set: the interpreter, "
        "the library and one batch). PostgreSQL appends each batch with one COPY in one "
        "transaction; SQLite with one transaction per batch.",
        "",
        "| backend | time in record (s) | decisions per second | client CPU per decision (µs) "
        "| peak memory (MB) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, (spent, cpu, peak) in ingest.items():
        lines.append(
            f"| {name} | {spent:.1f} | {big / spent:,.0f} | {cpu / big * 1e6:.1f} | {peak:.0f} |"
        )
    verdict = "met" if pg_rate >= TARGET_RATE else "NOT met on this run"
    lines += [
        "",
        f"Target: PostgreSQL ingest of at least {TARGET_RATE:,} decisions per second: "
        f"**{verdict}** ({pg_rate:,.0f}/s). The server runs on the same machine; the "
        "load average (1 min) was "
        f"{load[0]:.1f} before and {os.getloadavg()[0]:.1f} after this section, on "
        f"{os.cpu_count()} cores: where other work holds the cores, the wall-clock rate "
        "falls well below what the client CPU per decision alone would allow.",
        "",
        f"Read back for indexing: a project of {small:,} decisions read whole, in sequence "
        f"order (median of {repeat}); both backends return the same records "
        f"(all but `recorded_at`): {same}.",
        "",
        "| backend | read (s) | per decision (µs) | ratio to SQLite |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in read.items():
        lines.append(
            f"| {name} | {seconds:.2f} | {seconds / small * 1e6:.1f} | "
            f"{seconds / read['sqlite']:.2f} |"
        )
    lines.append("")
    if index is None:
        lines.append(
            "Search index build: `semreport.search` is not installed in this build, so the "
            "index build is not measured here; the read-back above is what it reads."
        )
    else:
        lines += [
            f"Search index build from each backend ({small:,} decisions, median of {repeat}):",
            "",
            "| backend | build (s) | ratio to SQLite |",
            "|---|---:|---:|",
        ]
        for name, seconds in index.items():
            lines.append(f"| {name} | {seconds:.2f} | {seconds / index['sqlite']:.2f} |")
        ratio = index["postgresql"] / index["sqlite"]
        verdict = "met" if ratio <= TARGET_INDEX_RATIO else "NOT met on this run"
        lines += [
            "",
            f"Target: index build from PostgreSQL within {TARGET_INDEX_RATIO}x of SQLite: "
            f"**{verdict}** ({ratio:.2f}x).",
        ]
    return "\n".join(lines)
