"""Warnings for names a search gives that the project does not hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from semreport.search._warnings import MAX_SUGGESTIONS, SearchWarning, unknown_names


class TestUnknownNames:
    def test_known_names_give_no_warning(self) -> None:
        assert unknown_names("filters.tags", "tag", ["fire", "roof"], {"fire", "roof"}) == []

    def test_another_case_is_named_first(self) -> None:
        (warning,) = unknown_names("filters.tags", "tag", ["Fire"], {"fire", "fir", "roof"})
        assert warning == SearchWarning(
            field="filters.tags",
            value="Fire",
            kind="tag",
            suggestions=("fire", "fir"),
            message=(
                "filters.tags: the project holds no tag 'Fire', only 'fire' "
                "(names are case-sensitive)"
            ),
        )

    def test_close_names_are_suggested(self) -> None:
        (warning,) = unknown_names("near", "attribute", ["u_valeu"], {"u_value", "cost_eur"})
        assert warning.suggestions == ("u_value",)
        assert (
            warning.message == "near: the project holds no attribute 'u_valeu'; closest: 'u_value'"
        )

    def test_nothing_close_says_so(self) -> None:
        (warning,) = unknown_names("filters.agent", "agent", ["zzz"], ["cost-agent"])
        assert warning.suggestions == ()
        assert warning.message == "filters.agent: the project holds no agent 'zzz'"

    def test_each_missing_name_once_in_sorted_order(self) -> None:
        warnings = unknown_names("prefer.tags", "tag", ["b", "a", "b", "known"], ["known"])
        assert [w.value for w in warnings] == ["a", "b"]

    def test_an_empty_project_warns_without_suggestions(self) -> None:
        (warning,) = unknown_names("filters.tags", "tag", ["fire"], [])
        assert warning.suggestions == ()


class TestProperties:
    @given(
        given_names=st.lists(st.text(min_size=1, max_size=8), max_size=6),
        known=st.frozensets(st.text(min_size=1, max_size=8), max_size=12),
    )
    def test_warns_exactly_for_unknown_names(
        self, given_names: list[str], known: frozenset[str]
    ) -> None:
        warnings = unknown_names("filters.tags", "tag", given_names, known)
        assert [w.value for w in warnings] == sorted(set(given_names) - known)
        for warning in warnings:
            assert len(warning.suggestions) <= MAX_SUGGESTIONS
            assert set(warning.suggestions) <= known
            assert len(set(warning.suggestions)) == len(warning.suggestions)
            assert repr(warning.value) in warning.message
