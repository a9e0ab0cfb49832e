"""``graph``: shared links, elements and evidence (similar), or connectedness (find)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from semreport.search._index import F64, I64, IndexSnapshot
from semreport.search.signals._base import Evidence, Prepared, Query, Signal, freeze
from semreport.search.signals.facets import key_codes, own_weight, shared_weight

__all__ = ["GRAPH_HALF", "GraphSignal"]

GRAPH_HALF: Final = 3.0
"""In ``find``, a decision with this many links, elements and evidence items scores 0.5."""


class Connectedness(Prepared):
    """``d / (d + GRAPH_HALF)`` with ``d`` = links + elements + evidence (find)."""

    def __init__(self, snap: IndexSnapshot) -> None:
        super().__init__()
        self.snap = snap

    def size(self) -> int:
        return self.snap.n

    def compute_dense(self) -> F64:
        deg = self.snap.degree
        result: F64 = deg / (deg + GRAPH_HALF)
        return result

    def values(self, rows: I64) -> tuple[F64, F64]:
        deg = self.snap.degree[rows]
        return deg / (deg + GRAPH_HALF), deg

    def explain(self, rows: Sequence[int]) -> list[Evidence]:
        snap = self.snap
        links = np.diff(snap.neighbours.indptr)
        things = np.diff(snap.things.indptr)
        return [
            freeze({"links": int(links[row]), "elements_and_evidence": int(things[row])})
            for row in rows
        ]


class Overlap(Prepared):
    """IDF-weighted Jaccard overlap of linked decisions, elements and evidence (similar)."""

    lead = True

    def __init__(self, snap: IndexSnapshot, keys: list[int], nodes: I64) -> None:
        super().__init__()
        self.snap = snap
        self.keys = frozenset(keys)
        self.nodes = frozenset(nodes.tolist())
        sets = snap.things
        shared = shared_weight(snap, sets, keys)[0]
        own = own_weight(snap, sets, keys)
        node_weights, node_totals = snap.node_stats
        if len(nodes):
            nb = snap.neighbours
            parts = [nb.of(int(y)) for y in nodes]
            members = np.concatenate([*parts, nodes.astype(np.int32)])
            member_weights = np.concatenate(
                [np.repeat(node_weights[nodes], [len(p) for p in parts]), node_weights[nodes]]
            )
            np.add.at(shared, members, member_weights)  # exact: quantised weights
            own += float(node_weights[nodes].sum())
        totals = snap.key_totals(sets) + node_totals
        holders = np.flatnonzero(shared)
        normalised = np.zeros(snap.n)
        if len(holders):
            part = shared[holders]
            union = own + totals[holders] - part
            normalised[holders] = np.minimum(part / np.maximum(union, part), 1.0)
        self._normalised = normalised
        self.raw = shared

    def size(self) -> int:
        return self.snap.n

    def compute_dense(self) -> F64:
        return self._normalised

    def values(self, rows: I64) -> tuple[F64, F64]:
        return self._normalised[rows], self.raw[rows]

    def explain(self, rows: Sequence[int]) -> list[Evidence]:
        snap = self.snap
        names = snap.vocab.key_names
        out = []
        for row in rows:
            neighbours = set(snap.neighbours.of(row).tolist())
            shared = sorted(names[k] for k in self.keys.intersection(snap.things.of(row).tolist()))
            out.append(
                freeze(
                    {
                        "shared_elements": [
                            s.removeprefix("element:") for s in shared if s.startswith("element:")
                        ],
                        "shared_evidence": [
                            s.removeprefix("evidence:") for s in shared if s.startswith("evidence:")
                        ],
                        "shared_neighbours": sorted(
                            snap.ids[y] for y in self.nodes.intersection(neighbours)
                        ),
                        "linked": row in self.nodes,
                    }
                )
            )
        return out


class GraphSignal(Signal):
    """Links, elements and evidence."""

    name = "graph"
    kind = "graph"
    description = (
        "similar: IDF-weighted Jaccard overlap of linked decisions (either direction, the "
        "exemplar itself included), building elements and evidence. find: connectedness "
        f"d / (d + {GRAPH_HALF:g}) with d = links + elements + evidence; it orders the matches "
        "and selects none."
    )
    needs = "an exemplar (similar), or a weight > 0 (find)"
    find_weight = 0.0
    similar_weight = 0.5

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal."""
        if query.mode == "find":
            return True
        return bool(_thing_keys(query)) or bool(len(_node_set(query)))

    def selects(self, query: Query) -> bool:
        """Whether a positive value makes a match."""
        return query.mode == "similar"

    def prepare(self, query: Query) -> Prepared:
        """The signal's state for the request."""
        if query.mode == "find":
            return Connectedness(query.snap)
        return Overlap(query.snap, _thing_keys(query), _node_set(query))

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return float(np.count_nonzero(snap.degree)) / max(snap.n, 1)


def _thing_keys(query: Query) -> list[int]:
    decision = query.exemplar
    if decision is None:
        return []
    names = [f"element:{e}" for e in sorted(decision.elements)]
    names += sorted({f"evidence:{ev.kind.value}:{ev.ref}" for ev in decision.evidence})
    return key_codes(query.snap, names)


def _node_set(query: Query) -> I64:
    snap = query.snap
    row = query.exemplar_row
    if row >= 0:
        own = snap.neighbours.of(row).astype(np.int64)
        return np.union1d(own, [row]).astype(np.int64)
    decision = query.exemplar
    links = decision.links if decision is not None else ()
    targets = [snap.row_of.get(link.target, -1) for link in links]
    return np.unique(np.array([t for t in targets if 0 <= t < snap.n], dtype=np.int64))
