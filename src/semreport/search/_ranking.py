"""Ranking: top-k selection by (score descending, id ascending), and branch-and-bound pruning.

A score is the weighted sum of the active signals' normalised values (the
weights add up to 1), times the demotion factor. Every function here computes
a row's score by the same element-wise arithmetic, so a row's score never
depends on which other rows were scored with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import attrs
import numpy as np

from semreport.search._index import F64, I64, Bool, IndexSnapshot
from semreport.search._select import MARGIN, SAMPLE, sampled_candidates
from semreport.search.signals import Prepared
from semreport.search.signals.text import Bm25

__all__ = [
    "PRUNE_FROM",
    "Best",
    "Weighted",
    "best_of",
    "combine",
    "exact",
    "pruned",
    "signal_values",
    "text_only",
    "top",
]

PRUNE_FROM: Final = 4096
"""Projects at least this large rank a first page by bounds instead of scoring every row."""
_SORT_UP_TO: Final = 512


@attrs.frozen
class Weighted:
    """An active signal's state and its effective weight (the active weights add up to 1)."""

    name: str
    prepared: Prepared
    weight: float


@attrs.frozen(eq=False)
class Best:
    """The best rows in order, their scores, and each active signal's values of them.

    Attributes:
        rows: The rows, best first.
        scores: Their scores.
        values: Per active signal (in order), the normalised and raw values of
            ``rows``, when the ranking computed them (``None``: not computed).
    """

    rows: I64
    scores: F64
    values: tuple[tuple[F64, F64], ...] | None = None


def dense_scores(active: Sequence[Weighted], demotion: F64 | None, keep: I64 | None) -> F64:
    """Every kept row's score (``keep`` ``None``: every row)."""
    if len(active) == 1 and active[0].weight == 1.0:
        values = active[0].prepared.dense()
        score: F64 = values.copy() if keep is None else values[keep]
    else:
        size = active[0].prepared.size() if keep is None else len(keep)
        score = np.zeros(size)
        for signal in active:
            values = signal.prepared.dense()
            score += signal.weight * (values if keep is None else values[keep])
    if demotion is not None:
        score *= demotion if keep is None else demotion[keep]
    return score


def signal_values(active: Sequence[Weighted], rows: I64) -> tuple[tuple[F64, F64], ...]:
    """Each active signal's normalised and raw values of ``rows``."""
    return tuple(signal.prepared.values(rows) for signal in active)


def combine(
    active: Sequence[Weighted],
    values: Sequence[tuple[F64, F64]],
    demotion: F64 | None,
    rows: I64,
) -> F64:
    """Scores of ``rows`` from the signals' values of them, as :func:`dense_scores` adds them."""
    if len(active) == 1 and active[0].weight == 1.0:
        score: F64 = values[0][0].copy()
    else:
        score = np.zeros(len(rows))
        for signal, (normalised, _) in zip(active, values, strict=True):
            score += signal.weight * normalised
    if demotion is not None:
        score *= demotion[rows]
    return score


def exact(active: Sequence[Weighted], demotion: F64 | None, rows: I64) -> F64:
    """Scores of ``rows``, by the same element-wise arithmetic as :func:`dense_scores`."""
    return combine(active, signal_values(active, rows), demotion, rows)


def top(score: F64, mask: Bool | None, rank: I64, k: int, floor: float = 0.0) -> I64:
    """The ``k`` best rows by (score descending, id ascending) among ``mask``, in order.

    ``floor`` (at most the ``k``-th best score) lets only the rows at or above it
    be partitioned. Without one, a large project reads a floor from an evenly
    spaced sample of its rows (:func:`sampled_candidates`): the sampled rows are
    real scores among ``mask``, so it bounds the ``k``-th best from below.
    Zero-score rows fill up a short page in id order.
    """
    candidates: I64 | None = None
    if floor > 0:
        candidates = np.flatnonzero(score >= floor)
        if mask is not None:
            candidates = candidates[mask[candidates]]
    elif len(score) >= 4 * SAMPLE:
        candidates = sampled_candidates(score, k, keep=mask)
    if candidates is not None and len(candidates) >= k:
        result_: I64 = _best(score, candidates, rank, k).astype(np.int64)
        return result_
    positive = score > 0
    if mask is not None:
        positive &= mask
    rows = _best(score, np.flatnonzero(positive), rank, k)
    if len(rows) < k:
        rest = ~positive if mask is None else mask & ~positive
        zero = np.flatnonzero(rest)
        need = k - len(rows)
        if len(zero) > need:
            zero = zero[np.argpartition(rank[zero], need - 1)[:need]]
        zero = zero[np.argsort(rank[zero])]
        rows = np.concatenate([rows, zero])
    result: I64 = rows.astype(np.int64)
    return result


