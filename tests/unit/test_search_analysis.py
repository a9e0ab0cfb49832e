"""Unit tests of text analysis: folding, languages, stop words, synonyms, and find through it."""

from __future__ import annotations

import contextlib
import io
import pickle
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

import semreport
from semreport import InvalidRequest, sample
from semreport.search import (
    Analyzer,
    AnalyzerInfo,
    Expansion,
    HeuristicScorer,
    Token,
    default_stop_words,
    snowball_stop_words,
)
from semreport.search._index import Vocabulary
from semreport.search._stopwords import LUCENE_ENGLISH
from semreport.search._text import Tokenizer, fold_word


class TestFolding:
    """Case, compatibility forms, accents, sub- and superscripts fold; dashes and quotes split."""

    @pytest.mark.parametrize(
        ("written", "plain"),
        [
            ("façade", "facade"),
            ("Außenwand", "aussenwand"),
            ("CO₂", "co2"),
            ("m²", "m2"),
            ("K₂60", "k260"),
            ("ﬁre", "fire"),
            ("\uff23\uff2c\uff34", "clt"),  # full-width CLT
            (unicodedata.normalize("NFD", "façade"), "facade"),
        ],
    )
    def test_words_fold(self, written: str, plain: str) -> None:
        analyzer = Analyzer()
        assert analyzer.terms(written) == analyzer.terms(plain)
        assert fold_word(written) == plain

    def test_typographic_dashes_and_quotes_separate_like_ascii(self) -> None:
        analyzer = Analyzer()
        assert analyzer.terms("cross\u2011laminated \u201ctimber\u201d") == analyzer.terms(
            'cross-laminated "timber"'
        )
        assert analyzer.terms("fire\u2014rated") == ["fire", "rate"]

    def test_folded_text_analyses_the_same(self) -> None:
        analyzer = Analyzer()
        text = "Die Außenwand: façade, CO₂e ½ \uff2b\uff2c\uff34"  # full-width KLT
        assert analyzer.fold(text) == "die aussenwand: facade, co2e 12 klt"
        assert analyzer.terms(analyzer.fold(text)) == analyzer.terms(text)

    def test_folding_off_only_lower_cases(self) -> None:
        analyzer = Analyzer(folding=False)
        assert analyzer.terms("Façade") == ["façad"]
        assert analyzer.terms("Façade") != analyzer.terms("facade")

    def test_offsets_point_into_the_original_text(self) -> None:
        text = "The FAÇADE holds CO₂e"
        tokens = Analyzer().analyse(text)
        assert tokens == (Token("facad", 4, 10), Token("hold", 11, 16), Token("co2e", 17, 21))
        assert [text[t.start : t.end] for t in tokens] == ["FAÇADE", "holds", "CO₂e"]

    def test_single_characters_are_dropped(self) -> None:
        assert Analyzer().terms("a b 5 gk 5 ß") == ["gk", "ss"]


