"""The wire form: the one cattrs converter every JSON boundary uses.

The wire form of a model is a JSON-ready structure of dicts, lists, strings,
numbers, booleans and ``None``: datetimes become RFC 3339 UTC strings ending
in ``Z``, sets become sorted lists, enumerations their values. JSON exports,
the report JSON, HTTP bodies and the record digest all go through here, so
there is one definition of what a record *is* on the wire.

Example:
    >>> from semreport.wire import to_wire, from_wire
    >>> from semreport import Link
    >>> to_wire(Link("supersedes", "d-1"))
    {'kind': 'supersedes', 'target': 'd-1'}
    >>> from_wire({"kind": "relates_to", "target": "d-2"}, Link)
    Link(kind=<LinkKind.RELATES_TO: 'relates_to'>, target='d-2')
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Final, TypeVar, get_origin

import cattrs
from cattrs.errors import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
    IterableValidationNote,
)

from semreport.domain import FieldError, FrozenDict, InvalidRequest
from semreport.domain._values import (
    Constraint,
    check_attribute_name,
    check_attribute_value,
    check_text,
    thaw_json,
)

__all__ = [
    "converter",
    "format_datetime",
    "from_wire",
    "parse_datetime",
    "to_wire",
]

T = TypeVar("T")

_FIELD_PATH: Final = re.compile(r"[a-z_]+(\[\d+\])?(\.[a-z_]+(\[\d+\])?)*")


def format_datetime(value: datetime) -> str:
    """Return ``value`` as an RFC 3339 UTC string ending in ``Z``.

    Fractional seconds appear only when the time has microseconds.
    """
    return value.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"


def parse_datetime(value: object) -> datetime:
    """Parse an RFC 3339 string (or take a datetime); refuse naive times; return UTC."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value[:40]!r} is not an RFC 3339 date-time") from None
    else:
        raise TypeError(f"expected an RFC 3339 date-time string, got {type(value).__name__}")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValueError("must carry a UTC offset or 'Z' (naive date-times are refused)")
    return parsed.astimezone(UTC)


def _constraint_of(tp: Any) -> Constraint | None:
    if get_origin(tp) is Annotated:
        for meta in tp.__metadata__:
            if isinstance(meta, Constraint):
                return meta
    return None


def _structure_str(value: object, _tp: type) -> str:
    return check_text(value)


def _structure_int(value: object, _tp: type) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _structure_float(value: object, _tp: type) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"must be a finite number, got {value!r}")
    return float(value)


def _structure_bool(value: object, _tp: type) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected a boolean, got {type(value).__name__}")
    return value


def _structure_enum(value: object, tp: type[enum.Enum]) -> enum.Enum:
    try:
        return tp(value)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in tp)
        raise ValueError(f"{value!r} is not one of {allowed}") from None


def _is_frozendict(tp: Any) -> bool:
    return tp is FrozenDict or get_origin(tp) is FrozenDict


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(detailed_validation=True, forbid_extra_keys=True)

    # Strict primitives: the defaults would turn "3" into 3 and 2.7 into 2.
    conv.register_structure_hook(str, _structure_str)
    conv.register_structure_hook(int, _structure_int)
    conv.register_structure_hook(float, _structure_float)
    conv.register_structure_hook(bool, _structure_bool)
    # StrEnum is registered on its own: its MRO puts ``str`` before ``Enum``.
    for base in (enum.Enum, enum.StrEnum):
        conv.register_structure_hook(base, _structure_enum)
        conv.register_unstructure_hook(base, lambda member: member.value)
    conv.register_structure_hook(datetime, lambda value, _tp: parse_datetime(value))
    conv.register_unstructure_hook(datetime, format_datetime)

    def structure_constrained(value: object, tp: Any) -> Any:
        constraint = _constraint_of(tp)
        assert constraint is not None
        return constraint.check(value)

    conv.register_structure_hook_func(
        lambda tp: _constraint_of(tp) is not None, structure_constrained
    )

    def structure_attributes(value: object, _tp: Any) -> FrozenDict[str, Any]:
        if not isinstance(value, Mapping):
            raise TypeError(f"expected an object, got {type(value).__name__}")
        errors: list[Exception] = []
        out: dict[str, Any] = {}
        for key, item in value.items():
            try:
                out[check_attribute_name(key)] = check_attribute_value(item)
            except (TypeError, ValueError) as exc:
                exc.__notes__ = [_KeyNote(str(key))]
                errors.append(exc)
        if errors:
            raise IterableValidationError("invalid attributes", errors, FrozenDict)
        return FrozenDict(out)

    conv.register_structure_hook_func(_is_frozendict, structure_attributes)
    conv.register_unstructure_hook_func(_is_frozendict, thaw_json)

    def is_collection(tp: Any) -> bool:
        origin = get_origin(tp)
        args: tuple[Any, ...] = getattr(tp, "__args__", ())
        if origin is tuple:
            return args[1:] == (Ellipsis,)
        return origin in (frozenset, set, list)

    def structure_collection(value: object, tp: Any) -> Any:
        # Refuse a lone string (or a mapping): cattrs would happily iterate its characters.
        if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
            raise TypeError(f"expected a list, got {type(value).__name__}")
        item_type = tp.__args__[0]
        items: list[Any] = []
        errors: list[Exception] = []
        for index, item in enumerate(value):
            try:
                items.append(conv.structure(item, item_type))
            except Exception as exc:  # noqa: BLE001 - every item error is collected
                exc.__notes__ = [
                    *getattr(exc, "__notes__", []),
                    IterableValidationNote(f"Structuring {tp} @ index {index}", index, item_type),
                ]
                errors.append(exc)
        if errors:
            raise IterableValidationError(f"While structuring {tp!r}", errors, tp)
        return get_origin(tp)(items)

    conv.register_structure_hook_func(is_collection, structure_collection)

    def is_set(tp: Any) -> bool:
        return tp in (set, frozenset) or get_origin(tp) in (set, frozenset)

    def unstructure_set(value: Any) -> list[Any]:
        return sorted(conv.unstructure(item, unstructure_as=type(item)) for item in value)

    conv.register_unstructure_hook_func(is_set, unstructure_set)

    def is_tuple(tp: Any) -> bool:
        return tp is tuple or get_origin(tp) is tuple

    conv.register_unstructure_hook_func(
        is_tuple, lambda value: [conv.unstructure(item) for item in value]
    )
    return conv


