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
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Final, TypeVar, get_origin

import attrs
import cattrs
import orjson
from cattrs.errors import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
    IterableValidationNote,
)
from cattrs.gen import make_dict_structure_fn

from semreport.domain import Decision, Evidence, FieldError, FrozenDict, InvalidRequest, Link
from semreport.domain._values import (
    Constraint,
    InvalidType,
    InvalidValue,
    PathStep,
    check_attribute_name,
    check_attribute_value,
    check_integer,
    check_number,
    check_text,
    format_path,
    json_kind,
    thaw_json,
)

__all__ = [
    "converter",
    "dumps",
    "field_errors",
    "format_datetime",
    "from_wire",
    "loads",
    "parse_datetime",
    "to_wire",
]

T = TypeVar("T")


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
            raise InvalidValue(f"{value[:40]!r} is not an RFC 3339 date-time") from None
    else:
        raise InvalidType(f"expected an RFC 3339 date-time string, got {json_kind(value)}")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise InvalidValue("must carry a UTC offset or 'Z' (naive date-times are refused)")
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise InvalidValue(f"{value!s:.40} is out of the representable range") from None


def _constraint_of(tp: Any) -> Constraint | None:
    if get_origin(tp) is Annotated:
        for meta in tp.__metadata__:
            if isinstance(meta, Constraint):
                return meta
    return None


def _structure_str(value: object, _tp: type) -> str:
    return check_text(value)


def _structure_int(value: object, _tp: type) -> int:
    return check_integer(value)


def _structure_float(value: object, _tp: type) -> float:
    return float(check_number(value))


def _structure_bool(value: object, _tp: type) -> bool:
    if not isinstance(value, bool):
        raise InvalidType(f"expected a boolean, got {json_kind(value)}")
    return value


def _structure_enum(value: object, tp: type[enum.Enum]) -> enum.Enum:
    allowed = ", ".join(repr(m.value) for m in tp)
    if not isinstance(value, str):
        raise InvalidType(f"expected one of {allowed}, got {json_kind(value)}")
    try:
        return tp(value)
    except ValueError:
        raise InvalidValue(f"{value[:40]!r} is not one of {allowed}") from None


def _is_frozendict(tp: Any) -> bool:
    return tp is FrozenDict or get_origin(tp) is FrozenDict


def _register_scalars(conv: cattrs.Converter) -> None:
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


def _register_collections(conv: cattrs.Converter) -> None:
    def structure_attributes(value: object, _tp: Any) -> FrozenDict[str, Any]:
        if not isinstance(value, Mapping):
            raise InvalidType(f"expected an object, got {json_kind(value)}")
        problems: list[tuple[tuple[PathStep, ...], str]] = []
        out: dict[str, Any] = {}
        for key, item in value.items():
            try:
                out[check_attribute_name(key)] = check_attribute_value(item)
            except InvalidValue as exc:
                name = key if isinstance(key, str) else repr(key)
                problems.extend(((name, *path), reason) for path, reason in exc.problems)
        if problems:
            raise InvalidValue.of(problems)
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
            raise InvalidType(f"expected an array, got {json_kind(value)}")
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
        try:
            return get_origin(tp)(items)
        except TypeError:  # an unhashable item for a set: only non-JSON input gets here
            raise InvalidType("the array holds values that cannot be compared") from None

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


def _register_classes(conv: cattrs.Converter) -> None:
    def structure_class_factory(cls: type) -> Any:
        # An object is checked to be a mapping before its fields are read: cattrs would
        # otherwise report Python's own words ("'int' object is not subscriptable").
        generated: Callable[[Mapping[str, Any], Any], Any] = make_dict_structure_fn(cls, conv)

        def structure_class(value: object, tp: Any) -> Any:
            if not isinstance(value, Mapping):
                raise InvalidType(f"expected an object, got {json_kind(value)}")
            return generated(value, tp)

        return structure_class

    conv.register_structure_hook_factory(attrs.has, structure_class_factory)


def _decision_wire(d: Decision) -> dict[str, Any]:
    """The wire form of a decision, field by field (what the generic hooks give, faster)."""
    at = d.recorded_at
    return {
        "id": d.id,
        "project_id": d.project_id,
        "title": d.title,
        "statement": d.statement,
        "agent": d.agent,
        "rationale": d.rationale,
        "domain": d.domain.value,
        "status": d.status.value,
        "session_id": d.session_id,
        "tags": sorted(d.tags),
        "attributes": dict(d.attributes.items()),
        "evidence": [
            {"kind": e.kind.value, "ref": e.ref, "title": e.title, "locator": e.locator,
             "quote": e.quote}
            for e in d.evidence
        ],
        "links": [{"kind": link.kind.value, "target": link.target} for link in d.links],
        "elements": sorted(d.elements),
        "sequence": d.sequence,
        "recorded_at": None if at is None else format_datetime(at),
    }  # fmt: skip


