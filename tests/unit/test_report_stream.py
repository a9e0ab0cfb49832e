"""The streamed HTML export: the same bytes as export_report, in chunks, checked as it reads."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

import semreport
from _report_support import FakeMemory, decision, sample_project
from semreport import (
    CorruptStorage,
    Decision,
    Forbidden,
    InvalidRequest,
    Principal,
    ProjectNotFound,
    ReportStream,
    Role,
    SemReport,
    StoredRecord,
    Unauthenticated,
    verify,
)
from semreport.reports import build_report, render_html
from semreport.reports._stream import CHUNK_SIZE, stream_from_memory, stream_from_report
from semreport.storage.memory import MemoryStorage
from semreport.wire import to_wire

WHEN = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _rows(records: list[Decision]) -> list[dict[str, object]]:
    rows = []
    for record in records:
        wire = to_wire(record)
        del wire["sequence"], wire["recorded_at"]
        rows.append(wire)
    return rows


def _big_project(n: int = 300) -> list[Decision]:
    text = "Fire-rated CLT floor, 90 min, m² and CO₂e < 12 kg — see §4.2. " * 4
    return [
        decision(
            i,
            title=f"Decision {i}: {text[:60]}",
            statement=text,
            rationale=text,
            domain=["regulation", "material", "cost", "lifecycle", "general"][i % 5],
            status=["accepted", "proposed", "rejected"][i % 3],
            attributes={"cost_eur": i * 10.5, "co2e_kg": i},
            links=[{"kind": "supersedes", "target": f"d-{i - 3}"}] if i > 3 and i % 7 == 0 else [],
        )
        for i in range(1, n + 1)
    ]


class CountingStorage(MemoryStorage):
    """Counts the passes over the log."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        self.reads += 1
        return super().records(project_id, after=after, as_of=as_of)


@pytest.fixture
def sr() -> Iterator[SemReport]:
    with semreport.open("memory://") as facade:
        facade.record(_rows(sample_project()))
        yield facade


class TestSameBytes:
    """A stream gives exactly the page export_report renders for the same export time."""

    def test_uncached_stream_equals_the_export(self, sr: SemReport) -> None:
        stream = sr.stream_report("p-1")
        assert sr.cache_info().entries == 0  # streaming caches nothing
        data = b"".join(stream)
        export = sr.export_report("p-1")
        assert export.html == render_html(export.report, exported_at=export.exported_at)
        assert data == render_html(export.report, exported_at=stream.exported_at).encode()

    def test_cached_stream_equals_the_export(self) -> None:
        storage = CountingStorage()
        facade = SemReport(storage, caller=Principal.local())
        facade.record(_rows(sample_project()))
        report = facade.report("p-1")
        reads = storage.reads
        stream = facade.stream_report("p-1")
        data = b"".join(stream)
        assert storage.reads == reads  # rendered from the cached report
        assert data == render_html(report, exported_at=stream.exported_at).encode()
        assert facade.cache_info().hits == 1

    def test_uncached_stream_reads_the_log_three_times(self) -> None:
        storage = CountingStorage()
        facade = SemReport(storage, caller=Principal.local())
        facade.record(_rows(sample_project()))
        stream = facade.stream_report("p-1")
        assert storage.reads == 1  # the first pass, for the digest
        b"".join(stream)
        assert storage.reads == 3

    def test_as_of(self, sr: SemReport) -> None:
        stream = sr.stream_report("p-1", as_of=3)
        assert stream.as_of_sequence == 3
        assert stream.digest == sr.report("p-1", as_of=3).digest
        page = b"".join(stream).decode()
        assert page == render_html(sr.report("p-1", as_of=3), exported_at=stream.exported_at)

    def test_verify_accepts_the_stream(self, sr: SemReport) -> None:
        page = b"".join(sr.stream_report("p-1")).decode("utf-8")
        result = verify(page, sr.storage)
        assert result.ok
        assert result.page is True

    def test_the_attributes(self, sr: SemReport) -> None:
        before = datetime.now(UTC)
        stream = sr.stream_report("p-1")
        assert isinstance(stream, ReportStream)
        assert stream.digest == sr.report("p-1").digest
        assert stream.as_of_sequence == 6
        assert stream.project_id == "p-1"
        assert stream.media_type == "text/html; charset=utf-8"
        assert stream.filename == "report.html"
        assert before <= stream.exported_at <= datetime.now(UTC)
        assert "as of sequence 6" in repr(stream)

    def test_iterating_again_gives_the_same_bytes(self, sr: SemReport) -> None:
        stream = sr.stream_report("p-1")
        assert b"".join(stream) == b"".join(stream)


