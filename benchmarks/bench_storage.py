"""Storage: appending and reading Decision Memory on SQLite.

The search index reads a whole project at a time, so reading back is what
matters. The floor is what no adapter can beat with the same file: fetching
the rows and ``json.loads``-ing them; the rest is building the attrs models
with the wire converter (one structuring pass per row).
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from semreport.domain import Decision, Evidence, Link
from semreport.storage._common import decode_decision
from semreport.storage.memory import MemoryStorage
from semreport.storage.sqlite import open_sqlite

TITLE = "Storage (SQLite)"
ORDER = 10


def _decisions(n: int) -> list[Decision]:
    return [
        Decision(
            id=f"d-{i:06d}",
            project_id="p-1",
            title=f"Fire door to stair core {i}",
            statement="Use an FD60S door set with intumescent seals and a self-closer.",
            agent="agent-fire",
            rationale="Approved Document B requires 60 minutes between the stair and the lobby.",
            domain=("regulation", "material", "cost", "lifecycle")[i % 4],
            status="accepted",
            tags={"fire", "door", f"level-{i % 7}"},
            attributes={"cost_eur": 1250.0 + i, "fire_resistance_min": 60, "certified": True},
            evidence=[Evidence("regulation", "ADB Vol 2, 3.23", title="Approved Document B")],
            links=[Link("relates_to", f"d-{i + 1:06d}")],
            elements={f"door-{i}", "core-1"},
        )
        for i in range(n)
    ]


def _median(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run(quick: bool) -> str:
    """Measure appends and reads; return a Markdown table."""
    n = 10_000 if quick else 100_000
    repeat = 3
    batch = 1000
    items = _decisions(n)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        store = open_sqlite(f"sqlite:///{path}")
        started = time.perf_counter()
        for start in range(0, n, batch):
            store.record(items[start : start + batch])
        append = time.perf_counter() - started

        read = _median(lambda: list(store.decisions("p-1")), repeat)

        def floor() -> None:
            with sqlite3.connect(path) as conn:
                rows = conn.execute(
                    "SELECT body FROM decisions WHERE project_id = ? ORDER BY sequence", ("p-1",)
                ).fetchall()
            conn.close()
            [json.loads(body) for (body,) in rows]

        raw = _median(floor, repeat)
        one = store.get("p-1", "d-000001")
        bodies = [
            body
            for (body,) in store._conn.execute("SELECT body FROM decisions LIMIT 2000").fetchall()
        ]
        decode = _median(lambda: [decode_decision(b) for b in bodies], repeat) / len(bodies)
        memory = MemoryStorage()
        memory.record(list(store.decisions("p-1")))
        in_memory = _median(lambda: list(memory.decisions("p-1")), repeat)
        store.close()
        size = path.stat().st_size
    assert one.sequence == 2
    rows = [
        ("append, batches of 1000", append, None),
        ("read the whole project (semreport)", read, raw),
        ("peer: rows + json.loads only (floor)", raw, None),
        ("read the whole project from memory://", in_memory, None),
    ]
    table = [
        f"{n:,} decisions in one project; file size {size / 1e6:.1f} MB; "
        f"decoding one row costs {decode * 1e6:.0f} µs (json.loads + one converter pass).",
        "",
        "| operation | total (s) | per decision (µs) | ratio to floor |",
        "|---|---:|---:|---:|",
    ]
    for label, seconds, base in rows:
        ratio = f"{seconds / base:.1f}" if base else ""
        table.append(f"| {label} | {seconds:.2f} | {seconds / n * 1e6:.1f} | {ratio} |")
    return "\n".join(table)
