"""One step of score propagation over the decision graph, weighed by how well it agrees.

The ``graph`` signal stands in for a learned graph model without learning
anything. The **seed** is the request's text evidence: every decision's text
value (``similar``'s stored exemplar counts 1, since it is the example
itself). A decision's **graph value** is the expected seed one random step
away, over its neighbours:

- every decision it links to or that links to it (any link kind), each once;
- every building element and evidence item it shares with other decisions;
  an item stands for its *other* holders, so its value is their mean seed
  (an item no other decision holds is no neighbour).

``g(i)`` is the mean over ``i``'s neighbours of their values, in [0, 1]
(0 without neighbours). No parameter: each neighbour counts once, whatever
its kind. An inline exemplar (not stored) joins as one more node of value 1,
linked to its link targets and holding its elements and evidence.

How much the graph counts is decided per request, from the data, by its
**agreement** with the text (:func:`agreement`):

- take the text's top ``m`` rows (at most :data:`AGREEMENT_DEPTH`, the
  exemplar excluded) that have a neighbour;
- ``r`` is Pearson's correlation, over those rows, of a row's seed and its
  graph value;
- ``a = max(0, r - 2 / sqrt(m))``: a correlation within about two standard
  errors of zero counts as none, so links that carry no topical signal (say,
  random links) give ``a = 0`` and leave the text's ranking as it is;
- ``s`` is the text's spread over the graph's on those rows (the ratio of
  their standard deviations): a mean over neighbours varies far less than
  the text does, and ``s g`` puts it on the text's scale, so that ``a`` is
  how much the graph counts beside the text, as it says.

The signal's value is ``a * min(1, s * g(i))``, at most ``a``.

An item ``k`` with ``c`` holders passes row ``i`` the mean of its other
holders' seeds, ``(S_k - s_i) / (c - 1)`` with ``S_k`` the summed seed of its
holders, computed as ``S_k w_k - s_i w_k`` with ``w_k = 1 / (c - 1)``: per
request one sum per item and one sum of ``S_k w_k`` per row, instead of one
division per (row, item) pair. Seeds, ``w_k`` and ``S_k w_k`` are rounded to
multiples of 2**-30 (:func:`quantise`) so that every sum over neighbours is
exact: it does not depend on the order of its terms, which follows row and
key ids, which follow the recording order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

from semreport.search._feedback import best_rows

__all__ = [
    "AGREEMENT_DEPTH",
    "QUANTUM",
    "Contribution",
    "Graph",
    "Propagation",
    "Spread",
    "agreement",
    "csr_entries",
    "propagate",
    "quantise",
    "spread",
]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]

AGREEMENT_DEPTH: Final = 1000
"""At most how many of the text's top rows the agreement is measured over."""
QUANTUM: Final = 2.0**-30
"""Seeds and item values are multiples of this, so that sums of them are exact."""
_EMPTY: Final[I64] = np.zeros(0, dtype=np.int64)


def quantise(values: F64) -> F64:
    """Round to multiples of :data:`QUANTUM` (values in [0, 1] stay in [0, 1])."""
    result: F64 = np.round(values * (1.0 / QUANTUM)) * QUANTUM
    return result


def agreement(values: F64, graph: F64, rows: I64) -> tuple[float, float, float]:
    """``(r, a, s)``: the correlation of ``values`` and ``graph`` over ``rows``, weight and scale.

    ``r`` is Pearson's correlation, ``a = max(0, r - 2 / sqrt(m))`` for ``m``
    rows, and ``s`` the ratio of the standard deviations of ``values`` and
    ``graph`` over the rows (``s * graph`` varies as ``values`` does). When
    ``r`` is undefined (fewer than three rows, or either side constant) the
    result is ``(0, 0, 1)``.
    """
    m = len(rows)
    if m < 3:
        return 0.0, 0.0, 1.0
    x = values[rows]
    y = graph[rows]
    x = x - x.mean()
    y = y - y.mean()
    xx, yy = float(x @ x), float(y @ y)
    spread = math.sqrt(xx * yy)
    if spread <= 0:
        return 0.0, 0.0, 1.0
    r = max(-1.0, min(1.0, float(x @ y) / spread))
    return r, max(0.0, r - 2.0 / math.sqrt(m)), math.sqrt(xx / yy)


