"""``facets``: shared domain, agent, status and tags (similar), or preferred values (find)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from semreport.search._index import F64, I64, IndexSnapshot, KeyedSets
from semreport.search.signals._base import Evidence, Prepared, Query, Signal, freeze

__all__ = ["FacetsSignal", "exemplar_keys", "key_codes", "shared_weight"]


class Dense(Prepared):
    """Values computed for every row when prepared; explained by the keys a row shares."""

    def __init__(
        self,
        snap: IndexSnapshot,
        normalised: F64,
        raw: F64,
        sets: KeyedSets,
        keys: Sequence[int],
        *,
        lead: bool,
    ) -> None:
        super().__init__()
        self.snap = snap
        self._normalised = normalised
        self.raw = raw
        self.sets = sets
        self.keys = frozenset(keys)
        self.lead = lead

    def size(self) -> int:
        return self.snap.n

    def compute_dense(self) -> F64:
        return self._normalised

    def values(self, rows: I64) -> tuple[F64, F64]:
        return self._normalised[rows], self.raw[rows]

    def explain(self, rows: Sequence[int]) -> list[Evidence]:
        names = self.snap.vocab.key_names
        keys = self.keys
        of = self.sets.of
        return [
            freeze({"shared": sorted(names[k] for k in keys.intersection(of(row).tolist()))})
            for row in rows
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
        return query.exemplar is not None and bool(exemplar_keys(query))

    def prepare(self, query: Query) -> Prepared:
        """The signal's state for the request."""
        snap = query.snap
        if query.mode == "find":
            found = [snap.vocab.keys.get(k, -1) for k in query.prefer]
            keys = [k for k in found if k >= 0]
            shared, weights = shared_weight(snap, snap.facets, keys)
            want = float(weights[keys].sum()) if keys else 0.0
            normalised = shared / want if want > 0 else np.zeros(snap.n)
            return Dense(snap, np.minimum(normalised, 1.0), shared, snap.facets, keys, lead=False)
        keys = exemplar_keys(query)
        # Dense (most decisions share a domain, an agent or a status), so computed for
        # every row and a lead. Weights are multiples of 2**-20: sums are exact in any order.
        held = shared_weight(snap, snap.facets, keys)[0]
        union = snap.key_totals(snap.facets) - held
        union += own_weight(snap, snap.facets, keys)
        np.maximum(union, held, out=union)
        np.maximum(union, 1e-300, out=union)
        np.divide(held, union, out=union)
        return Dense(snap, np.minimum(union, 1.0, out=union), held, snap.facets, keys, lead=True)

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return 1.0 if snap.n else 0.0


def exemplar_keys(query: Query) -> list[int]:
    """The facet keys of the exemplar (values no decision holds get ids past the known ones)."""
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


def shared_weight(snap: IndexSnapshot, sets: KeyedSets, keys: list[int]) -> tuple[F64, F64]:
    """Per decision, the summed weight of ``keys`` it holds; and the key weights."""
    size = len(snap.vocab.key_names)
    weights = snap.key_weights(sets)
    indptr, rows = sets.transpose(size)
    known = [k for k in keys if k < size]
    parts = [rows[indptr[k] : indptr[k + 1]] for k in known]
    if not parts:
        return np.zeros(snap.n), weights
    lengths = np.array([len(p) for p in parts])
    # Weights are multiples of 2**-20, so the sums are exact in any order.
    shared = np.bincount(
        np.concatenate(parts), weights=np.repeat(weights[known], lengths), minlength=snap.n
    )
    return shared.astype(np.float64, copy=False), weights
