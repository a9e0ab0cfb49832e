"""``facets``: shared domain, agent, status and tags (similar), or preferred values (find)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from semreport.search._index import F64, I64, IndexSnapshot, KeyedSets
from semreport.search._propagation import csr_entries
from semreport.search.signals._base import Evidence, Page, Prepared, Query, Signal, freeze

__all__ = ["FacetsSignal", "Overlap", "exemplar_keys", "key_codes", "own_weight"]


class Overlap(Prepared):
    """IDF-weighted overlap with a set of facet keys, computed for the rows asked.

    ``similar``: the weighted Jaccard of a decision's keys with the exemplar's,
    ``held / (total - held + own)``. ``find``: the weighted share of the
    preferred keys a decision holds, ``held / wanted``. A row's value reads
    only its own keys. An exemplar's overlap is a lead (most decisions share a
    domain, an agent or a status with it, so the whole column is ranked); the
    preferred values' share is bounded by 1 and computed for the rows that can
    make the page. The whole column is computed (once) when most rows are
    asked for.

    Key weights are multiples of 2**-20, so every sum of them is exact in any
    order: a row's value is the same however it is computed. Then held <= the
    row's total and held <= own, and the union is at least own, which is above
    zero (an unknown key weighs ``log(1 + N)``).
    """

    def __init__(self, snap: IndexSnapshot, keys: Sequence[int], *, own: float | None) -> None:
        super().__init__()
        self.snap = snap
        size = len(snap.vocab.key_names)
        self.keys = frozenset(keys)
        self.known: I64 = np.array(sorted(k for k in self.keys if k < size), dtype=np.int64)
        self.weights = snap.key_weights(snap.facets)
        self.own = own
        self.wanted = float(self.weights[self.known].sum())
        # Most decisions share a domain, an agent or a status with an exemplar: its overlap
        # is ranked densely. Preferred values (find) are often rare: bounded by 1.
        self.lead = own is not None
        self._held: F64 | None = None  # every row's, once the whole column is computed

    def size(self) -> int:
        """How many rows the snapshot holds."""
        return self.snap.n

    def compute_dense(self) -> F64:
        """Every row's value (domain, agent and status summed through one table)."""
        held = self.snap.facet_weight_sums(self.known.tolist())
        self._held = held
        return self._normalise(held, None)

    def values(self, rows: I64) -> tuple[F64, F64]:
        """The normalised values and the held key weights of ``rows``."""
        if self._held is not None or 4 * len(rows) > self.snap.n:
            # The column is known already, or most rows are asked (it costs about as much).
            normalised = self.dense()
            assert self._held is not None
            return normalised[rows], self._held[rows]
        facets = self.snap.facets
        positions, owners = csr_entries(facets.indptr, rows)
        keys = facets.keys[positions]
        hit = np.isin(keys, self.known)
        held: F64 = np.bincount(
            owners[hit], weights=self.weights[keys[hit]], minlength=len(rows)
        ).astype(np.float64, copy=False)
        return self._normalise(held, rows), held

    def _normalise(self, held: F64, rows: I64 | None) -> F64:
        """The values of rows (``None``: every row) holding ``held``.

        No clamp is needed: the sums are exact, so ``held`` is at most the
        denominator, and a correctly rounded quotient of such numbers is at most 1.
        """
        if self.own is None:  # find: the share of the preferred keys held
            result: F64 = held / self.wanted if self.wanted > 0 else np.zeros(len(held))
        else:  # similar: weighted Jaccard with the exemplar's keys
            totals = self.snap.key_totals(self.snap.facets)
            result = (totals if rows is None else totals[rows]) - held
            result += self.own
            np.divide(held, result, out=result)
        return result

    def explain(self, page: Page) -> list[Evidence]:
        """The facet values each row shares (``domain:cost``, ``tag:fire``...)."""
        names = self.snap.vocab.key_names
        keys = self.keys
        of = self.snap.facets.of
        return [
            freeze({"shared": sorted(names[k] for k in keys.intersection(of(row).tolist()))})
            for row in page
        ]


class FacetsSignal(Signal):
    """IDF-weighted overlap of facet values."""

    name = "facets"
    kind = "facet"
    description = (
        "Domain, agent, status and tags: IDF-weighted Jaccard overlap with the exemplar, or the "
        "IDF-weighted share of the preferred values a decision holds (find)."
    )
    needs = "exemplar facets, or criteria.prefer"
    find_weight = 0.5
    similar_weight = 0.2

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal."""
        if query.mode == "find":
            return bool(query.prefer)
        return query.has_exemplar and bool(exemplar_keys(query))

    def prepare(self, query: Query) -> Prepared:
        """The signal's state for the request."""
        snap = query.snap
        if query.mode == "find":
            found = [snap.vocab.keys.get(k, -1) for k in query.prefer]
            return Overlap(snap, [k for k in found if k >= 0], own=None)
        keys = exemplar_keys(query)
        return Overlap(snap, keys, own=own_weight(snap, snap.facets, keys))

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return 1.0 if snap.n else 0.0


def exemplar_keys(query: Query) -> list[int]:
    """The facet keys of the exemplar (values no decision holds get ids past the known ones).

    A stored exemplar's are the keys the index holds for its row.
    """
    if 0 <= query.exemplar_row < query.snap.n:
        keys: list[int] = query.snap.facets.of(query.exemplar_row).tolist()
        return keys
    decision = query.exemplar
    if decision is None:
        return []
    names = [f"tag:{t}" for t in sorted(decision.tags)]
    if decision.domain is not None:
        names.append(f"domain:{decision.domain.value}")
    if decision.agent is not None:
        names.append(f"agent:{decision.agent}")
    if decision.status is not None:
        names.append(f"status:{decision.status.value}")
    return key_codes(query.snap, names)


def key_codes(snap: IndexSnapshot, names: list[str]) -> list[int]:
    """Key ids of ``names``; unknown ones get ids past the known ones (they count, unshared)."""
    keys = snap.vocab.keys
    size = len(snap.vocab.key_names)
    out = []
    for offset, name in enumerate(dict.fromkeys(names)):
        code = keys.get(name)
        out.append(code if code is not None else size + offset)
    return out


def own_weight(snap: IndexSnapshot, sets: KeyedSets, keys: list[int]) -> float:
    """The exemplar's own summed key weight (an unknown key weighs as a key held once)."""
    weights = snap.key_weights(sets)
    unknown = sum(1 for k in keys if k >= len(weights) or weights[k] == 0)
    return float(weights[[k for k in keys if k < len(weights)]].sum()) + unknown * float(
        np.round(math.log1p(snap.n) * 2**20) / 2**20
    )