@attrs.frozen(eq=False)
class Graph:
    """The graph one step walks, independent of any request (built with the index).

    Attributes:
        size: How many rows (decisions).
        link_indptr: Row offsets of the links (CSR).
        link_rows: Each row's linked rows (both directions, each once).
        thing_indptr: Row offsets of the elements and evidence items (CSR).
        thing_keys: Each row's element and evidence keys.
        key_indptr: Key offsets of the holders (CSR over key ids).
        key_rows: Each key's holders.
        holders: Per key id, how many rows hold it.
        shares: Per key id, ``1 / (holders - 1)`` rounded (0 for a key held once or never).
        spread: Per row, its keys' summed shares.
        degree: Per row, its neighbours: links and keys another row holds.
        linked: Per row, whether it has a neighbour (``degree > 0``).
        connected: Whether any row has a neighbour.
    """

    size: int
    link_indptr: I64
    link_rows: I64
    thing_indptr: I64
    thing_keys: I64
    key_indptr: I64
    key_rows: I64
    holders: I64
    shares: F64
    spread: F64
    degree: F64
    linked: npt.NDArray[np.bool_]
    connected: bool

    @classmethod
    def build(
        cls,
        link_indptr: I64,
        link_rows: I32 | I64,
        thing_indptr: I64,
        thing_keys: I32 | I64,
        keys: int,
        *,
        by_key: tuple[I64, I32 | I64] | None = None,
    ) -> Graph:
        """The graph of CSR links and CSR items over ``keys`` key ids (the rest derived here).

        ``by_key`` is the items' key-major form (offsets over the key ids, rows)
        when the caller has it; else it is computed here.
        """
        size = len(link_indptr) - 1
        thing_keys = thing_keys.astype(np.int64)
        holders = np.bincount(thing_keys, minlength=keys).astype(np.int64)
        shares = _shares(holders)
        if by_key is None:
            owners = np.repeat(np.arange(size, dtype=np.int64), np.diff(thing_indptr))
            key_indptr = np.zeros(len(holders) + 1, dtype=np.int64)
            np.cumsum(holders, out=key_indptr[1:])
            key_rows = owners[np.argsort(thing_keys, kind="stable")]
        else:
            key_indptr, key_rows = by_key[0], by_key[1].astype(np.int64)
        degree = np.diff(link_indptr).astype(np.float64)
        degree += _row_sums((shares[thing_keys] > 0).astype(np.float64), thing_indptr)
        return cls(
            size=size,
            link_indptr=link_indptr,
            link_rows=link_rows.astype(np.int64),
            thing_indptr=thing_indptr,
            thing_keys=thing_keys,
            key_indptr=key_indptr,
            key_rows=key_rows,
            holders=holders,
            shares=shares,
            spread=_row_sums(shares[thing_keys], thing_indptr),
            degree=degree,
            linked=degree > 0,
            connected=bool(np.any(degree > 0)),
        )


def _shares(holders: I64) -> F64:
    """``1 / (holders - 1)`` per key, rounded; 0 for a key with no other holder."""
    return quantise(np.divide(1.0, holders - 1.0, out=np.zeros(len(holders)), where=holders > 1))


def _row_sums(values: F64, indptr: I64) -> F64:
    """Per CSR row, the sum of its entries' ``values`` (0 for an empty row), exactly.

    The values are multiples of :data:`QUANTUM` at most 1 (or whole numbers), so
    the running sum of up to ``2**22`` of them is exact, and so is every
    difference of two running sums; longer inputs are summed per row.
    """
    rows = len(indptr) - 1
    if len(values) > _RUNNING_UP_TO:
        owners = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
        summed: F64 = np.bincount(owners, weights=values, minlength=rows).astype(np.float64)
        return summed
    running = np.zeros(len(values) + 1)
    np.cumsum(values, out=running[1:])
    sums: F64 = running[indptr[1:]] - running[indptr[:-1]]
    return sums


