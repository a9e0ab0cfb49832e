"""Unit tests of highlights: the best fragment of a field with the matched words marked."""

from __future__ import annotations

from semreport.search import Analyzer, Highlight, highlight, highlights, highlights_many

ANALYZER = Analyzer()
FILLER = "Unrelated words about scheduling and procurement fill this part of the text. "


class TestHighlight:
    """Fragments are short, cut at words, and mark words by their analysed terms."""

    def test_short_text_is_shown_whole_with_folded_matches(self) -> None:
        shown = highlight(ANALYZER, "title", "South FAÇADE\nwith CO₂e budget", {"facad", "co2e"})
        assert shown == Highlight("title", "South FAÇADE with CO₂e budget", ((6, 12), (18, 22)))
        assert shown.marked() == "South [FAÇADE] with [CO₂e] budget"
        assert shown.marked("<mark>", "</mark>").count("<mark>") == 2

    def test_no_match_no_highlight(self) -> None:
        assert highlight(ANALYZER, "title", "Steel frame", {"timber"}) is None
        assert highlights(ANALYZER, {"title": "Steel"}, {"timber"}) == ()
        assert highlights(ANALYZER, {"title": "Steel"}, ()) == ()

    def test_long_text_shows_the_window_with_most_matches(self) -> None:
        text = (
            FILLER * 3
            + "The timber façade uses cross-laminated timber panels. "
            + FILLER * 3
            + "A lone timber mention."
        )
        shown = highlight(ANALYZER, "rationale", text, {"timber", "facad", "lamin"})
        assert shown is not None
        assert shown.fragment.startswith("…")
        assert shown.fragment.endswith("…")
        assert len(shown.fragment) <= 152
        assert "The timber façade uses cross-laminated timber panels." in shown.fragment
        words = [shown.fragment[a:b] for a, b in shown.spans]
        assert words == ["timber", "façade", "laminated", "timber"]

    def test_fragment_is_cut_at_word_boundaries(self) -> None:
        text = FILLER * 4 + "timber " + FILLER * 4
        shown = highlight(ANALYZER, "statement", text, {"timber"}, size=60)
        assert shown is not None
        inner = shown.fragment.strip("…")
        assert text.find(inner) >= 0
        start = text.find(inner)
        assert not text[start - 1].isalnum()
        assert not text[start + len(inner)].isalnum()

    def test_a_long_single_word_is_kept_whole(self) -> None:
        word = "timber" + "x" * 200
        shown = highlight(ANALYZER, "statement", f"{FILLER} {word} {FILLER}", {word}, size=50)
        assert shown is not None
        assert word in shown.fragment


class TestBestFields:
    """Fields rank by distinct matched terms, then matched words, then their order."""

    def test_best_fields_first_and_limited(self) -> None:
        fields = {
            "title": "Timber",
            "statement": "Timber façade",
            "rationale": "Nothing here",
        }
        found = highlights(ANALYZER, fields, {"timber", "facad"})
        assert [h.field for h in found] == ["statement", "title"]
        assert [h.field for h in highlights(ANALYZER, fields, {"timber"}, limit=1)] == ["title"]

    def test_many_documents_at_once_equal_one_by_one(self) -> None:
        documents = [
            {"title": "Timber", "statement": "CLT façade"},
            {"title": "Steel", "statement": "none"},
            {"title": "Façades", "statement": f"{FILLER * 5} façade timber"},
        ]
        terms = {"timber", "facad"}
        assert highlights_many(ANALYZER, documents, terms) == [
            highlights(ANALYZER, d, terms) for d in documents
        ]
