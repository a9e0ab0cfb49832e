"""Hypothesis strategies for every semreport model, valid but hostile.

Text strategies mix ordinary text with the inputs that break naive code:
quotes and SQL fragments, NUL and other control characters where a field
allows them, right-to-left marks, combining characters, emoji, and very long
strings. Every strategy yields values the models accept, so a test may assume
validity and look for what goes wrong *after* validation (storage, export,
search).

Example:
    >>> from hypothesis import given
    >>> from semreport.testing import strategies as sst
    >>> @given(sst.decisions(project_id="p-1"))
    ... def test_round_trip(decision): ...
"""

from __future__ import annotations

import functools
import string
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Final

from hypothesis import strategies as st

from semreport.domain import (
    Artefact,
    Decision,
    DecisionDomain,
    DecisionStatus,
    Evidence,
    EvidenceKind,
    LegacySession,
    Link,
    LinkKind,
    Participant,
    Principal,
    Role,
    ToolCall,
    Turn,
    TurnRole,
)
from semreport.domain._limits import (
    MAX_ATTRIBUTES,
    MAX_BATCH_DECISIONS,
    MAX_DECISION_BYTES,
    MAX_ELEMENTS,
    MAX_EVIDENCE,
    MAX_LINKS,
    MAX_TAGS,
)
from semreport.domain._values import IDENTIFIER_PATTERN, MAX_SAFE_INTEGER
from semreport.wire import to_wire

__all__ = [
    "HOSTILE_SPECIMENS",
    "artefacts",
    "attribute_names",
    "attribute_values",
    "aware_datetimes",
    "decision_batches",
    "decisions",
    "evidence",
    "identifiers",
    "json_objects",
    "json_values",
    "legacy_sessions",
    "links",
    "malformed_decision_batches",
    "non_empty_text",
    "numbers",
    "participants",
    "principals",
    "tags",
    "text",
    "tool_calls",
    "turns",
    "wire",
]

HOSTILE_SPECIMENS: Final[tuple[str, ...]] = (
    "'",
    '"',
    "Robert'); DROP TABLE decisions;--",
    '" OR 1=1 --',
    "\\",
    "\\u0000",
    "%s %d {0} {name}",
    "<script>alert('x')</script>",
    '{"json": [1, 2]}',
    "\u202eevil\u202c",  # right-to-left override
    "שלום עולם",  # Hebrew, right to left
    "مرحبا",  # Arabic
    "e\u0301\u0301",  # combining accents
    "👩\u200d🔬🏗️",  # emoji with a zero-width joiner
    "\ufeffbom",
    "line\r\nbreak\ttab",
    "\u2028\u2029",
    "😀" * 300,
    "x" * 10_000,
)
"""Strings that break naive quoting, encoding or layout; each is valid text."""

_NO_SURROGATES: Final = st.characters(codec="utf-8")
_NO_NUL: Final = st.characters(codec="utf-8", exclude_characters="\x00")
_TIMEZONES: Final = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
)


@functools.cache
def text(*, allow_nul: bool = True, max_size: int = 60) -> st.SearchStrategy[str]:
    """Any text (possibly empty), mixing random Unicode with :data:`HOSTILE_SPECIMENS`.

    Lone surrogates are left out: they are not Unicode text and no store can keep them.
    """
    alphabet = _NO_SURROGATES if allow_nul else _NO_NUL
    specimens = [s for s in HOSTILE_SPECIMENS if allow_nul or "\x00" not in s]
    if allow_nul:
        specimens.append("nul\x00inside")
    return st.one_of(
        st.text(alphabet, max_size=max_size),
        st.sampled_from(specimens),
        st.tuples(st.sampled_from(specimens), st.text(alphabet, max_size=8)).map("".join),
    )


@functools.cache
def non_empty_text(*, allow_nul: bool = True, max_size: int = 60) -> st.SearchStrategy[str]:
    """Text with at least one visible character (titles, statements, names)."""
    visible = st.sampled_from(string.ascii_letters + string.digits + "éß漢字😀'\"")
    return st.tuples(
        text(allow_nul=allow_nul, max_size=max_size), visible, text(allow_nul=allow_nul, max_size=8)
    ).map("".join)


@functools.cache
def identifiers() -> st.SearchStrategy[str]:
    """Identifiers: ``^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$``, short ones most often."""
    short = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,11}", fullmatch=True)
    return st.one_of(short, short, st.from_regex(IDENTIFIER_PATTERN, fullmatch=True))


