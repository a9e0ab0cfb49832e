"""The relevance lab's short-query mode: queries cut short on both sides, defaults kept."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("bm25s")
pytest.importorskip("Stemmer")

ROOT = Path(__file__).resolve().parents[2]

TEXTS = [
    ("timber floor", "cross laminated timber floor slabs span far"),
    ("timber wall", "timber walls and timber floor slabs burn slowly"),
    ("steel beam", "steel beams carry the floor slabs over long spans"),
    ("concrete core", "a concrete core stiffens the tower against wind"),
    ("glass facade", "triple glazing in the facade keeps the heat in"),
    ("timber fire", "charring protects timber in a fire for ninety minutes"),
]


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
        documents = "".join(
            f".I {i + 1}\n.T\n{title}\n.W\n{text}\n" for i, (title, text) in enumerate(TEXTS)
        )
        queries = ".I 1\n.W\nwhich timber floor slabs span far\n.I 2\n.W\nconcrete tower wind\n"
        cisi = tmp_path / "cisi"
        cisi.mkdir()
        (cisi / "CISI.ALL").write_text(documents, encoding="latin-1")
        (cisi / "CISI.QRY").write_text(queries, encoding="latin-1")
        (cisi / "CISI.REL").write_text("1 1 0 0\n1 2 0 0\n1 6 0 0\n2 4 0 0\n", encoding="latin-1")
        monkeypatch.setenv("SEMREPORT_CISI_DIR", str(cisi))
        monkeypatch.setenv("SEMREPORT_MED_DIR", str(tmp_path / "absent"))
        monkeypatch.setenv("SEMREPORT_ADI_DIR", str(tmp_path / "absent"))
        lines = lab._short()
        assert lines[0] == "| words kept | CISI |"
        assert [line.split(" | ")[0] for line in lines[2:]] == ["| 2", "| 4", "| 8"]
        for line in lines[2:]:
            ratio, outcomes = line.split(" | ")[1].split(" (")
            assert float(ratio) > 0
            assert sum(int(n) for n in outcomes.rstrip(" |)").split(" / ")) == 2
