"""``text``: BM25 of find's query text over title, statement and rationale."""

from __future__ import annotations

import itertools
from typing import Final

import numpy as np

from semreport.domain import FrozenDict
from semreport.search._index import F64, I64, TITLE_WEIGHT, Bool, IndexSnapshot
from semreport.search._select import MARGIN
from semreport.search.signals._base import Evidence, Page, Prepared, Query, Signal, freeze

__all__ = ["Bm25", "TextSignal"]


class Bm25(Prepared):
    """BM25 scores of weighted query terms, normalised by their upper bound.

    ``surface`` maps each query term to the word shown as matched; ``expanded``
    maps each term only an expansion (a synonym, or a unit written onto a
    number) brought in to the query words it came from.
    """

    lead = True

    def __init__(
        self,
        snap: IndexSnapshot,
        terms: dict[int, float],
        surface: dict[int, str],
        expanded: dict[int, str] | None = None,
    ):
        super().__init__()
        self.snap = snap
        self.raw, self.scale = snap.text_scores(terms)
        self.surface = surface
        self.expanded = expanded or {}

    def size(self) -> int:
        """How many rows the snapshot holds."""
        return self.snap.n

    def values(self, rows: I64) -> tuple[F64, F64]:
        """The normalised and raw values of ``rows``."""
        part = self.raw[rows]
        return self._normalise(part), part

    def _normalise(self, raw: F64) -> F64:
        result: F64 = raw / self.scale if self.scale > 0 else raw
        return result

    def compute_dense(self) -> F64:
        """Every row's normalised value."""
        return self._normalise(self.raw)

    def scaled(self, weight: float, out: F64) -> F64:
        """Every row's raw score times ``weight`` over the bound: one pass, no normalised column."""
        factor = weight / self.scale if self.scale > 0 else weight
        result: F64 = np.multiply(self.raw, factor, out=out)
        return result

    def reaching(self, floor: float) -> Bool:
        """Every row whose normalised value can reach ``floor`` (raw against the scaled floor)."""
        scaled = floor * self.scale if self.scale > 0 else floor
        found: Bool = self.raw >= scaled * (1.0 - MARGIN)
        return found

    def positive(self) -> Bool:
        """Which rows score above zero."""
        found: Bool = self.raw > 0
        return found

    def highlight_terms(self) -> tuple[str, ...]:
        """The analysed query terms (the index's term names), sorted."""
        names = self.snap.vocab.term_names
        return tuple(sorted(names[tid] for tid in self.surface))

    def explain(self, page: Page) -> list[Evidence]:
        """The matched words of every page row, found at once (one binary search in all).

        A matched word that only an expansion brought in is also listed under
        ``expanded``, mapped to the query words it came from.
        """
        if not self.surface or not page:
            return [_NO_TERMS] * len(page)
        # Terms in order of the word shown, so each row's matched words come out sorted.
        terms = sorted(self.surface, key=self.surface.__getitem__)
        names = [self.surface[t] for t in terms]
        flags = page.holds(terms)
        if not self.expanded:
            return [
                FrozenDict({"matched_terms": tuple(itertools.compress(names, held))})
                for held in flags
            ]
        sources = [self.expanded.get(t) for t in terms]
        out = []
        for held in flags:
            evidence: dict[str, object] = {"matched_terms": list(itertools.compress(names, held))}
            expanded = {
                name: source
                for name, source, hit in zip(names, sources, held, strict=True)
                if hit and source is not None
            }
            if expanded:
                evidence["expanded"] = expanded
            out.append(freeze(evidence))
        return out


_NO_TERMS: Final = freeze({"matched_terms": []})


class TextSignal(Signal):
    """BM25 of the query text (find)."""

    name = "text"
    kind = "text"
    description = (
        "BM25 (k1 1.5, b 0.75) of the query text over title, statement and rationale; title "
        f"words count {TITLE_WEIGHT}x; Snowball stems, English stop words. Normalised by the "
        "query's upper bound (the score a decision could reach on every query term). With "
        "text, only decisions holding at least one query term match."
    )
    needs = "criteria.text"
    find_weight = 1.0
    similar_weight = 0.0

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal."""
        return query.mode == "find" and bool(query.text.strip())

    def prepare(self, query: Query) -> Bm25:
        """The signal's state for the request."""
        snap = query.snap
        tids, surface = snap.vocab.query_terms(query.text)
        terms: dict[int, float] = {}
        for tid in tids:
            terms[tid] = terms.get(tid, 0.0) + 1.0
        return Bm25(snap, terms, surface, _expanded(snap, query.text))

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return float(np.count_nonzero(snap.doc_len)) / max(snap.n, 1)


def _expanded(snap: IndexSnapshot, text: str) -> dict[int, str]:
    """Each indexed term only an expansion of ``text`` brought in -> its query words."""
    expansions = snap.vocab.query_expansions(text)
    if not expansions:
        return {}
    own = {token.term for token in snap.vocab.analyzer.expand(text).tokens}
    known = snap.vocab.terms
    sources: dict[int, list[str]] = {}
    for expansion in expansions:
        for term in expansion.terms:
            tid = known.get(term, -1)
            if tid >= 0 and term not in own:
                found = sources.setdefault(tid, [])
                if expansion.source not in found:
                    found.append(expansion.source)
    return {tid: ", ".join(words) for tid, words in sources.items()}
