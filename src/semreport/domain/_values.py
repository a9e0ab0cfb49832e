"""Value checks shared by the models' validators and the wire converter.

Each check raises :class:`InvalidValue` (a :class:`ValueError`; its twin
:class:`InvalidType` is a :class:`TypeError` too) carrying, as data, where the
bad value sits relative to the value checked and why it was refused. The wire
converter prefixes those paths with the path of the value it was structuring,
so every bad field reaches the caller with its path and nothing parses message
text to recover it.
"""

from __future__ import annotations

import math
import re
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from datetime import UTC, datetime
from typing import Annotated, Any, Final, TypeAlias, TypeVar

__all__ = [
    "IDENTIFIER_PATTERN",
    "MAX_SAFE_INTEGER",
    "AttributeName",
    "AttributeValue",
    "Constraint",
    "FrozenDict",
    "Identifier",
    "InvalidType",
    "InvalidValue",
    "JsonValue",
    "NonEmptyText",
    "PathStep",
    "SafeInt",
    "Sha256Hex",
    "Tag",
    "Text",
    "check_attribute_name",
    "check_attribute_value",
    "check_identifier",
    "check_integer",
    "check_non_empty",
    "check_number",
    "check_optional_text",
    "check_sha256",
    "check_tag",
    "check_text",
    "check_utc",
    "format_path",
    "freeze_json",
    "json_kind",
    "thaw_json",
]

IDENTIFIER_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}"
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_MAX_TAG = 128

MAX_SAFE_INTEGER: Final = 2**53 - 1
"""The largest integer magnitude the wire form accepts (I-JSON, RFC 7493).

Every number must survive RFC 8785 canonicalisation and every backend
unchanged, so integers are limited to the range an IEEE 754 double holds
exactly, and floats must be finite.
"""

PathStep: TypeAlias = str | int
"""One step of a field path: an attribute or key name, or a list index."""


class InvalidValue(ValueError):
    """A value refused by a check: every problem as a relative path and a reason.

    Attributes:
        problems: ``(path, reason)`` pairs; ``path`` is relative to the value
            checked (``()`` is the value itself, ``("turns", 3, "index")`` a
            field inside it).
    """

    def __init__(self, reason: str, path: tuple[PathStep, ...] = ()) -> None:
        self.problems: tuple[tuple[tuple[PathStep, ...], str], ...] = ((path, reason),)
        super().__init__(str(self))

    @classmethod
    def of(cls, problems: Iterable[tuple[tuple[PathStep, ...], str]]) -> InvalidValue:
        """Build one error that carries several problems."""
        listed = tuple(problems)
        error = cls(listed[0][1], listed[0][0])
        error.problems = listed
        error.args = (str(error),)
        return error

    def within(self, *prefix: PathStep) -> InvalidValue:
        """Return the same problems with ``prefix`` put before every path."""
        return type(self).of((prefix + path, reason) for path, reason in self.problems)

    def __str__(self) -> str:
        return "; ".join(
            f"{format_path(path)}: {reason}" if path else reason for path, reason in self.problems
        )


class InvalidType(InvalidValue, TypeError):
    """A value of the wrong kind (a :class:`TypeError` too, for direct construction)."""


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _quote(name: str) -> str:
    # Escape what would make the path ambiguous or unprintable (quotes, control
    # characters, lone surrogates), so a path is always safe to show and to send.
    return "".join(
        "\\" + char if char in "\\'" else char if char.isprintable() else f"\\u{ord(char):04x}"
        for char in name
    )


def format_path(path: Iterable[PathStep], root: str = "") -> str:
    """Return a path as JSONPath-like text.

    ``("turns", 3, "index")`` gives ``turns[3].index``; with ``root="$"``,
    ``$.turns[3].index``. A name that is not a plain identifier is quoted in
    brackets (``attributes['u.value']``), so every path reads one way only.
    """
    text = root
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif _PLAIN_NAME.fullmatch(step):
            text += f".{step}" if text else step
        else:
            text += f"['{_quote(step[:64])}']"
    return text


