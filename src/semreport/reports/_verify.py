"""``verify``: check a report (exported HTML, JSON text or parsed) against its digest.

The checks need nothing but the document: each record's citation id against
its RFC 8785 bytes, the records against ``records_root``, the report body
against ``report_sha256``, and the summary and sections against what the
records imply (re-assembled with the same pure function that built them). For
an HTML page, the whole visible page is compared with the verified report
rendered again, whatever the page says about its own generator. With a
Decision Memory, the records are also compared with what memory holds as of
the report's sequence, and the result says how far memory has moved on since.
Every mismatch becomes a :class:`Finding` of a :class:`FindingKind`, naming
the JSON path (or page line), the record (sequence and id) where there is
one, and why.

JSON text is read as RFC 8785 reads numbers (:func:`semreport.canonical.parse_json`):
``100000000000000000`` is the canonical form of the float ``1.0e17``, not an
integer beyond 2**53 - 1.
"""

from __future__ import annotations

import difflib
import enum
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import attrs

from semreport.canonical import (
    CanonicalizationError,
    canonical_json_fast,
    parse_json,
)
from semreport.domain import Decision, DecisionMemory, FrozenDict, InvalidRequest
from semreport.domain._values import thaw_json
from semreport.reports._assemble import build_report
from semreport.reports._digest import DIGEST_SCHEME, citation_id, merkle_root
from semreport.reports._html import REPORT_BLOCK_ID, ReportExport, library_version, render_html
from semreport.reports._model import REPORT_SCHEMA, Report, join_object
from semreport.wire import from_wire, parse_datetime, to_wire

__all__ = ["Finding", "FindingKind", "Verification", "verify"]

_BLOCK: Final = re.compile(
    r"<script\b[^>]*\bid\s*=\s*[\"']?"
    + re.escape(REPORT_BLOCK_ID)
    + r"[\"']?[^>]*>(.*?)</script\s*>",
    re.IGNORECASE | re.DOTALL,
)
_REPORT_KEYS: Final = frozenset({"schema", "digest", "records"})
_DIGEST_KEYS: Final = ("scheme", "records", "as_of_sequence", "records_root", "report_sha256")
_MAX_FINDINGS: Final = 200
_MAX_PAGE_FINDINGS: Final = 50
_PAGE_WINDOW: Final = 64
_MAX_SAFE_INT: Final = 2**53 - 1


class FindingKind(enum.StrEnum):
    """What a :class:`Finding` is about: a stable value for programs to act on.

    Programs decide by kind, never by a finding's ``reason`` (which is for people).
    """

    MALFORMED = "malformed"
    """A member of the report is missing, of the wrong type, or not part of the schema."""
    UNREPRESENTABLE = "unrepresentable"
    """A record holds a value RFC 8785 cannot represent, so it cannot be hashed."""
    CITATION_MISMATCH = "citation_mismatch"
    """A record's content does not hash to its citation id."""
    INVALID_RECORD = "invalid_record"
    """A record is not a valid recorded decision (the location names the bad field)."""
    MISPLACED_RECORD = "misplaced_record"
    """A record is out of sequence order, repeats an id, or names another project."""
    DIGEST_MISMATCH = "digest_mismatch"
    """A member of ``digest`` does not match (or cannot be recomputed from) the report."""
    BODY_MISMATCH = "body_mismatch"
    """The summary or sections differ from what the records imply."""
    PAGE_MISMATCH = "page_mismatch"
    """The visible page differs from the verified report rendered again (``line`` says where)."""
    PAGE_NOT_CHECKED = "page_not_checked"
    """The visible page could not be checked, so what it shows is unverified."""
    MEMORY_MISMATCH = "memory_mismatch"
    """A record differs from Decision Memory, or memory and report hold different records."""
    MEMORY_NOT_CHECKED = "memory_not_checked"
    """The report could not be compared with Decision Memory (it names no project or sequence)."""


@attrs.frozen
class Finding:
    """Something in a report that does not match.

    Attributes:
        kind: What the finding is about (decide on this, not on ``reason``).
        location: Where: the JSON path in the report, e.g.
            ``$.records[3].decision`` or ``$.digest.records_root``; for the
            visible page ``page line N`` (or ``page`` for the page as a whole).
        reason: Why it does not match, in words.
        sequence: The sequence number of the record concerned, if any.
        decision_id: The id of the decision concerned, if any.
        line: For page findings, the 1-based line of the page concerned.
    """

    kind: FindingKind
    location: str
    reason: str
    sequence: int | None = None
    decision_id: str | None = None
    line: int | None = None


