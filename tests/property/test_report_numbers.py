"""Every number the wire form accepts survives canonical JSON, export and ``verify`` (issue 11.1).

The accepted number domain is I-JSON's (RFC 7493): integers within
±(2**53 - 1) and finite floats. RFC 8785 prints a whole-number double below
1e21 without a fraction or exponent (``1.0e17`` is ``100000000000000000``), so
whoever reads a report back must read that literal as the double it denotes;
these tests hold the library's writer, its reader and an independent reader
to that, over the whole domain.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

import pytest
import rfc8785
from hypothesis import example, given
from hypothesis import strategies as st

import semreport
from _report_support import decision
from semreport.canonical import (
    CanonicalizationError,
    canonical_json,
    canonical_json_fast,
    canonical_record,
    parse_json,
    record_bytes,
    record_sha256,
)

MAX_SAFE = 2**53 - 1
# Uniform float draws almost never land on a whole number between 2**53 and 1e21,
# the band where JCS drops the exponent; draw it on purpose, beside the edges.
NUMBERS: st.SearchStrategy[int | float] = st.one_of(
    st.integers(min_value=-MAX_SAFE, max_value=MAX_SAFE),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=2**53, max_value=10**21).map(float),
    st.sampled_from(
        [
            0,
            -0.0,
            MAX_SAFE,
            -MAX_SAFE,
            1.0e17,
            2.0**53,
            9007199254740993.0,
            1e16,
            1e21,
            1e-7,
            1e-4,
            5e-324,
            1.7976931348623157e308,
            -1.7976931348623157e308,
        ]
    ),
)
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"]), max_size=6
)  # lone surrogates are refused at the door
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | NUMBERS | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=16,
)
ATTRIBUTE_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
ATTRIBUTES = st.dictionaries(ATTRIBUTE_NAMES, NUMBERS | st.booleans() | TEXT, max_size=6)
EDGES = [1.0e17, 2.0**53, 9007199254740993.0, 1e21, -0.0, 5e-324, 1e-7, 1.7976931348623157e308]


def row(index: int, attributes: dict[str, Any]) -> dict[str, Any]:
    """A decision's wire form for ``record``."""
    return {
        "id": f"d-{index}",
        "project_id": "p-num",
        "title": f"Decision {index}",
        "statement": "Numbers at the edge of the double range.",
        "agent": "agent-cost",
        "domain": "cost",
        "status": "accepted",
        "attributes": attributes,
    }


def embedded(page: str) -> str:
    """The report JSON of a page, found as docs/digest.md says (no library code)."""
    match = re.search(
        r'<script type="application/json" id="semreport-report">(.*?)</script>', page, re.S
    )
    assert match is not None
    return match.group(1)


class TestCanonicalDifferential:
    """The fast path and the reference (``rfc8785``) give the same bytes over the whole domain."""

    @given(JSON_VALUES)
    @example(1.0e17)
    @example(2.0**53)
    @example(9007199254740993.0)
    @example(1e21)
    @example(-0.0)
    @example(5e-324)
    @example({"a": [1e-7, 1.7976931348623157e308, MAX_SAFE, -MAX_SAFE]})
    def test_fast_path_equals_reference(self, value: Any) -> None:
        assert canonical_json_fast(value) == canonical_json(value) == rfc8785.dumps(value)

    @given(ATTRIBUTES)
    @example(dict(zip("abcdefgh", EDGES, strict=True)))
    def test_record_bytes_equal_reference(self, attributes: dict[str, Any]) -> None:
        stored = decision(1, attributes=attributes)
        wire = semreport.to_wire(stored)
        assert canonical_record(wire) == record_bytes(stored) == rfc8785.dumps(wire)
        assert record_sha256(stored) == hashlib.sha256(rfc8785.dumps(wire)).hexdigest()

    @given(JSON_VALUES)
    @example(1.0e17)
    @example(9007199254740993.0)
    @example([-0.0, 5e-324, 1e21, MAX_SAFE])
    def test_reading_canonical_bytes_back_gives_them_again(self, value: Any) -> None:
        data = canonical_json(value)
        again = parse_json(data)
        assert again == value  # the same numbers: 1e17 reads as 1e17, -0.0 as 0
        assert canonical_json(again) == data