class _KeyNote(str):
    """A ``__notes__`` entry naming the mapping key an error belongs to."""


converter: Final[cattrs.Converter] = _make_converter()
"""The converter that defines the wire form. Prefer :func:`to_wire` and :func:`from_wire`."""


def to_wire(value: object) -> Any:
    """Return the JSON-ready wire form of a model (or of a collection of models)."""
    return converter.unstructure(value)


def from_wire(data: object, cls: type[T], *, path: str = "$") -> T:
    """Build a model from its wire form.

    Raises:
        InvalidRequest: listing every bad field with its path (``$.tags[2]``,
            ``$.attributes.cost_eur``...), when ``data`` does not fit ``cls``.
    """
    if isinstance(data, cls):
        return data
    try:
        return converter.structure(data, cls)
    except (ClassValidationError, IterableValidationError) as exc:
        raise InvalidRequest(_field_errors(exc, path)) from None
    except (TypeError, ValueError, ForbiddenExtraKeysError, AttributeError, KeyError) as exc:
        raise InvalidRequest([FieldError(path, _message(exc))]) from None


def _message(exc: BaseException) -> str:
    if isinstance(exc, ForbiddenExtraKeysError):
        return f"unknown field(s): {', '.join(sorted(exc.extra_fields))}"
    if isinstance(exc, KeyError):
        return f"required field {exc.args[0]!r} is missing"
    text = str(exc)
    if isinstance(exc, TypeError) and "__init__() missing" in text:
        missing = text.split("argument", 1)[-1].split(":", 1)[-1].strip()
        return f"required field(s) missing: {missing}"
    return text or type(exc).__name__


def _field_errors(exc: BaseException, root: str) -> list[FieldError]:
    errors: list[FieldError] = []

    def walk(error: BaseException, path: str) -> None:
        if isinstance(error, ClassValidationError | IterableValidationError):
            for inner in error.exceptions:
                walk(inner, path + _step(inner))
            return
        if isinstance(error, ForbiddenExtraKeysError):
            errors.append(FieldError(path, _message(error)))
            return
        if isinstance(error, KeyError):
            errors.append(FieldError(path, "required field is missing"))
            return
        text = _message(error)
        # Validators of a class name their field first ("links: ..."): lift it into the path.
        field, sep, rest = text.partition(": ")
        if (
            sep
            and field.replace("_", "").replace("[", "").replace("]", "").replace(".", "").isalnum()
        ):
            errors.append(FieldError(f"{path}.{field}", rest))
        else:
            errors.append(FieldError(path, text))

    walk(exc, root)
    return errors


def _step(error: BaseException) -> str:
    for note in getattr(error, "__notes__", ()):
        if isinstance(note, _KeyNote):
            return f".{note}"
        name = getattr(note, "name", None)
        if name is not None:
            return f".{name}"
        index = getattr(note, "index", None)
        if index is not None:
            return f"[{index}]"
    return ""