@attrs.frozen
class Verification:
    """What :func:`verify` found.

    Attributes:
        ok: Whether everything checked matches, the visible page included for
            an HTML document. A page that could not be checked is never ok.
        project_id: The project the report names (``None`` if it names none).
        as_of_sequence: The sequence the report names (``None`` if none).
        records: How many records the document holds.
        citations: Every record's content hashes to its citation id.
        records_root: The records hash to ``digest.records_root``.
        report_sha256: The body hashes to ``digest.report_sha256``.
        body: The summary and sections are what the records imply
            (``None`` when the records are too damaged to re-assemble).
        memory: The records are what memory holds as of the report's
            sequence (``None`` when no memory was given).
        page: The visible HTML is exactly the verified report rendered again
            by this library version: ``True`` if so, ``False`` if it differs
            (each difference is a finding), ``None`` for a JSON document or
            when the embedded report does not verify (a ``page_not_checked``
            finding then says so).
        memory_moved_on: How many records memory holds for the project after
            the report's ``as_of_sequence`` (appended since the report was
            assembled). Not a mismatch: a report is a citable artefact of
            memory as of its sequence. ``None`` when no memory was given or
            the report names no project or sequence.
        memory_sequence: The latest sequence memory holds for the project
            (``None`` as for ``memory_moved_on``).
        matched: What was checked and matches, in words.
        problems: Every mismatch found.
    """

    ok: bool
    project_id: str | None
    as_of_sequence: int | None
    records: int
    citations: bool
    records_root: bool
    report_sha256: bool
    body: bool | None
    memory: bool | None
    page: bool | None
    matched: tuple[str, ...]
    problems: tuple[Finding, ...]
    memory_moved_on: int | None = None
    memory_sequence: int | None = None


