"""An independent verifier: recompute the digest from the exported page with rfc8785 and hashlib.

Nothing of semreport's digest code is imported here: the page is produced by
the library over real SQLite (and PostgreSQL) storage and written to a file,
then read back and checked with the scheme as ``docs/digest.md`` writes it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import rfc8785
from pg_support import POSTGRES_URL, pg_marks, with_query

import semreport


def merkle(leaves: list[bytes]) -> bytes:
    """RFC 6962 Merkle tree hash, straight from the RFC's definition."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + merkle(leaves[:k]) + merkle(leaves[k:])).digest()


def extract(page: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="semreport-report">(.*?)</script>', page, re.S
    )
    assert match is not None
    # As docs/digest.md says: every JSON number is a double (1.0e17 is written 100000000000000000).
    return json.loads(match.group(1), parse_int=float)


def project_rows() -> list[dict]:
    return [
        {
            "id": f"d-{i}",
            "project_id": "tower-7",
            "title": f"Decision {i} </script> <b>é</b>",
            "statement": f"Statement {i} with 'quotes' & \u2028 😀",
            "agent": ["agent-reg", "agent-mat", "agent-cost"][i % 3],
            "domain": ["regulation", "material", "cost", "lifecycle"][i % 4],
            "status": ["accepted", "proposed"][i % 2],
            "attributes": {
                "cost_eur": i * 1000.5,
                "fire_resistance_min": 30 * i,
                "ok": True,
                # Whole-number floats JCS prints without an exponent, and other edges.
                "particles": i * 1.0e17,
                "edge": [2.0**53, 9007199254740993.0, 1e21, -0.0, 5e-324, 2**53 - 1][i % 6],
            },
            "evidence": [{"kind": "regulation", "ref": f"ADB {i % 3}", "title": "ADB"}],
            "links": [{"kind": "supersedes", "target": f"d-{i - 1}"}] if i % 4 == 0 else [],
        }
        for i in range(1, 12)
    ]


class TestIndependentVerifier:
    """records_root and report_sha256 recomputed without the library's digest code."""

    def test_from_sqlite_export(self, tmp_path: Path) -> None:
        with semreport.open(f"sqlite:///{tmp_path / 'memory.db'}") as sr:
            sr.record(project_rows())
            exported = sr.export_report("tower-7")
            assert semreport.verify(exported.html, sr.storage).memory is True
        page_file = tmp_path / "report.html"
        page_file.write_text(exported.html, encoding="utf-8")

        report = extract(page_file.read_text(encoding="utf-8"))
        digest = report["digest"]
        assert digest["scheme"] == "semreport-digest/1"

        record_bytes = [rfc8785.dumps(r["decision"]) for r in report["records"]]
        for record, data in zip(report["records"], record_bytes, strict=True):
            assert record["sha256"] == "sha256:" + hashlib.sha256(data).hexdigest()
        assert [r["decision"]["sequence"] for r in report["records"]] == list(range(1, 12))
        assert digest["records"] == len(record_bytes) == 11
        assert digest["records_root"] == merkle(record_bytes).hex()

        body = {key: value for key, value in report.items() if key != "digest"}
        assert digest["report_sha256"] == hashlib.sha256(rfc8785.dumps(body)).hexdigest()
        assert digest["as_of_sequence"] == report["as_of_sequence"] == 11

    def test_audit_path_checked_by_hand(self, tmp_path: Path) -> None:
        with semreport.open(f"sqlite:///{tmp_path / 'memory.db'}") as sr:
            sr.record(project_rows())
            proof = semreport.to_wire(sr.prove("tower-7", "d-6"))
            root = sr.report("tower-7").digest.records_root
        # RFC 9162 section 2.1.3.2, written out independently.
        node = hashlib.sha256(b"\x00" + rfc8785.dumps(proof["record"])).digest()
        fn, sn = proof["index"], proof["tree_size"] - 1
        for sibling in map(bytes.fromhex, proof["audit_path"]):
            if fn & 1 or fn == sn:
                node = hashlib.sha256(b"\x01" + sibling + node).digest()
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
            else:
                node = hashlib.sha256(b"\x01" + node + sibling).digest()
            fn, sn = fn >> 1, sn >> 1
        assert sn == 0
        assert node.hex() == root == proof["records_root"]


# Every kind of number the wire form accepts, at the edges where serialisers disagree.
EDGES = [
    1.0e17,
    2.0**53,
    9007199254740993.0,
    1e21,
    -0.0,
    5e-324,
    1e-7,
    1.7976931348623157e308,
    -(2**53 - 1),
    2**53 - 1,
    0.1,
]


def check_numbers(url: str) -> None:
    """Record every edge number, export, verify, then re-read the page independently."""
    rows = [
        {
            "id": f"n-{index}",
            "project_id": "numbers",
            "title": f"Edge {value!r}",
            "statement": "A number at the edge of the double range.",
            "agent": "agent-cost",
            "attributes": {"value": value},
        }
        for index, value in enumerate(EDGES, 1)
    ]
    with semreport.open(url) as sr:
        stored = sr.record(rows)
        exported = sr.export_report("numbers")
        result = semreport.verify(exported.html, sr.storage)
        assert result.ok, result.problems
        assert result.memory is True
        assert result.page is True
        read_back = list(sr.storage.decisions("numbers"))
    assert [repr(d.attributes["value"]) for d in read_back] == [repr(v) for v in EDGES]
    report = extract(exported.html)
    for entry, original in zip(report["records"], stored, strict=True):
        data = rfc8785.dumps(entry["decision"])
        assert data == rfc8785.dumps(semreport.to_wire(original))
        assert entry["sha256"] == "sha256:" + hashlib.sha256(data).hexdigest()
    assert (
        report["digest"]["records_root"]
        == merkle([rfc8785.dumps(r["decision"]) for r in report["records"]]).hex()
    )


class TestNumbersOnSQLite:
    """The number domain survives SQLite, the export, verify and an independent reader."""

    def test_edges(self, tmp_path: Path) -> None:
        check_numbers(f"sqlite:///{tmp_path / 'numbers.db'}")


class TestNumbersOnPostgres:
    """The number domain survives PostgreSQL, the export, verify and an independent reader."""

    pytestmark = pg_marks

    def test_edges(self, pg_schema: str) -> None:
        check_numbers(with_query(POSTGRES_URL, schema=pg_schema))
