"""Unit tests of highlights: the best fragment of a field with the matched words marked."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from semreport.search import Analyzer, Highlight, highlight, highlights, highlights_many
from semreport.search._highlight import _SPACE, _one_line

ANALYZER = Analyzer()
FILLER = "Unrelated words about scheduling and procurement fill this part of the text. "
WINDOW_WORDS = [
    "timber",
    "the",
    "of",
    "a",
    "façade",
    "Fac\u0327ade",
    "CO₂e",
    "x_y",
    "steel",
    "longwordsstandalone",
]
WINDOW_SEPARATORS = [" ", ", ", ". ", "-", "\n", "\u2014", "  "]


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


def _reference_window(
    tokens: list[tuple[int, int, str]], hits: list[tuple[int, int, str]], size: int
) -> tuple[int, int]:
    """The window by its definition: every run of hits tried, distinct terms counted anew."""
    best = (0, 0, 0)
    chosen = (0, 1)
    for left in range(len(hits)):
        right = left + 1
        while right < len(hits) and hits[right][1] - hits[left][0] <= size:
            right += 1
        window = hits[left:right]
        score = (-len({t[2] for t in window}), -len(window), left)
        if left == 0 or score < best:
            best, chosen = score, (left, right)
    start, end = hits[chosen[0]][0], hits[chosen[1] - 1][1]
    spare = max(size - (end - start), 0)
    want_start = start - spare // 3
    want_end = end + spare - (start - max(want_start, 0))
    first = next((t[0] for t in tokens if want_start <= t[0] < start), start)
    last = next((t[1] for t in reversed(tokens) if end < t[1] <= want_end), end)
    return first, last


class TestWindow:
    """A long field's fragment (its hits' best run, widened at the words near it) is as defined."""

    @given(
        words=st.lists(
            st.tuples(st.sampled_from(WINDOW_WORDS), st.sampled_from(WINDOW_SEPARATORS)),
            min_size=8,
            max_size=60,
        ),
        size=st.integers(4, 60),
        data=st.data(),
    )
    def test_matches_the_definition(
        self, words: list[tuple[str, str]], size: int, data: st.DataObject
    ) -> None:
        text = "".join(word + separator for word, separator in words)
        tokens = [(t.start, t.end, t.term) for t in ANALYZER.analyse(text)]
        if not tokens:
            return
        wanted = data.draw(st.sets(st.sampled_from(sorted({t[2] for t in tokens})), min_size=1))
        shown = highlight(ANALYZER, "statement", text, wanted, size=size)
        assert shown is not None
        if len(text) <= size:
            assert shown.fragment == _one_line(text)
            return
        first, last = _reference_window(tokens, [t for t in tokens if t[2] in wanted], size)
        head = "…" if first > 0 else ""
        tail = "…" if last < len(text) else ""
        assert shown.fragment == head + _one_line(text[first:last]) + tail


class TestOneLine:
    """A fragment shows every whitespace character as a space, as ``\\s`` does."""

    @given(st.text(max_size=40))
    def test_equals_the_regular_expression(self, text: str) -> None:
        assert _one_line(text) == _SPACE.sub(" ", text)

    def test_every_kind_of_line_break_and_space(self) -> None:
        assert _one_line("a\tb\nc\u00a0d\u2028e") == "a b c d e"
        assert _one_line("plain text") == "plain text"
