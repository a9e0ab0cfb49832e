"""Shared helpers for the search tests."""

from __future__ import annotations

from collections.abc import Mapping

import semreport


def graph_shares_total(evidence: Mapping[str, object]) -> float:
    """What a ``graph`` explanation's neighbours add up to: every named share and the others'."""
    total = 0.0
    for group in ("linked", "elements", "evidence"):
        shares = evidence[group]
        assert isinstance(shares, semreport.FrozenDict)
        for amount in shares.values():
            assert isinstance(amount, float)
            assert amount > 0
            total += amount
    others = evidence.get("others")
    if isinstance(others, semreport.FrozenDict):
        amount = others["amount"]
        assert isinstance(amount, float)
        total += amount
    return total
