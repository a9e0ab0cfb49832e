"""Stored records: a decision as Decision Memory keeps it, for readers that need its data.

The search index and the reports read a project's whole log. They need each
record's fields, its citation hash and (for the digest) its canonical bytes,
not a :class:`~semreport.Decision` object per record: building and validating
one costs several times more than reading the row. A storage adapter yields a
:class:`StoredRecord` for each row it has checked against its hash (the record
was validated when it was written, and the hash proves it is unchanged) and
whose shape it has checked (:func:`record_shape_problem`).
"""

from __future__ import annotations

import re
from typing import Any, Final

import attrs

from semreport.domain._models import (
    Decision,
    DecisionDomain,
    DecisionStatus,
    EvidenceKind,
    LinkKind,
)

__all__ = ["StoredRecord", "record_shape_problem"]


@attrs.frozen
class StoredRecord:
    """One recorded decision as stored, checked against its citation hash.

    Attributes:
        sequence: Its position in the project's log.
        sha256: The hex SHA-256 of :attr:`canonical`: the record's citation id
            is ``"sha256:" + sha256``.
        canonical: The record's RFC 8785 (JCS) bytes, what reports hash and cite.
        wire: The decision's wire form (:func:`semreport.wire.to_wire` of the
            recorded decision): a fresh JSON-ready dict for every read, which
            the reader may keep or change without touching what is stored.
    """

    sequence: int
    sha256: str
    canonical: bytes = attrs.field(repr=lambda data: f"<{len(data)} bytes>")
    wire: dict[str, Any] = attrs.field(repr=False)

    @property
    def decision_id(self) -> str:
        """The decision's id."""
        value: str = self.wire["id"]
        return value


_FIELDS: Final = frozenset(attrs.fields_dict(Decision))
_DOMAINS: Final = frozenset(d.value for d in DecisionDomain)
_STATUSES: Final = frozenset(s.value for s in DecisionStatus)
_EVIDENCE_KINDS: Final = frozenset(k.value for k in EvidenceKind)
_LINK_KINDS: Final = frozenset(k.value for k in LinkKind)
_EVIDENCE_FIELDS: Final = frozenset(("kind", "ref", "title", "locator", "quote"))
_LINK_FIELDS: Final = frozenset(("kind", "target"))
_RECORDED_AT: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z")


def record_shape_problem(wire: object) -> str | None:
    """What makes ``wire`` something other than a recorded decision's wire form, or ``None``.

    Checks the shape readers rely on (every field present with its JSON type,
    known domains, statuses and kinds, a sequence and an RFC 3339 UTC time),
    not what only validation on write establishes (identifier syntax, number
    ranges): a row that hashes to its stored hash was validated when written.
    """
    if type(wire) is not dict:
        return "not a JSON object"
    # As many fields as a decision has, and each of them is read below: no other field.
    if len(wire) != len(_FIELDS):
        return "its fields are not a decision's"
    try:
        return _field_problem(wire)
    except KeyError:
        return "its fields are not a decision's"


def _field_problem(wire: dict[str, Any]) -> str | None:  # noqa: PLR0911, PLR0912 - one check per field
    if not (
        type(wire["id"]) is str
        and type(wire["project_id"]) is str
        and type(wire["title"]) is str
        and type(wire["statement"]) is str
        and type(wire["agent"]) is str
        and type(wire["rationale"]) is str
    ):
        return "a text field is not a string"
    if not (
        type(wire["tags"]) is list
        and type(wire["evidence"]) is list
        and type(wire["links"]) is list
        and type(wire["elements"]) is list
    ):
        return "a list field is not an array"
    if wire["domain"] not in _DOMAINS or wire["status"] not in _STATUSES:
        return "an unknown domain or status"
    session_id = wire["session_id"]
    if session_id is not None and type(session_id) is not str:
        return "session_id is not a string"
    attributes = wire["attributes"]
    if type(attributes) is not dict:
        return "attributes is not an object"
    for value in attributes.values():
        if type(value) not in _SCALARS:
            return "an attribute is not a number, a string or a boolean"
    for value in wire["tags"]:
        if type(value) is not str:
            return "a tag is not a string"
    for value in wire["elements"]:
        if type(value) is not str:
            return "an element is not a string"
    for item in wire["evidence"]:
        if not _is_evidence(item):
            return "evidence that is not well formed"
    for item in wire["links"]:
        if not _is_link(item):
            return "a link that is not well formed"
    sequence = wire["sequence"]
    if type(sequence) is not int or sequence < 1:
        return "no sequence"
    at = wire["recorded_at"]
    if type(at) is not str or not _RECORDED_AT.fullmatch(at):
        return "no recording time"
    return None


_SCALARS: Final = frozenset((str, int, float, bool))


def _is_evidence(item: object) -> bool:
    # Five fields, each read here (a missing one raises KeyError: not a decision's fields).
    if type(item) is not dict or len(item) != len(_EVIDENCE_FIELDS):
        return False
    locator, quote = item["locator"], item["quote"]
    return (
        item["kind"] in _EVIDENCE_KINDS
        and type(item["ref"]) is str
        and type(item["title"]) is str
        and (locator is None or type(locator) is str)
        and (quote is None or type(quote) is str)
    )


def _is_link(item: object) -> bool:
    return (
        type(item) is dict
        and len(item) == len(_LINK_FIELDS)
        and item["kind"] in _LINK_KINDS
        and type(item["target"]) is str
    )
