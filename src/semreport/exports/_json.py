"""The ``json`` writer: a session's full wire form under ``semreport.session/1``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from semreport.domain import InvalidRequest, LegacySession
from semreport.exports._types import SESSION_SCHEMA
from semreport.wire import from_wire, to_wire

__all__ = ["session_document", "session_from_document", "session_json"]


def session_document(session: LegacySession) -> dict[str, Any]:
    """Return the export document: ``{"schema": "semreport.session/1", "session": ...}``."""
    return {"schema": SESSION_SCHEMA, "session": to_wire(session)}


def session_json(session: LegacySession) -> bytes:
    r"""Serialise :func:`session_document` as UTF-8 JSON on one line, members in a fixed order.

    One line keeps the encoder in C (an indented dump of a 10,000-turn session
    takes twice as long); ``python -m json.tool`` indents it for reading. Text
    stays readable (no ``\u`` escapes): a session holds only valid Unicode
    text, so UTF-8 always carries it.
    """
    document = session_document(session)
    return (json.dumps(document, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def session_from_document(data: object, *, path: str = "$") -> LegacySession:
    """Build a session from the export envelope or from a plain session wire form.

    Raises:
        InvalidRequest: the envelope names another schema, or the session is
            malformed (every bad field is listed with its path).
    """
    if isinstance(data, Mapping) and "schema" in data:
        schema = data["schema"]
        if schema != SESSION_SCHEMA:
            raise InvalidRequest.at(
                f"{path}.schema", f"unsupported schema {schema!r}; expected {SESSION_SCHEMA!r}"
            )
        extra = sorted(set(data) - {"schema", "session"})
        if extra:
            raise InvalidRequest.at(path, f"unknown field(s): {', '.join(map(str, extra))}")
        if "session" not in data:
            raise InvalidRequest.at(f"{path}.session", "required field is missing")
        return from_wire(data["session"], LegacySession, path=f"{path}.session")
    if not isinstance(data, Mapping):
        raise InvalidRequest.at(path, f"expected a JSON object, got {_json_type(data)}")
    return from_wire(data, LegacySession, path=path)


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return type(value).__name__
