"""The search signals, one module each, and the registry the scorer iterates.

Adding a signal: write a module with a :class:`Signal` subclass (its
description, default weights, :meth:`~Signal.active`, :meth:`~Signal.prepare`
and :meth:`~Signal.coverage`) and a :class:`Prepared` state (values, bound,
evidence); append an instance to :data:`SIGNALS`; test it.
"""

from __future__ import annotations

from typing import Final

from semreport.search.signals._base import Evidence, Prepared, Query, Signal
from semreport.search.signals.attributes import AttributesSignal
from semreport.search.signals.facets import FacetsSignal
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
    "GraphSignal",
    "Prepared",
    "Query",
    "RecencySignal",
    "Signal",
    "TermsSignal",
    "TextSignal",
]

SIGNALS: Final[tuple[Signal, ...]] = (
    TextSignal(),
    TermsSignal(),
    FacetsSignal(),
    AttributesSignal(),
    GraphSignal(),
    RecencySignal(),
)
"""Every signal the heuristic scorer offers, in explanation order."""

SIGNAL_NAMES: Final = tuple(signal.name for signal in SIGNALS)
"""The signals' names, in explanation order."""
