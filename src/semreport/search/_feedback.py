"""Pseudo-relevance feedback (RM3) and an exemplar's query weights, over plain arrays.

RM3 (Lavrenko and Croft's relevance model, interpolated with the query as in
Abdul-Jaleel et al., 2004) reads the first pass's best rows as if they were
relevant, estimates which terms such documents use, and adds the most probable
of them to the query:

1. **Feedback rows**: the first pass's :data:`FEEDBACK_ROWS` best rows with a
   score above zero. When fewer rows than that match, the first pass is too weak
   to learn from and the query stays as it is.
2. **Relevance model**: ``P(w) = sum over feedback rows d of (s(d) / sum s) *
   tf(w, d) / |d|``, where ``s`` is the first-pass score, ``tf`` the term's
   frequency in the row and ``|d|`` the row's length, both counted the same
   way: the caller chooses whether title words count twice, as in the index,
   or once, as written (the two give different expansions; see the caller).
3. **Expansion terms**: the :data:`EXPANSION_TERMS` most probable terms that
   occur in at least :data:`MIN_TERM_ROWS` feedback rows (a word one document
   repeats is no evidence of the topic), their probabilities renormalised to
   sum to 1.
4. **Interpolation**: ``q'(w) = λ q(w) / sum q + (1 - λ) P'(w)`` with
   ``λ =`` :data:`ORIGINAL_WEIGHT`; the expanded query is then scored by BM25
   and normalised by its own upper bound, so scores stay in [0, 1].

The same expansion serves ``similar``: the exemplar's query is its own BM25
term weights (:func:`exemplar_weights`), and the exemplar is kept out of its
feedback rows. Every function here takes plain numbers, arrays and mappings;
none reads an index, so the text signal can call them with what it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

__all__ = [
    "BM25_B",
    "BM25_K1",
    "EXPANSION_TERMS",
    "FEEDBACK_ROWS",
    "MIN_TERM_ROWS",
    "ORIGINAL_WEIGHT",
    "Expansion",
    "ExpansionTerm",
    "exemplar_weights",
    "expand",
    "feedback_rows",
    "relevance_model",
    "rm3",
    "top_rows",
]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

FEEDBACK_ROWS: Final = 10
"""How many first-pass rows feedback reads; with fewer matches the query is not expanded."""
EXPANSION_TERMS: Final = 10
"""How many terms the relevance model adds to the query at most."""
MIN_TERM_ROWS: Final = 2
"""In how many feedback rows an expansion term must occur."""
ORIGINAL_WEIGHT: Final = 0.7
"""λ: the original query's share of the expanded query (the expansion gets ``1 - λ``)."""
BM25_K1: Final = 1.5
"""BM25 term-frequency saturation, as the index scores documents."""
BM25_B: Final = 0.75
"""BM25 length normalisation, as the index scores documents."""


@attrs.frozen
class ExpansionTerm:
    """One term the relevance model added, with where it came from.

    Attributes:
        term: The term's id.
        weight: Its share of the expansion, renormalised over the kept terms
            (the expansion's weights sum to 1).
        rows: The feedback rows that hold it, best first.
    """

    term: int
    weight: float
    rows: tuple[int, ...]


@attrs.frozen
class Expansion:
    """A query after pseudo-relevance feedback.

    Attributes:
        query: The weights to score with: term id -> weight, summing to 1 (the
            original weights alone, normalised, when nothing was expanded).
        terms: The expansion terms, most probable first (empty when skipped).
        rows: The feedback rows, best first (empty when the first pass matched
            too few rows to learn from).
    """

    query: dict[int, float]
    terms: tuple[ExpansionTerm, ...]
    rows: tuple[int, ...]

    @property
    def expanded(self) -> bool:
        """Whether feedback added any term."""
        return bool(self.terms)


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
    candidates = np.flatnonzero(scores > 0).astype(np.int64)
    if exclude is not None:
        candidates = candidates[candidates != exclude]
    if len(candidates) < depth:
        return np.zeros(0, dtype=np.int64)
    chosen: I64 = top_rows(scores, candidates, depth, rank)
    return chosen


def top_rows(values: F64, candidates: I64, depth: int, rank: I64 | None = None) -> I64:
    """The ``depth`` candidates of highest value, best first, ties by ``rank`` (default: row).

    Linear in the candidates: a partition finds the ``depth``-th value, and only
    the candidates that reach it are sorted.
    """
    if depth <= 0 or not len(candidates):
        return np.zeros(0, dtype=np.int64)
    chosen_values = values[candidates]
    if len(candidates) > depth:
        floor = -np.partition(-chosen_values, depth - 1)[depth - 1]
        keep = chosen_values >= floor
        candidates = candidates[keep]
        chosen_values = chosen_values[keep]
    ties = candidates if rank is None else rank[candidates]
    ordered: I64 = candidates[np.lexsort((ties, -chosen_values))[:depth]]
    return ordered


