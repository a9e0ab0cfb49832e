"""An inline exemplar for ``similar``: any subset of a decision's fields.

Its own module, below both the request models and the signals, which read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from semreport.domain import DecisionDomain, DecisionStatus, Evidence, FrozenDict, Link
from semreport.domain._values import AttributeName, AttributeValue, Identifier, Tag

__all__ = ["PartialDecision", "frozen_mapping", "frozen_values"]


def frozen_mapping(value: Mapping[str, Any]) -> FrozenDict[str, Any]:
    """A mapping as a :class:`~semreport.FrozenDict` (one is kept as it is)."""
    return value if isinstance(value, FrozenDict) else FrozenDict(value)


def frozen_values(value: Any) -> frozenset[Any]:
    """A collection of values as a frozenset; a single string is refused."""
    if isinstance(value, str):
        raise TypeError("expected a list of values, not a single string")
    return frozenset(value)


@attrs.frozen
class PartialDecision:
    """An inline exemplar: any subset of a decision's fields."""

    title: str = ""
    statement: str = ""
    rationale: str = ""
    domain: DecisionDomain | None = attrs.field(
        default=None, converter=attrs.converters.optional(DecisionDomain)
    )
    status: DecisionStatus | None = attrs.field(
        default=None, converter=attrs.converters.optional(DecisionStatus)
    )
    agent: Identifier | None = None
    tags: frozenset[Tag] = attrs.field(factory=frozenset, converter=frozen_values)
    attributes: FrozenDict[AttributeName, AttributeValue] = attrs.field(
        factory=FrozenDict, converter=frozen_mapping
    )
    elements: frozenset[Identifier] = attrs.field(factory=frozenset, converter=frozen_values)
    evidence: tuple[Evidence, ...] = attrs.field(default=(), converter=tuple)
    links: tuple[Link, ...] = attrs.field(default=(), converter=tuple)