_RUNNING_UP_TO: Final = 1 << 22


def csr_entries(indptr: I64, rows: I64) -> tuple[I64, I64]:
    """Positions of every CSR entry of ``rows`` and the index (into ``rows``) of its row."""
    starts = indptr[rows]
    lengths = indptr[rows + 1] - starts
    owners = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    if not len(owners):
        return _EMPTY, owners
    # An entry's position: its row's start plus its place among the row's entries.
    positions = np.arange(len(owners), dtype=np.int64)
    positions += (starts + lengths - np.cumsum(lengths))[owners]
    return positions, owners


@attrs.frozen
class Contribution:
    """One neighbour's share of a row's graph value.

    Attributes:
        kind: ``link`` (a linked decision, or an inline exemplar) or ``thing`` (an
            element or evidence item shared with other decisions).
        node: The neighbour: a row or -1 for an inline exemplar (``link``), or a key id
            (``thing``).
        amount: Its share of ``g(row)``: its value over the row's neighbour count.
    """

    kind: str
    node: int
    amount: float


class Propagation:
    """One request's propagation: the seed, the items' sums, and graph values on demand.

    Args:
        graph: The project's graph.
        sources: The rows that pass a value on (the seed is 0 elsewhere).
        values: Their seeds, in [0, 1].
        extra_rows: Rows an inline exemplar links to (it counts as a neighbour of value 1).
        extra_keys: Keys an inline exemplar holds (it counts as one more holder of value 1).
    """

    def __init__(
        self,
        graph: Graph,
        sources: I64,
        values: F64,
        *,
        extra_rows: Sequence[int] = (),
        extra_keys: Sequence[int] = (),
    ) -> None:
        self.graph = graph
        seed = np.zeros(graph.size)
        seed[sources] = quantise(np.clip(values, 0.0, 1.0))
        self.seed: F64 = seed
        # An inline exemplar's few links and keys, each once, ascending (none for a stored one).
        self.extra_rows: I64 = np.array(sorted(set(extra_rows)), dtype=np.int64)
        keys: I64 = np.array(sorted(set(extra_keys)), dtype=np.int64)
        keys = keys[keys < len(graph.holders)]
        self.extra_keys = keys
        # Each key's summed seed, from the sources' keys only (exact: quantised values).
        self.sources: I64 = sources
        self._source_items: tuple[I64, I64] = csr_entries(graph.thing_indptr, sources)
        positions, owners = self._source_items
        sums = np.bincount(
            graph.thing_keys[positions],
            weights=seed[sources][owners],
            minlength=len(graph.holders),
        ).astype(np.float64)
        shares, spread, degree = graph.shares, graph.spread, graph.degree
        if len(keys) or len(self.extra_rows):
            sums[keys] += 1.0
            holders = graph.holders.copy()
            holders[keys] += 1
            shares = _shares(holders)
            degree = degree.copy()
            degree[self.extra_rows] += 1.0
            touched = np.unique(
                np.concatenate(
                    [graph.key_rows[graph.key_indptr[k] : graph.key_indptr[k + 1]] for k in keys]
                    or [_EMPTY]
                )
            )
            if len(touched):
                positions, owners = csr_entries(graph.thing_indptr, touched)
                held = shares[graph.thing_keys[positions]]
                spread = spread.copy()
                spread[touched] = np.bincount(owners, weights=held, minlength=len(touched))
                degree[touched] = (
                    np.diff(graph.link_indptr)[touched]
                    + np.bincount(owners, weights=held > 0, minlength=len(touched))
                    + np.isin(touched, self.extra_rows)
                )
        self.shares: F64 = shares
        self.spread: F64 = spread
        self.degree: F64 = degree
        # What each item passes on before its own holder's seed is taken out: S_k w_k.
        self.passed: F64 = quantise(sums * shares)

    def _finish(self, links: F64, items: F64, rows: I64 | None) -> tuple[F64, F64]:
        seed = self.seed if rows is None else self.seed[rows]
        spread = self.spread if rows is None else self.spread[rows]
        degree = self.degree if rows is None else self.degree[rows]
        total = links + items - seed * spread
        g = np.divide(total, degree, out=np.zeros(len(total)), where=degree > 0)
        return np.clip(g, 0.0, 1.0), degree

    def values(self, rows: I64) -> tuple[F64, F64]:
        """``(g, neighbours)`` of ``rows``: graph values in [0, 1] and neighbour counts."""
        return self._values(rows, *csr_entries(self.graph.thing_indptr, rows))

    def source_values(self, count: int) -> tuple[F64, F64]:
        """:meth:`values` of the first ``count`` sources, reading the items found for the seed."""
        positions, owners = self._source_items
        # A row's entries follow the previous row's: the first sources' entries come first.
        end = int(np.searchsorted(owners, count))
        return self._values(self.sources[:count], positions[:end], owners[:end])

    def _values(self, rows: I64, item_positions: I64, item_owners: I64) -> tuple[F64, F64]:
        graph = self.graph
        count = len(rows)
        positions, owners = csr_entries(graph.link_indptr, rows)
        links: F64 = np.bincount(
            owners, weights=self.seed[graph.link_rows[positions]], minlength=count
        ).astype(np.float64)
        if len(self.extra_rows):
            links += np.isin(rows, self.extra_rows)
        items: F64 = np.bincount(
            item_owners, weights=self.passed[graph.thing_keys[item_positions]], minlength=count
        ).astype(np.float64)
        return self._finish(links, items, rows)

    def dense(self) -> tuple[F64, F64]:
        """``(g, neighbours)`` of every row."""
        graph = self.graph
        links = _row_sums(self.seed[graph.link_rows], graph.link_indptr)
        if len(self.extra_rows):
            links[self.extra_rows] += 1.0
        items = _row_sums(self.passed[graph.thing_keys], graph.thing_indptr)
        return self._finish(links, items, None)

    def contributions(self, row: int) -> list[Contribution]:
        """Every neighbour of ``row`` that passed a value above zero, and its share of ``g``."""
        return [Contribution(*share) for share in self.shares_of([row])[0]]

    def shares_of(self, rows: Sequence[int]) -> list[list[tuple[str, int, float]]]:
        """:meth:`contributions` of each of ``rows`` as ``(kind, node, amount)``, read at once.

        Per row: its links in order (an inline exemplar's after them), then its
        elements and evidence items held by another decision; only those that
        passed a value above zero. The amounts are the same floats either way.
        """
        graph = self.graph
        asked = np.asarray(rows, dtype=np.int64)
        degree = self.degree[asked]
        # Links: each neighbour's seed over the row's neighbour count.
        positions, owners = csr_entries(graph.link_indptr, asked)
        nodes = graph.link_rows[positions]
        linked = self.seed[nodes] / degree[owners]
        # Items another decision holds: what they passed, less the row's own seed, likewise.
        item_positions, item_owners = csr_entries(graph.thing_indptr, asked)
        keys = graph.thing_keys[item_positions]
        kept = self.shares[keys] > 0
        keys, item_owners = keys[kept], item_owners[kept]
        held = (self.passed[keys] - self.seed[asked][item_owners] * self.shares[keys]) / degree[
            item_owners
        ]
        out: list[list[tuple[str, int, float]]] = [[] for _ in rows]
        for owner, node, amount in zip(
            owners.tolist(), nodes.tolist(), linked.tolist(), strict=True
        ):
            if amount > 0:
                out[owner].append(("link", node, amount))
        if len(self.extra_rows):
            extra = set(self.extra_rows.tolist())
            # An inline exemplar's link counts in its targets' degree, so it is above zero.
            for slot, (row, count) in enumerate(zip(asked.tolist(), degree.tolist(), strict=True)):
                if row in extra:
                    out[slot].append(("link", -1, 1.0 / count))
        for owner, key, amount in zip(
            item_owners.tolist(), keys.tolist(), held.tolist(), strict=True
        ):
            if amount > 0:
                out[owner].append(("thing", key, amount))
        return out


