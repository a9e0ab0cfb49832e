"""The HTML export as a stream: the page in chunks, never the whole report in memory.

:func:`stream_from_memory` reads Decision Memory as of one sequence number
three times. The first pass computes what the page shows before its records
(the digest, summary, sections, charts and cost lines) and keeps only those
and the records' leaf hashes; the second renders each decision's part of the
page; the third writes the embedded report JSON. Decision Memory is
append-only, so the three passes read the same records; each record read
again is checked against the leaf hash of the first pass all the same, and a
record that differs raises :class:`~semreport.CorruptStorage` instead of
producing a page that does not match its digest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import IO, Final

from semreport.domain import CorruptStorage, DecisionMemory, StoredRecord
from semreport.reports._assemble import decision_of, report_parts
from semreport.reports._digest import Digest, citation_id, leaf_hash
from semreport.reports._html import Page, page_pieces, report_json_items
from semreport.reports._model import Report, ReportRecord, record_item
from semreport.reports._views import ViewBuilder

__all__ = ["CHUNK_SIZE", "ReportStream", "stream_from_memory", "stream_from_report"]

CHUNK_SIZE: Final = 64 * 1024
"""About how many bytes each chunk of a :class:`ReportStream` holds."""


class ReportStream:
    """A report's HTML page, produced in chunks of UTF-8 bytes (about 64 KiB each).

    Get one from :meth:`semreport.SemReport.stream_report`. The digest and the
    other attributes are known before the first chunk; iterating renders the
    page (again, for each iteration, with the same bytes) and
    :meth:`write_to` writes it to a binary file. The bytes are those of
    ``SemReport.export_report(...).html.encode()`` for the same export time,
    and :func:`semreport.verify` accepts them.

    Attributes:
        digest: The report's record digest.
        as_of_sequence: The last sequence number the report includes.
        exported_at: The export time shown in the page (not hashed).
        media_type: ``text/html; charset=utf-8``.
        filename: A suggested file name.
    """

    media_type: Final = "text/html; charset=utf-8"
    filename: Final = "report.html"

    def __init__(
        self, page: Page, pieces: Callable[[], Iterator[str]], *, exported_at: datetime
    ) -> None:
        self._page = page
        self._pieces = pieces
        self._exported_at = exported_at

    @property
    def digest(self) -> Digest:
        """The report's record digest."""
        return self._page.digest

    @property
    def as_of_sequence(self) -> int:
        """The last sequence number the report includes."""
        return self._page.as_of_sequence

    @property
    def project_id(self) -> str:
        """The project."""
        return self._page.project_id

    @property
    def exported_at(self) -> datetime:
        """The export time shown in the page (not part of the hashed report)."""
        return self._exported_at

    def __repr__(self) -> str:
        return (
            f"<ReportStream {self.project_id!r} as of sequence {self.as_of_sequence}: "
            f"{self.digest.records} records>"
        )

    def __iter__(self) -> Iterator[bytes]:
        """Yield the page as UTF-8 chunks of about :data:`CHUNK_SIZE` bytes."""
        held: list[str] = []
        size = 0
        for piece in self._pieces():
            held.append(piece)
            size += len(piece)
            if size >= CHUNK_SIZE:
                yield "".join(held).encode("utf-8")
                held, size = [], 0
        if held:
            yield "".join(held).encode("utf-8")

    def write_to(self, fp: IO[bytes]) -> int:
        """Write the whole page to a binary file and return how many bytes were written."""
        written = 0
        for chunk in self:
            fp.write(chunk)
            written += len(chunk)
        return written


def stream_from_report(
    report: Report, *, exported_at: datetime, version: str | None = None
) -> ReportStream:
    """Stream the page of a report already assembled (in memory)."""
    page = Page.of_report(report)

    def pieces() -> Iterator[str]:
        return page_pieces(
            page,
            report.records,
            report_json_items(report),
            exported_at=exported_at,
            version=version,
        )

    return ReportStream(page, pieces, exported_at=exported_at)


def stream_from_memory(
    memory: DecisionMemory,
    project_id: str,
    as_of: int,
    *,
    exported_at: datetime,
    version: str | None = None,
) -> ReportStream:
    """Stream a report's page from Decision Memory, holding one record at a time.

    The first pass over the records runs here, so that the digest is known
    (and a damaged log is found) before the first chunk.

    Args:
        memory: The read-only Decision Memory port.
        project_id: The project.
        as_of: The sequence number the report is as of (at most the latest).
        exported_at: The export time shown in the page.
        version: The library version named in the page (this one by default).

    Raises:
        CorruptStorage: the log does not hold exactly the records up to ``as_of``.
    """
    view = ViewBuilder()
    parts = report_parts(memory, project_id, as_of, also=view.add)
    page = Page.of(parts, view.finish([s.domain for s in parts.sections], parts.superseded))
    leaves = parts.leaves

    def again() -> Iterator[tuple[StoredRecord, str]]:
        """Read the records again, each checked against the first pass."""
        count = 0
        for record in memory.records(project_id, as_of=as_of):
            data = record.canonical
            if count >= len(leaves) or leaf_hash(data) != leaves[count]:
                raise CorruptStorage(
                    f"record {count + 1} of project {project_id!r} changed while the report "
                    "was being exported"
                )
            count += 1
            yield record, citation_id(data)
        if count != len(leaves):
            raise CorruptStorage(
                f"project {project_id!r} gave {count} records, not {len(leaves)}, "
                "while the report was being exported"
            )

    def records() -> Iterator[ReportRecord]:
        for record, cid in again():
            yield ReportRecord(sha256=cid, decision=decision_of(record, project_id))

    def json_items() -> Iterator[bytes]:
        for record, cid in again():
            yield record_item(record.canonical, cid)

    def pieces() -> Iterator[str]:
        return page_pieces(page, records(), json_items(), exported_at=exported_at, version=version)

    return ReportStream(page, pieces, exported_at=exported_at)