@functools.cache
def tags() -> st.SearchStrategy[str]:
    """Tags: 1 to 128 printable characters without surrounding whitespace."""
    printable = st.characters(exclude_categories=("Cs", "Cc", "Cf", "Zl", "Zp", "Co", "Cn"))
    return (
        st.text(printable, min_size=1, max_size=40)
        .map(str.strip)
        .filter(lambda t: bool(t) and t.isprintable() and len(t) <= 128)
    )


@functools.cache
def attribute_names() -> st.SearchStrategy[str]:
    """Attribute names such as ``cost_eur`` or ``fire_resistance_min``."""
    known = st.sampled_from(["cost_eur", "co2e_kg", "fire_resistance_min", "u_value", "life.yr"])
    return st.one_of(known, st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,20}", fullmatch=True))


_NUMBER_EDGES: Final[tuple[int | float, ...]] = (
    0,
    -0.0,
    MAX_SAFE_INTEGER,
    -MAX_SAFE_INTEGER,
    float(2**53),
    9007199254740993.0,  # the double just above 2**53 (it rounds to 2**53 + 2)
    1.0e16,
    1.0e17,
    1.0e21,
    1.0e-7,
    5e-324,
    -1.7976931348623157e308,
    0.1,
)


@functools.cache
def numbers() -> st.SearchStrategy[int | float]:
    """Exactly the numbers the wire form accepts: integers within ±(2**53 - 1) and finite floats.

    Every value survives RFC 8785 canonicalisation and every backend unchanged
    (I-JSON, RFC 7493). Besides uniform draws it favours the edges where
    serialisers disagree: the safe-integer bounds, whole-number floats between
    2**53 and 1e21 (which JCS prints without an exponent), ``-0.0``,
    subnormals and the largest double.
    """
    return st.one_of(
        st.integers(min_value=-MAX_SAFE_INTEGER, max_value=MAX_SAFE_INTEGER),
        st.floats(allow_nan=False, allow_infinity=False),
        st.integers(min_value=2**53, max_value=10**21).map(float),
        st.sampled_from(_NUMBER_EDGES),
    )


@functools.cache
def attribute_values() -> st.SearchStrategy[bool | int | float | str]:
    """Attribute values: booleans, every accepted number (:func:`numbers`) and hostile text."""
    return st.one_of(st.booleans(), numbers(), text())


def aware_datetimes(
    *, min_value: datetime | None = None, max_value: datetime | None = None
) -> st.SearchStrategy[datetime]:
    """Timezone-aware datetimes (various offsets) between 1900 and 2200 by default."""
    low = (min_value or datetime(1900, 1, 1, tzinfo=UTC)).astimezone(UTC).replace(tzinfo=None)
    high = (max_value or datetime(2200, 1, 1, tzinfo=UTC)).astimezone(UTC).replace(tzinfo=None)
    # Draw in UTC, then show the instant in another offset: the instant stays in range.
    return st.builds(
        lambda naive, tz: naive.replace(tzinfo=UTC).astimezone(tz),
        st.datetimes(min_value=low, max_value=high),
        _TIMEZONES,
    )


