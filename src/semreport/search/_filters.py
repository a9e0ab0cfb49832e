"""Hard filters as a boolean mask over a snapshot's rows (never part of the score)."""

from __future__ import annotations

import numpy as np

from semreport.search._index import DOMAINS, STATUSES, Bool, IndexSnapshot
from semreport.search._models import Filters, StatusFilter, SupersededPolicy

__all__ = ["filter_mask"]


def filter_mask(  # noqa: PLR0912 - one branch per filter
    snap: IndexSnapshot, filters: Filters, policy: SupersededPolicy, exclude: int = -1
) -> Bool | None:
    """The rows the filters, the superseded policy and ``exclude`` keep; ``None``: every row."""
    n = snap.n
    mask: Bool | None = None

    def both(extra: Bool) -> None:
        nonlocal mask
        mask = extra if mask is None else mask & extra

    # Facet filters look codes up in a small boolean table: one gather per filter.
    if filters.domain:
        both(_lookup(len(DOMAINS), [DOMAINS.index(d) for d in filters.domain])[snap.domain])
    if filters.status:
        stored = [
            STATUSES.index(s.value) for s in filters.status if s is not StatusFilter.SUPERSEDED
        ]
        status_mask = _lookup(len(STATUSES), stored)[snap.status]
        if StatusFilter.SUPERSEDED in filters.status:
            status_mask |= snap.superseded
        both(status_mask)
    if filters.agent:
        agents = snap.vocab.agents
        codes = [agents[a] for a in filters.agent if a in agents]
        both(_lookup(len(snap.vocab.agent_names), codes)[snap.agent])
    if filters.tags:
        known = snap.vocab.keys
        keys = [known[f"tag:{t}"] for t in filters.tags if f"tag:{t}" in known]
        both(_tag_mask(snap, keys))
    for name, bounds in filters.attributes.items():
        column = snap.attributes.get(name)
        if column is None:
            both(np.zeros(n, dtype=np.bool_))
            continue
        # Comparisons with NaN (a missing attribute) are False, so no separate presence test.
        if bounds.min is not None and bounds.max is not None:
            attr_mask = (column >= bounds.min) & (column <= bounds.max)
        elif bounds.min is not None:
            attr_mask = column >= bounds.min
        elif bounds.max is not None:
            attr_mask = column <= bounds.max
        else:
            attr_mask = ~np.isnan(column)
        both(attr_mask)
    span = filters.recorded
    if span is not None:
        time_mask = np.ones(n, dtype=np.bool_)
        if span.after is not None:
            time_mask &= snap.recorded >= span.after.timestamp()
        if span.before is not None:
            time_mask &= snap.recorded <= span.before.timestamp()
        both(time_mask)
    if policy == SupersededPolicy.EXCLUDE:
        both(~snap.superseded)
    if 0 <= exclude < n:
        keep = np.ones(n, dtype=np.bool_) if mask is None else mask.copy()
        keep[exclude] = False
        mask = keep
    return mask


def _tag_mask(snap: IndexSnapshot, keys: list[int]) -> Bool:
    """Which decisions hold any of the tag keys (from the tag-major index)."""
    indptr, rows = snap.tags.transpose(len(snap.vocab.key_names))
    found = np.zeros(snap.n, dtype=np.bool_)
    for key in sorted(keys):
        if key + 1 < len(indptr):
            found[rows[indptr[key] : indptr[key + 1]]] = True
    return found


def _lookup(size: int, codes: list[int]) -> Bool:
    table = np.zeros(max(size, 1), dtype=np.bool_)
    table[codes] = True
    return table
