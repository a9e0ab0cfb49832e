"""Ports: what the use cases need from the outside world, as protocols.

Adapters (storage backends, the heuristic scorer, the GNN slot, a catalogue)
implement these; nothing here knows how.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import attrs

from semreport.domain._models import Decision, LegacySession, Principal
from semreport.domain._records import StoredRecord
from semreport.domain._views import ProjectSummary

QueryT_contra = TypeVar("QueryT_contra", contravariant=True)
"""What a scorer ranks for (the search's checked criteria or exemplar)."""
ResultT_co = TypeVar("ResultT_co", covariant=True)
"""What a scorer answers (the search's result)."""
CatalogueT_co = TypeVar("CatalogueT_co", covariant=True)
"""How a scorer describes its signals."""

__all__ = [
    "Authenticator",
    "Catalogue",
    "DecisionLog",
    "DecisionMemory",
    "InferenceModel",
    "ModelStatus",
    "Scorer",
    "ScorerInfo",
    "SessionLog",
    "SessionStore",
    "Storage",
]


@runtime_checkable
class DecisionMemory(Protocol):
    """Read access to Decision Memory.

    Records never change once stored, so reading *as of* a sequence number
    always gives the same records, however many appends follow.
    """

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        """Yield the project's decisions with ``after < sequence <= as_of``, in sequence order.

        ``as_of=None`` means the latest sequence at the time of the call.
        """
        ...

    def get(self, project_id: str, decision_id: str) -> Decision:
        """Return one decision; raise :class:`~semreport.DecisionNotFound` if absent."""
        ...

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        """Yield the stored records :meth:`decisions` would yield, as data, in sequence order.

        Each is checked against its hash and its shape; no :class:`Decision` is
        built. ``record.wire`` equals ``to_wire`` of the decision
        :meth:`decisions` gives for the same sequence.
        """
        ...

    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:
        """Return one stored record; raise :class:`~semreport.DecisionNotFound` if absent."""
        ...

    def get_records(self, project_id: str, decision_ids: Sequence[str]) -> list[StoredRecord]:
        """Return the stored records of ``decision_ids``, in the order given, in one read.

        What :meth:`get_record` gives for each id, without a round trip per
        record where the backend can avoid it (the search reads a page's
        records this way). A repeated id gives its record again, each with a
        fresh wire form; no ids give an empty list. Raise
        :class:`~semreport.DecisionNotFound` naming the first id the project
        does not hold.
        """
        ...

    def latest_sequence(self, project_id: str) -> int:
        """Return the project's highest sequence number (0 when it has no decisions)."""
        ...

    def has_project(self, project_id: str) -> bool:
        """Whether the project holds any decision or legacy session."""
        ...

    def projects(self) -> list[ProjectSummary]:
        """Every project that holds a decision or a legacy session, ordered by id.

        Ids are ordered by code point (what ``sorted`` does to Python strings);
        each summary counts the project's decisions and sessions and gives its
        latest sequence number.
        """
        ...


@runtime_checkable
class DecisionLog(Protocol):
    """Append access to Decision Memory: record, never update, never delete."""

    def record(self, decisions: Sequence[Decision]) -> list[Decision]:
        """Append a batch in one transaction: all of it or none.

        Assigns each decision the next per-project ``sequence`` (strictly
        increasing, without gaps) and ``recorded_at``, in batch order, and
        returns the stored decisions. A decision id already stored in its
        project, or repeated within the batch, raises
        :class:`~semreport.DecisionAlreadyRecorded` and writes nothing.
        """
        ...


@runtime_checkable
class SessionStore(Protocol):
    """Read access to legacy sessions."""

    def get_session(self, session_id: str) -> LegacySession:
        """Return one session; raise :class:`~semreport.SessionNotFound` if absent."""
        ...

    def sessions(self, project_id: str) -> Iterator[LegacySession]:
        """Yield the project's sessions ordered by start time, then id."""
        ...


@runtime_checkable
class SessionLog(Protocol):
    """Append access to legacy sessions (imports and tests; read-only over the contract)."""

    def record_sessions(self, sessions: Sequence[LegacySession]) -> list[LegacySession]:
        """Store a batch of sessions in one transaction: all of it or none.

        A session id already stored, or repeated in the batch, raises
        :class:`~semreport.SessionAlreadyRecorded` and writes nothing.
        """
        ...


@runtime_checkable
class Storage(DecisionMemory, DecisionLog, SessionStore, SessionLog, Protocol):
    """What a storage adapter provides: every storage port, and ``close``."""

    def close(self) -> None:
        """Release connections and files; the storage is unusable afterwards."""
        ...


@attrs.frozen
class ScorerInfo:
    """Who produced a search result.

    Attributes:
        name: The scorer's name, e.g. ``"heuristic"``.
        version: The scorer's version; results from different versions may differ.
        model_inference: Whether a learned model produced the scores. The
            heuristic scorer says ``False``, always.
    """

    name: str
    version: str
    model_inference: bool = False


@runtime_checkable
class Scorer(Protocol[QueryT_contra, ResultT_co, CatalogueT_co]):
    """Ranks a project's decisions for a query and explains each score.

    The heuristic scorer ships with the library; a learned scorer can replace
    it behind the same facade methods. The port is generic in its request and
    result types, which the search defines (the domain knows none of them):
    the facade takes a ``Scorer[Criteria | Exemplar, SearchResult,
    SignalCatalogue]`` (``semreport.search.SearchScorer``).
    """

    def describe(self) -> ScorerInfo:
        """Name the scorer and say whether a learned model is behind it."""
        ...

    def score(self, memory: DecisionMemory, project_id: str, query: QueryT_contra) -> ResultT_co:
        """Rank the project's decisions for a checked query and explain the returned page.

        ``query`` is checked criteria (``find``) or a checked exemplar (``similar``).
        The scorer reads only ``memory`` and must be deterministic for the same
        records and query.
        """
        ...

    def signals(self, memory: DecisionMemory, project_id: str) -> CatalogueT_co:
        """Describe the signals the scorer offers for the project."""
        ...


@attrs.frozen
class ModelStatus:
    """What the GNN slot holds.

    Attributes:
        loaded: Whether a trained model is loaded.
        model: The model's name, when one is loaded.
        reason: Why no model is loaded, or what is loaded.
    """

    loaded: bool
    reason: str
    model: str | None = None


@runtime_checkable
class InferenceModel(Protocol):
    """The slot for a graph neural network."""

    def status(self) -> ModelStatus:
        """Report whether a model is loaded, and why not."""
        ...

    def infer(self, payload: object) -> Mapping[str, Any]:
        """Run inference, or raise :class:`~semreport.GnnModelNotLoaded`."""
        ...


@runtime_checkable
class Catalogue(Protocol):
    """Manufacturer catalogue profile matching."""

    def match(self, request: Mapping[str, Any]) -> Mapping[str, Any]:
        """Match a profile request against the catalogue."""
        ...


@runtime_checkable
class Authenticator(Protocol):
    """Turns the credentials of a request into the caller a use case runs for.

    The HTTP adapter hands it the bearer token of each request. Adapters:
    OpenID Connect (JWKS-verified tokens) and static tokens for development.
    """

    def authenticate(self, token: str) -> Principal:
        """Return the caller the token stands for.

        Raises:
            Unauthenticated: the token is malformed, expired, not yet valid,
                signed by an unknown key or an unaccepted algorithm, or
                otherwise cannot be verified.
            SemReportError: another library error when no token can be
                verified right now (e.g. the identity provider's keys cannot
                be fetched); adapters answer it by its code.
        """
        ...
