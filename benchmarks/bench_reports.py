"""Reports: assembly, JSON, HTML and the record digest; streamed exports; the report cache.

The digest is compared with the cheapest honest peer: ``json.dumps(sort_keys=True)``
plus SHA-256 over the same records (no canonical form, no tree, no report hash).
Exports are measured from SQLite, each in a fresh process whose peak resident
memory (``VmHWM``) is the figure: the whole page (``export_report``) against
the streamed page (``stream_report(...).write_to(file)``).
"""

from __future__ import annotations

import gc
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

import semreport
from semreport import Decision, ProjectSummary, StoredRecord
from semreport.canonical import canonical_json_fast, canonical_record
from semreport.reports import assemble_report, render_html
from semreport.reports._assemble import assemble_built
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
    """A list-backed read-only Decision Memory.

    Its rows are what an adapter keeps (the JSON text of each record, its
    canonical bytes and hash); ``records()`` parses each row afresh, as
    adapters do, without the hash check.
    """

    def __init__(self, records: list[Decision]) -> None:
        self._records = records
        self._rows = []
        for decision in records:
            wire = to_wire(decision)
            canonical = canonical_record(wire)
            self._rows.append(
                (decision.sequence or 0, hashlib.sha256(canonical).hexdigest(), canonical,
                 orjson.dumps(wire))
            )  # fmt: skip

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        return iter(self._records)

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        return (
            StoredRecord(sequence, sha256, canonical, orjson.loads(body))
            for sequence, sha256, canonical, body in self._rows
        )

    def get(self, project_id: str, decision_id: str) -> Decision:  # pragma: no cover
        raise NotImplementedError

    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:  # pragma: no cover
        raise NotImplementedError

    def get_records(  # pragma: no cover - reports read whole projects
        self, project_id: str, decision_ids: Sequence[str]
    ) -> list[StoredRecord]:
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
    peak = (
        f"{_peak(lambda: render_html(assemble_report(memory, 'bench'), exported_at=when)):.0f}"
        if n < 100000
        else "see below"
    )
    json_mb = len(report.to_json().encode()) / 2**20
    row = (
        f"| {n:,} | {t_assemble:.2f} | {t_json:.2f} | {t_html:.2f} | {t_digest:.3f} "
        f"| {t_peer:.3f} | {ratio:.2f} | {peak} | {json_mb:.1f} |"
    )
    return row, ratio


_EXPORT = """
import json, resource, sys, time
import semreport

def peak_kib():
    # VmHWM is this process's own peak; ru_maxrss would carry the parent's peak over exec.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

path, mode = sys.argv[1], sys.argv[2]
with semreport.open("sqlite:///" + path, create=False) as sr:
    opened = peak_kib()
    start = time.perf_counter()
    if mode == "stream":
        stream = sr.stream_report("bench")
        first = time.perf_counter() - start
        with open(sys.argv[3], "wb") as fp:
            size = stream.write_to(fp)
    else:
        export = sr.export_report("bench")
        first = time.perf_counter() - start
        with open(sys.argv[3], "wb") as fp:
            size = fp.write(export.html.encode("utf-8"))
    total = time.perf_counter() - start
peak = peak_kib()
print(json.dumps({"first": first, "total": total, "size": size, "opened": opened, "peak": peak}))
"""


def _store(n: int, path: Path) -> None:
    """Record a synthetic project of ``n`` decisions in a new SQLite file."""
    rows = []
    for decision in _synthetic(n):
        wire = to_wire(decision)
        del wire["sequence"], wire["recorded_at"]
        rows.append(wire)
    with semreport.open(f"sqlite:///{path}") as sr:
        for start in range(0, n, 5000):
            sr.record(rows[start : start + 5000])