def pruned(
    snap: IndexSnapshot, active: Sequence[Weighted], mask: Bool | None, demote: bool, k: int
) -> Best | None:
    """The ``k`` best rows among ``mask``, scoring only rows that can make it.

    The lead signals (text, terms, the exemplar's facets and graph) are dense; every
    other signal's normalised value is at most its bound, so a row's score is at most
    ``lead(row) + slack`` with ``slack`` the other signals' weighted bounds (demotion only
    lowers it). The best rows by lead alone are scored exactly; the ``k``-th of
    those exact scores bounds the ``k``-th best score from below, and only rows
    whose upper bound reaches it are scored (the seeds' values are kept, not
    computed again). When the slack is too wide for that to prune, the other
    signals join the leads one at a time (computed densely, which the fallback
    would do anyway), shrinking the slack. Returns ``None`` (score every row)
    when no bound prunes enough.
    """
    leads = [s for s in active if s.prepared.lead]
    rest = [s for s in active if not s.prepared.lead]
    if not leads or not rest:
        return None
    demotion = snap.demotion if demote else None
    rank = snap.id_rank
    floor = 0.0
    # The leads' weighted sum, within rounding (the margin below covers it).
    partial = leads[0].prepared.scaled(leads[0].weight, np.empty(snap.n))
    scratch = np.empty(snap.n)
    for signal in leads[1:]:
        partial += signal.prepared.scaled(signal.weight, scratch)
    while True:
        slack = math.fsum(s.weight * s.prepared.bound for s in rest)
        # More seeds than k: the k-th best exact score among them is a tighter floor.
        seeds = top(partial, mask, rank, 4 * k + 16)
        if len(seeds) < k:
            return None
        seed_values = signal_values(active, seeds)
        seed_scores = combine(active, seed_values, demotion, seeds)
        # Any earlier floor stays a valid lower bound of the k-th best score.
        floor = max(floor, float(np.partition(seed_scores, len(seeds) - k)[len(seeds) - k]))
        if floor - slack > 0:
            # A margin keeps every row whose bound reaches the floor despite rounding.
            reach = partial >= (floor - slack) * (1.0 - MARGIN)
            if np.count_nonzero(reach) <= snap.n // 4:  # counting is cheaper than listing
                candidates = np.flatnonzero(reach)
                break
        if not rest:
            return None  # the bound prunes too little: scoring every row is cheaper
        promoted = rest.pop(0)
        leads.append(promoted)
        partial += promoted.prepared.scaled(promoted.weight, scratch)
    if mask is not None:
        candidates = candidates[mask[candidates]]
    # The seeds are scored already (and kept: a seed below the bound scores below the
    # floor, so it never displaces a better row).
    others = candidates[~np.isin(candidates, seeds, assume_unique=True, kind="sort")]
    other_values = signal_values(active, others)
    rows = np.concatenate([seeds, others])
    scores = np.concatenate([seed_scores, combine(active, other_values, demotion, others)])
    values = tuple(
        (np.concatenate([a, c]), np.concatenate([b, d]))
        for (a, b), (c, d) in zip(seed_values, other_values, strict=True)
    )
    return best_of(snap, rows, scores, k, values)


def text_only(
    snap: IndexSnapshot, signals: Sequence[Weighted], mask: Bool | None, demote: bool, k: int
) -> Best | None:
    """The ``k`` best rows when every active signal is BM25, dividing only the candidates.

    One signal (text): ``raw * demotion`` orders rows as the score does (its
    weight is 1 and its bound one positive constant). Several (text and
    feedback, or terms and feedback): ``sum(weight / bound * raw)``, divided by
    the largest ``weight / bound``, orders them as the score does, up
    to rounding. A margin on the floor covers the rounding either way. The
    floor comes from a sample of that sum times the demotion; since demotion
    never raises a score, every row that can reach it has an undemoted sum at
    least the floor, so the candidates are taken without demoting the whole
    project, and their exact scores are computed as :func:`exact` does.
    Returns ``None`` when some active signal is not BM25.
    """
    states = [signal.prepared for signal in signals]
    if not states or not all(isinstance(p, Bm25) and p.scale > 0 for p in states):
        return None
    bm25 = [p for p in states if isinstance(p, Bm25)]
    if len(bm25) == 1:
        combined = bm25[0].raw
    else:
        # The sum divided by the largest factor (a positive constant, which orders rows
        # alike, and no quotient above 1 can overflow): that signal is added as it is.
        factors = [signal.weight / state.scale for signal, state in zip(signals, bm25, strict=True)]
        largest = factors.index(max(factors))
        others = [i for i in range(len(bm25)) if i != largest]
        combined = np.multiply(bm25[others[0]].raw, factors[others[0]] / factors[largest])
        if len(others) > 1:
            scratch = np.empty(snap.n)
            for i in others[1:]:
                combined += np.multiply(bm25[i].raw, factors[i] / factors[largest], out=scratch)
        combined += bm25[largest].raw
    candidates = sampled_candidates(
        combined, k, keep=mask, factor=snap.demotion if demote else None, margin=MARGIN
    )
    if candidates is None or len(candidates) < k:
        return None
    values = signal_values(signals, candidates)
    scores = combine(signals, values, snap.demotion if demote else None, candidates)
    return best_of(snap, candidates, scores, k, values)


def best_of(
    snap: IndexSnapshot,
    candidates: I64,
    scores: F64,
    k: int,
    values: Sequence[tuple[F64, F64]] | None = None,
) -> Best:
    """The ``k`` best of scored candidate rows, in order, with their scores (and values)."""
    ranks = snap.id_rank[candidates]
    if len(scores) <= _SORT_UP_TO:
        local: I64 = np.lexsort((ranks, -scores))[:k]
    else:
        local = _best(scores, np.arange(len(candidates)), ranks, k)
    return Best(
        candidates[local].astype(np.int64),
        scores[local],
        None if values is None else tuple((n[local], r[local]) for n, r in values),
    )


def _best(score: F64, idx: I64, rank: I64, k: int) -> I64:
    values = score[idx]
    m = len(values)
    if m <= _SORT_UP_TO:  # few candidates: one sort beats partitioning and tie handling
        first: I64 = idx[np.lexsort((rank[idx], -values))[:k]]
        return first
    if k < m:
        part = np.argpartition(values, m - k)[m - k :]
        threshold = values[part].min()
        above = part[values[part] > threshold]
        tied = np.flatnonzero(values == threshold)
        need = k - len(above)
        if len(tied) > need:
            tied = tied[np.argpartition(rank[idx[tied]], need - 1)[:need]]
        chosen = idx[np.concatenate([above, tied])]
    else:
        chosen = idx
    order = np.lexsort((rank[chosen], -score[chosen]))
    result: I64 = chosen[order]
    return result
