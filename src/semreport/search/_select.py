"""Candidate rows for a top-k selection, found from a sample instead of a sort.

Selecting the ``k`` best of a project's rows needs only the rows at or above
some floor that at least ``k`` of them reach. :func:`sampled_candidates`
reads that floor from evenly spaced rows:

1. **Optimistic floor**: the sampled value that about ``2k`` rows of the
   whole project reach (a sampled row stands for ``stride`` rows; at least
   the 4th best sampled value, for a steadier estimate). The rows reaching it
   are listed and counted; when at least ``k`` of them qualify, they are the
   candidates (about ``2k``, or ``4 * stride`` for a small ``k``).
2. **Safe floor**: otherwise the ``k``-th best sampled value, which ``k``
   sampled rows reach by construction (more candidates, never too few).
3. Otherwise (fewer than ``k`` sampled rows above zero, and the optimistic
   floor reached by too few rows) no floor: the caller looks at every row.

Either way every row that can be among the ``k`` best is a candidate, so the
selection is exact; the sample only decides how few rows are sorted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt

__all__ = ["MARGIN", "SAMPLE", "sampled_candidates", "sampled_rows"]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

MARGIN: Final = 1e-9
"""A relative margin below a floor that covers the rounding of values computed another way."""
SAMPLE: Final = 1024
"""At least how many evenly spaced rows a floor is read from."""
_OVERSAMPLE: Final = 4
"""A sample holds at least this many rows per row wanted (``k``)."""
_AT_LEAST: Final = 4
"""The optimistic floor is at most the 4th best sampled value (a steadier estimate)."""


def sampled_candidates(
    values: F64,
    k: int,
    *,
    keep: Bool | None = None,
    exclude: int = -1,
    factor: F64 | None = None,
    margin: float = 0.0,
    sample: int = SAMPLE,
) -> I64 | None:
    """Rows among ``keep`` (but ``exclude``) whose value reaches a floor ``k`` of them reach.

    A row reaches the floor when ``values[row] >= floor * (1 - margin)``; the
    floor is a sampled ``values * factor`` above zero, and at least ``k`` kept
    rows have ``values * factor`` at or above it. Since ``factor`` (at most 1,
    say a demotion) never raises a value, every kept row whose ``values *
    factor`` is among the ``k`` best is returned.

    Args:
        values: Every row's value.
        k: How many rows the caller selects.
        keep: Which rows may be selected (default: every row).
        exclude: A row never selected (-1: none).
        factor: Multiplies the values for the floor (default: 1).
        margin: A relative margin below the floor (the caller's rounding).
        sample: At least how many rows to sample.

    Returns:
        The candidates in ascending order, or ``None`` when the project is too
        small to sample or no floor was found (the caller then looks at every
        row).
    """
    count = len(values)
    stride = count // max(sample, _OVERSAMPLE * k)
    if k <= 0 or stride < 2:
        return None
    sampled = values[::stride] if factor is None else values[::stride] * factor[::stride]
    for depth, floor in _floors(sampled, k, stride, keep=keep, exclude=exclude):
        reach = values >= floor * (1.0 - margin)
        if keep is not None:
            reach &= keep
        candidates: I64 = np.flatnonzero(reach)
        if 0 <= exclude < count:
            candidates = candidates[candidates != exclude]
        if depth == k:
            return candidates
        reached = values[candidates] if factor is None else values[candidates] * factor[candidates]
        if np.count_nonzero(reached >= floor) >= k:
            return candidates
    return None


def _floors(
    sampled: F64, k: int, stride: int, *, keep: Bool | None, exclude: int
) -> list[tuple[int, float]]:
    """The floors to try, from the values of every ``stride``-th row: ``(depth, floor)`` pairs.

    First the optimistic floor (about ``2k`` rows of the project reach it),
    then the safe one (the ``k``-th sampled value) when ``k`` sampled rows are
    kept and above zero; none when no sampled row is.
    """
    fit = sampled > 0
    if keep is not None:
        fit &= keep[::stride]
    if exclude >= 0 and exclude % stride == 0 and exclude // stride < len(fit):
        fit[exclude // stride] = False
    sampled = sampled[fit]
    size = len(sampled)
    optimistic = min(size, k, max(_AT_LEAST, -(-2 * k // stride)))
    if not optimistic:
        return []
    depths = (optimistic, k) if size >= k else (optimistic,)
    order = np.partition(sampled, tuple(size - depth for depth in depths))
    return [(depth, float(order[size - depth])) for depth in depths]


def sampled_rows(
    values_of: Callable[[I64], F64],
    reaching: Callable[[float], Bool],
    count: int,
    k: int,
    *,
    keep: Bool | None = None,
    exclude: int = -1,
    sample: int = SAMPLE,
) -> tuple[I64, F64]:
    """:func:`sampled_candidates` for values computed only for the rows asked.

    The floor is read from the sampled rows' values, and only the rows
    ``reaching(floor)`` names (a superset of the rows whose value reaches it,
    say each part's rows for a weighted mean of parts) have their values
    computed. A row's value must not depend on the other rows asked with it.

    Args:
        values_of: Rows -> their values.
        reaching: A floor above zero -> every row whose value can reach it (more is fine).
        count: How many rows there are.
        k: How many rows the caller selects.
        keep: Which rows may be selected (default: every row).
        exclude: A row never selected (-1: none).
        sample: At least how many rows to sample.

    Returns:
        The candidates (ascending; every kept row among the ``k`` of highest
        value above zero is one) and their values. With no floor to read (a
        small project, or too few sampled rows above zero) every row's value is
        computed and the candidates are the kept rows above zero.
    """
    stride = count // max(sample, _OVERSAMPLE * k)
    if k > 0 and stride >= 2:
        sampled = values_of(np.arange(0, count, stride, dtype=np.int64))
        for depth, floor in _floors(sampled, k, stride, keep=keep, exclude=exclude):
            reach = reaching(floor)
            if keep is not None:
                reach &= keep
            if 0 <= exclude < count:
                reach[exclude] = False
            rows: I64 = np.flatnonzero(reach)
            found = values_of(rows)
            above = found >= floor
            if depth == k or np.count_nonzero(above) >= k:
                return rows[above], found[above]
    every = values_of(np.arange(count, dtype=np.int64))
    held = every > 0
    if keep is not None:
        held &= keep
    if 0 <= exclude < count:
        held[exclude] = False
    chosen: I64 = np.flatnonzero(held)
    return chosen, every[chosen]
