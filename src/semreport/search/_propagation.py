"""One step of score propagation over the decision graph, weighed by how well the graph agrees.

The graph signal stands in for a learned graph model without learning
anything: a decision's graph value is the mean text value of its neighbours
(links in both directions; ``similar``'s exemplar counts as 1, since it is
the example itself). How much that value counts is decided per search, from
the data, by the **agreement** between the text and the graph:

- take the text's top ``m`` rows (at most :data:`AGREEMENT_DEPTH`, the
  exemplar excluded);
- ``r`` is the Pearson correlation, over those rows, between a row's text
  value and its neighbourhood mean;
- ``a = max(0, r - 2 / sqrt(m))``: a correlation within about two standard
  errors of zero counts as none, so links that carry no topical signal (say,
  co-citation lists) give ``a = 0`` and leave the text ranking as it is;
- the score is ``(v + a g) / (1 + a)``: in [0, 1] when ``v`` and ``g`` are,
  and equal to the text value ``v`` when the graph does not agree.

Every function here takes plain arrays; :class:`Propagation` names, for any
row, the neighbours that gave its graph share and how much each gave.
"""

from __future__ import annotations

import math
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

from semreport.search._feedback import top_rows

__all__ = ["AGREEMENT_DEPTH", "Propagation", "agreement", "neighbourhood", "propagate"]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

AGREEMENT_DEPTH: Final = 1000
"""At most how many of the text's top rows the agreement is measured over."""


def neighbourhood(count: int, sources: I64, targets: I64) -> tuple[I64, I64]:
    """The undirected graph of ``count`` rows from directed edges, in CSR form.

    Each edge counts both ways; repeated edges and self-loops count once and
    not at all, respectively.

    Returns:
        ``(indptr, indices)``: row ``i``'s neighbours are
        ``indices[indptr[i]:indptr[i + 1]]``, ascending.
    """
    src = np.concatenate([sources, targets]).astype(np.int64)
    dst = np.concatenate([targets, sources]).astype(np.int64)
    keep = src != dst
    keys = np.unique(src[keep] * max(count, 1) + dst[keep])
    rows = keys // max(count, 1)
    indices: I64 = (keys % max(count, 1)).astype(np.int64)
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=count), out=indptr[1:])
    return indptr, indices


def agreement(values: F64, graph: F64, rows: I64) -> tuple[float, float]:
    """``(r, a)``: Pearson's correlation of ``values`` and ``graph`` over ``rows``; the weight.

    ``a = max(0, r - 2 / sqrt(m))`` for ``m`` rows; ``r`` is 0 when it is
    undefined (fewer than three rows, or either side constant).
    """
    m = len(rows)
    if m < 3:
        return 0.0, 0.0
    x = values[rows]
    y = graph[rows]
    x = x - x.mean()
    y = y - y.mean()
    spread = math.sqrt(float(x @ x) * float(y @ y))
    if spread <= 0:
        return 0.0, 0.0
    r = float(x @ y) / spread
    return r, max(0.0, r - 2.0 / math.sqrt(m))


@attrs.frozen(eq=False)
class Propagation:
    """The text values after one step of propagation, with the evidence of every row.

    Attributes:
        values: Every row's score, ``(text + a * graph) / (1 + a)``, in [0, 1].
        text: The text values propagated (as given).
        graph: Every row's graph value: its neighbours' mean (0 without any).
        correlation: ``r``, the agreement's correlation.
        weight: ``a``, the graph's weight (0 when the graph does not agree).
        depth: ``m``, how many top text rows the agreement was measured over.
        indptr: The graph's row offsets (CSR).
        indices: The graph's neighbours (CSR).
        sources: Each row's value as a neighbour (the text value; 1 for the exemplar).
    """

    values: F64
    text: F64
    graph: F64
    correlation: float
    weight: float
    depth: int
    indptr: I64
    indices: I64
    sources: F64

    def neighbours(self, row: int) -> tuple[tuple[int, float], ...]:
        """What each neighbour added to ``row``'s score: ``(neighbour, amount)``, most first.

        The amounts add up to the graph's share of the score,
        ``a * graph[row] / (1 + a)``; neighbours that added nothing are left out.
        """
        lo, hi = int(self.indptr[row]), int(self.indptr[row + 1])
        if hi == lo or self.weight <= 0:
            return ()
        scale = self.weight / (1.0 + self.weight) / (hi - lo)
        pairs = [
            (int(n), float(self.sources[n]) * scale)
            for n in self.indices[lo:hi]
            if self.sources[n] > 0
        ]
        return tuple(sorted(pairs, key=lambda p: (-p[1], p[0])))

    def text_share(self, row: int) -> float:
        """The text's share of ``row``'s score, ``text[row] / (1 + a)``."""
        return float(self.text[row]) / (1.0 + self.weight)


def propagate(
    values: F64,
    indptr: I64,
    indices: I64,
    *,
    exemplar: int | None = None,
    depth: int = AGREEMENT_DEPTH,
    rank: I64 | None = None,
) -> Propagation:
    """Propagate text ``values`` one step over the graph, weighted by the agreement.

    Args:
        values: Every row's text value, in [0, 1].
        indptr: The undirected graph's row offsets (see :func:`neighbourhood`).
        indices: The undirected graph's neighbours.
        exemplar: ``similar``'s exemplar: as a neighbour it counts 1, and it is
            not among the rows the agreement is measured over.
        depth: At most how many top text rows measure the agreement.
        rank: Breaks ties between equal text values when choosing those rows,
            lower first (default: the row number).
    """
    count = len(values)
    sources = values.astype(np.float64, copy=True)
    if exemplar is not None:
        sources[exemplar] = 1.0
    degree = np.diff(indptr)
    owners = np.repeat(np.arange(count, dtype=np.int64), degree)
    sums = np.bincount(owners, weights=sources[indices], minlength=count)
    graph = np.divide(sums, degree, out=np.zeros(count), where=degree > 0)
    candidates = np.flatnonzero(values > 0).astype(np.int64)
    if exemplar is not None:
        candidates = candidates[candidates != exemplar]
    top = top_rows(values, candidates, depth, rank)
    r, a = agreement(values, graph, top)
    combined: F64 = (values + a * graph) / (1.0 + a)
    return Propagation(
        values=combined,
        text=values,
        graph=graph,
        correlation=r,
        weight=a,
        depth=len(top),
        indptr=indptr,
        indices=indices,
        sources=sources,
    )