@attrs.frozen(eq=False)
class Spread:
    """A request's propagation with its agreement.

    Attributes:
        propagation: The graph values (``a`` and ``s`` not applied).
        correlation: ``r``.
        weight: ``a``, what the graph counts (0: nothing).
        rows: ``m``, the text's top rows with neighbours the agreement was measured over
            (they, and a stored exemplar, are the sources).
        scale: ``s``, what puts the graph values on the text's scale (1 where
            there is no text to measure it on).
    """

    propagation: Propagation
    correlation: float
    weight: float
    rows: int
    scale: float = 1.0

    def value(self, graph_values: F64) -> F64:
        """The signal's value of rows with these graph values: ``a * min(1, s * g)``."""
        scaled: F64 = np.minimum(1.0, self.scale * graph_values)
        scaled *= self.weight
        return scaled


def propagate(
    graph: Graph,
    text: F64,
    *,
    exemplar: int = -1,
    rank: I64 | None = None,
    extra_rows: Sequence[int] = (),
    extra_keys: Sequence[int] = (),
) -> Spread:
    """Propagate the text's top rows one step, weigh the graph by its agreement, scale it.

    The sources are the text's :data:`AGREEMENT_DEPTH` best rows that have a
    neighbour (``exemplar`` excluded), each passing on its text value, and a
    stored exemplar passing on 1. With no text at all (no row above zero) there
    is nothing to disagree with: ``a = 1``.

    Args:
        graph: The project's graph.
        text: Every row's text value in [0, 1].
        exemplar: ``similar``'s stored exemplar row, else -1.
        rank: Breaks ties between equal text values (lower first).
        extra_rows: Rows an inline exemplar links to.
        extra_keys: Keys an inline exemplar holds.
    """
    top = best_rows(text, AGREEMENT_DEPTH, exclude=exemplar, eligible=graph.linked, rank=rank)
    return spread(
        graph,
        top,
        text[top],
        exemplar=exemplar,
        any_text=lambda: _any_text(text, exemplar),
        extra_rows=extra_rows,
        extra_keys=extra_keys,
    )


