"""Text analysis for search: language, stop words, Unicode folding and synonyms.

An :class:`Analyzer` turns text into *terms* (folded, stop words removed,
Snowball-stemmed words) and keeps, for each term, where in the original text
the word that produced it stands, so highlights and explanations can show the
word as written. Synonyms are equivalence groups applied to queries: a query
that holds one phrase of a group also looks for the others, and
:meth:`Analyzer.expand` says which phrase brought in which terms.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import Stemmer

from semreport.domain import InvalidRequest
from semreport.search._stopwords import default_stop_words
from semreport.search._text import WORDS, Tokenizer, iter_words

__all__ = ["Analyzer", "AnalyzerInfo", "Expansion", "QueryAnalysis", "Token"]

_LANGUAGES = frozenset(Stemmer.algorithms())


@attrs.frozen
class Token:
    """One term of a text and where the word that produced it stands.

    Attributes:
        term: The analysed term (folded and stemmed).
        start: The word's first character in the original text.
        end: One past the word's last character in the original text.
    """

    term: str
    start: int
    end: int


@attrs.frozen
class Expansion:
    """Terms a query gained from a synonym group.

    Attributes:
        source: The query's words that matched a phrase of the group, as written.
        synonym: The other phrase of the group that was added.
        terms: The terms of ``synonym`` that the query gained.
    """

    source: str
    synonym: str
    terms: tuple[str, ...]


@attrs.frozen
class QueryAnalysis:
    """A query's own tokens and what its synonyms added.

    Attributes:
        tokens: The query's terms with their places in the query text.
        expansions: One entry per synonym phrase added, in query order.
    """

    tokens: tuple[Token, ...]
    expansions: tuple[Expansion, ...]

    def terms(self) -> tuple[str, ...]:
        """Every term to look for: the query's own, then the expanded ones (each once)."""
        out = dict.fromkeys(t.term for t in self.tokens)
        for expansion in self.expansions:
            out.update(dict.fromkeys(expansion.terms))
        return tuple(out)

    def expanded_from(self) -> dict[str, tuple[str, ...]]:
        """Map each term that only an expansion brought in to the query words it came from."""
        own = {t.term for t in self.tokens}
        out: dict[str, list[str]] = {}
        for expansion in self.expansions:
            for term in expansion.terms:
                if term not in own:
                    sources = out.setdefault(term, [])
                    if expansion.source not in sources:
                        sources.append(expansion.source)
        return {term: tuple(sources) for term, sources in out.items()}


@attrs.frozen
class AnalyzerInfo:
    """How a scorer analyses text, as ``signals()`` describes it.

    Attributes:
        language: The Snowball language that stems the text.
        stop_words: How many stop words are removed.
        folding: Whether case, accents and compatibility forms are folded.
        synonym_groups: How many synonym groups apply to queries.
    """

    language: str
    stop_words: int
    folding: bool
    synonym_groups: int


def _language(value: object) -> str:
    if not isinstance(value, str) or value not in _LANGUAGES:
        raise InvalidRequest.at(
            "$.language",
            f"unknown language {value!r}: use one of {', '.join(sorted(_LANGUAGES))}",
        )
    return value


