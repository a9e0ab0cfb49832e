"""The domain model: decisions, legacy sessions and callers.

Every class is a frozen, slotted attrs class. Validators run on direct
construction, so an invalid object cannot exist; the wire converter runs the
same checks field by field so that bad input is reported with every path.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from html import escape
from typing import Annotated, Any

import attrs

from semreport.domain._values import (
    AttributeName,
    AttributeValue,
    Constraint,
    FrozenDict,
    Identifier,
    InvalidType,
    InvalidValue,
    JsonValue,
    NonEmptyText,
    PathStep,
    SafeInt,
    Sha256Hex,
    Tag,
    Text,
    check_attribute_name,
    check_attribute_value,
    check_identifier,
    check_integer,
    check_non_empty,
    check_optional_text,
    check_sha256,
    check_tag,
    check_text,
    check_utc,
    freeze_json,
    is_plain_attribute,
    is_plain_tag,
    json_kind,
)

__all__ = [
    "Artefact",
    "Decision",
    "DecisionDomain",
    "DecisionStatus",
    "Evidence",
    "EvidenceKind",
    "JsonObject",
    "LegacySession",
    "Link",
    "LinkKind",
    "Participant",
    "Principal",
    "Role",
    "ToolCall",
    "Turn",
    "TurnRole",
]


class DecisionDomain(enum.StrEnum):
    """The area of a building design a decision belongs to."""

    REGULATION = "regulation"
    MATERIAL = "material"
    COST = "cost"
    LIFECYCLE = "lifecycle"
    GENERAL = "general"


class DecisionStatus(enum.StrEnum):
    """The stored status of a decision.

    *Superseded* is not a status: it is derived from ``supersedes`` links.
    """

    PROPOSED = "proposed"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    DEPRECATED = "deprecated"


class LinkKind(enum.StrEnum):
    """How one decision refers to another."""

    SUPERSEDES = "supersedes"
    DEPENDS_ON = "depends_on"
    RELATES_TO = "relates_to"


class EvidenceKind(enum.StrEnum):
    """What a piece of evidence cites."""

    REGULATION = "regulation"
    CATALOGUE_ITEM = "catalogue_item"
    COST_LINE = "cost_line"
    DOCUMENT = "document"


class TurnRole(enum.StrEnum):
    """Who speaks in a legacy session turn."""

    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    SYSTEM = "system"


class Role(enum.StrEnum):
    """A role a caller may hold."""

    USER = "user"
    OPERATOR = "operator"


def _validator(check: Callable[[Any], object]) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    """An attrs validator running ``check``; a refusal carries the attribute's name in its path."""

    def validate(_instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        try:
            check(value)
        except InvalidValue as exc:
            raise exc.within(attribute.name) from None

    return validate


def _each(check: Callable[[Any], object]) -> Callable[[Any], None]:
    def run(values: Iterable[Any]) -> None:
        ordered = isinstance(values, tuple | list)
        for index, value in enumerate(values):
            try:
                check(value)
            except InvalidValue as exc:
                raise (exc.within(index) if ordered else exc) from None

    return run


def _instances(kind: type) -> Callable[[Any], None]:
    """Check that every item of a tuple field is a ``kind`` (an Evidence, a Turn...).

    The field's converter makes any iterable a tuple; this refuses what is in
    it when it is not the model (a mapping, a string), instead of keeping it or
    failing later with an ``AttributeError``.
    """

    def check(value: object) -> None:
        if type(value) is not kind:
            got = (
                _with_article(type(value).__name__) if attrs.has(type(value)) else json_kind(value)
            )
            raise InvalidType(f"expected {_with_article(kind.__name__)}, got {got}")

    return _each(check)


def _with_article(name: str) -> str:
    return f"an {name}" if name[0] in "AEIOU" else f"a {name}"


def _optional(check: Callable[[Any], object]) -> Callable[[Any], None]:
    def run(value: Any) -> None:
        if value is not None:
            check(value)

    return run


def _positive(value: object) -> None:
    if check_integer(value) < 1:
        raise InvalidValue("must be 1 or more")


def _non_negative(value: object) -> None:
    if check_integer(value) < 0:
        raise InvalidValue("must be an integer of 0 or more")


def _utc(value: datetime) -> datetime:
    return check_utc(value)


def _optional_utc(value: datetime | None) -> datetime | None:
    return None if value is None else check_utc(value)


def _tuple(items: Iterable[Any]) -> tuple[Any, ...]:
    if type(items) is tuple:  # what tuple() would give back as it is
        return items
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise InvalidType(f"expected an array, got {json_kind(items)}")
    return tuple(items)


def _str_frozenset(items: Iterable[str]) -> frozenset[str]:
    if type(items) is frozenset:  # what frozenset() would give back as it is
        return items
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise InvalidType(f"expected an array of strings, got {json_kind(items)}")
    return frozenset(items)


def _roles(items: Iterable[Role | str]) -> frozenset[Role]:
    return frozenset(Role(item) for item in _str_frozenset(items))


def _attributes(items: Mapping[str, AttributeValue]) -> FrozenDict[str, AttributeValue]:
    if type(items) is FrozenDict:
        return items
    if not isinstance(items, Mapping):
        raise InvalidType(f"expected an object, got {json_kind(items)}")
    return items if isinstance(items, FrozenDict) else FrozenDict(items)


def _each_tag(values: Iterable[Any]) -> None:
    for value in values:
        if not is_plain_tag(value):
            check_tag(value)  # raises, naming the reason


def _check_attributes(items: Mapping[str, AttributeValue]) -> None:
    if all(is_plain_attribute(name, value) for name, value in items.items()):
        return
    problems: list[tuple[tuple[PathStep, ...], str]] = []
    for name, value in items.items():
        try:
            check_attribute_name(name)
            check_attribute_value(value)
        except InvalidValue as exc:
            problems.extend(((str(name), *path), reason) for path, reason in exc.problems)
    if problems:
        raise InvalidValue.of(problems)


def _json_object(value: Mapping[str, Any]) -> FrozenDict[str, JsonValue]:
    if not isinstance(value, Mapping):
        raise InvalidType(f"expected a JSON object, got {json_kind(value)}")
    frozen = freeze_json(value)
    assert isinstance(frozen, FrozenDict)
    return frozen


JsonObject = Annotated[FrozenDict[str, JsonValue], Constraint("json object", _json_object)]
"""A JSON object, deeply frozen."""
Json = Annotated[JsonValue, Constraint("json", freeze_json)]
"""Any JSON value, deeply frozen."""


@attrs.frozen
class Evidence:
    """What a decision cites: a regulation clause, a catalogue item, a cost line, a document.

    Attributes:
        kind: What is cited.
        ref: The citation itself, e.g. ``"BR Part B, B3 (4)"`` or a catalogue number.
        title: A readable name for the cited source.
        locator: Where in the source (page, clause, line), if known.
        quote: The words relied on, if quoted.
    """

    kind: EvidenceKind = attrs.field(converter=EvidenceKind)
    ref: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    title: Text = attrs.field(default="", validator=_validator(check_text))
    locator: Text | None = attrs.field(default=None, validator=_validator(check_optional_text))
    quote: Text | None = attrs.field(default=None, validator=_validator(check_optional_text))


@attrs.frozen
class Link:
    """A typed reference from one decision to another of the same project."""

    kind: LinkKind = attrs.field(converter=LinkKind)
    target: Identifier = attrs.field(validator=_validator(check_identifier))


@attrs.frozen
class Decision:
    """One record of Decision Memory.

    ``sequence`` and ``recorded_at`` are assigned by the decision log when the
    record is stored; a decision built in code leaves them unset.

    Attributes:
        id: The decision's identifier, unique within its project.
        project_id: The project the decision belongs to.
        title: A short name for the decision.
        statement: What was decided.
        agent: The agent (or person) that made the decision.
        rationale: Why it was decided.
        domain: Regulation, material, cost, lifecycle or general.
        status: Proposed, accepted, rejected or deprecated.
        session_id: The legacy session the decision came from, if any.
        tags: Free labels.
        attributes: Named values such as ``cost_eur`` or ``fire_resistance_min``.
        evidence: The sources the decision cites.
        links: References to other decisions (``supersedes`` and so on).
        elements: Ids of the building elements the decision concerns.
        sequence: The per-project position assigned by the log.
        recorded_at: When the log stored the decision (UTC).
    """

    id: Identifier = attrs.field(validator=_validator(check_identifier))
    project_id: Identifier = attrs.field(validator=_validator(check_identifier))
    title: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    statement: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    agent: Identifier = attrs.field(validator=_validator(check_identifier))
    rationale: Text = attrs.field(default="", validator=_validator(check_text))
    domain: DecisionDomain = attrs.field(default=DecisionDomain.GENERAL, converter=DecisionDomain)
    status: DecisionStatus = attrs.field(default=DecisionStatus.PROPOSED, converter=DecisionStatus)
    session_id: Identifier | None = attrs.field(
        default=None, validator=_validator(_optional(check_identifier))
    )
    tags: frozenset[Tag] = attrs.field(
        factory=frozenset, converter=_str_frozenset, validator=_validator(_each_tag)
    )
    attributes: FrozenDict[AttributeName, AttributeValue] = attrs.field(
        factory=FrozenDict, converter=_attributes, validator=_validator(_check_attributes)
    )
    evidence: tuple[Evidence, ...] = attrs.field(
        default=(), converter=_tuple, validator=_validator(_instances(Evidence))
    )
    links: tuple[Link, ...] = attrs.field(
        default=(), converter=_tuple, validator=_validator(_instances(Link))
    )
    elements: frozenset[Identifier] = attrs.field(
        factory=frozenset,
        converter=_str_frozenset,
        validator=_validator(_each(check_identifier)),
    )
    sequence: SafeInt | None = attrs.field(default=None, validator=_validator(_optional(_positive)))
    recorded_at: datetime | None = attrs.field(default=None, converter=_optional_utc)

    def __attrs_post_init__(self) -> None:
        for index, link in enumerate(self.links):
            if link.target == self.id:
                raise InvalidValue(
                    f"decision {self.id!r} cannot link to itself", ("links", index, "target")
                )

    @property
    def is_recorded(self) -> bool:
        """Whether the log has stored this decision (it has a sequence)."""
        return self.sequence is not None

    @property
    def supersedes(self) -> tuple[str, ...]:
        """Ids of the decisions this one supersedes."""
        return tuple(link.target for link in self.links if link.kind is LinkKind.SUPERSEDES)

    def recorded(self, sequence: int, recorded_at: datetime) -> Decision:
        """Return a copy carrying the sequence and time the log assigned."""
        return attrs.evolve(self, sequence=sequence, recorded_at=recorded_at)

    def _repr_html_(self) -> str:
        """An HTML card for notebooks: every field, every text escaped."""
        return _decision_html(self)


@attrs.frozen
class ToolCall:
    """A tool an agent called during a turn, with its arguments and result."""

    name: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    arguments: JsonObject = attrs.field(factory=FrozenDict, converter=_json_object)
    result: Json = attrs.field(default=None, converter=freeze_json)


@attrs.frozen
class Participant:
    """Someone (or something) taking part in a legacy session."""

    id: Identifier = attrs.field(validator=_validator(check_identifier))
    name: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    role: TurnRole = attrs.field(default=TurnRole.USER, converter=TurnRole)


@attrs.frozen
class Turn:
    """One turn of a legacy session.

    Attributes:
        index: Position in the session, strictly increasing.
        at: When the turn happened (UTC).
        role: User, agent, tool or system.
        author: Id of the participant who spoke.
        content: What was said (may be empty).
        tool_calls: Tools called in the turn.
        decision_refs: Ids of decisions the turn refers to.
    """

    index: SafeInt = attrs.field(validator=_validator(_non_negative))
    at: datetime = attrs.field(converter=_utc)
    role: TurnRole = attrs.field(converter=TurnRole)
    author: Identifier = attrs.field(validator=_validator(check_identifier))
    content: Text = attrs.field(default="", validator=_validator(check_text))
    tool_calls: tuple[ToolCall, ...] = attrs.field(
        default=(), converter=_tuple, validator=_validator(_instances(ToolCall))
    )
    decision_refs: tuple[Identifier, ...] = attrs.field(
        default=(), converter=_tuple, validator=_validator(_each(check_identifier))
    )


@attrs.frozen
class Artefact:
    """A file a legacy session produced."""

    name: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    media_type: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    sha256: Sha256Hex = attrs.field(validator=_validator(check_sha256))
    uri: Text = attrs.field(default="", validator=_validator(check_text))
    turn_index: SafeInt | None = attrs.field(
        default=None, validator=_validator(_optional(_non_negative))
    )


@attrs.frozen
class LegacySession:
    """A transcript of agent work from before Decision Memory.

    Attributes:
        id: The session's identifier (unique across projects).
        project_id: The project the session belongs to.
        title: A short name for the session.
        started_at: When the session began (UTC).
        ended_at: When it ended, if it did.
        participants: Who took part; every turn's author is one of them.
        turns: The turns, in strictly increasing index order.
        artefacts: Files the session produced.
    """

    id: Identifier = attrs.field(validator=_validator(check_identifier))
    project_id: Identifier = attrs.field(validator=_validator(check_identifier))
    title: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    started_at: datetime = attrs.field(converter=_utc)
    ended_at: datetime | None = attrs.field(default=None, converter=_optional_utc)
    participants: tuple[Participant, ...] = attrs.field(
        default=(), converter=_tuple, validator=_validator(_instances(Participant))
    )
    turns: tuple[Turn, ...] = attrs.field(
        default=(), converter=_tuple, validator=_validator(_instances(Turn))
    )
    artefacts: tuple[Artefact, ...] = attrs.field(
        default=(), converter=_tuple, validator=_validator(_instances(Artefact))
    )

    def __attrs_post_init__(self) -> None:
        problems: list[tuple[tuple[PathStep, ...], str]] = []
        if self.ended_at is not None and self.ended_at < self.started_at:
            problems.append((("ended_at",), "must not be before started_at"))
        ids = [p.id for p in self.participants]
        if len(set(ids)) != len(ids):
            problems.append((("participants",), "participant ids must be unique"))
        known = set(ids)
        previous = -1
        for position, turn in enumerate(self.turns):
            if turn.index <= previous:
                problems.append((("turns", position, "index"), "indices must strictly increase"))
            previous = turn.index
            if turn.author not in known:
                problems.append(
                    (("turns", position, "author"), f"{turn.author!r} is not a participant id")
                )
        indices = {turn.index for turn in self.turns}
        for position, artefact in enumerate(self.artefacts):
            if artefact.turn_index is not None and artefact.turn_index not in indices:
                problems.append(
                    (
                        ("artefacts", position, "turn_index"),
                        f"no turn has index {artefact.turn_index}",
                    )
                )
        if problems:
            raise InvalidValue.of(problems)

    def participant(self, participant_id: str) -> Participant:
        """Return the participant with that id (``KeyError`` if none)."""
        for participant in self.participants:
            if participant.id == participant_id:
                return participant
        raise KeyError(participant_id)


@attrs.frozen
class Principal:
    """The caller a use case runs for.

    Attributes:
        subject: Who the caller is (a user name, a service, a token subject).
        roles: ``user`` and/or ``operator``.
        projects: The projects the caller may read.
        all_projects: Whether the caller may read every project.
    """

    subject: NonEmptyText = attrs.field(validator=_validator(check_non_empty))
    roles: frozenset[Role] = attrs.field(factory=frozenset, converter=_roles)
    projects: frozenset[Identifier] = attrs.field(
        factory=frozenset,
        converter=_str_frozenset,
        validator=_validator(_each(check_identifier)),
    )
    all_projects: bool = False

    @classmethod
    def local(cls, subject: str = "local") -> Principal:
        """A caller with both roles and every project: the notebook default."""
        return cls(subject, roles={Role.USER, Role.OPERATOR}, all_projects=True)

    def has_role(self, role: Role) -> bool:
        """Whether the caller holds ``role``."""
        return role in self.roles

    def may_read(self, project_id: str) -> bool:
        """Whether the caller holds a grant for ``project_id``."""
        return self.all_projects or project_id in self.projects


# -- the notebook view of a decision: every text escaped (stdlib only) -----------------


def _value_text(value: object) -> str:
    """An attribute value as text: strings as they are, numbers and booleans as in JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def _decision_html(decision: Decision) -> str:
    """Render one decision as an HTML card for a notebook."""
    d = decision
    recorded = (
        f"sequence {d.sequence}, recorded {escape(d.recorded_at.isoformat())}"
        if d.sequence is not None and d.recorded_at is not None
        else "not recorded"
    )
    parts = [
        f"<div><p><strong>{escape(d.title)}</strong> {_code(d.id)} "
        f"<small>[{escape(d.domain.value)}, {escape(d.status.value)}] "
        f"project {_code(d.project_id)}, by {escape(d.agent)}, {recorded}</small></p>",
        f'<p style="white-space:pre-wrap">{escape(d.statement)}</p>',
    ]
    if d.rationale:
        parts.append(
            f'<p style="white-space:pre-wrap"><em>Rationale:</em> {escape(d.rationale)}</p>'
        )
    if d.attributes:
        rows = "".join(
            f"<tr><th>{escape(name)}</th><td>{escape(_value_text(value))}</td></tr>"
            for name, value in sorted(d.attributes.items())
        )
        parts.append(f"<table><tbody>{rows}</tbody></table>")
    if d.evidence:
        items = "".join(
            f"<li>{escape(e.kind.value)}: {escape(e.ref)}"
            + (f", {escape(e.title)}" if e.title else "")
            + (f" ({escape(e.locator)})" if e.locator else "")
            + (f": <q>{escape(e.quote)}</q>" if e.quote else "")
            + "</li>"
            for e in d.evidence
        )
        parts.append(f"<p><em>Evidence</em></p><ul>{items}</ul>")
    if d.links:
        links = ", ".join(f"{escape(link.kind.value)} {_code(link.target)}" for link in d.links)
        parts.append(f"<p><em>Links:</em> {links}</p>")
    if d.tags:
        parts.append(f"<p><em>Tags:</em> {escape(', '.join(sorted(d.tags)))}</p>")
    if d.elements:
        parts.append(f"<p><em>Elements:</em> {', '.join(_code(e) for e in sorted(d.elements))}</p>")
    if d.session_id:
        parts.append(f"<p><em>Session:</em> {_code(d.session_id)}</p>")
    parts.append("</div>")
    return "".join(parts)
