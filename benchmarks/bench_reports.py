"""Reports: assembly, JSON, HTML and the record digest, with peak memory.

The digest is compared with the cheapest honest peer: ``json.dumps(sort_keys=True)``
plus SHA-256 over the same records (no canonical form, no tree, no report hash).
"""

from __future__ import annotations

import gc
import hashlib
import json
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import semreport
from semreport import Decision, ProjectSummary
from semreport.canonical import canonical_json_fast, canonical_record
from semreport.reports import assemble_report, render_html
from semreport.reports._digest import citation_id, merkle_root
from semreport.reports._model import join_object, records_array
from semreport.wire import to_wire

TITLE = "Reports: assembly, JSON, HTML and digest"
ORDER = 40

_WORDS = [
    "timber",
    "frame",
    "concrete",
    "steel",
    "fire",
    "rating",
    "escape",
    "stair",
    "compartment",
    "facade",
    "insulation",
    "embodied",
    "carbon",
    "cost",
    "budget",
    "lifecycle",
    "maintenance",
    "glazing",
    "acoustic",
    "structural",
    "load",
    "foundation",
    "basement",
    "roof",
    "membrane",
    "cladding",
    "sprinkler",
    "egress",
    "corridor",
    "ventilation",
]
_DOMAINS = ["regulation", "material", "cost", "lifecycle", "general"]
_STATUSES = ["accepted", "proposed", "accepted", "rejected", "deprecated"]
_EVIDENCE = ["regulation", "catalogue_item", "cost_line", "document"]


def _synthetic(n: int, seed: int = 7) -> list[Decision]:
    """A synthetic project of ``n`` recorded decisions (local generator)."""
    rnd = random.Random(seed)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    out: list[Decision] = []
    for i in range(1, n + 1):
        words = lambda k: " ".join(rnd.choice(_WORDS) for _ in range(k))  # noqa: E731
        links = []
        if i > 10 and rnd.random() < 0.2:
            links.append(
                {"kind": "supersedes", "target": f"d-{rnd.randint(max(1, i - 50), i - 1)}"}
            )
        if i > 1 and rnd.random() < 0.3:
            links.append({"kind": "depends_on", "target": f"d-{rnd.randint(1, i - 1)}"})
        wire = {
            "id": f"d-{i}",
            "project_id": "bench",
            "title": words(5).capitalize(),
            "statement": words(25),
            "rationale": words(40),
            "agent": f"agent-{rnd.randint(1, 8)}",
            "domain": rnd.choice(_DOMAINS),
            "status": rnd.choice(_STATUSES),
            "tags": sorted({rnd.choice(_WORDS) for _ in range(3)}),
            "attributes": {
                "cost_eur": round(rnd.uniform(100, 1e6), 2),
                "co2e_kg": rnd.randint(0, 100000),
                "fire_resistance_min": rnd.choice([30, 60, 90, 120]),
            },
            "evidence": [
                {
                    "kind": rnd.choice(_EVIDENCE),
                    "ref": f"REF-{rnd.randint(1, 400)}",
                    "title": words(3),
                    "locator": f"p. {rnd.randint(1, 300)}",
                }
                for _ in range(rnd.randint(0, 3))
            ],
            "links": links,
            "elements": [f"el-{rnd.randint(1, 2000)}" for _ in range(rnd.randint(0, 3))],
        }
        decision = semreport.from_wire(wire, Decision)
        out.append(decision.recorded(i, t0 + timedelta(seconds=37 * i)))
    return out


class _Memory:
    """A list-backed read-only Decision Memory."""

    def __init__(self, records: list[Decision]) -> None:
        self._records = records

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        return iter(self._records)

    def get(self, project_id: str, decision_id: str) -> Decision:  # pragma: no cover
        raise NotImplementedError

    def latest_sequence(self, project_id: str) -> int:
        return len(self._records)

    def has_project(self, project_id: str) -> bool:
        return bool(self._records)

    def projects(self) -> list[ProjectSummary]:  # pragma: no cover - reports never list
        raise NotImplementedError


def _digest(wires: list[dict[str, Any]], rest: dict[str, Any]) -> str:
    """The whole digest from wire forms: record bytes, citation ids, tree, report hash.

    ``rest`` is the report body without ``records`` (summary, sections...), in wire form.
    """
    datas = [canonical_record(w) for w in wires]
    cids = [citation_id(d) for d in datas]
    root = merkle_root(datas)
    members = {key: canonical_json_fast(value) for key, value in rest.items()}
    members["records"] = records_array(zip(datas, cids, strict=True))
    body = join_object(members)
    return root + hashlib.sha256(body).hexdigest()


def _peer(wires: list[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for w in wires:
        h.update(hashlib.sha256(json.dumps(w, sort_keys=True).encode()).digest())
    return h.hexdigest()


def _time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _peak(fn: Callable[[], object]) -> float:
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _measure(n: int, when: datetime) -> tuple[str, float]:
    records = _synthetic(n)
    memory = _Memory(records)
    repeats = 1 if n >= 100000 else 3
    report = assemble_report(memory, "bench")
    wires = [to_wire(d) for d in records]
    rest = {k: v for k, v in to_wire(report).items() if k not in ("records", "digest")}
    assert _digest(wires, rest)[64:] == report.digest.report_sha256
    t_assemble = _time(lambda: assemble_report(memory, "bench"), repeats)
    t_json = _time(report.to_json, repeats)
    t_html = _time(lambda: render_html(report, exported_at=when), repeats)
    t_digest = _time(lambda: _digest(wires, rest), 3)
    t_peer = _time(lambda: _peer(wires), 3)
    ratio = t_digest / t_peer
    peak = _peak(lambda: render_html(assemble_report(memory, "bench"), exported_at=when))
    json_mb = len(report.to_json().encode()) / 2**20
    row = (
        f"| {n:,} | {t_assemble:.2f} | {t_json:.2f} | {t_html:.2f} | {t_digest:.3f} "
        f"| {t_peer:.3f} | {ratio:.2f} | {peak:.0f} | {json_mb:.1f} |"
    )
    return row, ratio


def run(quick: bool) -> str:
    sizes = [200, 1000] if quick else [1000, 10000, 100000]
    when = datetime(2026, 6, 1, tzinfo=UTC)
    rows = []
    ratios = []
    for n in sizes:
        row, ratio = _measure(n, when)
        rows.append(row)
        ratios.append((n, ratio))
        gc.collect()
    last_n, last_ratio = ratios[-1]
    target = "meets" if last_ratio <= 3.0 else "misses"
    return "\n".join(
        [
            "Synthetic projects (a local generator: 5-word titles, 25-word statements, 40-word",
            "rationales, 3 numeric attributes, 0-3 evidence items, 20% supersession links).",
            "Times in seconds (median of 3; one run at 100,000). *Assembly* reads the records",
            "through the port and builds the report including its digest; *JSON* is the",
            "canonical text; *HTML* renders the page (report JSON embedded). *Digest* is record",
            "bytes (RFC 8785) + citation ids + RFC 6962 tree + report hash (whole body) from",
            "wire forms;",
            "*peer* is `json.dumps(sort_keys=True)` + SHA-256 per record. Peak memory is",
            "tracemalloc's peak for assembly + HTML together.",
            "",
            "| decisions | assembly s | JSON s | HTML s | digest s | peer s | digest / peer "
            "| peak MiB | JSON MiB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"Digest cost at {last_n:,} decisions: {last_ratio:.2f}x the peer "
            f"(target 3.0 or less: {target}).",
        ]
    )


if __name__ == "__main__":
    import sys

    print(run(quick="--quick" in sys.argv))