def spread(
    graph: Graph,
    top: I64,
    values: F64,
    *,
    exemplar: int = -1,
    any_text: Callable[[], bool],
    extra_rows: Sequence[int] = (),
    extra_keys: Sequence[int] = (),
) -> Spread:
    """:func:`propagate`, given the text's top rows (best first) and their text values.

    Args:
        graph: The project's graph.
        top: The text's :data:`AGREEMENT_DEPTH` best rows with a neighbour, best first.
        values: Their text values.
        exemplar: ``similar``'s stored exemplar row, else -1.
        any_text: Whether a row other than the exemplar has a text value above
            zero (asked only when ``top`` is empty).
        extra_rows: Rows an inline exemplar links to.
        extra_keys: Keys an inline exemplar holds.
    """
    sources, seeds = top, values
    if 0 <= exemplar < graph.size:
        sources = np.append(top, exemplar)
        seeds = np.append(values, 1.0)
    propagation = Propagation(graph, sources, seeds, extra_rows=extra_rows, extra_keys=extra_keys)
    if not len(top) and not any_text():
        return Spread(propagation, 0.0, 1.0, 0)
    graph_values = propagation.source_values(len(top))[0]
    r, a, s = agreement(values, graph_values, np.arange(len(top), dtype=np.int64))
    return Spread(propagation, r, a, len(top), s)


def _any_text(text: F64, exemplar: int) -> bool:
    """Whether a row other than ``exemplar`` has a text value above zero."""
    found = np.flatnonzero(text > 0)
    return bool(len(found) > 1 or (len(found) == 1 and int(found[0]) != exemplar))
