"""``memory://`` beyond the conformance suite: bit flips in its rows, and reports after bad input.

The in-memory adapter keeps the rows the persistent adapters write (the JSON
text of each record and its SHA-256), so what holds for a flipped bit in a
database file holds for a flipped bit in its lists too.
"""

from __future__ import annotations

import json
import random
import re

import pytest

import semreport
from semreport.canonical import record_bytes, record_sha256
from semreport.domain import CorruptStorage, Decision, Evidence, InvalidRequest
from semreport.storage import _common
from semreport.storage.memory import MemoryStorage
from semreport.testing import ManualClock
from semreport.testing.conformance import poked
from semreport.wire import to_wire


def _decision(n: int) -> Decision:
    return Decision(
        id=f"d-{n}",
        project_id="p-1",
        title=f"Decision {n}",
        statement=f"Use option {n} for the stair core doors",
        agent="agent-1",
        tags={"fire", f"t{n % 3}"},
        attributes={"cost_eur": 100.0 * n, "share": n / 7, "ok": n % 2 == 0},
        evidence=[Evidence("regulation", "ADB B3", "Approved Document B")],
    )


class TestBitFlipsInItsRows:
    """A bit flipped in a stored row's text or hash is CorruptStorage, never a changed decision."""

    TRIALS = 300

    def test_every_read_is_the_original_or_corrupt_storage(self) -> None:
        store = MemoryStorage(clock=ManualClock())
        stored = store.record([_decision(n) for n in range(12)])
        rows = store._log["p-1"]
        pristine = list(rows)
        rng = random.Random(20260301)
        refusals: list[tuple[str, str]] = []
        for trial in range(self.TRIALS):
            index = rng.randrange(len(rows))
            row, kept = pristine[index], stored[index]
            field = rng.choice(["body", "sha256"])
            data = bytearray(getattr(row, field).encode())
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            # Bytes that are no longer UTF-8 stay what they are (as a database keeps them).
            rows[index] = row._replace(**{field: data.decode("utf-8", "surrogateescape")})
            try:
                assert store.get("p-1", kept.id) == kept, trial
                assert list(store.decisions("p-1")) == stored, trial
            except CorruptStorage as exc:
                refusals.append((f"'{kept.id}'", str(exc)))
            rows[index] = row
        assert all(name in message for name, message in refusals)
        # A flip can only go unnoticed where it leaves the record equal; none does here.
        assert len(refusals) == self.TRIALS


class TestWhatItRefuses:
    """Input the other adapters refuse never gets into a memory store to break its reports."""

    def test_a_lone_surrogate_is_refused_and_the_report_still_works(self) -> None:
        with semreport.open("memory://") as sr:
            sr.record([_decision(1)])
            broken = poked(_decision(2), statement="a lone \ud800 surrogate")
            with pytest.raises(InvalidRequest, match=r"\$\[0\]\.statement"):
                sr.storage.record([broken])
            report = sr.report("p-1")
            assert [r.decision.id for r in report.records] == ["d-1"]
            assert sr.export_report("p-1").html


class TestTheStoredHash:
    """The hash a row keeps is the record's citation id in the report."""

    def test_it_is_the_citation(self) -> None:
        with semreport.open("memory://") as sr:
            stored = sr.record([_decision(n) for n in range(5)])
            report = sr.report("p-1")
            rows = sr.storage._log["p-1"]  # type: ignore[attr-defined]
        assert [row.sha256 for row in rows] == [record_sha256(d) for d in stored]
        assert [f"sha256:{row.sha256}" for row in rows] == [r.sha256 for r in report.records]


class TestTheRowForm:
    """A row's body begins with the record's canonical bytes, whatever its numbers."""

    def _stored(self, **attributes: float | str | bool) -> tuple[MemoryStorage, Decision]:
        store = MemoryStorage(clock=ManualClock())
        decision = Decision(
            id="d-1", project_id="p-1", title="T", statement="S", agent="a", attributes=attributes
        )
        (kept,) = store.record([decision])
        return store, kept

    def test_a_whole_number_float_is_kept_after_the_canonical_bytes(self) -> None:
        store, kept = self._stored(cost_eur=60.0, count=3, share=0.5, huge=1e300, zero=-0.0)
        (row,) = store._log["p-1"]
        canonical = record_bytes(kept)
        assert row.body.encode() == (
            canonical[:-1] + b',"float_attributes":{"cost_eur":60.0,"huge":1e+300,"zero":-0.0}}'
        )
        record = store.get_record("p-1", kept.id)
        assert record.canonical == canonical
        got = record.wire["attributes"]
        assert [(name, repr(value)) for name, value in got.items()] == [
            ("cost_eur", "60.0"),
            ("count", "3"),
            ("huge", "1e+300"),
            ("share", "0.5"),
            ("zero", "-0.0"),
        ]
        assert store.get("p-1", kept.id) == kept

    def test_without_one_the_body_is_the_canonical_bytes(self) -> None:
        store, kept = self._stored(count=3, share=0.5, ok=True)
        (row,) = store._log["p-1"]
        assert row.body.encode() == record_bytes(kept)

    def test_a_read_checks_it_with_one_hash_and_no_canonicalisation(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store, kept = self._stored(cost_eur=60.0)

        def refuse(_wire: object) -> bytes:
            raise AssertionError("canonicalised again")

        monkeypatch.setattr(_common, "canonical_record", refuse)
        assert store.get("p-1", kept.id) == kept
        assert list(store.decisions("p-1")) == [kept]

    def test_a_row_of_the_earlier_form_still_reads(self) -> None:
        # Earlier builds stored such a record as compact JSON keeping the float.
        store, kept = self._stored(cost_eur=60.0, share=0.5)
        rows = store._log["p-1"]
        earlier = json.dumps(to_wire(kept), ensure_ascii=False, separators=(",", ":"))
        assert '"cost_eur":60.0' in earlier
        rows[0] = rows[0]._replace(body=earlier)
        assert store.get("p-1", kept.id) == kept
        record = store.get_record("p-1", kept.id)
        assert type(record.wire["attributes"]["cost_eur"]) is float
        assert record.canonical == record_bytes(kept)

    @pytest.mark.parametrize(
        ("kept", "named"),
        [
            ('"cost_eur"', "float_attributes is not an object"),
            ('{"missing":1.0}', "'missing', which is not that attribute as a float"),
            ('{"ok":1.0}', "'ok', which is not that attribute as a float"),
            ('{"label":1.0}', "'label', which is not that attribute as a float"),
            ('{"cost_eur":61.0}', "'cost_eur', which is not that attribute as a float"),
            ('{"cost_eur":60}', "'cost_eur', which is not that attribute as a float"),
        ],
    )
    def test_a_member_keeping_what_is_not_the_record_is_corrupt_storage(
        self, kept: str, named: str
    ) -> None:
        store, stored = self._stored(cost_eur=60.0, ok=True, label="x")
        rows = store._log["p-1"]
        body = record_bytes(stored)[:-1].decode() + f',"float_attributes":{kept}}}'
        rows[0] = rows[0]._replace(body=body)
        with pytest.raises(CorruptStorage, match=f"'d-1'.*{re.escape(named)}"):
            store.get("p-1", stored.id)
        with pytest.raises(CorruptStorage, match=re.escape(named)):
            list(store.decisions("p-1"))
