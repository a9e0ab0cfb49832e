"""``feedback``: pseudo-relevance feedback, the terms the first pass's best decisions share."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from semreport.domain import FrozenDict, JsonValue
from semreport.search._feedback import EXPANSION_TERMS, FEEDBACK_ROWS, Expansion, expand
from semreport.search._index import IndexSnapshot
from semreport.search.signals._base import Evidence, Page, Prior, Query, Signal
from semreport.search.signals.terms import TermsSignal
from semreport.search.signals.text import Bm25, TextSignal

__all__ = ["Expanded", "FeedbackSignal"]


class Expanded(Bm25):
    """BM25 of the expansion terms, normalised by their upper bound; explained by their sources.

    Idle (every value 0, left out of the score) when the first pass was too
    weak to learn from or no term qualified.
    """

    def __init__(self, snap: IndexSnapshot, expansion: Expansion) -> None:
        names = snap.vocab.term_names
        query = expansion.query
        super().__init__(snap, query, {term: names[term] for term in query})
        self.expansion = expansion
        self.idle = not expansion.expanded
        ids = snap.ids
        self._feedback = tuple(ids[row] for row in expansion.rows)
        self._sources: dict[int, JsonValue] = {
            item.term: FrozenDict(
                {"weight": item.weight, "from": tuple(ids[row] for row in item.rows)}
            )
            for item in expansion.terms
        }

    def highlight_terms(self) -> tuple[str, ...]:
        """None: highlights mark the request's own words, not what feedback added."""
        return ()

    def explain(self, page: Page) -> list[Evidence]:
        """Per row: the expansion terms it holds (weight, feedback decisions holding each).

        Every row also names the feedback decisions the expansion was learnt from.
        """
        if not page:
            return []
        terms = sorted(self.surface, key=self.surface.__getitem__)
        names = [self.surface[t] for t in terms]
        flags = page.holds(terms)
        out: list[Evidence] = []
        for held in flags:
            matched: Evidence = FrozenDict(
                (name, self._sources[term])
                for name, term in itertools.compress(zip(names, terms, strict=True), held)
            )
            feedback: JsonValue = self._feedback
            out.append(FrozenDict({"expansion_terms": matched, "feedback_decisions": feedback}))
        return out


class FeedbackSignal(Signal):
    """RM3-style pseudo-relevance feedback with divergence-selected terms (find and similar)."""

    name = "feedback"
    kind = "text"
    description = (
        f"Pseudo-relevance feedback: the {FEEDBACK_ROWS} best decisions of the first pass "
        "(text in find, terms in similar; the exemplar left out) are read as relevant; their "
        f"relevance model (RM3) gives the {EXPANSION_TERMS} terms that add most to its "
        "divergence from the whole project (P(w|R) log(P(w|R) / P(w|C))), each weighted by its "
        "share of it; ranked with BM25 and normalised by their upper bound. Skipped when fewer "
        f"than {FEEDBACK_ROWS} decisions match the first pass. In find it orders the matches "
        "(a hit still holds a query term); equal weights with text are RM3's usual λ = 0.5."
    )
    needs = "criteria.text (find) or an exemplar with text (similar)"
    find_weight = 1.0
    similar_weight = 1.0

    def active(self, query: Query) -> bool:
        """Whether the request gives a first pass to learn from."""
        if query.mode == "find":
            return bool(query.text.strip())
        return query.has_exemplar

    def selects(self, query: Query) -> bool:
        """In find, a hit holds a query term; in similar, shared expansion terms make a match."""
        return query.mode == "similar"

    def prepare(self, query: Query) -> Expanded:
        """The state, computing the first pass itself."""
        return self.prepare_after(query, ())

    def prepare_after(self, query: Query, earlier: Sequence[Prior]) -> Expanded:
        """The state, reading the first pass of ``text`` or ``terms`` when it was prepared."""
        snap = query.snap
        first_name = "text" if query.mode == "find" else "terms"
        first = next(
            (p.prepared for p in earlier if p.name == first_name and isinstance(p.prepared, Bm25)),
            None,
        )
        if first is None:
            signal = TextSignal() if query.mode == "find" else TermsSignal()
            if not signal.active(query):
                return Expanded(snap, Expansion(terms=(), rows=()))
            first = signal.prepare(query)
        expansion = expand(
            first.raw,
            snap.rows_terms,
            snap.doc_len,
            snap.term_totals,
            float(snap.total_len),
            exclude=query.exemplar_row if query.exemplar_row >= 0 else None,
            rank=snap.id_rank,
            names=snap.vocab.term_names,
        )
        return Expanded(snap, expansion)

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions with text."""
        return TextSignal().coverage(snap)
