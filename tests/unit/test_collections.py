"""Unit tests of the public test-collection loaders (tiny SMART samples written to tmp_path)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semreport.domain import LinkKind
from semreport.testing import cisi
from semreport.testing.collections import (
    COLLECTIONS,
    RetrievalCollection,
    find_collection,
    load_collection,
    ndcg_at,
    recall_at,
)

CISI_ALL = (
    ".I 1\n.T\nA title\nover two lines\n.A\nSomeone, A.\n.W\n   An abstract\nover lines.\n"
    ".X\n2\t1\t1\n1\t5\t1\n3\t2\t1\n2\t1\t1\n"
    ".I 2\n.T \nOther\n.A \nElse, B.\n.W\nText here\n.X\n1\t1\t2\n"
    ".I 3\n.T\nThird\n.W\nMore text\n"
)
CISI_QRY = ".I 1\n.T\nTitles\n.A\nAsker\n.W\nWhat about titles?\n.I 2\n.W\nUnjudged query\n"
CISI_REL = "     1     3\t0\t0.000000\n     1     2\t0\t0.000000\n     1     2\t0\t0.000000\n"

MED_ALL = (
    ".I 1\n.W\ncorrelation between maternal and fetal plasma .\n  more words .   \n"
    ".I 2\n.W\nchanges of the nucleic acid .\n"
)
MED_QRY = ".I 1\n.W\n the crystalline lens in vertebrates.\n.I 2\n.W\n blood and fluid.\n"
MED_REL = "1 0 2 1\n2 0 1 1\n2 0 2 1\n"

ADI_ALL = (
    ".I 1\n.T\nthe ibm dsd technical information center\n.A\nH. S. WHITE\n"
    ".W\nthe ibm data systems division\n information center (tic).\n"
    ".I 2\n.T\nanother title\n.W\nanother abstract\n"
)
ADI_QRY = ".I 1\n.W\nWhat problems are there   \nin making up titles?  \n"
ADI_REL = "1   2   0   0.000000   \n1   1   0   0.000000   \n"


def _write(directory: Path, prefix: str, documents: str, queries: str, judgements: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for suffix, text in (("ALL", documents), ("QRY", queries), ("REL", judgements)):
        (directory / f"{prefix}.{suffix}").write_text(text, encoding="latin-1")
    return directory


class TestLoadCollection:
    """Each collection's files map to decisions, queries and judgements as its README says."""

    def test_cisi(self, tmp_path: Path) -> None:
        _write(tmp_path, "CISI", CISI_ALL, CISI_QRY, CISI_REL)
        collection = load_collection("cisi", tmp_path)
        assert collection.name == "cisi"
        first, second, _third = collection.decisions
        assert (first.id, first.title, first.statement, first.rationale) == (
            "1",
            "A title over two lines",
            "-",
            "An abstract over lines.",
        )
        assert (first.project_id, first.agent) == ("cisi", "cisi")
        assert second.title == "Other"
        assert all(not d.links for d in collection.decisions)
        assert collection.queries == {"1": "Titles What about titles?", "2": "Unjudged query"}
        assert collection.relevant == {"1": ("2", "3")}
        assert collection.judged() == ["1"]
        assert collection.text("3") == "Third\nMore text"
        with pytest.raises(KeyError):
            collection.text("4")

    def test_cisi_cross_references_become_relates_to_links(self, tmp_path: Path) -> None:
        _write(tmp_path, "CISI", CISI_ALL, CISI_QRY, CISI_REL)
        collection = load_collection("cisi", tmp_path, project_id="p", links=True)
        first, second, third = collection.decisions
        # Each other document once, in first-mention order; the self-reference is no link.
        assert [(link.kind, link.target) for link in first.links] == [
            (LinkKind.RELATES_TO, "2"),
            (LinkKind.RELATES_TO, "3"),
        ]
        assert [link.target for link in second.links] == ["1"]
        assert third.links == ()
        assert {d.project_id for d in collection.decisions} == {"p"}

    def test_med_has_no_titles_and_its_judgements_name_the_document_third(
        self, tmp_path: Path
    ) -> None:
        _write(tmp_path, "MED", MED_ALL, MED_QRY, MED_REL)
        collection = load_collection("med", tmp_path)
        first = collection.decisions[0]
        assert first.title == "-"
        assert first.rationale == "correlation between maternal and fetal plasma . more words ."
        assert collection.queries["1"] == "the crystalline lens in vertebrates."
        assert collection.relevant == {"1": ("2",), "2": ("1", "2")}
        assert collection.text("2") == "-\nchanges of the nucleic acid ."

    def test_adi(self, tmp_path: Path) -> None:
        _write(tmp_path, "ADI", ADI_ALL, ADI_QRY, ADI_REL)
        collection = load_collection("adi", tmp_path)
        assert [d.title for d in collection.decisions] == [
            "the ibm dsd technical information center",
            "another title",
        ]
        assert collection.decisions[0].rationale == (
            "the ibm data systems division information center (tic)."
        )
        assert collection.queries == {"1": "What problems are there in making up titles?"}
        assert collection.relevant == {"1": ("1", "2")}

    def test_an_unknown_name_is_refused(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="unknown collection 'trec'"):
            load_collection("trec", tmp_path)
        with pytest.raises(ValueError, match="adi, cisi, med"):
            find_collection("trec")
        assert COLLECTIONS == ("adi", "cisi", "med")

    def test_a_missing_file_is_an_os_error(self, tmp_path: Path) -> None:
        with pytest.raises(OSError, match=r"ADI\.ALL"):
            load_collection("adi", tmp_path)