_JSON_KINDS: Final[tuple[tuple[type | tuple[type, ...], str], ...]] = (
    (bool, "a boolean"),
    ((int, float), "a number"),
    (str, "a string"),
    (Mapping, "an object"),
    ((list, tuple, set, frozenset), "an array"),
)


def json_kind(value: object) -> str:
    """Name the JSON kind of ``value`` for a message (``"an array"``, ``"null"``...).

    Messages name kinds as JSON does, never Python's types, so a caller who
    sent JSON reads its own vocabulary.
    """
    if value is None:
        return "null"
    for kinds, name in _JSON_KINDS:
        if isinstance(value, kinds):
            return name
    return "a value that is not JSON"


K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(Mapping[K, V]):
    """An immutable, hashable, picklable mapping that keeps its keys sorted.

    Sorting the keys on the way in makes equal mappings iterate, print and
    serialise identically, which keeps every output deterministic.
    """

    __slots__ = ("_data", "_hash")

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        # A plain dict (the usual input) has unique keys: sort its pairs as they are.
        data = items if type(items) is dict else dict(_pairs(items))
        if len(data) < 2:  # nothing to order (much evidence holds a single entry)
            ordered = dict(data)
        else:
            try:
                ordered = dict(sorted(data.items()))  # type: ignore[type-var,unused-ignore]
            except TypeError:
                ordered = dict(data)
        self._data: dict[K, V] = ordered
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def items(self) -> ItemsView[K, V]:
        """The pairs, in key order (a read-only view)."""
        return self._data.items()

    def keys(self) -> KeysView[K]:
        """The keys, in order (a read-only view)."""
        return self._data.keys()

    def values(self) -> ValuesView[V]:
        """The values, in key order (a read-only view)."""
        return self._data.values()

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


def _pairs(items: Mapping[K, V] | Iterable[tuple[K, V]]) -> Iterable[tuple[K, V]]:
    return items.items() if isinstance(items, Mapping) else items


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
        raise InvalidType(f"expected a string identifier, got {json_kind(value)}")
    if not _IDENTIFIER.fullmatch(value):
        raise InvalidValue(
            f"{value[:40]!r} is not an identifier (must match ^{IDENTIFIER_PATTERN}$)"
        )
    return value


def check_text(value: object) -> str:
    """Return ``value`` if it is a string that UTF-8 can encode (no lone surrogates)."""
    if not isinstance(value, str):
        raise InvalidType(f"expected a string, got {json_kind(value)}")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidValue("holds a lone surrogate, which is not valid Unicode text") from None
    return value


def check_optional_text(value: object) -> str | None:
    """Return ``value`` if it is ``None`` or text :func:`check_text` accepts."""
    return None if value is None else check_text(value)


def check_non_empty(value: object) -> str:
    """Return ``value`` if it is a string with visible text, else raise."""
    text = check_text(value)
    if not text.strip():
        raise InvalidValue("must not be empty")
    return text


def check_tag(value: object) -> str:
    """Return ``value`` if it is a usable tag, else raise."""
    text = check_non_empty(value)
    if len(text) > _MAX_TAG:
        raise InvalidValue(f"a tag has at most {_MAX_TAG} characters")
    if text != text.strip() or not text.isprintable():
        raise InvalidValue(f"{text[:40]!r} has surrounding whitespace or control characters")
    return text


def is_plain_tag(value: object) -> bool:
    """Whether ``value`` is a tag :func:`check_tag` accepts, decided on a fast path.

    A printable string without surrounding whitespace, of 1 to 128
    characters (printable excludes lone surrogates and control characters).
    ``False`` means: ask :func:`check_tag`, which says why.
    """
    return (
        type(value) is str
        and 0 < len(value) <= _MAX_TAG
        and value.isprintable()
        and value == value.strip()
    )


