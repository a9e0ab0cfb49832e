"""The search signals, one module each, and the registry the scorer iterates.

Adding a signal: write a module with a :class:`Signal` subclass (its
description, default weights, :meth:`~Signal.active`, :meth:`~Signal.prepare`
and :meth:`~Signal.coverage`) and a :class:`Prepared` state (values, bound,
evidence); append an instance to :data:`SIGNALS`; test it. A signal that
builds on another's values overrides :meth:`~Signal.prepare_after` and comes
after it in :data:`SIGNALS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from semreport.search.signals._base import Evidence, Page, Prepared, Prior, Query, Signal
from semreport.search.signals.attributes import AttributesSignal
from semreport.search.signals.facets import FacetsSignal
from semreport.search.signals.feedback import FeedbackSignal
from semreport.search.signals.graph import GraphSignal
from semreport.search.signals.recency import RecencySignal
from semreport.search.signals.terms import TermsSignal
from semreport.search.signals.text import TextSignal

__all__ = [
    "SIGNALS",
    "SIGNAL_NAMES",
    "AttributesSignal",
    "Evidence",
    "FacetsSignal",
    "FeedbackSignal",
    "GraphSignal",
    "Page",
    "Prepared",
    "Prior",
    "Query",
    "RecencySignal",
    "Signal",
    "TermsSignal",
    "TextSignal",
    "prepare_active",
]

SIGNALS: Final[tuple[Signal, ...]] = (
    TextSignal(),
    TermsSignal(),
    FeedbackSignal(),
    FacetsSignal(),
    AttributesSignal(),
    GraphSignal(),
    RecencySignal(),
)
"""Every signal the heuristic scorer offers, in explanation order."""

SIGNAL_NAMES: Final = tuple(signal.name for signal in SIGNALS)
"""The signals' names, in explanation order."""


def prepare_active(query: Query, weights: Mapping[str, float]) -> list[tuple[Signal, Prepared]]:
    """The signals a request uses, in registry order, each with its state.

    A signal counts when its weight is above zero and the request activates it;
    each is prepared after the ones before it (:meth:`Signal.prepare_after`),
    and an idle state (nothing to add) is left out.
    """
    chosen: list[tuple[Signal, Prepared]] = []
    earlier: list[Prior] = []
    for signal in SIGNALS:
        weight = weights[signal.name]
        if weight > 0 and signal.active(query):
            prepared = signal.prepare_after(query, tuple(earlier))
            if prepared.idle:
                continue
            chosen.append((signal, prepared))
            earlier.append(Prior(signal.name, signal.kind, prepared, weight))
    return chosen
