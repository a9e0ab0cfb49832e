"""The relevance lab: short queries cut on both sides with the defaults kept, and its graphs."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest
from collection_support import only_cisi_files

pytest.importorskip("bm25s")
pytest.importorskip("Stemmer")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lab(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The lab, imported as ``python -m benchmarks._relevance_lab`` imports it."""
    monkeypatch.syspath_prepend(str(ROOT))
    return importlib.import_module("benchmarks._relevance_lab")


class TestShortQuery:
    """A query keeps its first words that are not stop words, in order."""

    def test_keeps_the_first_content_words(self, lab: ModuleType) -> None:
        text = "Is the effect of timber floors on fire safety known?"
        assert lab.short_query(text, 2) == "effect timber"
        assert lab.short_query(text, 4) == "effect timber floors fire"

    def test_a_short_text_is_kept_whole(self, lab: ModuleType) -> None:
        assert lab.short_query("the fire, the floor", 8) == "fire floor"

    def test_one_letter_words_are_not_words(self, lab: ModuleType) -> None:
        assert lab.short_query("a b timber c", 2) == "timber"


class TestShortSection:
    """The table has a row per length and a cell per collection found."""

    def test_over_sample_files(
        self, lab: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        only_cisi_files(
            tmp_path, monkeypatch, ("which timber floor slabs span far", "concrete tower wind")
        )
        lines = lab._short()
        assert lines[0] == "| words kept | CISI |"
        assert [line.split(" | ")[0] for line in lines[2:]] == ["| 2", "| 4", "| 8"]
        for line in lines[2:]:
            ratio, outcomes = line.split(" | ")[1].split(" (")
            assert float(ratio) > 0
            assert sum(int(n) for n in outcomes.rstrip(" |)").split(" / ")) == 2


class TestCoCitations:
    """Two rows are co-cited when the links, either way, tie both to a common row."""

    def test_pairs_of_a_common_neighbour(self, lab: ModuleType) -> None:
        # 0 links to 1 and 2; 3 links to 2: 1-2 share 0, 0-3 share 2.
        assert lab.co_citations({(0, 1), (0, 2), (3, 2)}) == {(1, 2), (0, 3)}

    def test_self_links_and_lone_pairs_give_none(self, lab: ModuleType) -> None:
        assert lab.co_citations({(4, 4), (5, 6)}) == set()

    def test_a_link_both_ways_counts_once(self, lab: ModuleType) -> None:
        assert lab.co_citations({(0, 1), (1, 0), (0, 2)}) == {(1, 2)}
