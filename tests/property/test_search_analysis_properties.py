"""Properties of text analysis and highlights (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from semreport.search import Analyzer, highlight, highlights_many
from semreport.search._text import (
    WORDS,
    find_words,
    fold_word,
    iter_words,
    word_spans,
    words_within,
)

ANALYZERS = {
    "english": Analyzer(),
    "german": Analyzer(language="german"),
    "plain": Analyzer(folding=False, stop_words=()),
}
PIECES = [
    "façade",
    "Fac\u0327ade",
    "Außenwand",
    "AUSSENWAND",
    "Wärme",
    "CO₂e",
    "co2",
    "m²",
    "K₂60",
    "ﬁre",
    "the",
    "und",
    "timber",
    "Timbers",
    "½",
    "İstanbul",
    "\u0301",
    "a",
    "x_y",
]
SEPARATORS = [" ", "  ", "\n", "\t", "-", "\u2011", "\u2014", "\u201c", "\u2019", ", ", ". ", "…"]

texts = st.one_of(
    st.text(max_size=80),
    st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SEPARATORS)), max_size=40).map(
        lambda parts: "".join(w + s for w, s in parts)
    ),
)
analyzers = st.sampled_from(sorted(ANALYZERS)).map(ANALYZERS.__getitem__)


class TestFoldingProperties:
    """Folding is idempotent and analysing folded text changes nothing."""

    @given(text=texts)
    def test_folding_twice_changes_nothing(self, text: str) -> None:
        once = fold_word(text)
        assert fold_word(once) == once
        for word in WORDS.findall(text):
            folded = fold_word(word)
            assert WORDS.fullmatch(folded) or folded == ""

    @given(analyzer=analyzers, text=texts)
    def test_folded_text_has_the_same_terms(self, analyzer: Analyzer, text: str) -> None:
        folded = analyzer.fold(text)
        assert analyzer.fold(folded) == folded
        assert analyzer.terms(folded) == analyzer.terms(text)


class TestOffsetProperties:
    """Tokens point at the words that produced them, in order."""

    @given(text=st.one_of(texts, st.text(alphabet=st.characters(max_codepoint=127))))
    def test_the_ascii_word_pattern_finds_the_same_words(self, text: str) -> None:
        assert find_words(text) == WORDS.findall(text)
        assert [m.span() for m in iter_words(text)] == [m.span() for m in WORDS.finditer(text)]

    @given(
        text=st.one_of(texts, st.text(alphabet=st.characters(max_codepoint=127))),
        data=st.data(),
    )
    def test_word_spans_locate_every_occurrence_of_the_chosen_words(
        self, text: str, data: st.DataObject
    ) -> None:
        words = find_words(text)
        chosen = data.draw(st.sets(st.sampled_from(words)) if words else st.just(set()))
        spans = word_spans(text, [w for w in words if w in chosen])
        assert spans == [m.span() for m in WORDS.finditer(text) if m.group() in chosen]

    @given(
        text=st.one_of(texts, st.text(alphabet=st.characters(max_codepoint=127))),
        data=st.data(),
    )
    def test_words_within_are_the_words_wholly_inside(self, text: str, data: st.DataObject) -> None:
        start = data.draw(st.integers(-3, len(text) + 3))
        end = data.draw(st.integers(-3, len(text) + 3))
        inside = [m.span() for m in WORDS.finditer(text) if start <= m.start() and m.end() <= end]
        assert [m.span() for m in words_within(text, start, end)] == inside

    @given(analyzer=analyzers, text=texts)
    def test_tokens_are_the_terms_of_their_words(self, analyzer: Analyzer, text: str) -> None:
        tokens = analyzer.analyse(text)
        assert [t.term for t in tokens] == analyzer.terms(text)
        last = 0
        for token in tokens:
            assert last <= token.start < token.end <= len(text)
            assert analyzer.terms(text[token.start : token.end]) == [token.term]
            last = token.end

    @given(analyzer=analyzers, batch=st.lists(texts, max_size=5))
    def test_bulk_analysis_equals_one_by_one(self, analyzer: Analyzer, batch: list[str]) -> None:
        assert analyzer.analyse_many(batch) == [analyzer.analyse(t) for t in batch]


class TestHighlightProperties:
    """Spans lie in order inside their fragment and cover exactly its matched words."""

    @given(
        analyzer=analyzers,
        text=texts,
        query=texts,
        size=st.integers(min_value=10, max_value=200),
    )
    def test_spans_are_the_matched_words_of_the_fragment(
        self, analyzer: Analyzer, text: str, query: str, size: int
    ) -> None:
        terms = set(analyzer.terms(query)) | set(analyzer.terms(text)[:1])
        shown = highlight(analyzer, "statement", text, terms, size=size)
        if not terms & set(analyzer.terms(text)):
            assert shown is None
            return
        assert shown is not None
        fragment = shown.fragment
        last = 0
        for start, end in shown.spans:
            assert last <= start < end <= len(fragment)
            assert analyzer.terms(fragment[start:end])[0] in terms
            last = end
        expected = tuple((t.start, t.end) for t in analyzer.analyse(fragment) if t.term in terms)
        assert shown.spans == expected
        assert shown.spans
        assert fragment.strip("…").replace(" ", "") in "".join(text.split())

    @given(analyzer=analyzers, batch=st.lists(st.tuples(texts, texts), max_size=4), query=texts)
    def test_page_at_once_equals_one_by_one(
        self, analyzer: Analyzer, batch: list[tuple[str, str]], query: str
    ) -> None:
        terms = set(analyzer.terms(query))
        documents = [{"title": a, "statement": b} for a, b in batch]
        together = highlights_many(analyzer, documents, terms)
        for document, shown in zip(documents, together, strict=True):
            assert len(shown) <= 2
            for item in shown:
                alone = highlight(analyzer, item.field, document[item.field], terms)
                assert alone == item
