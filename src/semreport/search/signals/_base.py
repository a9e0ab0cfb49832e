"""What a search signal is: a self-contained, explainable source of values in [0, 1].

A :class:`Signal` describes itself (name, kind, description, default
weights) and, for one request, says whether it is :meth:`~Signal.active` and
:meth:`~Signal.prepare` s a :class:`Prepared` state that computes values for
candidate rows, bounds them for pruning and explains one page of rows. The
scorer iterates the registry (:data:`semreport.search.signals.SIGNALS`) and
never names a signal itself.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, Final, Literal, overload

import attrs
import numpy as np

from semreport.domain import Decision, FrozenDict, JsonValue
from semreport.search._index import F64, I64, Bool, IndexSnapshot
from semreport.search._select import MARGIN

if TYPE_CHECKING:
    from semreport.search._partial import PartialDecision

__all__ = ["Evidence", "Page", "Prepared", "Prior", "Query", "Signal", "freeze"]

Evidence = FrozenDict[str, JsonValue]
"""What a signal says about one row: matched terms, shared values, deltas..."""


@attrs.frozen
class Query:
    """One request as the signals see it (built by the scorer from criteria or an exemplar).

    Attributes:
        mode: ``find`` or ``similar``.
        snap: The index snapshot the request ranks.
        text: ``find``'s query text ("" when none).
        prefer: ``find``'s preferred facet keys (``domain:cost``, ``tag:fire``...).
        near: ``find``'s numeric targets.
        exemplar: ``similar``'s inline exemplar (``None`` for a stored one, which
            the index holds at ``exemplar_row``: the signals read it from there).
        exemplar_row: The stored exemplar's row, else -1.
    """

    mode: Literal["find", "similar"]
    snap: IndexSnapshot
    text: str = ""
    prefer: tuple[str, ...] = ()
    near: Mapping[str, float] = attrs.field(factory=dict)
    exemplar: Decision | PartialDecision | None = None
    exemplar_row: int = -1

    @property
    def has_exemplar(self) -> bool:
        """Whether the request has an exemplar (stored or inline)."""
        return self.exemplar is not None or self.exemplar_row >= 0

    @property
    def targets(self) -> dict[str, float]:
        """The numeric targets: ``near`` in find, the exemplar's numeric attributes in similar."""
        row = self.exemplar_row
        if 0 <= row < self.snap.n:
            found = ((name, float(column[row])) for name, column in self.snap.attributes.items())
            return {name: value for name, value in found if not math.isnan(value)}
        if self.exemplar is None:
            return dict(self.near)
        return {
            name: float(value)
            for name, value in self.exemplar.attributes.items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }


class Page(Sequence[int]):
    """The rows of one page of hits, as every signal explaining them reads them.

    A page is a sequence of rows (ints), best first, so an explanation can
    iterate it. It also answers which terms its rows hold (:meth:`holds`),
    reading each row's terms from the index once for all the signals that
    ask (the text signals' matched words, feedback's expansion terms).

    Args:
        snap: The index snapshot the rows belong to.
        rows: The page's rows, in order.
    """

    __slots__ = ("_held", "_rows", "_snap")

    def __init__(self, snap: IndexSnapshot, rows: Sequence[int]) -> None:
        self._snap = snap
        self._rows: tuple[int, ...] = tuple(rows)
        self._held: list[frozenset[int]] | None = None

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        return self._rows[index]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __repr__(self) -> str:
        return f"Page({list(self._rows)!r})"

    @property
    def array(self) -> I64:
        """The rows as a new numpy array."""
        return np.array(self._rows, dtype=np.int64)

    def holds(self, terms: Sequence[int]) -> list[list[bool]]:
        """Per row, in order, whether it holds each of ``terms`` (term ids, in order).

        The rows' terms are read from the index on the first call only.
        """
        if self._held is None:
            self._held = self._snap.held_terms(self._rows)
        return [list(map(held.__contains__, terms)) for held in self._held]