def relevance_model(
    scores: Sequence[float],
    counts: Sequence[Mapping[int, float]],
    lengths: Sequence[float],
) -> dict[int, float]:
    """``P(w)`` over feedback rows: each row's term distribution, weighted by its score.

    Args:
        scores: Each feedback row's first-pass score (above zero).
        counts: Each feedback row's term id -> weighted frequency.
        lengths: Each feedback row's weighted length (the sum of its counts,
            as the index measures it).

    Returns:
        Term id -> probability; the probabilities sum to 1 when every row has
        a length and a score (empty when none has).
    """
    total = float(sum(s for s, n in zip(scores, lengths, strict=True) if n > 0))
    model: dict[int, float] = {}
    if total <= 0:
        return model
    for score, row_counts, length in zip(scores, counts, lengths, strict=True):
        if length <= 0:
            continue
        share = score / total / length
        for term, tf in row_counts.items():
            model[term] = model.get(term, 0.0) + share * tf
    return model


def _normalised(query: Mapping[int, float]) -> dict[int, float]:
    total = sum(w for w in query.values() if w > 0)
    return {t: w / total for t, w in query.items() if w > 0} if total > 0 else {}


def rm3(
    query: Mapping[int, float],
    rows: Sequence[int],
    scores: Sequence[float],
    counts: Sequence[Mapping[int, float]],
    lengths: Sequence[float],
    *,
    terms: int = EXPANSION_TERMS,
    min_rows: int = MIN_TERM_ROWS,
    original: float = ORIGINAL_WEIGHT,
    names: Sequence[str] | None = None,
) -> Expansion:
    """Expand ``query`` by the relevance model of the feedback ``rows``.

    Args:
        query: The original query: term id -> weight (e.g. how often the term occurs).
        rows: The feedback rows, best first (see :func:`feedback_rows`); empty
            leaves the query as it is.
        scores: Each feedback row's first-pass score.
        counts: Each feedback row's term id -> weighted frequency.
        lengths: Each feedback row's weighted length.
        terms: How many expansion terms to keep at most.
        min_rows: In how many feedback rows a kept term must occur.
        original: λ, the original query's share of the result.
        names: Term id -> name, to break ties between equally probable terms
            by name (default: by id).

    Returns:
        The expanded query (weights summing to 1), its expansion terms and the
        feedback rows.
    """
    base = _normalised(query)
    if not rows or not base:
        return Expansion(query=base, terms=(), rows=tuple(int(r) for r in rows))
    model = relevance_model(scores, counts, lengths)
    holders: dict[int, list[int]] = {}
    for row, row_counts in zip(rows, counts, strict=True):
        for term, tf in row_counts.items():
            if tf > 0:
                holders.setdefault(term, []).append(int(row))
    eligible = [t for t, p in model.items() if p > 0 and len(holders.get(t, ())) >= min_rows]

    def order(term: int) -> tuple[float, str | int]:
        return (-model[term], names[term] if names is not None else term)

    kept = sorted(eligible, key=order)[: max(terms, 0)]
    mass = sum(model[t] for t in kept)
    if not kept or mass <= 0:
        return Expansion(query=base, terms=(), rows=tuple(int(r) for r in rows))
    expansion = tuple(ExpansionTerm(t, model[t] / mass, tuple(holders[t])) for t in kept)
    expanded = {t: original * w for t, w in base.items()}
    for item in expansion:
        expanded[item.term] = expanded.get(item.term, 0.0) + (1.0 - original) * item.weight
    return Expansion(query=expanded, terms=expansion, rows=tuple(int(r) for r in rows))


def expand(
    query: Mapping[int, float],
    scores: F64,
    counts_of: Mapping[int, Mapping[int, float]] | Sequence[Mapping[int, float]],
    lengths: F64,
    *,
    exclude: int | None = None,
    rank: I64 | None = None,
    names: Sequence[str] | None = None,
) -> Expansion:
    """RM3 with the defaults: :func:`feedback_rows` of the first pass, then :func:`rm3`.

    Args:
        query: The original query's weights.
        scores: The first pass's BM25 score of every row for ``query``.
        counts_of: Row -> its term id -> weighted frequency (only the feedback
            rows are read).
        lengths: Every row's weighted length.
        exclude: A row kept out of the feedback rows (``similar``'s exemplar).
        rank: Breaks ties between equal first-pass scores (see :func:`feedback_rows`).
        names: Breaks ties between equally probable terms (see :func:`rm3`).
    """
    rows = feedback_rows(scores, exclude=exclude, rank=rank)
    chosen = [int(r) for r in rows]
    return rm3(
        query,
        chosen,
        [float(scores[r]) for r in chosen],
        [counts_of[r] for r in chosen],
        [float(lengths[r]) for r in chosen],
        names=names,
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
