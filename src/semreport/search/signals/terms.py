"""``terms``: the exemplar's own terms, weighted by their BM25 impact in it (similar)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from semreport.domain import Decision
from semreport.search._feedback import exemplar_weights
from semreport.search._index import TITLE_WEIGHT, IndexSnapshot
from semreport.search.signals._base import Query, Signal
from semreport.search.signals.text import Bm25

if TYPE_CHECKING:
    from semreport.search._partial import PartialDecision

__all__ = ["TermsSignal", "exemplar_counts", "exemplar_query"]


class TermsSignal(Signal):
    """The exemplar's terms, each weighted by what it gives the exemplar's own BM25 score."""

    name = "terms"
    kind = "text"
    description = (
        "The exemplar as a query: every term of its text that another decision holds, "
        "weighted by its BM25 impact in the exemplar (idf once, term frequency saturated with "
        f"k1 1.5, b 0.75; title words count {TITLE_WEIGHT}x, as in find), ranked with BM25 "
        "and normalised by the query's upper bound."
    )
    needs = "an exemplar with text"
    find_weight = 0.0
    similar_weight = 1.0

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal: a ``similar`` whose exemplar has text.

        An exemplar none of whose words another decision holds gives an idle
        state (left out, like an inactive signal).
        """
        if query.mode != "similar":
            return False
        row = query.exemplar_row
        if 0 <= row < query.snap.n:
            return bool(query.snap.doc_len[row])
        decision = query.exemplar
        return decision is not None and bool(
            decision.title or decision.statement or decision.rationale
        )

    def prepare(self, query: Query) -> Bm25:
        """The signal's state for the request (idle when no exemplar word occurs elsewhere)."""
        snap = query.snap
        weights = exemplar_query(query)
        names = snap.vocab.term_names
        state = Bm25(snap, weights, {tid: names[tid] for tid in weights})
        state.idle = not weights
        return state

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return float(np.count_nonzero(snap.doc_len)) / max(snap.n, 1)


def exemplar_counts(query: Query) -> tuple[dict[int, float], float]:
    """The exemplar's known terms with their frequencies, and its length (title words twice).

    A stored exemplar is read from the index; an inline one is analysed here,
    its length counting every term, known to the index or not.
    """
    snap = query.snap
    row = query.exemplar_row
    if 0 <= row < snap.n:
        terms, counts = snap.row_terms(row)
        return dict(zip(terms.tolist(), counts.tolist(), strict=True)), float(snap.doc_len[row])
    exemplar = query.exemplar
    if exemplar is None:
        return {}, 0.0
    return _text_counts(snap, exemplar)


def _text_counts(
    snap: IndexSnapshot, decision: Decision | PartialDecision
) -> tuple[dict[int, float], float]:
    vocab = snap.vocab
    tokenizer = vocab.tokenizer
    body = f"{decision.statement}\n{decision.rationale}"
    counts: Counter[int] = Counter(vocab.lookup_terms(body))
    title = vocab.lookup_terms(decision.title)
    for _ in range(TITLE_WEIGHT):
        counts.update(title)
    length = len(tokenizer.terms(body)) + TITLE_WEIGHT * len(tokenizer.terms(decision.title))
    return {k: float(v) for k, v in counts.items()}, float(length)


def exemplar_query(query: Query) -> dict[int, float]:
    """``similar``'s query: each exemplar term another decision holds, with its BM25 impact.

    A stored exemplar's terms must occur in another decision (document
    frequency 2 or more), since a term only the exemplar holds matches nothing.
    """
    snap = query.snap
    counts, length = exemplar_counts(query)
    if not counts or not snap.n:
        return {}
    least = 2 if query.exemplar_row >= 0 else 1
    df = snap.df
    kept = {t: tf for t, tf in counts.items() if t < len(df) and df[t] >= least}
    average = snap.total_len / snap.n
    return exemplar_weights(kept, length, average, snap.idfs)