def _words_of(value: object, path: str) -> list[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise InvalidRequest.at(path, "must be a collection of strings, not a single string")
    items = list(value)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise InvalidRequest.at(f"{path}[{index}]", "must be a string")
    return items


def _stop_words(value: object) -> frozenset[str]:
    return frozenset(_words_of(value, "$.stop_words"))


def _synonyms(value: object) -> tuple[tuple[str, ...], ...]:
    groups = []
    for index, group in enumerate(_any_items(value, "$.synonyms")):
        path = f"$.synonyms[{index}]"
        phrases = tuple(dict.fromkeys(p.strip() for p in _words_of(group, path)))
        if len(phrases) < 2:
            raise InvalidRequest.at(path, "a synonym group needs at least two different phrases")
        for number, phrase in enumerate(phrases):
            if not WORDS.search(phrase):
                raise InvalidRequest.at(f"{path}[{number}]", "a phrase needs at least one word")
        groups.append(phrases)
    return tuple(groups)


def _any_items(value: object, path: str) -> list[Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise InvalidRequest.at(path, "must be a list of synonym groups")
    return list(value)


def _default_stop_words(self: Analyzer) -> frozenset[str]:
    return default_stop_words(self.language)


def _tokenizer(self: Analyzer) -> Tokenizer:
    return Tokenizer(self.language, self.stop_words, folding=self.folding)


def _stop_repr(value: frozenset[str]) -> str:
    return f"<{len(value)} words>"


@attrs.frozen
class Analyzer:
    """How search turns text into terms: language, stop words, folding and synonyms.

    Pass one to :class:`~semreport.search.HeuristicScorer` (``analyzer=``); the
    same analysis indexes decisions, reads queries and marks highlights.

    Args:
        language: A Snowball language PyStemmer offers (``english`` by
            default, ``german``, ``french``...); anything else is refused with
            ``INVALID_REQUEST``.
        stop_words: Words never indexed nor searched. By default the
            language's list (Lucene's short set for English, the Snowball
            project's list for other languages that have one, none otherwise);
            give a set of your own, or an empty one to keep every word.
        folding: Fold case, compatibility forms and accents (``façade`` ~
            ``facade``, ``Außenwand`` ~ ``aussenwand``, ``CO₂`` ~ ``co2``),
            on by default; off, words are only lower-cased.
        synonyms: Equivalence groups of words or phrases, applied to
            queries: ``[["clt", "cross-laminated timber"]]`` makes a query
            for either look for both. None by default.

    Raises:
        InvalidRequest: For an unknown language, stop words or synonyms that
            are not collections of strings, or a group with fewer than two
            phrases.
    """

    language: str = attrs.field(default="english", converter=_language)
    stop_words: frozenset[str] = attrs.field(
        default=attrs.Factory(_default_stop_words, takes_self=True),
        converter=_stop_words,
        repr=_stop_repr,
    )
    folding: bool = attrs.field(default=True, converter=bool)
    synonyms: tuple[tuple[str, ...], ...] = attrs.field(default=(), converter=_synonyms)
    _tokenizer: Tokenizer = attrs.field(
        init=False,
        eq=False,
        repr=False,
        default=attrs.Factory(_tokenizer, takes_self=True),
    )
    _phrases: tuple[tuple[tuple[str, ...], int, str], ...] = attrs.field(
        init=False, eq=False, repr=False
    )

    @_phrases.default
    def _phrase_index(self) -> tuple[tuple[tuple[str, ...], int, str], ...]:
        """Every synonym phrase as folded words, with its group, longest first."""
        tokenizer = self._tokenizer
        out = [
            (tuple(w for w in tokenizer.folded(WORDS.findall(phrase)) if w), group, phrase)
            for group, phrases in enumerate(self.synonyms)
            for phrase in phrases
        ]
        return tuple(sorted((p for p in out if p[0]), key=lambda p: -len(p[0])))

    @property
    def tokenizer(self) -> Tokenizer:
        """The word cache behind this analyzer (shared by every index built with it)."""
        return self._tokenizer

    def describe(self) -> AnalyzerInfo:
        """Summarise the configuration for ``signals()``."""
        return AnalyzerInfo(
            language=self.language,
            stop_words=len(self.stop_words),
            folding=self.folding,
            synonym_groups=len(self.synonyms),
        )

    def fold(self, text: str) -> str:
        """``text`` with every word replaced by its folded form (separators kept)."""
        tokenizer = self._tokenizer
        return WORDS.sub(lambda m: tokenizer.folded([m.group()])[0], text)

    def terms(self, text: str) -> list[str]:
        """The terms of ``text`` in order (the indexing fast path: no offsets)."""
        return self._tokenizer.terms(text)

    def analyse(self, text: str) -> tuple[Token, ...]:
        """The terms of ``text`` with the offsets of their words in ``text``."""
        return self.analyse_many([text])[0]

    def analyse_many(self, texts: Sequence[str]) -> list[tuple[Token, ...]]:
        """:meth:`analyse` for many texts, folding and stemming their new words in one go."""
        tokenizer = self._tokenizer
        matches = [list(iter_words(text)) for text in texts]
        tokenizer.learn(m.group() for found in matches for m in found)
        out = []
        for found in matches:
            terms = tokenizer.lookup([m.group() for m in found])
            out.append(
                tuple(
                    Token(term, m.start(), m.end())
                    for m, term in zip(found, terms, strict=True)
                    if term is not None
                )
            )
        return out

    def expand(self, query: str) -> QueryAnalysis:
        """Analyse a query and add the phrases of the synonym groups it holds.

        A phrase matches where the query's folded words (stop words included)
        hold its folded words in a row; every other phrase of that group is
        added once, with the query words that matched as its ``source``.
        """
        tokenizer = self._tokenizer
        found = list(iter_words(query))
        raw = [m.group() for m in found]
        terms = tokenizer.lookup(raw)
        tokens = tuple(
            Token(term, m.start(), m.end())
            for m, term in zip(found, terms, strict=True)
            if term is not None
        )
        if not self._phrases:
            return QueryAnalysis(tokens, ())
        folded = tokenizer.folded(raw)
        places = [i for i, w in enumerate(folded) if w]
        words = [folded[i] for i in places]
        expansions: list[tuple[int, Expansion]] = []
        seen: set[tuple[int, str]] = set()
        for phrase_words, group, phrase in self._phrases:
            size = len(phrase_words)
            for at in range(len(words) - size + 1):
                if tuple(words[at : at + size]) != phrase_words:
                    continue
                first, last = found[places[at]], found[places[at + size - 1]]
                source = query[first.start() : last.end()]
                for other in self.synonyms[group]:
                    if other == phrase or (group, other) in seen:
                        continue
                    seen.add((group, other))
                    expansion = Expansion(source, other, tuple(tokenizer.terms(other)))
                    expansions.append((first.start(), expansion))
        expansions.sort(key=lambda pair: pair[0])
        return QueryAnalysis(tokens, tuple(e for _, e in expansions))
