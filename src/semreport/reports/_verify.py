"""``verify``: check a report (exported HTML, JSON text or parsed) against its digest.

The checks need nothing but the document: each record's citation id against
its RFC 8785 bytes, the records against ``records_root``, the report body
against ``report_sha256``, and the summary and sections against what the
records imply (re-assembled with the same pure function that built them). With
a Decision Memory, the records are also compared with what memory holds now.
Every mismatch becomes a :class:`Finding` naming the JSON path, the record
(sequence and id) where there is one, and why.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from semreport.canonical import CanonicalizationError, canonical_json_fast
from semreport.domain import Decision, DecisionMemory, FrozenDict, InvalidRequest
from semreport.domain._values import thaw_json
from semreport.reports._assemble import build_report
from semreport.reports._digest import DIGEST_SCHEME, citation_id, merkle_root
from semreport.reports._html import REPORT_BLOCK_ID, ReportExport, library_version, render_html
from semreport.reports._model import REPORT_SCHEMA, Report, join_object
from semreport.wire import from_wire, parse_datetime, to_wire

__all__ = ["Finding", "Verification", "verify"]

_BLOCK: Final = re.compile(
    r"<script\b[^>]*\bid\s*=\s*[\"']?"
    + re.escape(REPORT_BLOCK_ID)
    + r"[\"']?[^>]*>(.*?)</script\s*>",
    re.IGNORECASE | re.DOTALL,
)
_REPORT_KEYS: Final = frozenset({"schema", "digest", "records"})
_DIGEST_KEYS: Final = ("scheme", "records", "as_of_sequence", "records_root", "report_sha256")
_MAX_FINDINGS: Final = 200


@attrs.frozen
class Finding:
    """Something in a report that does not match.

    Attributes:
        location: The JSON path in the report, e.g. ``$.records[3].decision``
            or ``$.digest.records_root``.
        reason: Why it does not match.
        sequence: The sequence number of the record concerned, if any.
        decision_id: The id of the decision concerned, if any.
    """

    location: str
    reason: str
    sequence: int | None = None
    decision_id: str | None = None


@attrs.frozen
class Verification:
    """What :func:`verify` found.

    Attributes:
        ok: Whether everything checked matches.
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
        page: The visible HTML is exactly the verified report rendered
            again (``None`` for JSON, for a page from another library
            version, or when the report itself does not verify).
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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse(text: str, what: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
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


def _load(document: object) -> dict[str, Any]:
    if isinstance(document, Report):
        data: Any = to_wire(document)
    elif isinstance(document, ReportExport):
        data = _load(document.html)
    elif isinstance(document, FrozenDict):
        data = thaw_json(document)
    elif isinstance(document, Mapping):
        data = document
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
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.problems: list[Finding] = []
        self.matched: list[str] = []

    def add(self, location: str, reason: str, decision: object = None) -> None:
        sequence = decision_id = None
        if isinstance(decision, Mapping):
            raw_sequence = decision.get("sequence")
            if type(raw_sequence) is int:
                sequence = raw_sequence
            raw_id = decision.get("id")
            if isinstance(raw_id, str):
                decision_id = raw_id
        self.problems.append(Finding(location, reason, sequence, decision_id))


def _typed(value: Any, kind: type) -> bool:
    return type(value) is kind


def verify(document: object, memory: DecisionMemory | None = None) -> Verification:
    """Check a report against its record digest, and optionally against Decision Memory.

    Args:
        document: An exported HTML page (``str`` or ``bytes``), report JSON
            text or bytes, the parsed report mapping, or a
            :class:`~semreport.reports.Report` / :class:`~semreport.reports.ReportExport`.
        memory: Decision Memory to compare the records with (read only).

    Returns:
        What matches and, for each mismatch, where and why. A well-formed but
        tampered report never raises; it gives ``ok=False`` and its findings.

    Raises:
        InvalidRequest: the document is not a report at all (no report block,
            JSON that does not parse, not a JSON object with a digest).
    """
    doc = _load(document)
    check = _Checker(doc)
    project_id, as_of = _check_header(check, doc)
    datas, decisions = _check_records(check, doc.get("records"), project_id)
    citations = datas is not None and not any(
        p.location.startswith("$.records") for p in check.problems
    )
    if citations:
        check.matched.append(f"every record's citation id ({len(datas or ())} records)")
    root_ok, hash_ok = _check_digest(check, doc, as_of, datas)
    body_ok, rebuilt = _check_body(check, doc, project_id, decisions, datas)
    page_ok = None
    page = _page_of(document)
    if page is not None and rebuilt is not None and root_ok and hash_ok:
        page_ok = _check_page(check, page, rebuilt)
    memory_ok = None
    if memory is not None:
        memory_ok = _check_memory(check, memory, project_id=project_id, as_of=as_of, datas=datas)
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
    )