class TestChunks:
    """Chunks of about 64 KiB, and write_to."""

    def test_chunk_sizes(self) -> None:
        records = _big_project()
        stream = stream_from_memory(FakeMemory(records), "p-1", 300, exported_at=WHEN)
        chunks = list(stream)
        assert len(chunks) > 3
        assert all(isinstance(chunk, bytes) for chunk in chunks)
        assert all(len(chunk) >= CHUNK_SIZE for chunk in chunks[:-1])
        assert all(len(chunk) < 2 * CHUNK_SIZE for chunk in chunks)
        assert b"".join(chunks) == render_html(
            build_report("p-1", records), exported_at=WHEN
        ).encode("utf-8")

    def test_write_to(self) -> None:
        records = _big_project(120)
        stream = stream_from_report(build_report("p-1", records), exported_at=WHEN)
        buffer = io.BytesIO()
        written = stream.write_to(buffer)
        assert written == len(buffer.getvalue())
        assert buffer.getvalue() == b"".join(stream)
        assert verify(buffer.getvalue().decode()).ok

    def test_a_stream_from_memory_equals_one_from_the_report(self) -> None:
        records = _big_project(80)
        memory = FakeMemory(records)
        from_memory = b"".join(stream_from_memory(memory, "p-1", 50, exported_at=WHEN))
        report = build_report("p-1", [r for r in records if (r.sequence or 0) <= 50])
        assert from_memory == b"".join(stream_from_report(report, exported_at=WHEN))


class TestErrorsBeforeTheFirstChunk:
    """stream_report raises authorisation and not-found errors itself."""

    def test_authorisation(self) -> None:
        facade = SemReport(MemoryStorage(), caller=None)
        owner = Principal("o", roles=frozenset({Role.USER}), projects=frozenset({"p-1"}))
        facade.record(_rows(sample_project()), caller=owner)
        stranger = Principal("s", roles=frozenset({Role.USER}), projects=frozenset({"p-2"}))
        with pytest.raises(Unauthenticated):
            facade.stream_report("p-1")
        with pytest.raises(Forbidden):
            facade.stream_report("p-1", caller=stranger)
        with pytest.raises(Forbidden):
            facade.stream_report("p-9", caller=stranger)  # the same answer, existing or not

    def test_not_found_and_bad_input(self, sr: SemReport) -> None:
        with pytest.raises(ProjectNotFound):
            sr.stream_report("p-2")
        with pytest.raises(InvalidRequest):
            sr.stream_report("bad id!")
        with pytest.raises(InvalidRequest):
            sr.stream_report("p-1", as_of=-1)


class _Shifting(FakeMemory):
    """A memory whose records change after the first pass (what append-only forbids)."""

    def __init__(self, records: list[Decision], changed: list[Decision]) -> None:
        super().__init__(records)
        self.changed = changed
        self.passes = 0

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        self.passes += 1
        if self.passes > 1:
            self.held = self.changed
        return super().records(project_id, after=after, as_of=as_of)


class TestDamagedStorage:
    """A record that differs between passes, or a log that is not a report, is refused."""

    def test_a_record_changed_between_passes(self) -> None:
        records = sample_project()
        changed = [*records[:-1], decision(6, "life-1", title="Another title")]
        stream = stream_from_memory(_Shifting(records, changed), "p-1", 6, exported_at=WHEN)
        with pytest.raises(CorruptStorage, match="changed while the report was being exported"):
            b"".join(stream)

    def test_a_record_missing_in_a_later_pass(self) -> None:
        records = sample_project()
        stream = stream_from_memory(_Shifting(records, records[:-1]), "p-1", 6, exported_at=WHEN)
        with pytest.raises(CorruptStorage, match="gave 5 records, not 6"):
            b"".join(stream)

    def test_a_log_repeating_an_id(self) -> None:
        records = [decision(1, "d-1"), decision(2, "d-1")]
        with pytest.raises(CorruptStorage, match="not a valid report source"):
            stream_from_memory(FakeMemory(records), "p-1", 2, exported_at=WHEN)

    def test_a_log_ending_early(self) -> None:
        with pytest.raises(CorruptStorage, match="end at sequence 2, not 3"):
            stream_from_memory(FakeMemory([decision(1), decision(2)]), "p-1", 3, exported_at=WHEN)
