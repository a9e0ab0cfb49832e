"""Streamed pages over generated projects: the same bytes as the page rendered whole."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from test_report_properties import projects

import semreport
from _report_support import FakeMemory
from semreport import verify
from semreport.reports import build_report, render_html
from semreport.reports._stream import stream_from_memory, stream_from_report

WHEN = datetime(2026, 3, 1, tzinfo=UTC)


class TestStreamedPages:
    """stream_from_memory and stream_from_report give render_html's bytes, which verify."""

    @given(projects(max_size=10), st.data())
    def test_stream_equals_the_whole_page(self, records: list[semreport.Decision], data) -> None:
        as_of = data.draw(st.integers(0, len(records)), label="as_of")
        chosen = [r for r in records if (r.sequence or 0) <= as_of]
        whole = render_html(build_report("p-1", chosen), exported_at=WHEN).encode("utf-8")
        streamed = b"".join(stream_from_memory(FakeMemory(records), "p-1", as_of, exported_at=WHEN))
        assert streamed == whole
        assert b"".join(stream_from_report(build_report("p-1", chosen), exported_at=WHEN)) == whole
        assert verify(streamed.decode("utf-8"), FakeMemory(records)).ok

    @given(projects(max_size=6))
    def test_the_digest_is_the_reports(self, records: list[semreport.Decision]) -> None:
        stream = stream_from_memory(FakeMemory(records), "p-1", len(records), exported_at=WHEN)
        assert stream.digest == build_report("p-1", records).digest
