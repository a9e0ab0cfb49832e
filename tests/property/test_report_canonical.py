"""The fast canonical JSON path gives exactly the bytes of the ``rfc8785`` package."""

from __future__ import annotations

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

import semreport
from _report_support import decision
from semreport.canonical import canonical_json_fast, canonical_record

keys = st.text(max_size=6) | st.sampled_from(["a", "\ufb01", "\U0001f600", "\ue000", "é"])
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from([0.0, -0.0, 1e-7, 1e-4, 1e16, 1e21, 1e22, 5e-324, 2.0**53, 0.1 + 0.2])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)


class TestDifferential:
    """canonical_json_fast == rfc8785.dumps, whatever the JSON value."""

    @given(json_values)
    def test_any_json_value(self, value: object) -> None:
        try:
            expected = rfc8785.dumps(value)
        except rfc8785.CanonicalizationError:
            return
        assert canonical_json_fast(value) == expected

    @given(
        st.dictionaries(
            st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True),
            st.floats(allow_nan=False, allow_infinity=False)
            | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
            | st.booleans()
            | st.text(max_size=5),
            max_size=5,
        ),
        st.text(min_size=1).filter(lambda t: t.strip() == t and t.strip()),
    )
    def test_decision_wire_forms(self, attributes: dict, title: str) -> None:
        wire = semreport.to_wire(decision(1, attributes=attributes, title=title))
        assert canonical_record(wire) == rfc8785.dumps(wire)

    def test_unrepresentable_numbers_fall_back(self) -> None:
        for value in (2.0**60, 1.0e17, 1e21, 1e300, 1e-300, 1.0, -0.0, 5e-324):
            wire = semreport.to_wire(decision(1, attributes={"x": value}))
            assert canonical_record(wire) == rfc8785.dumps(wire)

    def test_lone_surrogate_is_refused_like_the_reference(self) -> None:
        value = {"a": "\ud800"}
        with pytest.raises(rfc8785.CanonicalizationError):
            rfc8785.dumps(value)
        with pytest.raises(rfc8785.CanonicalizationError):
            canonical_json_fast(value)

    def test_unusual_wire_forms_go_to_the_reference(self) -> None:
        for wire in (
            {"id": "x"},
            {"attributes": {"a": None}},
            {"attributes": {}, "sequence": 2**60},
            {"attributes": {}, "sequence": "1"},
        ):
            try:
                expected = rfc8785.dumps(wire)
            except rfc8785.CanonicalizationError:
                with pytest.raises(rfc8785.CanonicalizationError):
                    canonical_record(wire)
            else:
                assert canonical_record(wire) == expected