class TestLanguages:
    """Every Snowball language is accepted with its stop words; German stems German."""

    def test_german_stems_and_folds_umlauts_and_sharp_s(self) -> None:
        german = Analyzer(language="german")
        assert german.terms("Die Häuser") == german.terms("das Haus") == ["haus"]
        assert german.terms("Wärme") == german.terms("Waerme") == german.terms("warme")
        assert german.terms("Außenwände") == german.terms("Aussenwande")
        assert german.terms("für die Gebäudeklasse") == ["gebaudeklass"]

    def test_english_default_keeps_lucene_stop_words(self) -> None:
        analyzer = Analyzer()
        assert analyzer.stop_words == LUCENE_ENGLISH
        assert analyzer.terms("The Fire-rated floors and walls") == [
            "fire",
            "rate",
            "floor",
            "wall",
        ]

    def test_languages_with_and_without_lists(self) -> None:
        assert len(default_stop_words("german")) > 200
        assert "und" in Analyzer(language="german").stop_words
        assert Analyzer(language="greek").stop_words == frozenset()
        assert default_stop_words("porter") == LUCENE_ENGLISH
        assert "against" in snowball_stop_words("english")
        assert len(snowball_stop_words("english")) == 127
        assert snowball_stop_words("dutch_porter") == snowball_stop_words("dutch")

    def test_explicit_and_empty_stop_words(self) -> None:
        assert Analyzer(stop_words=[]).terms("the fire") == ["the", "fire"]
        assert Analyzer(stop_words={"fire"}).terms("the fire") == ["the"]
        assert Analyzer(language="german", stop_words={"Straße"}).terms("die strasse") == ["die"]

    @pytest.mark.parametrize(
        ("options", "path"),
        [
            ({"language": "klingon"}, "$.language"),
            ({"language": 3}, "$.language"),
            ({"stop_words": "the"}, "$.stop_words"),
            ({"stop_words": [1]}, "$.stop_words[0]"),
            ({"synonyms": "clt"}, "$.synonyms"),
            ({"synonyms": [["clt"]]}, "$.synonyms[0]"),
            ({"synonyms": [["clt", "clt "]]}, "$.synonyms[0]"),
            ({"synonyms": [["clt", "--"]]}, "$.synonyms[0][1]"),
            ({"synonyms": [["clt", 5]]}, "$.synonyms[0][1]"),
        ],
    )
    def test_bad_configuration_is_refused(self, options: dict[str, object], path: str) -> None:
        with pytest.raises(InvalidRequest) as caught:
            Analyzer(**options)  # type: ignore[arg-type]
        assert caught.value.code == "INVALID_REQUEST"
        assert caught.value.errors[0].path == path


class TestSynonyms:
    """Groups apply to queries; each expansion says where it came from."""

    analyzer = Analyzer(
        synonyms=[["clt", "cross-laminated timber"], ["gk5", "gebäudeklasse 5"], ["u-value", "U"]]
    )

    def test_a_word_expands_to_a_phrase(self) -> None:
        query = self.analyzer.expand("CLT walls")
        assert query.expansions == (
            Expansion("CLT", "cross-laminated timber", ("cross", "lamin", "timber")),
        )
        assert query.terms() == ("clt", "wall", "cross", "lamin", "timber")
        assert query.expanded_from() == {
            "cross": ("CLT",),
            "lamin": ("CLT",),
            "timber": ("CLT",),
        }

    def test_a_phrase_expands_to_a_word_whatever_its_writing(self) -> None:
        query = self.analyzer.expand("Gebäudeklasse\u00a05 and Cross\u2011Laminated TIMBER")
        assert [(e.source, e.synonym) for e in query.expansions] == [
            ("Gebäudeklasse\u00a05", "gk5"),
            ("Cross\u2011Laminated TIMBER", "clt"),
        ]

    def test_a_phrase_matches_on_words_in_a_row_stop_words_included(self) -> None:
        assert self.analyzer.expand("timber cross-laminated").expansions == ()
        assert self.analyzer.expand("the u-value").expansions[0].synonym == "U"
        assert self.analyzer.expand("value").expansions == ()

    def test_no_synonyms_no_expansions(self) -> None:
        assert Analyzer().expand("clt").expansions == ()

    def test_vocabulary_adds_expanded_terms_that_decisions_hold(self) -> None:
        vocab = Vocabulary(self.analyzer)
        vocab.learn(vocab.tokenizer.words("cross laminated timber co2e co2eq k260"))
        tids, surface = vocab.query_terms("CLT co2")
        assert sorted(surface.values()) == ["co2e", "co2eq", "cross", "laminated", "timber"]
        assert len(tids) == 5
        sources = {(e.source, e.synonym) for e in vocab.query_expansions("CLT co2")}
        assert sources == {
            ("CLT", "cross-laminated timber"),
            ("co2", "co2e"),
            ("co2", "co2eq"),
        }