def _export_run(path: Path, mode: str, out: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _EXPORT, str(path), mode, str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def _exports(sizes: list[int], work: Path) -> tuple[list[str], float]:
    rows = []
    stream_peak = 0.0
    for n in sizes:
        path = work / f"bench-{n}.db"
        _store(n, path)
        pages: dict[str, bytes] = {}
        for mode, label in (("export", "export_report (whole page)"), ("stream", "stream_report")):
            out = work / f"{mode}-{n}.html"
            got = _export_run(path, mode, out)
            peak = got["peak"] / 1024
            if mode == "stream":
                stream_peak = peak
            rows.append(
                f"| {n:,} | {label} | {got['first']:.1f} | {got['total']:.1f} | {peak:.0f} "
                f"| {(got['peak'] - got['opened']) / 1024:.0f} | {got['size'] / 2**20:.0f} |"
            )
            pages[mode] = out.read_bytes()
            out.unlink()
        whole, streamed = pages["export"], pages["stream"]
        # The two pages differ only in their export time.
        assert len(whole) == len(streamed)
        assert semreport.verify(streamed.decode("utf-8")).ok
        path.unlink()
    return rows, stream_peak


def _cache(n: int, work: Path) -> list[str]:
    path = work / f"cache-{n}.db"
    _store(n, path)
    rows = []
    with semreport.open(f"sqlite:///{path}", create=False) as sr:
        start = time.perf_counter()
        report = sr.report("bench")
        cold = time.perf_counter() - start
        hit = _time(lambda: sr.report("bench"), 5)
        export_cached = _time(lambda: sr.export_report("bench"), 1)
        stream_cached = _time(lambda: b"".join(sr.stream_report("bench")), 1)
        page_mb = len(sr.export_report("bench").html.encode("utf-8")) / 2**20
        info = sr.cache_info()
        with semreport.open(f"sqlite:///{path}", create=False, report_cache_bytes=0) as uncached:
            export_cold = _time(lambda: uncached.export_report("bench"), 1)
        gc.collect()
        tracemalloc.start()
        held = assemble_built(sr.storage, "bench")
        measured = tracemalloc.get_traced_memory()[0] / 2**20
        tracemalloc.stop()
        estimated = held.estimated_size / 2**20
        del held, report
    path.unlink()
    rows.append(f"| GET report, cold (a miss: assembled from SQLite) | {cold:.2f} s |")
    rows.append(f"| GET report, cached (a hit) | {hit * 1000:.3f} ms |")
    rows.append(f"| export_report, no cache | {export_cold:.2f} s |")
    rows.append(f"| export_report from the cached report | {export_cached:.2f} s |")
    rows.append(f"| stream_report from the cached report (all chunks) | {stream_cached:.2f} s |")
    rows.append(
        f"| cache entry: estimated / measured (tracemalloc) "
        f"| {estimated:.0f} / {measured:.0f} MiB |"
    )
    rows.append(f"| the page itself (what caching pages would add per entry) | {page_mb:.0f} MiB |")
    rows.append(
        f"| cache after the runs: entries, hits, misses "
        f"| {info.entries}, {info.hits}, {info.misses} |"
    )
    return rows


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
    export_sizes = [2000] if quick else [20000, 100000]
    with tempfile.TemporaryDirectory() as tmp:
        export_rows, stream_peak = _exports(export_sizes, Path(tmp))
        cache_rows = _cache(1000 if quick else 20000, Path(tmp))
    memory_target = "met" if stream_peak <= 300 else "MISSED"
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
            "tracemalloc's peak for assembly + HTML together (at 100,000 decisions the",
            "export table below gives the whole process's peak instead).",
            "",
            "| decisions | assembly s | JSON s | HTML s | digest s | peer s | digest / peer "
            "| peak MiB | JSON MiB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"Digest cost at {last_n:,} decisions: {last_ratio:.2f}x the peer "
            f"(target 3.0 or less: {target}).",
            "",
            "### Exports: the whole page or streamed",
            "",
            "The same synthetic project recorded in SQLite; each export runs in a fresh",
            "process, from opening the storage to the last byte written to a file. *Digest*",
            "is the time until the digest is known (for the stream: its first pass over the",
            "records); *peak RSS* is the process's peak resident memory (`VmHWM`), and",
            "*above open* what the export added to the process as it was once the storage",
            "was open. The stream reads the records three times (digest, decisions, embedded",
            "JSON), holding one at a time.",
            "",
            "| decisions | export | digest s | total s | peak RSS MiB | above open MiB "
            "| page MiB |",
            "|---:|---|---:|---:|---:|---:|---:|",
            *export_rows,
            "",
            f"Streamed export at {export_sizes[-1]:,} decisions: peak RSS {stream_peak:.0f} MiB "
            f"(target 300 MiB or less: {memory_target}).",
            "",
            "### The report cache",
            "",
            f"{1000 if quick else 20000:,} decisions in SQLite, in this process; the default",
            "budget (256 MiB). A cached report answers `report`, `export_report`, `prove` and",
            "`stream_report` without reading the records; a page is still rendered per export",
            "(it shows its export time). Pages are not cached: a page takes as much memory as",
            "the cached report itself, so caching pages would halve the reports the budget",
            "holds, to save the rendering, which the streamed export does in bounded memory.",
            "",
            "| measurement | value |",
            "|---|---:|",
            *cache_rows,
        ]
    )
