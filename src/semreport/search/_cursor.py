"""Opaque, tamper-evident page cursors on (score, decision id).

A cursor is ``base64url(payload) "." base64url(HMAC-SHA256(key, payload)[:16])``;
the payload names the query's fingerprint, the index sequence the page was
computed at, and the last hit's exact score and id. Anything altered, or a
cursor minted by another scorer (another key) or for another query, is refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any, Final

import attrs

from semreport.domain import InvalidRequest

__all__ = ["CursorState", "canonical_json", "decode_cursor", "encode_cursor", "fingerprint"]

_VERSION: Final = 1
_PATH: Final = "$.cursor"


@attrs.frozen
class CursorState:
    """Where the previous page ended."""

    sequence: int
    score: float
    decision_id: str


def canonical_json(value: Any) -> str:
    """JSON with sorted keys, no spaces and raw Unicode: equal values, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(project_id: str, kind: str, query: Any) -> str:
    """A short digest of a query's canonical JSON (page size and cursor left out)."""
    return hashlib.sha256(canonical_json([project_id, kind, query]).encode()).hexdigest()[:32]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode_cursor(key: bytes, query_fingerprint: str, state: CursorState) -> str:
    """Mint the cursor for the page after ``state``."""
    # The payload is the canonical JSON of {"f", "i", "s", "v", "x"} (keys sorted, compact),
    # written directly: only the two strings need json's escaping.
    payload = (
        f'{{"f":{json.dumps(query_fingerprint)},"i":{json.dumps(state.decision_id)},'
        f'"s":{int(state.sequence)},"v":{_VERSION},"x":"{state.score.hex()}"}}'
    ).encode()
    tag = hmac.digest(key, payload, "sha256")[:16]
    return f"{_b64(payload)}.{_b64(tag)}"


def decode_cursor(key: bytes, token: str, query_fingerprint: str) -> CursorState:
    """Check and open a cursor.

    Raises:
        InvalidRequest: at ``$.cursor`` when it is malformed, altered, foreign,
            or was issued for another query.
    """
    body, sep, tag_text = token.partition(".")
    try:
        if not sep or len(token) > 1024:
            raise ValueError
        payload = _unb64(body)
        tag = _unb64(tag_text)
    except (ValueError, binascii.Error):
        raise InvalidRequest.at(_PATH, "not a cursor issued by this search") from None
    expected = hmac.digest(key, payload, "sha256")[:16]
    if not hmac.compare_digest(tag, expected):
        raise InvalidRequest.at(_PATH, "the cursor was altered or issued by another search")
    data = json.loads(payload)
    if data.get("v") != _VERSION or data.get("f") != query_fingerprint:
        raise InvalidRequest.at(_PATH, "the cursor belongs to another query")
    return CursorState(int(data["s"]), float.fromhex(data["x"]), str(data["i"]))