def _parse(text: str, what: str) -> Any:
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise InvalidRequest.at(
            "$", f"{what} does not parse: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest.at("$", f"{what} does not parse: {exc}") from None


def _load_text(document: str) -> Any:
    text = document.lstrip("\ufeff \t\r\n")
    if text.startswith("{"):
        return _parse(text, "the report JSON")
    blocks = _BLOCK.findall(text)
    if not blocks:
        raise InvalidRequest.at(
            "$",
            "not a report: neither report JSON nor an HTML page with a "
            f'<script type="application/json" id="{REPORT_BLOCK_ID}"> block',
        )
    if len(blocks) > 1:
        raise InvalidRequest.at("$", "the page holds more than one report block")
    return _parse(blocks[0], "the embedded report JSON")


def _page_of(document: object) -> str | None:
    """The HTML text of a page document (``None`` for JSON and mappings)."""
    if isinstance(document, ReportExport):
        return document.html
    if isinstance(document, bytes | bytearray | memoryview):
        document = bytes(document).decode("utf-8")
    if isinstance(document, str) and not document.lstrip("\ufeff \t\r\n").startswith("{"):
        return document
    return None


def _as_json_numbers(value: Any) -> Any:
    """Read the integers of an already parsed value as RFC 8785 does.

    A mapping parsed by :func:`json.loads` holds ``100000000000000000`` as an
    exact integer; the text it came from denotes the double ``1e17`` (see
    :func:`semreport.canonical.read_integer`).
    """
    if type(value) is int and not -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT:
        try:
            return float(value)  # correctly rounded, as read_integer reads the literal too
        except OverflowError:  # beyond the double range: canonicalisation refuses it
            return value
    if isinstance(value, Mapping):
        return {key: _as_json_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_json_numbers(item) for item in value]
    return value


def _load(document: object) -> dict[str, Any]:
    if isinstance(document, Report):
        data: Any = to_wire(document)
    elif isinstance(document, ReportExport):
        data = _load(document.html)
    elif isinstance(document, FrozenDict):
        data = _as_json_numbers(thaw_json(document))
    elif isinstance(document, Mapping):
        data = _as_json_numbers(document)
    elif isinstance(document, bytes | bytearray | memoryview):
        try:
            return _load(bytes(document).decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InvalidRequest.at("$", f"the document is not UTF-8 text: {exc}") from None
    elif isinstance(document, str):
        data = _load_text(document)
    else:
        raise InvalidRequest.at(
            "$", f"expected report HTML, JSON text or a mapping, got {type(document).__name__}"
        )
    if not isinstance(data, Mapping) or not _REPORT_KEYS & set(data):
        raise InvalidRequest.at("$", "not a report: a report is a JSON object with a digest")
    return dict(data)


class _Checker:
    """Collects findings, and the facts later checks depend on (never read back from text)."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.problems: list[Finding] = []
        self.matched: list[str] = []
        # Whether every record is sound enough to re-assemble the body from:
        # parsed, canonical, a valid decision, in order and of the report's
        # project. A record whose only fault is its citation id still is.
        self.records_sound = True
        self.citations = True

    def add(
        self,
        kind: FindingKind,
        location: str,
        reason: str,
        decision: object = None,
        *,
        line: int | None = None,
    ) -> None:
        sequence = decision_id = None
        if isinstance(decision, Mapping):
            raw_sequence = decision.get("sequence")
            if type(raw_sequence) is int:
                sequence = raw_sequence
            raw_id = decision.get("id")
            if isinstance(raw_id, str):
                decision_id = raw_id
        self.problems.append(Finding(kind, location, reason, sequence, decision_id, line))

    def damaged(self, kind: FindingKind, location: str, reason: str, decision: object) -> None:
        """Add a finding about a record that leaves the records unfit to re-assemble."""
        self.records_sound = False
        self.add(kind, location, reason, decision)


def _typed(value: Any, kind: type) -> bool:
    return type(value) is kind


def verify(document: object, memory: DecisionMemory | None = None) -> Verification:
    """Check a report against its record digest, and optionally against Decision Memory.

    For an HTML page, the whole visible page must be exactly the verified
    report rendered again by this library version; whatever the page claims
    about itself (its ``generator`` tag included) does not skip that check.
    A page this version cannot reproduce is reported line by line, and never
    verifies.

    Args:
        document: An exported HTML page (``str`` or ``bytes``), report JSON
            text or bytes, the parsed report mapping, or a
            :class:`~semreport.reports.Report` / :class:`~semreport.reports.ReportExport`.
        memory: Decision Memory to compare the records with (read only).

    Returns:
        What matches and, for each mismatch, where and why. A well-formed but
        tampered report never raises; it gives ``ok=False`` and its findings.
        With memory, ``memory_moved_on`` says how many records were appended
        after the report's sequence (not a mismatch).

    Raises:
        InvalidRequest: the document is not a report at all (no report block,
            JSON that does not parse, not a JSON object with a digest).
    """
    doc = _load(document)
    check = _Checker(doc)
    project_id, as_of = _check_header(check, doc)
    datas, decisions = _check_records(check, doc.get("records"), project_id)
    citations = datas is not None and check.citations
    if citations:
        check.matched.append(f"every record's citation id ({len(datas or ())} records)")
    root_ok, hash_ok = _check_digest(check, doc, as_of, datas)
    body_ok, rebuilt = _check_body(check, doc, project_id, decisions, datas)
    page_ok = None
    page = _page_of(document)
    if page is not None:
        if rebuilt is not None and root_ok and hash_ok:
            page_ok = _check_page(check, page, rebuilt)
        else:
            check.add(
                FindingKind.PAGE_NOT_CHECKED,
                "page",
                "the visible page was not checked: the embedded report does not verify, "
                "so there is nothing trustworthy to compare the page with",
            )
    memory_ok = moved_on = memory_sequence = None
    if memory is not None:
        memory_ok, memory_sequence = _check_memory(
            check, memory, project_id=project_id, as_of=as_of, datas=datas
        )
        if memory_sequence is not None and as_of is not None:
            # Sequences are gapless per project, so the difference counts the appends.
            moved_on = max(0, memory_sequence - as_of)
    return Verification(
        ok=not check.problems,
        project_id=project_id,
        as_of_sequence=as_of,
        records=len(datas) if datas is not None else 0,
        citations=citations,
        records_root=root_ok,
        report_sha256=hash_ok,
        body=body_ok,
        memory=memory_ok,
        page=page_ok,
        matched=tuple(check.matched),
        problems=tuple(check.problems),
        memory_moved_on=moved_on,
        memory_sequence=memory_sequence,
    )


_MEMBERS: Final = frozenset(
    {"schema", "project_id", "as_of_sequence", "summary", "sections", "records", "digest"}
)


def _check_header(check: _Checker, doc: Mapping[str, Any]) -> tuple[str | None, int | None]:
    schema = doc.get("schema")
    if schema != REPORT_SCHEMA:
        check.add(
            FindingKind.MALFORMED, "$.schema", f"expected {REPORT_SCHEMA!r}, found {_short(schema)}"
        )
    project_id = doc.get("project_id")
    if not isinstance(project_id, str):
        check.add(FindingKind.MALFORMED, "$.project_id", "missing or not a string")
        project_id = None
    as_of = doc.get("as_of_sequence")
    if not _typed(as_of, int):
        check.add(FindingKind.MALFORMED, "$.as_of_sequence", "missing or not an integer")
        as_of = None
    for key in sorted(set(doc) - _MEMBERS):
        check.add(FindingKind.MALFORMED, f"$.{key}", f"not a member of a {REPORT_SCHEMA} report")
    return project_id, as_of


def _check_digest(
    check: _Checker,
    doc: Mapping[str, Any],
    as_of: int | None,
    datas: Sequence[bytes | None] | None,
) -> tuple[bool, bool]:
    digest = doc.get("digest")
    if not isinstance(digest, Mapping):
        check.add(FindingKind.MALFORMED, "$.digest", "missing or not an object")
        digest = {}
    for key in sorted(set(digest) - set(_DIGEST_KEYS)):
        check.add(
            FindingKind.MALFORMED, f"$.digest.{key}", f"not a member of a {DIGEST_SCHEME} digest"
        )
    mismatch = FindingKind.DIGEST_MISMATCH
    if digest and digest.get("scheme") != DIGEST_SCHEME:
        check.add(
            mismatch,
            "$.digest.scheme",
            f"expected {DIGEST_SCHEME!r}, found {_short(digest.get('scheme'))}",
        )
    if digest and datas is not None and digest.get("records") != len(datas):
        check.add(
            mismatch,
            "$.digest.records",
            f"says {_short(digest.get('records'))}, the report holds {len(datas)} records",
        )
    said = digest.get("as_of_sequence")
    if digest and (said != as_of or not _typed(said, int)):
        check.add(
            mismatch, "$.digest.as_of_sequence", f"says {_short(said)}, the report says {as_of!r}"
        )
    root_ok = False
    complete = [d for d in datas or () if d is not None]
    if datas is not None and len(complete) == len(datas):
        root = merkle_root(complete)
        root_ok = digest.get("records_root") == root
        if root_ok:
            check.matched.append("records_root")
        else:
            check.add(
                mismatch,
                "$.digest.records_root",
                f"the records hash to {root}, not to {_short(digest.get('records_root'))}",
            )
    else:
        check.add(
            mismatch, "$.digest.records_root", "cannot be recomputed: some records are damaged"
        )
    return root_ok, _check_report_hash(check, doc, digest, datas)


def _check_report_hash(
    check: _Checker,
    doc: Mapping[str, Any],
    digest: Mapping[str, Any],
    datas: Sequence[bytes | None] | None,
) -> bool:
    hash_ok = False
    body_hash = _body_sha256(doc, datas)
    if body_hash is None:
        check.add(
            FindingKind.DIGEST_MISMATCH,
            "$.digest.report_sha256",
            "cannot be recomputed: the report holds values RFC 8785 cannot represent",
        )
    else:
        hash_ok = digest.get("report_sha256") == body_hash
        if hash_ok:
            check.matched.append("report_sha256")
        else:
            check.add(
                FindingKind.DIGEST_MISMATCH,
                "$.digest.report_sha256",
                f"the report body hashes to {body_hash}, "
                f"not to {_short(digest.get('report_sha256'))}",
            )
    return hash_ok


def _check_records(
    check: _Checker, records: object, project_id: str | None
) -> tuple[list[bytes | None] | None, list[Decision] | None]:
    """Check each record's shape and citation id; return their bytes and decisions.

    The decisions are ``None`` when any record is not a valid decision.
    """
    if not isinstance(records, list):
        check.add(FindingKind.MALFORMED, "$.records", "missing or not a list")
        check.records_sound = check.citations = False
        return None, None
    datas: list[bytes | None] = []
    decisions: list[Decision] | None = []
    state = _Order()
    for index, entry in enumerate(records):
        where = f"$.records[{index}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("decision"), Mapping):
            check.damaged(
                FindingKind.MALFORMED, where, "not an object with a 'decision' object", None
            )
            check.citations = False
            datas.append(None)
            decisions = None
            continue
        datas.append(_check_record(check, where, entry, project_id, state))
        decision = _structure(check, where, entry["decision"])
        if decision is None or decisions is None:
            decisions = None
        else:
            decisions.append(decision)
    return datas, decisions


class _Order:
    def __init__(self) -> None:
        self.previous = 0
        self.seen: set[str] = set()


def _check_record(
    check: _Checker,
    where: str,
    entry: Mapping[str, Any],
    project_id: str | None,
    state: _Order,
) -> bytes | None:
    wire = entry["decision"]
    for key in sorted(set(entry) - {"decision", "sha256"}):
        check.damaged(
            FindingKind.MALFORMED, f"{where}.{key}", "not a member of a report record", wire
        )
    try:
        data: bytes | None = canonical_json_fast(wire)
    except (CanonicalizationError, TypeError, ValueError) as exc:
        check.damaged(
            FindingKind.UNREPRESENTABLE,
            f"{where}.decision",
            f"RFC 8785 cannot represent it: {exc}",
            wire,
        )
        check.citations = False
        data = None
    if data is not None:
        cid = citation_id(data)
        if entry.get("sha256") != cid:
            check.citations = False
            check.add(
                FindingKind.CITATION_MISMATCH,
                where,
                f"the record's content hashes to {cid}, not to its citation id "
                f"{_short(entry.get('sha256'))}: the record or its citation id was altered",
                wire,
            )
    misplaced = FindingKind.MISPLACED_RECORD
    sequence = wire.get("sequence")
    if _typed(sequence, int):
        if sequence <= state.previous:
            check.damaged(
                misplaced,
                f"{where}.decision.sequence",
                f"{sequence} does not follow {state.previous}",
                wire,
            )
        state.previous = sequence
    decision_id = wire.get("id")
    if isinstance(decision_id, str):
        if decision_id in state.seen:
            check.damaged(misplaced, f"{where}.decision.id", f"{decision_id!r} appears twice", wire)
        state.seen.add(decision_id)
    if project_id is not None and wire.get("project_id") != project_id:
        check.damaged(
            misplaced,
            f"{where}.decision.project_id",
            f"{_short(wire.get('project_id'))} is not the report's project {project_id!r}",
            wire,
        )
    return data


def _structure(check: _Checker, where: str, wire: Mapping[str, Any]) -> Decision | None:
    try:
        decision = from_wire(wire, Decision, path=f"{where}.decision")
    except InvalidRequest as exc:
        for error in exc.errors:
            check.damaged(
                FindingKind.INVALID_RECORD,
                error.path,
                f"not a valid decision: {error.message}",
                wire,
            )
        return None
    if decision.sequence is None:
        check.damaged(
            FindingKind.INVALID_RECORD,
            f"{where}.decision.sequence",
            "the record has no sequence",
            wire,
        )
        return None
    return decision


def _body_sha256(doc: Mapping[str, Any], datas: Sequence[bytes | None] | None) -> str | None:
    """The SHA-256 of the canonical report without ``digest`` (reusing record bytes)."""
    try:
        members: dict[str, bytes] = {}
        for key, value in doc.items():
            if key == "digest":
                continue
            if key == "records" and datas is not None and all(d is not None for d in datas):
                members[key] = (
                    b"["
                    + b",".join(
                        join_object(
                            {
                                k: data if k == "decision" else canonical_json_fast(v)  # type: ignore[misc]
                                for k, v in entry.items()
                            }
                        )
                        for entry, data in zip(value, datas, strict=True)
                    )
                    + b"]"
                )
            else:
                members[key] = canonical_json_fast(value)
        return hashlib.sha256(join_object(members)).hexdigest()
    except (CanonicalizationError, TypeError, ValueError):
        return None


def _check_body(
    check: _Checker,
    doc: Mapping[str, Any],
    project_id: str | None,
    decisions: list[Decision] | None,
    datas: Sequence[bytes | None] | None,
) -> tuple[bool | None, Report | None]:
    """Re-assemble the summary and sections from the records and compare them."""
    if decisions is None or project_id is None or datas is None or not check.records_sound:
        return None, None
    rebuilt = build_report(project_id, decisions, record_data=datas)
    expected = to_wire(rebuilt)
    before = len(check.problems)
    for key in ("schema", "as_of_sequence", "summary", "sections"):
        _diff(check, expected[key], doc.get(key), f"$.{key}")
    if len(check.problems) >= _MAX_FINDINGS:
        check.add(
            FindingKind.BODY_MISMATCH,
            "$",
            f"more differences than the {_MAX_FINDINGS} findings listed",
        )
    if len(check.problems) == before:
        check.matched.append("summary and sections (re-assembled from the records)")
        return True, rebuilt
    return False, None


_META: Final = re.compile(r'<meta name="(generator|semreport-exported-at)" content="([^"]*)">')
_STAND_IN_TIME: Final = datetime(1970, 1, 1, tzinfo=UTC)


def _check_page(check: _Checker, page: str, rebuilt: Report) -> bool:
    """Render the verified report again and compare it, line by line, with the whole page.

    Nothing the page says about itself decides whether it is checked: only
    its export time (outside the hashed report, so the page is the only
    source) is read from it, and a missing or unreadable one is itself a
    difference. A page this version renders differently is never ok; when it
    names another generator, a ``page_not_checked`` finding says that its
    visible content is unverified, beside the differences found.
    """
    meta: dict[str, str] = {}
    for name, content in _META.findall(page[:4096]):
        meta.setdefault(name, content)
    version = library_version()
    try:
        exported_at = parse_datetime(meta.get("semreport-exported-at"))
    except (TypeError, ValueError):
        exported_at = None
    expected = render_html(rebuilt, exported_at=exported_at or _STAND_IN_TIME, version=version)
    if expected == page:
        check.matched.append(
            "the visible page (every line rendered again from the verified report)"
        )
        return True
    generator = meta.get("generator")
    if generator != f"semreport {version}":
        claimed = f"names the generator {generator!r}" if generator else "names no generator"
        check.add(
            FindingKind.PAGE_NOT_CHECKED,
            "page",
            f"the visible page was not checked: it {claimed} and semreport {version} "
            "renders the embedded report differently (the differences follow); the "
            "embedded JSON is what the digest covers, and what this page shows is unverified",
        )
    if exported_at is None:
        check.add(
            FindingKind.PAGE_MISMATCH,
            "page",
            "the export time in the page's meta tag is missing or unreadable",
        )
    _page_differences(check, page.splitlines(), expected.splitlines())
    return False


def _page_differences(check: _Checker, shown: list[str], wanted: list[str]) -> None:
    """Add a finding for each run of page lines that differs from the rendering (capped).

    The pages are walked in step and re-aligned after each difference within
    a window of lines, so the work stays linear in the page's size however
    many lines differ (a full diff of two long, very different pages is not).
    """
    found = i = j = 0
    while True:
        while i < len(shown) and j < len(wanted) and shown[i] == wanted[j]:
            i += 1
            j += 1
        if i == len(shown) and j == len(wanted):
            return
        if found == _MAX_PAGE_FINDINGS:
            check.add(
                FindingKind.PAGE_MISMATCH,
                "page",
                f"more differences follow after line {i + 1}; the first {found} are listed",
            )
            return
        i2, j2 = _realign(shown, wanted, i, j)
        _page_finding(check, shown[i:i2], wanted[j:j2], min(i, max(len(shown) - 1, 0)) + 1)
        found += 1
        i, j = i2, j2


def _realign(shown: list[str], wanted: list[str], i: int, j: int) -> tuple[int, int]:
    """Where the two pages agree again after differing at ``i`` and ``j``."""
    matcher = difflib.SequenceMatcher(
        None, shown[i : i + _PAGE_WINDOW], wanted[j : j + _PAGE_WINDOW], autojunk=False
    )
    block = matcher.get_matching_blocks()[0]
    if block.size:
        return i + block.a, j + block.b
    # Nothing agrees within the window: report it whole and go on after it.
    return min(i + _PAGE_WINDOW, len(shown)), min(j + _PAGE_WINDOW, len(wanted))


def _page_finding(check: _Checker, shown: list[str], wanted: list[str], line: int) -> None:
    if not shown:
        reason = (
            f"the visible page lacks {_short(_joined(wanted))}, which the embedded report "
            "renders here"
        )
    elif not wanted:
        reason = (
            f"the visible page shows {_short(_joined(shown))}, which the embedded report "
            "does not render"
        )
    else:
        page_text, report_text = _excerpts(_joined(shown), _joined(wanted))
        reason = (
            f"the visible page differs from the embedded report: it shows {page_text}, "
            f"the report renders {report_text}"
        )
    check.add(FindingKind.PAGE_MISMATCH, f"page line {line}", reason, line=line)


def _excerpts(shown: str, wanted: str, context: int = 24) -> tuple[str, str]:
    """The differing middle of two texts, with a little context on each side."""
    prefix = _common_prefix(shown, wanted)
    room = min(len(shown), len(wanted)) - prefix
    suffix = min(_common_prefix(shown[::-1], wanted[::-1]), room)
    start = max(0, prefix - context)

    def cut(text: str) -> str:
        end = min(len(text), len(text) - suffix + context)
        middle = text[start:end]
        return _short(middle, limit=160)

    return cut(shown), cut(wanted)


def _common_prefix(first: str, second: str) -> int:
    for index, (a, b) in enumerate(zip(first, second, strict=False)):
        if a != b:
            return index
    return min(len(first), len(second))


def _joined(lines: Sequence[str]) -> str:
    return "\n".join(lines)


def _diff(check: _Checker, expected: Any, actual: Any, path: str) -> None:
    """Add a finding for each place where ``actual`` differs from ``expected`` (capped)."""

    def note(where: str, reason: str) -> None:
        if len(check.problems) < _MAX_FINDINGS:
            check.add(FindingKind.BODY_MISMATCH, where, reason)

    if isinstance(expected, dict) and isinstance(actual, Mapping):
        for key in expected:
            if key not in actual:
                note(f"{path}.{key}", "missing; the records imply it")
            else:
                _diff(check, expected[key], actual[key], f"{path}.{key}")
        for key in actual:
            if key not in expected:
                note(f"{path}.{key}", "present, but the records do not imply it")
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            note(path, f"has {len(actual)} items; the records imply {len(expected)}")
        for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
            _diff(check, want, got, f"{path}[{index}]")
        return
    if type(expected) is not type(actual) or expected != actual:
        note(path, f"is {_short(actual)}; the records imply {_short(expected)}")


def _short(value: Any, *, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=True, default=repr)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_memory(
    check: _Checker,
    memory: DecisionMemory,
    *,
    project_id: str | None,
    as_of: int | None,
    datas: Sequence[bytes | None] | None,
) -> tuple[bool, int | None]:
    """Compare the records with what Decision Memory holds as of the report's sequence.

    Returns:
        Whether they match, and memory's latest sequence for the project
        (``None`` when the report names no project or sequence).
    """
    records = check.doc.get("records")
    if project_id is None or as_of is None or not isinstance(records, list) or datas is None:
        check.add(
            FindingKind.MEMORY_NOT_CHECKED,
            "$",
            "cannot compare with memory: the report names no project, sequence or records",
        )
        return False, None
    mismatch = FindingKind.MEMORY_MISMATCH
    before = len(check.problems)
    held: dict[int, Decision] = {}
    for stored in memory.decisions(project_id, as_of=as_of):
        assert stored.sequence is not None
        held[stored.sequence] = stored
    # Read after the records: appends in between only make memory look further on.
    latest = memory.latest_sequence(project_id)
    cited: set[int] = set()
    for index, (entry, data) in enumerate(zip(records, datas, strict=True)):
        wire = entry.get("decision") if isinstance(entry, Mapping) else None
        sequence = wire.get("sequence") if isinstance(wire, Mapping) else None
        if not isinstance(wire, Mapping) or not isinstance(sequence, int):
            check.add(mismatch, f"$.records[{index}]", "has no sequence to look up in memory", wire)
            continue
        cited.add(sequence)
        match = held.get(sequence)
        if match is None:
            check.add(
                mismatch,
                f"$.records[{index}]",
                f"memory holds no decision with sequence {sequence} in {project_id!r}",
                wire,
            )
            continue
        stored_wire = to_wire(match)
        if data != canonical_json_fast(stored_wire):
            fields = sorted(
                key for key in set(stored_wire) | set(wire) if wire.get(key) != stored_wire.get(key)
            ) or ["(number formatting)"]
            check.add(
                mismatch,
                f"$.records[{index}].decision",
                f"differs from memory's decision {match.id!r} in: {', '.join(fields)}",
                wire,
            )
    for sequence in sorted(set(held) - cited):
        check.add(
            mismatch,
            "$.records",
            f"memory holds decision {held[sequence].id!r} (sequence {sequence}), "
            "which the report does not cite",
        )
    if len(check.problems) == before:
        check.matched.append(f"memory ({len(held)} records as of sequence {as_of})")
        return True, latest
    return False, latest
