"""Value checks shared by the models' validators and the wire converter.

Each check raises :class:`ValueError` (or :class:`TypeError`) with a message
that reads well after a field path, e.g. ``$.id: must match ...``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Final, TypeAlias, TypeVar

__all__ = [
    "IDENTIFIER_PATTERN",
    "AttributeName",
    "AttributeValue",
    "Constraint",
    "FrozenDict",
    "Identifier",
    "JsonValue",
    "NonEmptyText",
    "Sha256Hex",
    "Tag",
    "check_attribute_name",
    "check_attribute_value",
    "check_identifier",
    "check_non_empty",
    "check_sha256",
    "check_tag",
    "check_text",
    "check_utc",
    "freeze_json",
    "thaw_json",
]

IDENTIFIER_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}"
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_MAX_TAG = 128

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(Mapping[K, V]):
    """An immutable, hashable, picklable mapping that keeps its keys sorted.

    Sorting the keys on the way in makes equal mappings iterate, print and
    serialise identically, which keeps every output deterministic.
    """

    __slots__ = ("_data", "_hash")

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        pairs = items.items() if isinstance(items, Mapping) else items
        data = dict(pairs)
        try:
            ordered = dict(sorted(data.items()))  # type: ignore[type-var,unused-ignore]
        except TypeError:
            ordered = data
        self._data: dict[K, V] = ordered
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._data.items()) == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (self._data,))


AttributeValue: TypeAlias = bool | int | float | str
"""A decision attribute: a finite number, a string or a boolean."""

JsonValue: TypeAlias = (
    bool | int | float | str | tuple["JsonValue", ...] | FrozenDict[str, "JsonValue"] | None
)
"""A deeply immutable JSON value (arrays as tuples, objects as :class:`FrozenDict`)."""


class Constraint:
    """A marker carried in :data:`typing.Annotated` metadata.

    The wire converter finds it and runs :attr:`check` on the raw value, so
    that every bad field is reported with its path.
    """

    __slots__ = ("check", "name")

    def __init__(self, name: str, check: Any) -> None:
        self.name = name
        self.check = check

    def __repr__(self) -> str:
        return f"Constraint({self.name})"


def check_identifier(value: object) -> str:
    """Return ``value`` if it is a valid identifier, else raise."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string identifier, got {type(value).__name__}")
    if not _IDENTIFIER.fullmatch(value):
        raise ValueError(f"{value[:40]!r} is not an identifier (must match ^{IDENTIFIER_PATTERN}$)")
    return value


def check_text(value: object) -> str:
    """Return ``value`` if it is a string that UTF-8 can encode (no lone surrogates)."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("holds a lone surrogate, which is not valid Unicode text") from None
    return value


def check_non_empty(value: object) -> str:
    """Return ``value`` if it is a string with visible text, else raise."""
    check_text(value)
    assert isinstance(value, str)
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def check_tag(value: object) -> str:
    """Return ``value`` if it is a usable tag, else raise."""
    text = check_non_empty(value)
    if len(text) > _MAX_TAG:
        raise ValueError(f"a tag has at most {_MAX_TAG} characters")
    if text != text.strip() or any(not c.isprintable() for c in text):
        raise ValueError(f"{text[:40]!r} has surrounding whitespace or control characters")
    return text


def check_attribute_name(value: object) -> str:
    """Return ``value`` if it is a valid attribute name, else raise."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string attribute name, got {type(value).__name__}")
    if not _ATTRIBUTE_NAME.fullmatch(value):
        raise ValueError(
            f"{value[:40]!r} is not an attribute name (must match ^{_ATTRIBUTE_NAME.pattern}$)"
        )
    return value


def check_attribute_value(value: object) -> AttributeValue:
    """Return ``value`` if it is a finite number, a string or a boolean, else raise."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {value!r}")
        return value
    raise TypeError(f"expected a number, a string or a boolean, got {type(value).__name__}")


def check_sha256(value: object) -> str:
    """Return ``value`` if it is 64 lowercase hex digits, else raise."""
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        raise ValueError("must be 64 lowercase hexadecimal digits")
    return value


def check_utc(value: object) -> datetime:
    """Return ``value`` converted to UTC if it is timezone-aware, else raise."""
    if not isinstance(value, datetime):
        raise TypeError(f"expected a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("must be timezone-aware (naive datetimes are refused)")
    return value.astimezone(UTC)


def freeze_json(value: object, _depth: int = 0) -> JsonValue:
    """Return a deeply immutable copy of a JSON value, refusing what JSON cannot hold."""
    if _depth > 64:
        raise ValueError("JSON nests deeper than 64 levels")
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"JSON numbers must be finite, got {value!r}")
        return value
    if isinstance(value, Mapping):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, got {type(key).__name__}")
            out[key] = freeze_json(item, _depth + 1)
        return FrozenDict(out)
    if isinstance(value, list | tuple):
        return tuple(freeze_json(item, _depth + 1) for item in value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def thaw_json(value: JsonValue) -> Any:
    """Return the plain ``dict``/``list`` form of a frozen JSON value."""
    if isinstance(value, FrozenDict):
        return {key: thaw_json(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw_json(item) for item in value]
    return value


Identifier = Annotated[str, Constraint("identifier", check_identifier)]
"""A string matching ``^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$``."""
NonEmptyText = Annotated[str, Constraint("non-empty text", check_non_empty)]
"""A string with at least one visible character."""
Tag = Annotated[str, Constraint("tag", check_tag)]
"""A tag: 1 to 128 printable characters, no surrounding whitespace."""
AttributeName = Annotated[str, Constraint("attribute name", check_attribute_name)]
"""An attribute name such as ``cost_eur`` or ``co2e_kg``."""
Sha256Hex = Annotated[str, Constraint("sha256", check_sha256)]
"""A SHA-256 digest as 64 lowercase hex digits."""