def is_plain_attribute(name: object, value: object) -> bool:
    """Whether an attribute passes :func:`check_attribute_name` and ``check_attribute_value``.

    Decided on a fast path by exact types; ``False`` means: ask the checks, which say why.
    """
    if name not in _NAMES_SEEN:
        if type(name) is not str or not _ATTRIBUTE_NAME.fullmatch(name):
            return False
        if len(_NAMES_SEEN) < _NAMES_KEPT:  # a project uses few names: remember them
            _NAMES_SEEN.add(name)
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is int:
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    if type(value) is str:
        return value.isascii() or _encodable(value)
    return type(value) is bool


_NAMES_SEEN: Final[set[str]] = set()
"""Attribute names already found valid (strings never change, so the answer holds)."""
_NAMES_KEPT: Final = 4096


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_attribute_name(value: object) -> str:
    """Return ``value`` if it is a valid attribute name, else raise."""
    if not isinstance(value, str):
        raise InvalidType(f"expected a string attribute name, got {json_kind(value)}")
    if not _ATTRIBUTE_NAME.fullmatch(value):
        raise InvalidValue(
            f"{value[:40]!r} is not an attribute name (must match ^{_ATTRIBUTE_NAME.pattern}$)"
        )
    return value


def check_integer(value: object) -> int:
    """Return ``value`` if it is an integer (not a boolean) within ±(2**53 - 1), else raise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidType(f"expected an integer, got {json_kind(value)}")
    if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        raise InvalidValue(
            "integers must lie within ±(2**53 - 1) = ±9007199254740991 (I-JSON, RFC 7493); "
            "send a larger magnitude as a float or a string"
        )
    return value


def check_number(value: object) -> int | float:
    """Return ``value`` if it is an integer :func:`check_integer` accepts or a finite float."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidValue(f"must be a finite number, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidType(f"expected a number, got {json_kind(value)}")
    return check_integer(value)


def check_attribute_value(value: object) -> AttributeValue:
    """Return ``value`` if it is a number :func:`check_number` accepts, text or a boolean."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return check_text(value)
    if isinstance(value, int | float):
        return check_number(value)
    raise InvalidType(f"expected a number, a string or a boolean, got {json_kind(value)}")


def check_sha256(value: object) -> str:
    """Return ``value`` if it is 64 lowercase hex digits, else raise."""
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        raise InvalidValue("must be 64 lowercase hexadecimal digits")
    return value


def check_utc(value: object) -> datetime:
    """Return ``value`` converted to UTC if it is timezone-aware, else raise."""
    if not isinstance(value, datetime):
        raise InvalidType(f"expected a datetime, got {json_kind(value)}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidValue("must be timezone-aware (naive datetimes are refused)")
    return value.astimezone(UTC)


_MAX_JSON_DEPTH: Final = 64


def freeze_json(value: object, _depth: int = 0) -> JsonValue:
    """Return a deeply immutable copy of a JSON value, refusing what JSON cannot hold.

    Numbers follow the wire form's number domain (:func:`check_number`) and
    text must be valid Unicode (:func:`check_text`); a refusal names the path
    inside the value.
    """
    if _depth > _MAX_JSON_DEPTH:
        raise InvalidValue(f"JSON nests deeper than {_MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return check_text(value)
    if isinstance(value, int | float):
        return check_number(value)
    if isinstance(value, Mapping):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidType(f"JSON object keys must be strings, got {json_kind(key)}")
            try:
                out[check_text(key)] = freeze_json(item, _depth + 1)
            except InvalidValue as exc:
                raise exc.within(key) from None
        return FrozenDict(out)
    if isinstance(value, list | tuple):
        items: list[JsonValue] = []
        for index, item in enumerate(value):
            try:
                items.append(freeze_json(item, _depth + 1))
            except InvalidValue as exc:
                raise exc.within(index) from None
        return tuple(items)
    raise InvalidType(f"not a JSON value: {json_kind(value)}")


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
Text = Annotated[str, Constraint("text", check_text)]
"""Any valid Unicode text (no lone surrogates), possibly empty."""
SafeInt = Annotated[int, Constraint("integer", check_integer)]
"""An integer within ±(2**53 - 1)."""