class TestOutsideTheDomain:
    """What the domain excludes is refused alike by both paths, and read back as JCS reads it."""

    @pytest.mark.parametrize("value", [2**53, -(2**53), 2**60, math.nan, math.inf, -math.inf])
    def test_refused_like_the_reference(self, value: float) -> None:
        with pytest.raises(CanonicalizationError):
            canonical_json(value)
        with pytest.raises(CanonicalizationError):
            canonical_json_fast({"x": [value]})

    def test_integer_literals_beyond_the_safe_range_are_doubles(self) -> None:
        assert parse_json("9007199254740991") == 2**53 - 1
        assert type(parse_json("9007199254740991")) is int
        assert type(parse_json("-9007199254740992")) is float
        assert parse_json("9007199254740993") == 2.0**53  # the nearest double
        assert parse_json("9" * 5000) == math.inf  # no int() digit limit: canonicalising refuses it
        assert parse_json(b'{"a":[100000000000000000]}') == {"a": [1.0e17]}

    @pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "{"])
    def test_not_json_is_refused(self, text: str) -> None:
        with pytest.raises(ValueError, match=r"not valid JSON|Expecting"):
            parse_json(text)


BATCHES = st.lists(ATTRIBUTES, min_size=1, max_size=4)
ALL_EDGES = [dict(zip("abcdefgh", EDGES, strict=True)), {"x": MAX_SAFE, "y": -MAX_SAFE}]


class TestExportThenVerify:
    """record, then export_report or report, then verify: ok, for any accepted numbers."""

    @given(BATCHES)
    @example([{"x": 1.0e17}])
    @example([{"x": 2.0**53}, {"x": 9007199254740993.0}])
    @example([{"x": 1e21, "y": -0.0, "z": 5e-324}])
    @example(ALL_EDGES)
    def test_page_and_report_json_verify(self, batch: list[dict[str, Any]]) -> None:
        with semreport.open("memory://") as sr:
            sr.record([row(index, attributes) for index, attributes in enumerate(batch, 1)])
            exported = sr.export_report("p-num")
            result = semreport.verify(exported.html, sr.storage)
            assert result.ok, result.problems
            assert result.page is True
            assert result.memory is True
            text = sr.report("p-num").to_json()
            assert text == exported.report.to_json()
            assert semreport.verify(text, sr.storage).ok
            # A mapping parsed by plain json.loads holds 1e17 as an exact integer.
            assert semreport.verify(json.loads(text)).ok
            proof = sr.prove("p-num", "d-1")
            assert semreport.check_inclusion(proof, exported.digest.records_root)


class TestIndependentReader:
    """Re-parsing the exported JSON independently gives every record's bytes again."""

    @given(BATCHES)
    @example([{"x": 1.0e17}])
    @example(ALL_EDGES)
    def test_record_bytes_reproduced(self, batch: list[dict[str, Any]]) -> None:
        with semreport.open("memory://") as sr:
            stored = sr.record(
                [row(index, attributes) for index, attributes in enumerate(batch, 1)]
            )
            page = sr.export_report("p-num").html
        # As docs/digest.md says: read every number as a double, as JCS (and JavaScript) do.
        report = json.loads(embedded(page), parse_int=float)
        assert len(report["records"]) == len(stored)
        for entry, original in zip(report["records"], stored, strict=True):
            data = rfc8785.dumps(entry["decision"])
            assert data == record_bytes(original)
            assert entry["sha256"] == "sha256:" + hashlib.sha256(data).hexdigest()
            assert entry["sha256"] == "sha256:" + record_sha256(original)
        # The library's reader gives back decisions equal to the stored ones, with the same bytes.
        for entry, original in zip(parse_json(embedded(page))["records"], stored, strict=True):
            again = semreport.from_wire(entry["decision"], semreport.Decision)
            assert again == original
            assert record_bytes(again) == record_bytes(original)
