"""Hits and their explanations, built for one page at once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from semreport.search._highlight import Highlight
from semreport.search._index import DEMOTION, DOMAINS, F64, I64, STATUSES, IndexSnapshot
from semreport.search._models import Hit, SignalContribution
from semreport.search._ranking import Weighted
from semreport.search.signals import Page

__all__ = ["page_hits"]


def page_hits(
    snap: IndexSnapshot,
    rows: I64,
    scores: F64,
    active: Sequence[Weighted],
    *,
    demote: bool,
    explain: bool,
    highlights: Sequence[tuple[Highlight, ...]] | None = None,
    values: Sequence[tuple[F64, F64]] | None = None,
) -> tuple[Hit, ...]:
    """The page's hits, each with its explanation when ``explain`` (else an empty one).

    ``highlights`` gives each row's highlights, in the order of ``rows`` (none by
    default); ``values`` each active signal's normalised and raw values of
    ``rows``, when the ranking computed them (else each signal computes them).

    Each signal computes its evidence for the whole page in one call (what
    the rows hold is read once for all of them: :class:`Page`); a
    contribution is ``weight * normalised * demotion``.
    """
    row_list: list[int] = rows.tolist()
    superseded: list[bool] = snap.superseded[rows].tolist()
    factors = [DEMOTION if demote and s else 1.0 for s in superseded]
    columns: list[list[SignalContribution]] = []
    if explain and row_list:
        factor_array = np.array(factors)
        given = values if values is not None else [s.prepared.values(rows) for s in active]
        page = Page(snap, row_list)
        for signal, (normalised, raw) in zip(active, given, strict=True):
            contributions = (signal.weight * normalised * factor_array).tolist()
            evidence = signal.prepared.explain(page)
            columns.append(
                [
                    SignalContribution(signal.name, r, v, signal.weight, c, e)
                    for r, v, c, e in zip(
                        raw.tolist(), normalised.tolist(), contributions, evidence, strict=True
                    )
                ]
            )
    explanations = list(zip(*columns, strict=True)) if columns else [()] * len(row_list)
    titles, recorded_at, agents = snap.titles, snap.recorded_at, snap.vocab.agent_names
    domains: list[int] = snap.domain[rows].tolist()
    statuses: list[int] = snap.status[rows].tolist()
    agent_codes: list[int] = snap.agent[rows].tolist()
    shown = highlights if highlights is not None else [()] * len(row_list)
    hits = []
    for i, row in enumerate(row_list):
        hits.append(
            Hit(
                decision_id=snap.ids[row],
                score=float(scores[i]),
                title=titles[row],
                domain=DOMAINS[domains[i]],
                status=STATUSES[statuses[i]],
                agent=agents[agent_codes[i]],
                recorded_at=recorded_at[row],
                superseded=superseded[i],
                demotion=factors[i],
                explanation=tuple(explanations[i]),
                highlights=shown[i],
            )
        )
    return tuple(hits)
