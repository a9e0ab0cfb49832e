"""Read models: what the listing and showing use cases answer.

They summarise stored records; none of them is stored itself.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from semreport.domain._models import Decision, LegacySession, LinkKind
from semreport.domain._values import FrozenDict

__all__ = ["DecisionDetail", "IncomingLink", "ProjectSummary", "SessionSummary"]


@attrs.frozen
class ProjectSummary:
    """One project a storage holds, counted.

    Attributes:
        project_id: The project's id.
        decisions: How many decisions the project holds.
        latest_sequence: The project's highest sequence number (0 without decisions).
        sessions: How many legacy sessions belong to the project.
    """

    project_id: str
    decisions: int
    latest_sequence: int
    sessions: int = 0


@attrs.frozen
class SessionSummary:
    """One legacy session without its transcript.

    Attributes:
        id: The session's id.
        project_id: The project it belongs to.
        title: Its title.
        started_at: When it began (UTC).
        ended_at: When it ended, if it did.
        turns: How many turns it holds.
        participants: How many participants took part.
    """

    id: str
    project_id: str
    title: str
    started_at: datetime
    ended_at: datetime | None
    turns: int
    participants: int

    @classmethod
    def of(cls, session: LegacySession) -> SessionSummary:
        """Summarise a stored session."""
        return cls(
            id=session.id,
            project_id=session.project_id,
            title=session.title,
            started_at=session.started_at,
            ended_at=session.ended_at,
            turns=len(session.turns),
            participants=len(session.participants),
        )


@attrs.frozen
class IncomingLink:
    """A link another decision of the project holds to this one.

    Attributes:
        kind: ``supersedes``, ``depends_on`` or ``relates_to``.
        source: The id of the decision that holds the link.
    """

    kind: LinkKind
    source: str


@attrs.frozen
class DecisionDetail:
    """One decision with what the rest of its project says about it.

    Attributes:
        decision: The stored decision (its own links are ``decision.links``).
        incoming: The links other decisions of the project hold to it, in
            sequence order of those decisions.
        titles: The title of every decision linked either way (a link to an id
            the project does not hold has no entry).
    """

    decision: Decision
    incoming: tuple[IncomingLink, ...] = ()
    titles: FrozenDict[str, str] = attrs.field(factory=FrozenDict)

    @property
    def superseded_by(self) -> tuple[str, ...]:
        """The ids of the decisions that supersede this one."""
        return tuple(link.source for link in self.incoming if link.kind is LinkKind.SUPERSEDES)

    @property
    def superseded(self) -> bool:
        """Whether another decision of the project supersedes this one."""
        return bool(self.superseded_by)