class Prepared(abc.ABC):
    """A signal's state for one request: values of rows, their bound and their evidence.

    Values are computed element-wise, so a row's value never depends on which
    other rows are computed with it.

    Attributes:
        lead: Whether the values are computed for every row up front (the pruning
            ranks the lead signals densely and bounds the others by :attr:`bound`).
        bound: An upper bound of every normalised value (at most 1).
        idle: Whether the state found nothing to add for this request (every value
            is 0: feedback skipped on a weak first pass, a graph that does not
            agree with the text); the scorer then leaves the signal out, so that
            its weight does not dilute the others'.
    """

    lead: bool = False
    bound: float = 1.0
    idle: bool = False

    def __init__(self) -> None:
        self._dense: F64 | None = None

    @abc.abstractmethod
    def values(self, rows: I64) -> tuple[F64, F64]:
        """The normalised values in [0, 1] and the raw values of ``rows``."""

    def dense(self) -> F64:
        """The normalised values of every row (computed once per request)."""
        if self._dense is None:
            self._dense = self.compute_dense()
        return self._dense

    def compute_dense(self) -> F64:
        """Every row's normalised value; override when a whole-column form is cheaper."""
        snap_rows = np.arange(self.size(), dtype=np.int64)
        return self.values(snap_rows)[0]

    def scaled(self, weight: float, out: F64) -> F64:
        """Every row's normalised value times ``weight``, written into ``out``, for bounds.

        The pruning adds these up to bound scores (with a margin), so a state
        may compute them in a cheaper order whose result differs from
        ``dense() * weight`` in the last bit; the scores themselves always come
        from :meth:`values`.
        """
        result: F64 = np.multiply(self.dense(), weight, out=out)
        return result

    def reaching(self, floor: float) -> Bool:
        """Every row whose normalised value can reach ``floor``, within rounding (or a few more)."""
        found: Bool = self.dense() >= floor * (1.0 - MARGIN)
        return found

    @abc.abstractmethod
    def size(self) -> int:
        """How many rows the snapshot holds."""

    def positive(self) -> Bool:
        """Which rows the signal scores above zero (they match the request), as a new array."""
        result: Bool = self.dense() > 0
        return result

    @abc.abstractmethod
    def explain(self, page: Page) -> list[Evidence]:
        """The evidence of each row of ``page`` (a sequence of rows), in order."""

    def highlight_terms(self) -> tuple[str, ...]:
        """The analysed terms a hit's text is highlighted for (none: the signal matches no text)."""
        return ()


class Signal(abc.ABC):
    """One signal: its description, when it is active, and its per-request state.

    Subclasses set the class attributes and implement :meth:`active`,
    :meth:`prepare` and :meth:`coverage`; registering an instance in
    :data:`semreport.search.signals.SIGNALS` makes the scorer use it.
    """

    name: ClassVar[str]
    """The name used in weights and explanations."""
    kind: ClassVar[str]
    """``text``, ``facet``, ``numeric``, ``graph`` or ``time``."""
    description: ClassVar[str]
    """What it measures and how it maps to [0, 1]."""
    needs: ClassVar[str]
    """What activates it in a request."""
    find_weight: ClassVar[float]
    """Its default weight in ``find``."""
    similar_weight: ClassVar[float]
    """Its default weight in ``similar``."""

    @abc.abstractmethod
    def active(self, query: Query) -> bool:
        """Whether the request gives the signal something to score."""

    @abc.abstractmethod
    def prepare(self, query: Query) -> Prepared:
        """The signal's state for an active request."""

    def prepare_after(self, query: Query, earlier: Sequence[Prior]) -> Prepared:
        """The state, given the states of the signals prepared before it (registry order).

        A signal that builds on another's values (``feedback`` on the first pass
        of ``text`` or ``terms``, ``graph`` on the text evidence) reads them here
        instead of computing them again; by default, :meth:`prepare`. Given the
        same request, both give the same values.
        """
        return self.prepare(query)

    def selects(self, query: Query) -> bool:
        """Whether a positive value makes a decision a match (``False``: the signal only orders).

        A decision is a hit only when a selecting signal scores it above zero;
        ``graph`` in find and ``recency`` only order the matches.
        """
        return True

    @abc.abstractmethod
    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of the project's decisions that carry the signal."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


@attrs.frozen
class Prior:
    """A signal prepared earlier in the same request, as a later signal sees it.

    Attributes:
        name: The signal's name.
        kind: The signal's kind (``text``, ``facet``...).
        prepared: Its state.
        weight: Its weight in the request (before the active weights are scaled to 1).
    """

    name: str
    kind: str
    prepared: Prepared
    weight: float


def freeze(data: Mapping[str, object]) -> Evidence:
    """Freeze evidence built by a signal (dicts, lists and scalars) into JSON values.

    A :class:`FrozenDict` inside is taken as it is: signals build those from
    JSON values only (say, a part of the evidence shared by every row of a page).
    """
    out: dict[str, JsonValue] = {}
    for key, value in data.items():
        kind = type(value)
        # Exact types first: evidence is mostly plain scalars, dicts and lists, and an
        # abstract-base-class check costs more than the rest of the loop.
        if kind in _SCALARS or kind is FrozenDict:  # a FrozenDict of evidence is frozen already
            out[key] = value  # type: ignore[assignment]
        elif isinstance(value, Mapping):
            out[key] = freeze(value)
        elif isinstance(value, list | tuple):
            out[key] = tuple(value)
        else:
            out[key] = value  # type: ignore[assignment]
    return FrozenDict(out)


_SCALARS: Final = frozenset({str, float, int, bool, type(None)})
