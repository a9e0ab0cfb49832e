"""``terms``: MoreLikeThis over the exemplar's most distinctive terms (similar)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

import numpy as np

from semreport.domain import Decision
from semreport.search._index import TITLE_WEIGHT, IndexSnapshot
from semreport.search.signals._base import Query, Signal
from semreport.search.signals.text import Bm25

if TYPE_CHECKING:
    from semreport.search._models import PartialDecision

__all__ = ["MLT_MAX_TERMS", "TermsSignal"]

MLT_MAX_TERMS: Final = 25
"""The most distinctive exemplar terms ``terms`` queries with (MoreLikeThis)."""


class TermsSignal(Signal):
    """The exemplar's distinctive terms, boosted and ranked with BM25."""

    name = "terms"
    kind = "text"
    description = (
        f"MoreLikeThis: the exemplar's {MLT_MAX_TERMS} most distinctive terms (tf x idf, held by "
        "at least one other decision), boosted by distinctiveness, ranked with BM25 and "
        "normalised by their upper bound."
    )
    needs = "an exemplar with text"
    find_weight = 0.0
    similar_weight = 1.0

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal."""
        return query.mode == "similar" and bool(self._selected(query))

    def prepare(self, query: Query) -> Bm25:
        """The signal's state for the request."""
        snap = query.snap
        selected = self._selected(query)
        names = snap.vocab.term_names
        return Bm25(snap, selected, {tid: names[tid] for tid in selected})

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return float(np.count_nonzero(snap.doc_len)) / max(snap.n, 1)

    @staticmethod
    def _selected(query: Query) -> dict[int, float]:
        snap = query.snap
        if query.exemplar is None:
            return {}
        if isinstance(query.exemplar, Decision):
            counts = snap.term_counts(query.exemplar)
        else:
            counts = _partial_counts(snap, query.exemplar)
        return mlt_terms(snap, counts, own=query.exemplar_row >= 0)


def _partial_counts(snap: IndexSnapshot, decision: PartialDecision) -> dict[int, float]:
    vocab = snap.vocab
    counts: Counter[int] = Counter(
        vocab.lookup_terms(f"{decision.statement}\n{decision.rationale}")
    )
    title = vocab.lookup_terms(decision.title)
    for _ in range(TITLE_WEIGHT):
        counts.update(title)
    return {k: float(v) for k, v in counts.items()}


def mlt_terms(snap: IndexSnapshot, counts: Mapping[int, float], *, own: bool) -> dict[int, float]:
    """MoreLikeThis term selection, with defaults that work on short texts.

    Every term counts once it appears (no minimum term frequency), but it must
    occur in another decision (``df >= 2`` for a stored exemplar), since a term
    only the exemplar holds matches nothing. The top terms by tf x idf are kept
    and boosted by their score relative to the best one.
    """
    least = 2 if own else 1
    scored: list[tuple[float, int]] = []
    for term, tf in counts.items():
        if term < len(snap.df) and snap.df[term] >= least:
            scored.append((tf * snap.idf(term), term))
    names = snap.vocab.term_names
    scored.sort(key=lambda item: (-item[0], names[item[1]]))
    chosen = scored[:MLT_MAX_TERMS]
    if not chosen:
        return {}
    best = chosen[0][0]
    return {term: value / best for value, term in chosen}