class TestValue:
    """An analyzer is a value: equal, hashable, picklable, described."""

    def test_equality_pickle_and_description(self) -> None:
        one = Analyzer(language="german", synonyms=[["a1", "nicht brennbar"]])
        two = Analyzer(language="german", synonyms=(("a1", "nicht brennbar"),))
        assert one == two
        assert hash(one) == hash(two)
        copy = pickle.loads(pickle.dumps(one))
        assert copy == one
        assert copy.terms("Häuser") == ["haus"]
        assert one.describe() == AnalyzerInfo("german", len(one.stop_words), True, 1)
        assert "<231 words>" in repr(one)

    def test_tokenizer_pickles_with_its_configuration(self) -> None:
        tokenizer = pickle.loads(pickle.dumps(Tokenizer("german", {"für"}, folding=True)))
        assert tokenizer.stop_words == frozenset({"fur"})
        assert tokenizer.terms("für Häuser") == ["haus"]


@pytest.fixture
def sr() -> Iterator[semreport.SemReport]:
    with semreport.open("memory://") as facade:
        sample.load_into(facade)
        yield facade


class TestThroughTheFacade:
    """find matches folded words in the sample project; the catalogue describes the analyzer."""

    @pytest.mark.parametrize(
        ("query", "written"), [("facade", "façade"), ("co2", "CO₂e"), ("K260", "K₂60")]
    )
    def test_plain_queries_find_decorated_words(
        self, sr: semreport.SemReport, query: str, written: str
    ) -> None:
        holding = {
            d.id
            for d in sample.decisions()
            if written in f"{d.title}\n{d.statement}\n{d.rationale}"
        }
        assert holding
        result = sr.find(sample.PROJECT_ID, {"text": query, "limit": 100})
        scored = {h.decision_id for h in result.hits if h.score > 0}
        assert holding <= scored

    def test_signals_describe_the_analyzer(self, sr: semreport.SemReport) -> None:
        info = sr.signals(sample.PROJECT_ID).analyzer
        assert info == AnalyzerInfo("english", len(LUCENE_ENGLISH), True, 0)

    def test_a_german_analyzer_stems_german(self) -> None:
        scorer = HeuristicScorer(analyzer=Analyzer(language="german"))
        with semreport.open("memory://", scorer=scorer) as sr:
            sr.record(
                [
                    {
                        "id": "d-1",
                        "project_id": "p",
                        "title": "Außenwände der Häuser",
                        "statement": "Brandschutz",
                        "agent": "a",
                    },
                    {
                        "id": "d-2",
                        "project_id": "p",
                        "title": "Dach",
                        "statement": "Ziegel",
                        "agent": "a",
                    },
                ]
            )
            hits = sr.find("p", {"text": "aussenwand haus"}).hits
            assert [h.decision_id for h in hits if h.score > 0][:1] == ["d-1"]
            assert sr.signals("p").analyzer == AnalyzerInfo(
                "german", len(default_stop_words("german")), True, 0
            )

    def test_synonyms_reach_find(self) -> None:
        scorer = HeuristicScorer(analyzer=Analyzer(synonyms=[["clt", "cross-laminated timber"]]))
        with semreport.open("memory://", scorer=scorer) as sr:
            sr.record(
                [
                    {
                        "id": "d-1",
                        "project_id": "p",
                        "title": "Cross-laminated timber floors",
                        "statement": "x",
                        "agent": "a",
                    },
                    {
                        "id": "d-2",
                        "project_id": "p",
                        "title": "Steel",
                        "statement": "y",
                        "agent": "a",
                    },
                ]
            )
            hits = sr.find("p", {"text": "CLT"}).hits
            assert hits[0].decision_id == "d-1"
            assert hits[0].score > 0


DOC = Path(__file__).resolve().parents[2] / "docs" / "howto" / "analysis.md"


class TestGuide:
    """docs/howto/analysis.md: every code block runs and prints what its comments say."""

    def test_code_blocks_print_their_comments(self) -> None:
        blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
        assert len(blocks) == 4
        for block in blocks:
            expected = [
                line.removeprefix("# ") for line in block.splitlines() if line.startswith("# ")
            ]
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block, str(DOC), "exec"), {})
            assert out.getvalue().splitlines() == expected