_MEMBERS: Final = frozenset(
    {"schema", "project_id", "as_of_sequence", "summary", "sections", "records", "digest"}
)


def _check_header(check: _Checker, doc: Mapping[str, Any]) -> tuple[str | None, int | None]:
    schema = doc.get("schema")
    if schema != REPORT_SCHEMA:
        check.add("$.schema", f"expected {REPORT_SCHEMA!r}, found {_short(schema)}")
    project_id = doc.get("project_id")
    if not isinstance(project_id, str):
        check.add("$.project_id", "missing or not a string")
        project_id = None
    as_of = doc.get("as_of_sequence")
    if not _typed(as_of, int):
        check.add("$.as_of_sequence", "missing or not an integer")
        as_of = None
    for key in sorted(set(doc) - _MEMBERS):
        check.add(f"$.{key}", f"not a member of a {REPORT_SCHEMA} report")
    return project_id, as_of


def _check_digest(
    check: _Checker,
    doc: Mapping[str, Any],
    as_of: int | None,
    datas: Sequence[bytes | None] | None,
) -> tuple[bool, bool]:
    digest = doc.get("digest")
    if not isinstance(digest, Mapping):
        check.add("$.digest", "missing or not an object")
        digest = {}
    for key in sorted(set(digest) - set(_DIGEST_KEYS)):
        check.add(f"$.digest.{key}", f"not a member of a {DIGEST_SCHEME} digest")
    if digest and digest.get("scheme") != DIGEST_SCHEME:
        check.add(
            "$.digest.scheme", f"expected {DIGEST_SCHEME!r}, found {_short(digest.get('scheme'))}"
        )
    if digest and datas is not None and digest.get("records") != len(datas):
        check.add(
            "$.digest.records",
            f"says {_short(digest.get('records'))}, the report holds {len(datas)} records",
        )
    said = digest.get("as_of_sequence")
    if digest and (said != as_of or not _typed(said, int)):
        check.add("$.digest.as_of_sequence", f"says {_short(said)}, the report says {as_of!r}")
    root_ok = False
    complete = [d for d in datas or () if d is not None]
    if datas is not None and len(complete) == len(datas):
        root = merkle_root(complete)
        root_ok = digest.get("records_root") == root
        if root_ok:
            check.matched.append("records_root")
        else:
            check.add(
                "$.digest.records_root",
                f"the records hash to {root}, not to {_short(digest.get('records_root'))}",
            )
    else:
        check.add("$.digest.records_root", "cannot be recomputed: some records are damaged")
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
            "$.digest.report_sha256",
            "cannot be recomputed: the report holds values RFC 8785 cannot represent",
        )
    else:
        hash_ok = digest.get("report_sha256") == body_hash
        if hash_ok:
            check.matched.append("report_sha256")
        else:
            check.add(
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
        check.add("$.records", "missing or not a list")
        return None, None
    datas: list[bytes | None] = []
    decisions: list[Decision] | None = []
    state = _Order()
    for index, entry in enumerate(records):
        where = f"$.records[{index}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("decision"), Mapping):
            check.add(where, "not an object with a 'decision' object")
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
        check.add(f"{where}.{key}", "not a member of a report record", wire)
    try:
        data: bytes | None = canonical_json_fast(wire)
    except (CanonicalizationError, TypeError, ValueError) as exc:
        check.add(f"{where}.decision", f"RFC 8785 cannot represent it: {exc}", wire)
        data = None
    if data is not None:
        cid = citation_id(data)
        if entry.get("sha256") != cid:
            check.add(
                where,
                f"the record's content hashes to {cid}, not to its citation id "
                f"{_short(entry.get('sha256'))}: the record or its citation id was altered",
                wire,
            )
    sequence = wire.get("sequence")
    if _typed(sequence, int):
        if sequence <= state.previous:
            check.add(
                f"{where}.decision.sequence",
                f"{sequence} does not follow {state.previous}",
                wire,
            )
        state.previous = sequence
    decision_id = wire.get("id")
    if isinstance(decision_id, str):
        if decision_id in state.seen:
            check.add(f"{where}.decision.id", f"{decision_id!r} appears twice", wire)
        state.seen.add(decision_id)
    if project_id is not None and wire.get("project_id") != project_id:
        check.add(
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
            check.add(error.path, f"not a valid decision: {error.message}", wire)
        return None
    if decision.sequence is None:
        check.add(f"{where}.decision.sequence", "the record has no sequence", wire)
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
    if decisions is None or project_id is None or datas is None:
        return None, None
    if any(
        p.location.startswith(("$.records", "$.project_id")) and "citation id" not in p.reason
        for p in check.problems
    ):
        return None, None
    rebuilt = build_report(project_id, decisions, record_data=datas)
    expected = to_wire(rebuilt)
    before = len(check.problems)
    for key in ("schema", "as_of_sequence", "summary", "sections"):
        _diff(check, expected[key], doc.get(key), f"$.{key}")
    if len(check.problems) >= _MAX_FINDINGS:
        check.add("$", f"more differences than the {_MAX_FINDINGS} findings listed")
    if len(check.problems) == before:
        check.matched.append("summary and sections (re-assembled from the records)")
        return True, rebuilt
    return False, None


_META: Final = re.compile(r'<meta name="(generator|semreport-exported-at)" content="([^"]*)">')


def _check_page(check: _Checker, page: str, rebuilt: Report) -> bool | None:
    """Render the verified report again and compare it with the visible page.

    Only a page rendered by this version of the library can be compared (the
    template may change between versions); otherwise the answer is ``None``.
    """
    meta = dict(_META.findall(page[:4096]))
    if meta.get("generator") != f"semreport {library_version()}":
        return None
    try:
        exported_at = parse_datetime(meta.get("semreport-exported-at", ""))
    except (TypeError, ValueError):
        check.add("page", "the export time in the page's meta tag is missing or unreadable")
        return False
    expected = render_html(rebuilt, exported_at=exported_at, version=library_version())
    if expected == page:
        check.matched.append("the visible page (rendered again from the verified report)")
        return True
    shown, wanted = page.splitlines(), expected.splitlines()
    line = next(
        (i for i, (a, b) in enumerate(zip(shown, wanted, strict=False)) if a != b),
        min(len(shown), len(wanted)),
    )
    check.add(
        f"page line {line + 1}",
        "the visible page differs from the embedded report: it shows "
        f"{_short(shown[line] if line < len(shown) else '')}, the report renders as "
        f"{_short(wanted[line] if line < len(wanted) else '')}",
    )
    return False


def _diff(check: _Checker, expected: Any, actual: Any, path: str) -> None:
    """Add a finding for each place where ``actual`` differs from ``expected`` (capped)."""

    def note(where: str, reason: str) -> None:
        if len(check.problems) < _MAX_FINDINGS:
            check.add(where, reason)

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


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, default=repr)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_memory(
    check: _Checker,
    memory: DecisionMemory,
    *,
    project_id: str | None,
    as_of: int | None,
    datas: Sequence[bytes | None] | None,
) -> bool:
    """Compare the records with what Decision Memory holds as of the report's sequence."""
    records = check.doc.get("records")
    if project_id is None or as_of is None or not isinstance(records, list) or datas is None:
        check.add(
            "$", "cannot compare with memory: the report names no project, sequence or records"
        )
        return False
    before = len(check.problems)
    held: dict[int, Decision] = {}
    for stored in memory.decisions(project_id, as_of=as_of):
        assert stored.sequence is not None
        held[stored.sequence] = stored
    cited: set[int] = set()
    for index, (entry, data) in enumerate(zip(records, datas, strict=True)):
        wire = entry.get("decision") if isinstance(entry, Mapping) else None
        sequence = wire.get("sequence") if isinstance(wire, Mapping) else None
        if not isinstance(wire, Mapping) or not isinstance(sequence, int):
            check.add(f"$.records[{index}]", "has no sequence to look up in memory", wire)
            continue
        cited.add(sequence)
        match = held.get(sequence)
        if match is None:
            check.add(
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
                f"$.records[{index}].decision",
                f"differs from memory's decision {match.id!r} in: {', '.join(fields)}",
                wire,
            )
    for sequence in sorted(set(held) - cited):
        check.add(
            "$.records",
            f"memory holds decision {held[sequence].id!r} (sequence {sequence}), "
            "which the report does not cite",
        )
    if len(check.problems) == before:
        check.matched.append(f"memory ({len(held)} records as of sequence {as_of})")
        return True
    return False
