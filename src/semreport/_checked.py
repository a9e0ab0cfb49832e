"""The check every way into Decision Memory shares: is a decision what its constructor makes?

A model built normally is valid by construction, but a frozen attrs object can
still be altered (``object.__setattr__``, a poked private field). The storage
adapters refuse such a decision exactly as its wire form would be refused
(:func:`checked_decision`), and the facade uses the same check to name the bad
field of a decision its own limits cannot even measure, instead of failing
with whatever the measuring raised.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import attrs

from semreport.domain import Decision, Evidence, FieldError, FrozenDict, InvalidRequest, Link
from semreport.wire import converter, from_wire, to_wire

__all__ = ["checked_decision", "naive_times", "structure_decision"]

_CONTAINERS: Final[tuple[tuple[str, type], ...]] = (
    ("tags", frozenset),
    ("elements", frozenset),
    ("attributes", FrozenDict),
)
_ITEMS: Final[tuple[tuple[str, type], ...]] = (("evidence", Evidence), ("links", Link))


def checked_decision(decision: Decision, path: str) -> Decision:
    """Return ``decision`` if it is exactly what the model's constructor makes, else rebuild it.

    Checked as it is, a decision built normally costs no allocation. One
    altered after construction is rebuilt from its wire form with every
    validator of the model, and so refused exactly as that wire form would be
    (lone surrogates, integers beyond ±(2**53 - 1), non-finite numbers, naive
    times, wrong types), or given back rebuilt when its wire form is valid.

    Args:
        decision: Anything passed as a decision (its type is checked by the caller).
        path: Where the decision is in the request, for the errors (``$[2]``).

    Raises:
        InvalidRequest: a field is invalid, named with its path (``$[2].statement``).
    """
    shape = _shape_problems(decision)
    if shape:
        raise InvalidRequest(FieldError(f"{path}.{p.path}", p.message) for p in shape)
    # A large batch holding a second copy of every decision would double the garbage
    # collector's work, so a decision that passes as it is is kept as it is.
    if _as_built(decision):
        return decision
    try:
        wire = to_wire(decision)
    except Exception:  # noqa: BLE001 - a decision altered into something unwritable
        raise InvalidRequest.at(path, "the decision's fields do not form a wire form") from None
    try:
        return structure_decision(wire)
    except Exception:  # noqa: BLE001 - from_wire lists every bad field with its path
        return from_wire(wire, Decision, path=path)  # raises InvalidRequest


def structure_decision(wire: Any) -> Decision:
    """Build a decision from its wire form with every validator (the converter's fast path)."""
    decision: Decision = converter.structure(wire, Decision)
    return decision


def naive_times(value: object, path: str) -> list[FieldError]:
    """Name every datetime inside ``value`` (a model, a tuple, a datetime) that is naive.

    The wire form would read a naive time as local time, silently; the models
    refuse them, and so does every adapter for an object altered after construction.
    """
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            return [FieldError(path, "must be timezone-aware (naive datetimes are refused)")]
        return []
    if isinstance(value, tuple):
        return [p for n, item in enumerate(value) for p in naive_times(item, f"{path}[{n}]")]
    kind: Any = type(value)
    if attrs.has(kind):
        return [
            p
            for field in attrs.fields(kind)
            for p in naive_times(getattr(value, field.name, None), f"{path}.{field.name}")
        ]
    return []


def _shape_problems(d: Decision) -> list[FieldError]:
    """Name the fields whose container type is not the model's (poked after construction).

    The wire converter would otherwise read a string as a set of characters.
    """
    problems: list[FieldError] = []
    for name, kind in _CONTAINERS:
        if not isinstance(getattr(d, name, None), kind):
            problems.append(FieldError(name, f"expected a {kind.__name__}"))
    for name, kind in _ITEMS:
        items = getattr(d, name, None)
        if not isinstance(items, tuple) or any(type(item) is not kind for item in items):
            problems.append(FieldError(name, f"expected a tuple of {kind.__name__} objects"))
    problems.extend(naive_times(getattr(d, "recorded_at", None), "recorded_at"))
    return problems


def _as_built(model: Any) -> bool:
    """Whether an attrs model is exactly what its constructor makes of its fields.

    Every converter must give back the very object stored (so the field has
    the type the model promises), every validator and the post-init check must
    pass, and the same holds for the models inside its tuples. A model built
    normally passes without a single allocation; one altered after
    construction fails, and is then rebuilt from its wire form, which names
    the bad field.
    """
    try:
        for field in attrs.fields(type(model)):
            value = getattr(model, field.name)
            if field.converter is not None and field.converter(value) is not value:
                return False
            if type(value) is tuple and not all(
                _as_built(item) for item in value if attrs.has(type(item))
            ):
                return False
        attrs.validate(model)
        post = getattr(model, "__attrs_post_init__", None)
        if post is not None:
            post()
    except Exception:  # noqa: BLE001 - anything amiss: rebuild, and let that name it
        return False
    return True