def _register_decision(conv: cattrs.Converter) -> None:
    """The configured fast path of the hottest type: a decision, to and from its wire form.

    Unstructuring writes the fields directly. Structuring a well-formed wire
    form calls the model's constructor once with every field (its converters
    and validators run as always); anything else takes the generic path, which
    names every bad field. Both give exactly what the generic hooks give
    (``tests/unit/test_wire.py`` checks it field by field).
    """
    generic = conv.get_structure_hook(Decision)
    fields = frozenset(a.name for a in attrs.fields(Decision))

    def structure_decision(value: object, tp: Any) -> Decision:
        if type(value) is dict and value.keys() == fields:
            try:
                at = value["recorded_at"]
                return Decision(
                    **{
                        **value,
                        "evidence": [Evidence(**e) for e in value["evidence"]],
                        "links": [Link(**link) for link in value["links"]],
                        "recorded_at": None if at is None else parse_datetime(at),
                    }
                )
            except Exception:  # noqa: BLE001, S110 - the generic path names the problem
                pass
        decision: Decision = generic(value, tp)
        return decision

    conv.register_structure_hook(Decision, structure_decision)
    conv.register_unstructure_hook(Decision, _decision_wire)


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(detailed_validation=True, forbid_extra_keys=True)
    _register_scalars(conv)
    _register_collections(conv)
    _register_classes(conv)
    _register_decision(conv)
    return conv


converter: Final[cattrs.Converter] = _make_converter()
"""The converter that defines the wire form. Prefer :func:`to_wire` and :func:`from_wire`."""


def dumps(wire: Any) -> bytes:
    """Write a wire form as compact JSON, UTF-8 encoded (orjson's writer).

    No whitespace, keys in their order, text unescaped beyond what JSON
    requires; what the request limits measure a decision by.

    Raises:
        ValueError: ``wire`` holds something JSON cannot write (text with a
            lone surrogate, an integer beyond 64 bits, a type that is not JSON).
    """
    try:
        return orjson.dumps(wire)
    except orjson.JSONEncodeError as exc:
        raise ValueError(str(exc)) from None


def loads(data: str | bytes) -> Any:
    """Parse JSON text into its wire form: the one JSON parser of every stored record.

    orjson's parser: strict RFC 8259 (no ``NaN``, valid UTF-8 only), and
    numbers as :func:`json.loads` reads them.

    Raises:
        ValueError: ``data`` is not JSON (orjson's ``JSONDecodeError``).
    """
    return orjson.loads(data)


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
    except Exception as exc:  # noqa: BLE001 - every refusal becomes field errors, none leaks
        raise InvalidRequest(field_errors(exc, path)) from None


def field_errors(exc: BaseException, root: str = "$") -> list[FieldError]:
    """Return the field errors an exception raised while structuring carries, with paths.

    Paths come from data only: the notes cattrs attaches (attribute names and
    list indices) and the relative paths of :class:`InvalidValue`. An exception
    that is neither (a bug, or input no check foresaw) becomes a plain "invalid
    value" at its path, so no message of Python's own reaches the caller.
    """
    errors: list[FieldError] = []

    def walk(error: BaseException, path: str) -> None:
        if isinstance(error, ClassValidationError | IterableValidationError):
            for inner in error.exceptions:
                walk(inner, format_path(_steps(inner), path))
        elif isinstance(error, ForbiddenExtraKeysError):
            unknown = ", ".join(sorted(repr(key)[:42] for key in error.extra_fields))
            errors.append(FieldError(path, f"unknown field(s): {unknown}"))
        elif isinstance(error, KeyError):
            errors.append(FieldError(path, "required field is missing"))
        elif isinstance(error, InvalidValue):
            errors.extend(
                FieldError(format_path(steps, path), reason) for steps, reason in error.problems
            )
        else:
            errors.append(FieldError(path, "invalid value"))

    walk(exc, root)
    return errors or [FieldError(root, "invalid value")]


def _steps(error: BaseException) -> tuple[PathStep, ...]:
    for note in getattr(error, "__notes__", ()):
        name = getattr(note, "name", None)
        if isinstance(name, str):
            return (name,)
        # Lists note the position of the bad item, mappings its key.
        index = getattr(note, "index", None)
        if isinstance(index, int | str):
            return (index,)
    return ()
