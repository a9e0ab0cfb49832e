"""``graph``: the text evidence propagated one step over the decision graph, if it agrees."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from semreport.domain import FrozenDict, JsonValue
from semreport.search._feedback import top_of
from semreport.search._index import F64, I64, Bool, IndexSnapshot
from semreport.search._propagation import AGREEMENT_DEPTH, Spread, spread
from semreport.search._select import sampled_rows
from semreport.search.signals._base import (
    Evidence,
    Page,
    Prepared,
    Prior,
    Query,
    Signal,
    freeze,
)
from semreport.search.signals.facets import key_codes
from semreport.search.signals.terms import TermsSignal
from semreport.search.signals.text import TextSignal

__all__ = ["GRAPH_HALF", "NAMED_NEIGHBOURS", "GraphSignal", "TextEvidence"]

GRAPH_HALF: Final = 3.0
"""In a ``find`` without text, a decision with this many links, elements and evidence scores 0.5."""
NAMED_NEIGHBOURS: Final = 10
"""At most how many neighbours an explanation names (the rest are summed up)."""


class Connectedness(Prepared):
    """``d / (d + GRAPH_HALF)`` with ``d`` = links + elements + evidence (find without text)."""

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

    def explain(self, page: Page) -> list[Evidence]:
        snap = self.snap
        links = np.diff(snap.neighbours.indptr)
        things = np.diff(snap.things.indptr)
        return [
            freeze({"links": int(links[row]), "elements_and_evidence": int(things[row])})
            for row in page
        ]


class Propagated(Prepared):
    """``a * min(1, s * g(row))``: the graph value on the text's scale, weighed by its agreement.

    Values are computed for the rows asked (a row's value reads only its own
    neighbours), so the pruning bounds the signal by ``a`` instead of
    computing every row. Idle when ``a`` is 0.
    """

    def __init__(self, snap: IndexSnapshot, found: Spread) -> None:
        super().__init__()
        self.snap = snap
        self.found = found
        self.propagation = found.propagation
        self.bound = found.weight
        self.idle = found.weight <= 0

    def size(self) -> int:
        return self.snap.n

    def values(self, rows: I64) -> tuple[F64, F64]:
        g = self.propagation.values(rows)[0]
        return self.found.value(g), g

    def compute_dense(self) -> F64:
        return self.found.value(self.propagation.dense()[0])

    def explain(self, page: Page) -> list[Evidence]:
        """The agreement, and per row the neighbours that gave most (their share of the value).

        A neighbour's share of ``g`` counts ``a * s`` times in the value, or
        less where ``s * g`` is cut to 1, so that the shares add up to the value.
        """
        snap = self.snap
        names = snap.vocab.key_names
        found = self.found
        agreement = freeze(
            {
                "correlation": found.correlation,
                "weight": found.weight,
                "rows": found.rows,
                "scale": found.scale,
            }
        )  # the same for every row
        ids = snap.ids
        rows = np.asarray(page, dtype=np.int64)
        g = self.propagation.values(rows)[0]
        factors = np.divide(found.value(g), g, out=np.zeros(len(g)), where=g > 0).tolist()
        out = []
        for factor, row_shares in zip(factors, self.propagation.shares_of(page), strict=True):
            named: list[tuple[float, str, str]] = []
            for kind, at, share in row_shares:
                amount = factor * share
                if kind == "link":
                    named.append((amount, "linked", "exemplar" if at < 0 else ids[at]))
                else:
                    key, _, value = names[at].partition(":")
                    named.append((amount, "elements" if key == "element" else "evidence", value))
            named.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
            groups: dict[str, dict[str, JsonValue]] = {"linked": {}, "elements": {}, "evidence": {}}
            for amount, group, node in named[:NAMED_NEIGHBOURS]:
                groups[group][node] = amount
            evidence: dict[str, JsonValue] = {"agreement": agreement}
            for group, shares in groups.items():
                evidence[group] = FrozenDict(shares)
            rest = named[NAMED_NEIGHBOURS:]
            if rest:
                evidence["others"] = FrozenDict(
                    {"amount": sum(e[0] for e in rest), "count": len(rest)}
                )
            out.append(FrozenDict(evidence))
        return out


class GraphSignal(Signal):
    """The request's text evidence, propagated one step over links, elements and evidence."""

    name = "graph"
    kind = "graph"
    description = (
        "One step of propagation: a decision's graph value g is the mean text value of its "
        "neighbours (decisions it links to or that link to it, and the elements and evidence "
        "it shares, each standing for its other holders' mean; the stored exemplar counts 1). "
        "The value is a * min(1, s * g), a = max(0, r - 2 / sqrt(m)) with r the correlation of "
        f"text and graph values over the text's top m (at most {AGREEMENT_DEPTH}) decisions "
        "with neighbours, s the ratio of their spreads there (the graph on the text's scale): "
        "a graph that does not agree with the text counts nothing. With no text to agree with "
        "(an exemplar without text) a = 1 and s = 1. find without text: connectedness "
        f"d / (d + {GRAPH_HALF:g}) with d = links + elements + evidence, ordering the matches."
    )
    needs = "links, elements or evidence; in find a graph weight > 0"
    find_weight = 0.0
    similar_weight = 2.0

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal."""
        if query.mode == "find":
            return True
        if query.snap.propagation_graph.connected:
            return True
        return bool(_inline_links(query)) or bool(_inline_keys(query))

    def selects(self, query: Query) -> bool:
        """Whether a positive value makes a match (in similar only)."""
        return query.mode == "similar"

    def prepare(self, query: Query) -> Prepared:
        """The state, computing the text evidence itself."""
        return self.prepare_after(query, ())

    def prepare_after(self, query: Query, earlier: Sequence[Prior]) -> Prepared:
        """The state, propagating the text signals prepared before it (weighted as requested)."""
        snap = query.snap
        if query.mode == "find" and not query.text.strip():
            return Connectedness(snap)
        row = query.exemplar_row
        graph = snap.propagation_graph
        text = _text_evidence(query, earlier)
        # The text's best rows with a neighbour, found without computing every row's value.
        candidates, values = sampled_rows(
            text.values,
            text.reaching,
            snap.n,
            AGREEMENT_DEPTH,
            keep=graph.linked,
            exclude=row,
        )
        top = top_of(candidates, values, AGREEMENT_DEPTH, snap.id_rank)
        found = spread(
            graph,
            top,
            text.values(top),
            exemplar=row,
            any_text=lambda: text.any_positive(row),
            extra_rows=_inline_links(query),
            extra_keys=_inline_keys(query),
        )
        return Propagated(snap, found)

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return float(np.count_nonzero(snap.degree)) / max(snap.n, 1)


class TextEvidence:
    """The text signals' values, weighted as in the request, computed for the rows asked.

    A row's value is the weighted mean of the text signals' normalised values
    (plain BM25 of the request's text when none was prepared), added up in the
    signals' order, so it is the same whichever rows it is computed with.
    """

    def __init__(self, parts: Sequence[tuple[Prepared, float]]) -> None:
        self.parts = tuple(parts)
        self.size = parts[0][0].size() if parts else 0

    def values(self, rows: I64) -> F64:
        """The values of ``rows``."""
        if not self.parts:
            return np.zeros(len(rows))
        (first, share), *rest = self.parts
        combined: F64 = np.multiply(first.values(rows)[0], share)
        for state, share in rest:
            combined += np.multiply(state.values(rows)[0], share)
        return combined

    def reaching(self, floor: float) -> Bool:
        """Every row whose value can reach ``floor`` > 0 (a mean reaches it where a part does)."""
        reach = np.zeros(self.size, dtype=np.bool_)
        for state, _ in self.parts:
            reach |= state.reaching(floor)
        return reach

    def any_positive(self, exemplar: int) -> bool:
        """Whether a row other than ``exemplar`` has a value above zero."""
        found = np.zeros(self.size, dtype=np.bool_)
        for state, _ in self.parts:
            found |= state.positive()
        if 0 <= exemplar < len(found):
            found[exemplar] = False
        return bool(found.any())


def _text_evidence(query: Query, earlier: Sequence[Prior]) -> TextEvidence:
    """The text signals prepared before, weighted as in the request (else plain BM25)."""
    texts = [p for p in earlier if p.kind == "text" and p.weight > 0]
    if not texts:
        signal = TextSignal() if query.mode == "find" else TermsSignal()
        if not signal.active(query):
            return TextEvidence(())
        return TextEvidence([(signal.prepare(query), 1.0)])
    total = sum(p.weight for p in texts)
    return TextEvidence([(p.prepared, p.weight / total) for p in texts])


def _inline_links(query: Query) -> list[int]:
    """Rows an inline exemplar links to (a stored exemplar's links are in the graph)."""
    if query.exemplar is None or query.exemplar_row >= 0:
        return []
    snap = query.snap
    targets = (snap.row_of.get(link.target, -1) for link in query.exemplar.links)
    return sorted({t for t in targets if 0 <= t < snap.n})


def _inline_keys(query: Query) -> list[int]:
    """Element and evidence keys of an inline exemplar."""
    decision = query.exemplar
    if decision is None or query.exemplar_row >= 0:
        return []
    names = [f"element:{e}" for e in sorted(decision.elements)]
    names += sorted({f"evidence:{ev.kind.value}:{ev.ref}" for ev in decision.evidence})
    return key_codes(query.snap, names)
