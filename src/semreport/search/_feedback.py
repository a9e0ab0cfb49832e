"""Pseudo-relevance feedback (RM3 with divergence-selected terms) and exemplar weights.

The ``feedback`` signal reads the first pass's best rows as if they were
relevant, estimates which terms such documents use, and scores the most
telling of them. The steps, each a function here over plain numbers and
arrays (none reads an index):

1. **Feedback rows** (:func:`feedback_rows`): the first pass's
   :data:`FEEDBACK_ROWS` best rows with a score above zero (ties by a rank
   that does not depend on the recording order). When fewer rows than that
   match, the first pass is too weak to learn from: no expansion.
2. **Relevance model** (:func:`relevance_model`, Lavrenko and Croft's RM1):
   ``P(w|R) = sum over feedback rows d of (s(d) / sum s) * tf(w, d) / |d|``,
   with ``s`` the first-pass score and ``tf`` and ``|d|`` counted as the index
   counts them (title words twice).
3. **Expansion terms** (:func:`divergent_terms`): the :data:`EXPANSION_TERMS`
   terms that add most to the Kullback-Leibler divergence of the relevance
   model from the collection, ``P(w|R) * log(P(w|R) / P(w|C))`` with
   ``P(w|C)`` the term's share of every indexed word (Carpineto, de Mori,
   Romano and Bigi, 2001). Raw RM3 keeps the most probable terms, which are
   the collection's most common ones; the divergence keeps the terms the
   feedback rows use *more than the collection does*. Each kept term weighs
   its share of the kept divergence (the weights sum to 1).

RM3 (Abdul-Jaleel et al., 2004) interpolates the expansion with the query,
``λ q + (1 - λ) P'``. BM25 is linear in the query's weights, so the scorer
does the same by weighting two signals: ``text`` (or ``terms``) and
``feedback``, the expansion's BM25 over its own upper bound. Equal weights
play the usual ``λ = 0.5`` (Anserini's default, with 10 rows and 10 terms).

:func:`exemplar_weights` is ``similar``'s query: each of the exemplar's terms
weighted by its own BM25 impact in the exemplar (idf once, term frequency
saturated), so that no single rare word takes over and no topical word is cut.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

from semreport.search._select import sampled_candidates

__all__ = [
    "BM25_B",
    "BM25_K1",
    "EXPANSION_TERMS",
    "FEEDBACK_ROWS",
    "Expansion",
    "ExpansionTerm",
    "best_rows",
    "divergent_terms",
    "exemplar_weights",
    "expand",
    "feedback_rows",
    "relevance_model",
    "top_of",
    "top_rows",
]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

FEEDBACK_ROWS: Final = 10
"""How many first-pass rows feedback reads; with fewer matches there is no expansion."""
EXPANSION_TERMS: Final = 10
"""How many terms the expansion holds at most."""
BM25_K1: Final = 1.5
"""BM25 term-frequency saturation, as the index scores documents."""
BM25_B: Final = 0.75
"""BM25 length normalisation, as the index scores documents."""


@attrs.frozen
class ExpansionTerm:
    """One term feedback added, with where it came from.

    Attributes:
        term: The term's id.
        weight: Its share of the expansion (the expansion's weights sum to 1).
        rows: The feedback rows that hold it, best first.
    """

    term: int
    weight: float
    rows: tuple[int, ...]


@attrs.frozen
class Expansion:
    """What pseudo-relevance feedback learnt from a first pass.

    Attributes:
        terms: The expansion terms, most divergent first (empty when skipped).
        rows: The feedback rows, best first (empty when the first pass matched
            too few rows to learn from).
    """

    terms: tuple[ExpansionTerm, ...]
    rows: tuple[int, ...]

    @property
    def expanded(self) -> bool:
        """Whether feedback found any term."""
        return bool(self.terms)

    @property
    def query(self) -> dict[int, float]:
        """The expansion as a query: term id -> weight (summing to 1; empty when skipped)."""
        return {item.term: item.weight for item in self.terms}


def feedback_rows(
    scores: F64,
    *,
    depth: int = FEEDBACK_ROWS,
    exclude: int | None = None,
    rank: I64 | None = None,
) -> I64:
    """The ``depth`` best rows with a score above zero, best first; none when fewer match.

    Args:
        scores: The first pass's score of every row.
        depth: How many rows to take.
        exclude: A row never taken (``similar``'s exemplar).
        rank: Breaks ties between equal scores, lower first (default: the row
            number); pass a rank that does not depend on the order rows were
            recorded in to keep results independent of it.
    """
    if depth <= 0:
        return np.zeros(0, dtype=np.int64)
    chosen = best_rows(scores, depth, exclude=-1 if exclude is None else exclude, rank=rank)
    if len(chosen) < depth:
        return np.zeros(0, dtype=np.int64)
    return chosen


def best_rows(
    values: F64,
    depth: int,
    *,
    exclude: int = -1,
    eligible: npt.NDArray[np.bool_] | None = None,
    rank: I64 | None = None,
) -> I64:
    """The ``depth`` rows of highest value above zero, best first, ties by ``rank``.

    Only ``eligible`` rows (default: all) and never ``exclude``; fewer rows when
    fewer qualify. The same rows as sorting every qualifying row, found without
    listing them: a floor read from evenly spaced rows
    (:func:`~semreport.search._select.sampled_candidates`) leaves only the rows
    that can make it to be ordered.
    """
    count = len(values)
    if depth <= 0 or not count:
        return np.zeros(0, dtype=np.int64)
    candidates = sampled_candidates(values, depth, keep=eligible, exclude=exclude)
    if candidates is None:
        keep = values > 0
        if eligible is not None:
            keep &= eligible
        if 0 <= exclude < count:
            keep[exclude] = False
        candidates = np.flatnonzero(keep)
    return top_rows(values, candidates.astype(np.int64, copy=False), depth, rank)


def top_rows(values: F64, candidates: I64, depth: int, rank: I64 | None = None) -> I64:
    """The ``depth`` candidates of highest value, best first, ties by ``rank`` (default: row).

    Linear in the candidates: a partition finds the ``depth``-th value; the
    candidates above it and, of those equal to it, the ones of lowest rank
    that are needed are sorted.
    """
    if depth <= 0 or not len(candidates):
        return np.zeros(0, dtype=np.int64)
    return top_of(candidates, values[candidates], depth, rank)


def top_of(candidates: I64, chosen_values: F64, depth: int, rank: I64 | None = None) -> I64:
    """:func:`top_rows` given the candidates' values (``chosen_values[i]`` of ``candidates[i]``)."""
    if depth <= 0 or not len(candidates):
        return np.zeros(0, dtype=np.int64)
    ranks = candidates if rank is None else rank[candidates]
    if len(candidates) > depth:
        floor = -np.partition(-chosen_values, depth - 1)[depth - 1]
        above = np.flatnonzero(chosen_values > floor)
        tied = np.flatnonzero(chosen_values == floor)
        need = depth - len(above)
        if len(tied) > need:
            tied = tied[np.argpartition(ranks[tied], need - 1)[:need]]
        keep = np.concatenate([above, tied])
        candidates, chosen_values, ranks = candidates[keep], chosen_values[keep], ranks[keep]
    ordered: I64 = candidates[np.lexsort((ranks, -chosen_values))]
    return ordered


def relevance_model(
    scores: Sequence[float],
    terms: Sequence[I64],
    counts: Sequence[F64],
    lengths: Sequence[float],
) -> tuple[I64, F64, I64]:
    """``P(w|R)`` over feedback rows: each row's term distribution, weighted by its score.

    Args:
        scores: Each feedback row's first-pass score (above zero).
        terms: Each feedback row's term ids (each once).
        counts: Each feedback row's frequency of those terms.
        lengths: Each feedback row's length (the sum of its counts, as the
            index measures it).

    Returns:
        ``(terms, probabilities, holders)``: the terms in ascending id order,
        their probabilities (summing to 1 when some row has a length and a
        score) and in how many rows each occurs. A term's probability is summed
        over the rows in the order given, so it never depends on term ids.
    """
    kept = [i for i, (s, n) in enumerate(zip(scores, lengths, strict=True)) if n > 0 and s > 0]
    total = math.fsum(scores[i] for i in kept)
    if not kept or total <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64)
    all_terms = np.concatenate([np.asarray(terms[i], dtype=np.int64) for i in kept])
    shares = np.concatenate(
        [np.asarray(counts[i], dtype=np.float64) * (scores[i] / total / lengths[i]) for i in kept]
    )
    present, inverse = np.unique(all_terms, return_inverse=True)
    probabilities: F64 = np.bincount(inverse, weights=shares, minlength=len(present)).astype(
        np.float64
    )
    holders = np.bincount(inverse, minlength=len(present)).astype(np.int64)
    return present.astype(np.int64), probabilities, holders


def divergent_terms(
    terms: I64,
    probabilities: F64,
    collection: F64,
    *,
    count: int = EXPANSION_TERMS,
    names: Sequence[str] | None = None,
) -> list[tuple[int, float]]:
    """The ``count`` terms adding most to the model's divergence from the collection.

    ``P(w|R) * log(P(w|R) / P(w|C))`` per term; a term the feedback rows use no
    more than the collection does (a score of zero or less) is never kept.

    Args:
        terms: The model's term ids.
        probabilities: ``P(w|R)`` of each.
        collection: ``P(w|C)`` of each (its share of every indexed word).
        count: How many terms to keep at most.
        names: Term id -> name, to break ties between equal scores by name
            (default: by id).

    Returns:
        ``(term, weight)`` pairs, highest first, the weights (each term's score
        over the kept terms' total) summing to 1; empty when none qualifies.
    """
    if count <= 0 or not len(terms):
        return []
    useful = (probabilities > collection) & (collection > 0)
    if not useful.any():
        return []
    chosen = terms[useful]
    p = probabilities[useful]
    scores = p * np.log(p / collection[useful])
    if len(scores) > count:  # only the terms reaching the count-th best score can be kept
        floor = np.partition(scores, len(scores) - count)[len(scores) - count]
        reach = scores >= floor
        chosen, scores = chosen[reach], scores[reach]
    ids: list[int] = chosen.tolist()
    values: list[float] = scores.tolist()
    ties = [names[t] for t in ids] if names is not None else ids
    order = sorted(range(len(ids)), key=lambda i: (-values[i], ties[i]))[:count]
    total = math.fsum(values[i] for i in order)
    return [(ids[i], values[i] / total) for i in order]


def expand(
    scores: F64,
    rows_terms: Callable[[list[int]], Sequence[tuple[I64, F64]]],
    lengths: F64 | I64,
    term_totals: F64,
    total_length: float,
    *,
    exclude: int | None = None,
    rank: I64 | None = None,
    names: Sequence[str] | None = None,
    depth: int = FEEDBACK_ROWS,
    count: int = EXPANSION_TERMS,
) -> Expansion:
    """Feedback with the defaults: :func:`feedback_rows`, the model, :func:`divergent_terms`.

    Args:
        scores: The first pass's score of every row.
        rows_terms: Rows -> each row's term ids and their frequencies (called
            once, with the feedback rows).
        lengths: Every row's length.
        term_totals: Every term's frequency summed over the collection.
        total_length: The collection's length (every indexed word).
        exclude: A row kept out of the feedback rows (``similar``'s exemplar).
        rank: Breaks ties between equal first-pass scores (see :func:`feedback_rows`).
        names: Breaks ties between equally divergent terms (see :func:`divergent_terms`).
        depth: How many feedback rows.
        count: How many expansion terms at most.
    """
    rows = feedback_rows(scores, depth=depth, exclude=exclude, rank=rank).tolist()
    if not rows or total_length <= 0:
        return Expansion(terms=(), rows=tuple(rows))
    read = rows_terms(rows)
    terms, probabilities, _ = relevance_model(
        [float(scores[r]) for r in rows],
        [t for t, _ in read],
        [c for _, c in read],
        [float(lengths[r]) for r in rows],
    )
    collection = term_totals[terms] / total_length
    kept = divergent_terms(terms, probabilities, collection, count=count, names=names)
    holders = [set(t.tolist()) for t, _ in read]
    return Expansion(
        terms=tuple(
            ExpansionTerm(
                term,
                weight,
                tuple(r for r, held in zip(rows, holders, strict=True) if term in held),
            )
            for term, weight in kept
        ),
        rows=tuple(rows),
    )


def exemplar_weights(
    counts: Mapping[int, float],
    length: float,
    average_length: float,
    idfs: Mapping[int, float] | Sequence[float] | F64,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> dict[int, float]:
    """An exemplar's query: each of its terms weighted by its own BM25 impact.

    ``idf(t) tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))``: what the term
    gives the exemplar's own BM25 score, with the idf applied once (not a
    tf x idf boost on top of it) and the term frequency saturated, so that no
    single rare word takes over. Every term counts (no cap), so a long
    exemplar keeps its topical words.

    Args:
        counts: The exemplar's term id -> weighted frequency (title words
            counted as the index counts them).
        length: The exemplar's weighted length.
        average_length: The index's average weighted length.
        idfs: Term id -> its idf in the index.
        k1: BM25 saturation.
        b: BM25 length normalisation.
    """
    ratio = length / average_length if average_length > 0 else 1.0
    norm = k1 * (1.0 - b + b * ratio)
    weights: dict[int, float] = {}
    for term, tf in counts.items():
        weight = float(idfs[term]) * tf * (k1 + 1.0) / (tf + norm) if tf > 0 else 0.0
        if weight > 0:
            weights[term] = weight
    return weights