class TestFindCollection:
    """``$SEMREPORT_<NAME>_DIR`` first and only; else ``../shared/data/<name>`` upwards."""

    @pytest.mark.parametrize(("name", "prefix"), [("adi", "ADI"), ("cisi", "CISI"), ("med", "MED")])
    def test_environment_then_shared_data_upwards(
        self, name: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        for other in COLLECTIONS:
            monkeypatch.delenv(f"SEMREPORT_{other.upper()}_DIR", raising=False)
        variable = f"SEMREPORT_{name.upper()}_DIR"
        monkeypatch.setenv(variable, str(tmp_path))
        assert find_collection(name) is None
        (tmp_path / f"{prefix}.ALL").write_text("", encoding="latin-1")
        assert find_collection(name) == tmp_path
        monkeypatch.delenv(variable)
        assert find_collection(name, tmp_path / "nowhere") is None
        shared = tmp_path / "shared" / "data" / name
        shared.mkdir(parents=True)
        (shared / f"{prefix}.ALL").write_text("", encoding="latin-1")
        (tmp_path / "repo" / "deeper").mkdir(parents=True)
        assert find_collection(name, tmp_path / "repo" / "deeper") == shared.resolve()

    def test_the_current_directory_is_the_default_start(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.delenv("SEMREPORT_ADI_DIR", raising=False)
        shared = tmp_path / "shared" / "data" / "adi"
        shared.mkdir(parents=True)
        (shared / "ADI.ALL").write_text("", encoding="latin-1")
        (tmp_path / "repo").mkdir()
        monkeypatch.chdir(tmp_path / "repo")
        assert find_collection("adi") == shared.resolve()


class TestCisiNames:
    """The CISI-only names still work and read through the general loader."""

    def test_load_and_find_cisi(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        _write(tmp_path, "CISI", CISI_ALL, CISI_QRY, CISI_REL)
        loaded = cisi.load_cisi(tmp_path, project_id="c", links=True)
        assert isinstance(loaded, cisi.CisiCollection)
        assert loaded == load_collection("cisi", tmp_path, project_id="c", links=True)
        monkeypatch.setenv("SEMREPORT_CISI_DIR", str(tmp_path))
        assert cisi.find_cisi() == tmp_path
        assert cisi.ndcg_at is ndcg_at
        assert cisi.recall_at is recall_at
        assert cisi.CisiCollection is RetrievalCollection


class TestMeasures:
    """nDCG@k and recall@k with binary relevance."""

    def test_known_values(self) -> None:
        assert ndcg_at(["2", "1"], {"1"}, 10) == pytest.approx(1 / math.log2(3))
        assert ndcg_at(["1", "2"], {"1", "2"}) == pytest.approx(1.0)
        assert ndcg_at(["3", "1"], {"1", "2"}) == pytest.approx(
            (1 / math.log2(3)) / (1 + 1 / math.log2(3))
        )
        assert ndcg_at([], set()) == 0.0
        assert ndcg_at(["1"], {"1"}, k=0) == 0.0
        assert recall_at(["2"], {"1", "2"}) == 0.5
        assert recall_at(["1", "2"], {"1", "2"}, k=1) == 0.5
        assert recall_at(["1"], set()) == 0.0

    @given(
        ranked=st.lists(st.integers(0, 30).map(str), unique=True, max_size=40),
        relevant=st.sets(st.integers(0, 30).map(str), max_size=20),
        k=st.integers(1, 50),
    )
    def test_bounded_and_perfect_for_the_ideal_ranking(
        self, ranked: list[str], relevant: set[str], k: int
    ) -> None:
        assert 0.0 <= ndcg_at(ranked, relevant, k) <= 1.0 + 1e-12
        assert 0.0 <= recall_at(ranked, relevant, k) <= 1.0
        if relevant:
            ideal = sorted(relevant) + [d for d in ranked if d not in relevant]
            assert ndcg_at(ideal, relevant, k) == pytest.approx(1.0)
            assert recall_at(ideal, relevant, len(ideal)) == 1.0
