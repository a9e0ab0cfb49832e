"""``memory://`` beyond the conformance suite: bit flips in its rows, and reports after bad input.

The in-memory adapter keeps the rows the persistent adapters write (the JSON
text of each record and its SHA-256), so what holds for a flipped bit in a
database file holds for a flipped bit in its lists too.
"""

from __future__ import annotations

import random

import pytest

import semreport
from semreport.canonical import record_sha256
from semreport.domain import CorruptStorage, Decision, Evidence, InvalidRequest
from semreport.storage.memory import MemoryStorage
from semreport.testing import ManualClock
from semreport.testing.conformance import poked


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
