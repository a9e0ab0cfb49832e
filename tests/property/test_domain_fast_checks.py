"""The domain's fast-path checks agree with the full checks they stand in front of."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from semreport.domain._values import (
    InvalidValue,
    check_attribute_name,
    check_attribute_value,
    check_tag,
    is_plain_attribute,
    is_plain_tag,
)

_TEXT = st.one_of(
    st.text(max_size=140),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=140),
    st.sampled_from(["fire", " fire", "fire ", "a\tb", "x" * 128, "x" * 129, "\ud800", "", "é"]),
)
_VALUES = st.one_of(
    _TEXT,
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
)
_NAMES = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,70}", fullmatch=True), _TEXT, st.integers()
)


def _passes(check: object, *values: object) -> bool:
    try:
        for value in values:
            check(value)  # type: ignore[operator]
    except InvalidValue:
        return False
    return True


class TestFastChecks:
    """A value passes the fast path exactly when the full check accepts it."""

    @given(value=_TEXT)
    def test_tags(self, value: str) -> None:
        assert is_plain_tag(value) == _passes(check_tag, value)

    @given(name=_NAMES, value=_VALUES)
    def test_attributes(self, name: object, value: object) -> None:
        full = _passes(check_attribute_name, name) and _passes(check_attribute_value, value)
        assert is_plain_attribute(name, value) == full
        # Asked again (the name is remembered once valid), the answer is the same.
        assert is_plain_attribute(name, value) == full
