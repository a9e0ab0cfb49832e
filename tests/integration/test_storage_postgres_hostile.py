"""Hostile text in every field goes into PostgreSQL and comes back unchanged.

PostgreSQL ``text`` and ``jsonb`` cannot hold a NUL character; the adapter
stores the wire JSON in a ``json`` column, where NUL is the JSON escape
``\\u0000``. Both write paths (INSERT for small batches, COPY for large ones)
are exercised, and the codec the adapter uses is checked against the shared one.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pg_support import admin_connect, open_pg, pg_marks
from psycopg import sql

from semreport import (
    Artefact,
    CorruptStorage,
    Decision,
    Evidence,
    InvalidRequest,
    LegacySession,
    Link,
    Participant,
    ToolCall,
    Turn,
)
from semreport.canonical import record_bytes
from semreport.storage._common import (
    check_decision_batch,
    decision_row,
    decode_decision,
    encode_decision,
    read_decision,
    read_record,
)
from semreport.storage.postgres import PostgresStorage
from semreport.testing import strategies as sst
from semreport.testing.conformance import poked
from semreport.wire import to_wire

NASTY = "'\";\\ -- %s {0} \x00 NUL\x00\x00 \u202e \ufeff 漢字 😀 e\u0301 \r\n\t \u2028"
LONG = "ü" * 200_000 + "\x00" + "end"
PATHS = pytest.mark.parametrize("copy_threshold", [1, 1000], ids=["copy", "insert"])


def hostile_decision(n: int, project: str = "p-1", text: str = NASTY) -> Decision:
    return Decision(
        id=f"h.{n}:x-{n}",
        project_id=project,
        title=f"T{text}",
        statement=f"S{text}{LONG if n == 0 else ''}",
        agent="agent.1:x-y",
        rationale=text,
        session_id="s.1:z",
        tags={"Robert'); DROP TABLE decisions;--", '" OR 1=1 --', "漢字😀", "%s{0}"},
        attributes={
            "note": text,
            "big": 2**53 - 1,
            "tiny": 5e-324,
            "neg": -0.5,
            "whole": 1.0e17,
            "ok": False,
        },
        evidence=[Evidence("document", f"R{text}", text, text, text), Evidence("cost_line", "x")],
        links=[Link("depends_on", "h.other")],
        elements={"wall:1", "e.2-3"},
    )


def hostile_session(project: str = "p-1") -> LegacySession:
    at = datetime(2025, 6, 1, 12, 0, 0, 123456, tzinfo=UTC)
    return LegacySession(
        id=f"s-{uuid.uuid4().hex[:8]}",
        project_id=project,
        title=f"T{NASTY}",
        started_at=at,
        participants=[Participant("u-1", f"N{NASTY}"), Participant("a-1", "Agent", "agent")],
        turns=[
            Turn(0, at, "user", "u-1", NASTY + LONG),
            Turn(
                1,
                at,
                "agent",
                "a-1",
                "",
                tool_calls=[
                    ToolCall(
                        f"n{NASTY}",
                        {NASTY: [NASTY, 1.5, None, True, {"\x00": "\x00"}]},
                        {"rows": [NASTY], "n": 2**40},
                    )
                ],
                decision_refs=["h.1:x-1"],
            ),
        ],
        artefacts=[Artefact(f"a{NASTY}", "text/plain", "0" * 64, NASTY, 1)],
    )


class TestHostileTextOnTheServer:
    """Quotes, NUL, long and non-Latin text in every field, through INSERT and COPY."""

    pytestmark = pg_marks

    @PATHS
    def test_decisions_come_back_unchanged(self, pg_schema: str, copy_threshold: int) -> None:
        store = open_pg(pg_schema, copy_threshold=copy_threshold)
        batch = [hostile_decision(n) for n in range(3)]
        stored = store.record(batch)
        assert list(store.decisions("p-1")) == stored
        for kept in stored:
            assert store.get("p-1", kept.id) == kept
            assert to_wire(store.get("p-1", kept.id)) == to_wire(kept)
        assert stored[0].statement.endswith(LONG)
        assert "\x00" in stored[1].rationale
        store.close()

    @PATHS
    def test_nul_is_kept_as_a_json_escape(self, pg_schema: str, copy_threshold: int) -> None:
        store = open_pg(pg_schema, copy_threshold=copy_threshold)
        store.record([hostile_decision(1)])
        with admin_connect() as conn:
            row = conn.execute(
                sql.SQL("SELECT record::text FROM {}.decisions").format(sql.Identifier(pg_schema))
            ).fetchone()
        assert row is not None
        assert "\\u0000" in row[0]
        store.close()

    def test_sessions_come_back_unchanged(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        kept = hostile_session()
        store.record_sessions([kept])
        assert store.get_session(kept.id) == kept
        assert list(store.sessions("p-1")) == [kept]
        assert to_wire(store.get_session(kept.id)) == to_wire(kept)
        store.close()

    @PATHS
    def test_a_lone_surrogate_is_refused_and_writes_nothing(
        self, pg_schema: str, copy_threshold: int
    ) -> None:
        store = open_pg(pg_schema, copy_threshold=copy_threshold)
        # The models refuse a lone surrogate; so does the adapter, for an altered object.
        bad = poked(hostile_decision(2), rationale="broken \ud800 text")
        with pytest.raises(InvalidRequest, match="surrogate"):
            store.record([hostile_decision(1), bad])
        assert store.latest_sequence("p-1") == 0
        assert store.record([hostile_decision(1)])[0].sequence == 1
        store.close()

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(batch=sst.decision_batches(project_ids=("a", "b"), min_size=1, max_size=6))
    def test_generated_batches_round_trip_through_copy(
        self, copy_store: PostgresStorage, batch: list[Decision]
    ) -> None:
        # One store for every example; a fresh prefix keeps the projects apart.
        prefix = uuid.uuid4().hex[:8]
        batch = [attrs.evolve(d, project_id=f"{prefix}{d.project_id}") for d in batch]
        stored = copy_store.record(batch)
        for project in {d.project_id for d in batch}:
            assert list(copy_store.decisions(project)) == [
                d for d in stored if d.project_id == project
            ]

    @pytest.fixture
    def copy_store(self, pg_schema: str) -> Iterator[PostgresStorage]:
        store = open_pg(pg_schema, copy_threshold=1)
        yield store
        store.close()


class TestTheRowForm:
    """The row form every adapter shares writes and reads exactly what the wire form says."""

    @settings(max_examples=150, deadline=None)
    @given(
        decision=sst.decisions(),
        sequence=st.integers(1, 2**53 - 1),
        at=sst.aware_datetimes(),
    )
    def test_it_agrees_with_the_wire_form(
        self, decision: Decision, sequence: int, at: datetime
    ) -> None:
        (checked,) = check_decision_batch([decision])
        row = decision_row(checked, sequence, at)
        recorded = decision.recorded(sequence, at)
        assert row.decision == recorded
        # The body is the canonical bytes, with the whole-number floats kept last.
        body = orjson.loads(row.body)
        floats = body.pop("float_attributes", {})
        assert [repr(v) for v in floats.values()] == [
            repr(v) for k, v in sorted(recorded.attributes.items()) if k in floats
        ]
        body["attributes"].update(floats)
        assert body == to_wire(recorded)
        assert sorted(floats) == sorted(
            k for k, v in recorded.attributes.items() if type(v) is float and v.is_integer()
        )
        canonical = record_bytes(recorded)
        if floats:
            assert row.body.encode().startswith(canonical[:-1] + b',"float_attributes":{')
        else:
            assert row.body.encode() == canonical
        back = read_decision(row.body, row.sha256, project_id=decision.project_id)
        assert back == recorded
        # Every number keeps its type: a whole float stays a float.
        assert orjson.dumps(to_wire(back)) == orjson.dumps(to_wire(recorded))
        record = read_record(row.body, row.sha256, project_id=decision.project_id)
        sort = orjson.OPT_SORT_KEYS
        assert orjson.dumps(record.wire, option=sort) == orjson.dumps(
            to_wire(recorded), option=sort
        )
        assert record.canonical == record_bytes(recorded)
        assert decode_decision(encode_decision(recorded)) == recorded
        assert row.sha256 == hashlib.sha256(record_bytes(recorded)).hexdigest()

    @pytest.mark.parametrize(
        "text",
        ['{"id": "x"}', "not json", '{"a": 1}', "[]", '"\\ud800"'],
    )
    def test_a_row_that_is_not_a_decision_is_corrupt_storage(self, text: str) -> None:
        with pytest.raises(CorruptStorage):
            read_decision(text, "0" * 64, project_id="p-1")
        with pytest.raises(CorruptStorage):
            decode_decision(text)
