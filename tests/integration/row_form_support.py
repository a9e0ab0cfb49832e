"""What the SQLite and PostgreSQL tests check of a row: its canonical bytes, read with one hash."""

from __future__ import annotations

import pytest

from semreport.canonical import record_bytes
from semreport.domain import Decision, Storage
from semreport.storage import _common


def check_row_holds_the_canonical_bytes(
    store: Storage, kept: Decision, body: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``body`` (as stored for ``kept``, whose ``cost_eur`` is 60.0) and a read of it.

    The body is the canonical bytes with the whole-number float kept after
    them, and reading it never canonicalises the record again.
    """
    canonical = record_bytes(kept)
    assert body.encode() == canonical[:-1] + b',"float_attributes":{"cost_eur":60.0}}'

    def refuse(_wire: object) -> bytes:
        raise AssertionError("canonicalised again")

    monkeypatch.setattr(_common, "canonical_record", refuse)
    record = store.get_record("p-1", kept.id)
    assert record.canonical == canonical
    assert type(record.wire["attributes"]["cost_eur"]) is float
    assert list(store.decisions("p-1")) == [kept]
