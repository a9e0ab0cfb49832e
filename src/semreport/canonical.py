"""RFC 8785 (JCS) canonical JSON, and the record bytes every digest hashes.

:func:`canonical_json` is the reference: it delegates to the ``rfc8785``
package. :func:`canonical_json_fast` gives the same bytes faster: it
serialises with the standard library's C encoder when the value holds nothing
on which Python's JSON output and JCS can differ (floats outside the range
where both print the same digits, integers beyond the IEEE 754 safe range,
object keys outside the Basic Multilingual Plane, lone surrogates); anything
else falls back to ``rfc8785``. A differential property test checks the two
against each other.

:func:`record_bytes` is what a decision *is* for the record digest: the JCS
bytes of its wire form (:func:`semreport.wire.to_wire`). Reports cite it by
:func:`record_sha256`, and storage adapters may keep the same hash to detect
a record altered at rest.

Example:
    >>> from semreport.canonical import canonical_json
    >>> canonical_json({"b": 1.0e17, "a": [1.5, "x"]})
    b'{"a":[1.5,"x"],"b":100000000000000000}'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

import rfc8785

from semreport.domain import Decision
from semreport.wire import to_wire

__all__ = [
    "CanonicalizationError",
    "canonical_json",
    "canonical_json_fast",
    "canonical_record",
    "parse_json",
    "read_integer",
    "record_bytes",
    "record_sha256",
]

CanonicalizationError = rfc8785.CanonicalizationError
"""Raised for a value JCS cannot represent (an integer beyond 2**53 - 1, NaN...)."""

_MAX_SAFE_INT: Final = 2**53 - 1
_FIXED_LOW: Final = 1e-4
_FIXED_HIGH: Final = 1e16
_encode = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
).encode


def canonical_json(value: Any) -> bytes:
    """Return the RFC 8785 canonical UTF-8 bytes of a JSON value (via ``rfc8785``).

    Args:
        value: A JSON value: dicts with string keys, lists, strings, integers
            within ±(2**53 - 1), finite floats, booleans and ``None``.

    Returns:
        The canonical bytes.

    Raises:
        CanonicalizationError: the value holds something JCS cannot represent.
    """
    return rfc8785.dumps(value)


def _plain(value: Any) -> bool:
    """Whether the C encoder prints ``value`` exactly as JCS does."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or item is None or kind is bool:
            continue
        if kind is int:
            if -_MAX_SAFE_INT <= item <= _MAX_SAFE_INT:
                continue
            return False
        if kind is float:
            if _FIXED_LOW <= abs(item) < _FIXED_HIGH and not item.is_integer():
                continue
            return False
        if kind is dict:
            for key in item:
                if type(key) is not str or not (key.isascii() or _bmp(key)):
                    return False
            stack.extend(item.values())
            continue
        if kind is list:
            stack.extend(item)
            continue
        return False
    return True


def _bmp(text: str) -> bool:
    return all(ord(char) <= 0xFFFF for char in text)


def _dump(value: Any) -> bytes:
    try:
        return _encode(value).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: let the reference decide
        return canonical_json(value)


def canonical_json_fast(value: Any) -> bytes:
    """Return the same bytes as :func:`canonical_json`, faster for plain values.

    Raises:
        CanonicalizationError: the value holds something JCS cannot represent.
    """
    if _plain(value):
        return _dump(value)
    return canonical_json(value)


def _number(value: Any) -> Any:
    """Map a number to one the C encoder prints as JCS does, or ``None`` if it cannot."""
    kind = type(value)
    if kind is int:
        return value if -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT else None
    if kind is float:
        if value.is_integer():
            return int(value) if abs(value) <= _MAX_SAFE_INT else None
        return value if _FIXED_LOW <= abs(value) < _FIXED_HIGH else None
    return None


def canonical_record(wire: Mapping[str, Any]) -> bytes:
    """Return the canonical bytes of a decision's wire form (same bytes as :func:`canonical_json`).

    The wire form of a validated :class:`~semreport.Decision` holds numbers
    only in ``sequence`` and ``attributes`` and only ASCII object keys, so
    only those are inspected; anything unusual goes through ``rfc8785``.

    Raises:
        CanonicalizationError: the value holds something JCS cannot represent.
    """
    attributes = wire.get("attributes")
    if type(wire) is not dict or type(attributes) is not dict:
        return canonical_json_fast(wire)
    fixed: dict[str, Any] | None = None
    for name, item in attributes.items():
        if type(item) in (str, bool):
            continue
        number = _number(item)
        if number is None:
            return canonical_json(wire)
        if number is not item:
            fixed = dict(attributes) if fixed is None else fixed
            fixed[name] = number
    sequence = wire.get("sequence")
    if sequence is not None and (type(sequence) is not int or _number(sequence) is None):
        return canonical_json(wire)
    if fixed is not None:
        wire = {**wire, "attributes": fixed}
    return _dump(wire)


def read_integer(literal: str) -> int | float:
    """Read a JSON integer literal as the number it denotes in RFC 8785's number domain.

    RFC 8785 (like I-JSON and JavaScript) treats every JSON number as an IEEE
    754 double, and prints a whole double without a fraction or exponent below
    1e21: the float ``1.0e17`` is written ``100000000000000000``. Such a
    literal therefore denotes a double, not an integer Python should keep
    exact. Integers within ±(2**53 - 1) are returned as ``int`` (every double
    of that magnitude is exact); any other literal as the nearest ``float``
    (``inf`` beyond the double range, which canonicalisation then refuses).

    Args:
        literal: The digits of a JSON integer, with an optional minus sign.

    Returns:
        The number, as JCS reads it.
    """
    # Up to 17 characters (a sign and 16 digits) int() is exact and cheap; longer
    # literals are beyond 2**53 - 1 anyway, and int() would refuse over 4,300 digits.
    if len(literal) <= 17:
        value = int(literal)
        if -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT:
            return value
    return float(literal)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(text: str | bytes) -> Any:
    """Parse JSON text the way RFC 8785 reads numbers (see :func:`read_integer`).

    Parsing canonical bytes and canonicalising the result gives the same
    bytes back, for every value the wire form accepts: ``json.loads`` would
    instead turn ``100000000000000000`` (the canonical form of ``1.0e17``)
    into an integer beyond 2**53 - 1, which RFC 8785 refuses.

    Args:
        text: JSON text (UTF-8 when bytes).

    Returns:
        The parsed value: dicts, lists, strings, ints within ±(2**53 - 1),
        floats, booleans and ``None``.

    Raises:
        ValueError: the text is not JSON (a :class:`json.JSONDecodeError` with
            its position), or holds ``NaN`` or ``Infinity``.
    """
    return json.loads(text, parse_int=read_integer, parse_constant=_refuse_constant)


def record_bytes(decision: Decision) -> bytes:
    """Return a decision's record bytes: the RFC 8785 JSON of its wire form.

    These are exactly the bytes a report's digest hashes for the record.

    Raises:
        CanonicalizationError: the decision holds a value JCS cannot represent
            (validated decisions never do).
    """
    return canonical_record(to_wire(decision))


def record_sha256(decision: Decision) -> str:
    """Return the hex SHA-256 of :func:`record_bytes` (a citation id without ``sha256:``).

    Raises:
        CanonicalizationError: as :func:`record_bytes`.
    """
    return hashlib.sha256(record_bytes(decision)).hexdigest()