@functools.cache
def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """JSON values (plain ``dict``/``list`` form), with accepted numbers and hostile text."""
    leaves = st.one_of(st.none(), st.booleans(), numbers(), text(max_size=20))
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(text(max_size=10), inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


@functools.cache
def json_objects(*, max_leaves: int = 12) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects, e.g. tool-call arguments."""
    return st.dictionaries(text(max_size=10), json_values(max_leaves=max_leaves), max_size=4)


@functools.cache
def evidence() -> st.SearchStrategy[Evidence]:
    """Evidence of every kind, with hostile references, titles and quotes."""
    return st.builds(
        Evidence,
        kind=st.sampled_from(EvidenceKind),
        ref=non_empty_text(),
        title=text(),
        locator=st.none() | text(),
        quote=st.none() | text(),
    )


def links(*, not_to: str | None = None) -> st.SearchStrategy[Link]:
    """Links of every kind; ``not_to`` excludes a target (a decision cannot link to itself)."""
    targets = identifiers() if not_to is None else identifiers().filter(lambda t: t != not_to)
    return st.builds(Link, kind=st.sampled_from(LinkKind), target=targets)


@st.composite
def decisions(
    draw: st.DrawFn,
    *,
    project_id: str | None = None,
    decision_id: str | None = None,
) -> Decision:
    """Unrecorded decisions (no sequence), optionally for a given project and id."""
    own_id = decision_id if decision_id is not None else draw(identifiers())
    return Decision(
        id=own_id,
        project_id=project_id if project_id is not None else draw(identifiers()),
        title=draw(non_empty_text()),
        statement=draw(non_empty_text(max_size=200)),
        agent=draw(identifiers()),
        rationale=draw(text(max_size=200)),
        domain=draw(st.sampled_from(DecisionDomain)),
        status=draw(st.sampled_from(DecisionStatus)),
        session_id=draw(st.none() | identifiers()),
        tags=draw(st.frozensets(tags(), max_size=4)),
        attributes=draw(st.dictionaries(attribute_names(), attribute_values(), max_size=4)),
        evidence=draw(st.lists(evidence(), max_size=3)),
        links=[link for link in draw(st.lists(links(), max_size=3)) if link.target != own_id],
        elements=draw(st.frozensets(identifiers(), max_size=4)),
    )


@st.composite
def decision_batches(
    draw: st.DrawFn,
    *,
    project_ids: Sequence[str] = ("p-1",),
    min_size: int = 0,
    max_size: int = 8,
    exclude_ids: frozenset[tuple[str, str]] = frozenset(),
) -> list[Decision]:
    """A batch the log accepts: ids unique per project and not in ``exclude_ids``.

    ``exclude_ids`` holds ``(project_id, decision_id)`` pairs already stored.
    """
    keys = draw(
        st.lists(
            st.tuples(st.sampled_from(list(project_ids)), identifiers()).filter(
                lambda key: key not in exclude_ids
            ),
            min_size=min_size,
            max_size=max_size,
            unique=True,
        )
    )
    return [draw(decisions(project_id=p, decision_id=i)) for p, i in keys]


@functools.cache
def participants() -> st.SearchStrategy[Participant]:
    """Session participants of every role."""
    return st.builds(
        Participant, id=identifiers(), name=non_empty_text(), role=st.sampled_from(TurnRole)
    )


@functools.cache
def tool_calls() -> st.SearchStrategy[ToolCall]:
    """Tool calls with JSON arguments and any JSON result."""
    return st.builds(
        ToolCall, name=non_empty_text(), arguments=json_objects(), result=json_values()
    )


def turns(
    *, index: int = 0, author: str | None = None, at: datetime | None = None
) -> st.SearchStrategy[Turn]:
    """A single turn (give ``index``, ``author`` and ``at`` to fit it into a session)."""
    return st.builds(
        Turn,
        index=st.just(index),
        at=st.just(at) if at is not None else aware_datetimes(),
        role=st.sampled_from(TurnRole),
        author=st.just(author) if author is not None else identifiers(),
        content=text(max_size=200),
        tool_calls=st.lists(tool_calls(), max_size=2),
        decision_refs=st.lists(identifiers(), max_size=3),
    )


@functools.cache
def _sha256() -> st.SearchStrategy[str]:
    return st.text("0123456789abcdef", min_size=64, max_size=64)


def artefacts(*, turn_indices: Sequence[int] = ()) -> st.SearchStrategy[Artefact]:
    """Artefacts; ``turn_index`` is ``None`` or one of ``turn_indices``."""
    index = st.none() | st.sampled_from(list(turn_indices)) if turn_indices else st.none()
    return st.builds(
        Artefact,
        name=non_empty_text(),
        media_type=st.sampled_from(["application/pdf", "image/png", "text/plain; charset=utf-8"]),
        sha256=_sha256(),
        uri=text(max_size=40),
        turn_index=index,
    )


@st.composite
def legacy_sessions(
    draw: st.DrawFn, *, project_id: str | None = None, session_id: str | None = None
) -> LegacySession:
    """Legacy sessions that satisfy every cross-field rule.

    Participants have unique ids, every turn's author is a participant, turn
    indices strictly increase, ``ended_at`` is not before ``started_at`` and
    artefacts point at existing turns.
    """
    people = draw(st.lists(participants(), max_size=4, unique_by=lambda p: p.id))
    started = draw(aware_datetimes(max_value=datetime(2100, 1, 1, tzinfo=UTC)))
    session_turns: list[Turn] = []
    if people:
        gaps = draw(st.lists(st.integers(min_value=1, max_value=3), max_size=5))
        index = draw(st.integers(min_value=0, max_value=2))
        for gap in gaps:
            author = draw(st.sampled_from([p.id for p in people]))
            at = started + timedelta(seconds=draw(st.integers(min_value=0, max_value=10**6)))
            session_turns.append(draw(turns(index=index, author=author, at=at)))
            index += gap
    ended = draw(
        st.none()
        | st.integers(min_value=0, max_value=10**7).map(lambda s: started + timedelta(seconds=s))
    )
    return LegacySession(
        id=session_id if session_id is not None else draw(identifiers()),
        project_id=project_id if project_id is not None else draw(identifiers()),
        title=draw(non_empty_text()),
        started_at=started,
        ended_at=ended,
        participants=people,
        turns=session_turns,
        artefacts=draw(
            st.lists(artefacts(turn_indices=[t.index for t in session_turns]), max_size=3)
        ),
    )


@functools.cache
def principals() -> st.SearchStrategy[Principal]:
    """Callers with any mix of roles and project grants."""
    return st.builds(
        Principal,
        subject=non_empty_text(allow_nul=False),
        roles=st.frozensets(st.sampled_from(Role)),
        projects=st.frozensets(identifiers(), max_size=4),
        all_projects=st.booleans(),
    )


def wire(models: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The wire form (JSON-ready data) of the models another strategy yields.

    Example:
        >>> decision_payloads = wire(decisions(project_id="p-1"))
    """
    return models.map(to_wire)


# -- malformed input ----------------------------------------------------------------------

_BAD_IDS: Final[tuple[object, ...]] = ("", " x", "-x", "x" * 129, "a b", 5, [], {}, "x\ud800")
_BAD_TEXT: Final[tuple[object, ...]] = ("", "   ", 5, None, [], {}, "x\udfff")
_BAD_NUMBERS: Final[tuple[object, ...]] = (
    2**53,
    -(2**53),
    10**30,
    float("nan"),
    float("inf"),
    float("-inf"),
)
_BAD_FIELDS: Final[dict[str, tuple[object, ...]]] = {
    "id": (*_BAD_IDS, None),
    "project_id": (*_BAD_IDS, None),
    "agent": (*_BAD_IDS, None),
    "session_id": _BAD_IDS,
    "title": _BAD_TEXT,
    "statement": _BAD_TEXT,
    "rationale": (5, None, [], {}, "x\ud800"),
    "domain": ("nope", "REGULATION", 5, None, []),
    "status": ("nope", "superseded", 5, None, {}),
    "tags": (
        "fire",
        5,
        None,
        {"a": 1},
        [5],
        [""],
        [" x"],
        ["x" * 129],
        ["\ud800"],
        [f"t{n}" for n in range(MAX_TAGS + 1)],
    ),
    "attributes": (
        [],
        "x",
        5,
        None,
        {"a b": 1},
        {"": 1},
        {"x": None},
        {"x": [1]},
        {"x": {"y": 1}},
        {"x": "\ud800"},
        *({"x": number} for number in _BAD_NUMBERS),
        {f"a{n}": n for n in range(MAX_ATTRIBUTES + 1)},
    ),
    "evidence": (
        "x",
        5,
        None,
        [5],
        [{}],
        [{"kind": "nope", "ref": "r"}],
        [{"kind": "document", "ref": ""}],
        [{"kind": "document", "ref": "r", "page": 1}],
        [{"kind": "document", "ref": "r", "quote": 5}],
        [{"kind": "document", "ref": f"r{n}"} for n in range(MAX_EVIDENCE + 1)],
    ),
    "links": (
        "x",
        5,
        None,
        [None],
        [{"kind": "supersedes"}],
        [{"kind": "replaces", "target": "t"}],
        [{"kind": "supersedes", "target": "-bad"}],
        [{"kind": "relates_to", "target": f"t{n}"} for n in range(MAX_LINKS + 1)],
    ),
    "elements": ("x", 5, None, [5], ["-bad"], [f"e{n}" for n in range(MAX_ELEMENTS + 1)]),
    "sequence": ("3", 0, -1, 1.5, True, *_BAD_NUMBERS),
    "recorded_at": ("2020", "2026-01-01T00:00:00", "not a date", 5, []),
}
"""For each field of a decision's wire form, values the wire boundary must refuse."""

_NOT_OBJECTS: Final[tuple[object, ...]] = (None, True, 0, 2.5, "x", [], [1], b"bytes", {1, 2})
_NOT_ARRAYS: Final[tuple[object, ...]] = (None, True, 0, 2.5, "x", b"bytes", {"id": "d-1"})
_REQUIRED: Final = ("id", "project_id", "title", "statement", "agent")


def _malformed_decision(draw: st.DrawFn, valid: dict[str, Any]) -> object:
    mutation = draw(_MUTATIONS)
    bad = dict(valid)
    if mutation == "item":
        return draw(st.sampled_from(_NOT_OBJECTS))
    if mutation == "missing":
        del bad[draw(st.sampled_from(_REQUIRED))]
    elif mutation == "unknown":
        bad[draw(st.sampled_from(["extra", "Title", "superseded", "\ud800", ""]))] = 1
    elif mutation == "self":
        bad["links"] = [{"kind": draw(st.sampled_from(LinkKind)).value, "target": bad["id"]}]
    elif mutation == "big":
        bad["statement"] = "x" * (MAX_DECISION_BYTES + 1)
    else:
        name = draw(_BAD_FIELD_NAMES)
        bad[name] = draw(st.sampled_from(_BAD_FIELDS[name]))
    return bad


_MUTATIONS: Final = st.sampled_from(
    ["field", "field", "field", "missing", "unknown", "self", "big", "item"]
)
_BAD_FIELD_NAMES: Final = st.sampled_from(sorted(_BAD_FIELDS))


@functools.cache
def malformed_decision_batches(*, project_id: str = "p-1") -> st.SearchStrategy[object]:
    """Input that ``SemReport.record`` must refuse whole, with a typed error.

    Batches of valid decisions (wire form) in which at least one item is
    broken: a field of the wrong kind or out of range (numbers outside the
    accepted domain, lone surrogates, naive date-times, identifiers that do
    not match, collections over their limits), a missing or unknown field, a
    self-link, a decision over :data:`~semreport.limits.MAX_DECISION_BYTES`,
    an item that is not an object, an id repeated in the batch. Sometimes the
    batch itself is wrong: not an array, or longer than
    :data:`~semreport.limits.MAX_BATCH_DECISIONS`.
    """
    # Plain valid decisions are enough to carry the breakage and cheap to draw, so
    # thousands of batches run in seconds; the variety is in the breakage.
    words = st.sampled_from(["fire", "timber", "CLT façade", "U-value 0.18", "漢字", "'; --"])
    link = st.fixed_dictionaries(
        {
            "kind": st.sampled_from([k.value for k in LinkKind]),
            "target": st.sampled_from(["t-1", "t-2"]),
        }
    )
    decision = st.fixed_dictionaries(
        {
            "id": st.from_regex(r"d-[a-z0-9]{1,6}", fullmatch=True),
            "project_id": st.just(project_id),
            "title": words,
            "statement": words,
            "agent": st.sampled_from(["architect", "cost.agent", "fire-engineer"]),
        },
        optional={
            "rationale": words,
            "domain": st.sampled_from([d.value for d in DecisionDomain]),
            "status": st.sampled_from([s.value for s in DecisionStatus]),
            "tags": st.lists(st.sampled_from(["fire", "cost", "REI 60"]), unique=True),
            "attributes": st.dictionaries(st.sampled_from(["cost_eur", "u_value"]), numbers()),
            "links": st.lists(link, max_size=2),
        },
    )
    valid = st.lists(decision, min_size=1, max_size=4, unique_by=_key)

    @st.composite
    def broken(draw: st.DrawFn) -> object:
        items = draw(valid)
        chosen = draw(st.sets(st.integers(0, len(items) - 1), min_size=1, max_size=len(items)))
        return [
            _malformed_decision(draw, item) if n in chosen else item for n, item in enumerate(items)
        ]

    return st.one_of(
        broken(),
        broken(),
        broken(),
        st.sampled_from(_NOT_ARRAYS),
        st.just([{}] * (MAX_BATCH_DECISIONS + 1)),
        valid.map(lambda items: [*items, dict(items[0])]),
    )


def _key(item: dict[str, Any]) -> object:
    return item["id"]
