"""Tokenisation: words, Unicode folding, stop words and Snowball stems, cached per word.

A *word* is a run of word characters (letters, digits, ``_``) and combining
marks in the original text, so ``façade`` written with a combining cedilla is
one word. A word's *folded* form is NFKC, case-folded, NFKD with the combining
marks and the non-word characters taken out (``Außenwand`` → ``aussenwand``,
``CO₂e`` → ``co2e``, ``m²`` → ``m2``); with folding off it is only lower-cased.
A folded word is a *term* (after Snowball stemming) unless it is a stop word
or a single character. Dashes, quotes and every other punctuation separate
words, typographic or not.

:class:`Tokenizer` caches each distinct word's folded form and term, so a
corpus pays for folding and stemming once per word type.
"""

from __future__ import annotations

import itertools
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from typing import Final

import Stemmer

from semreport.search._stopwords import LUCENE_ENGLISH

__all__ = [
    "ASCII_WORD_BYTES",
    "STOP_WORDS",
    "WORDS",
    "Tokenizer",
    "find_words",
    "fold_word",
    "iter_words",
    "word_spans",
    "words_within",
]

STOP_WORDS: Final = LUCENE_ENGLISH
"""The English stop words removed by default (Lucene's set)."""

_WORD: Final = re.compile(r"(?u)\b\w\w+\b")
"""The historical word pattern (two or more word characters), kept for the benchmark's peers."""


def _marks() -> str:
    """A character class body of every combining mark (Unicode categories Mn, Mc, Me)."""
    ranges: list[tuple[int, int]] = []
    # Combining marks live in planes 0, 1 and 14 only (Unicode 15).
    for code in itertools.chain(range(0x20000), range(0xE0000, 0xE1000)):
        if unicodedata.category(chr(code)) in ("Mn", "Mc", "Me"):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(f"\\U{a:08x}-\\U{b:08x}" if a != b else f"\\U{a:08x}" for a, b in ranges)


WORDS: Final = re.compile(f"[\\w{_marks()}]+")
"""A word: a run of word characters and combining marks."""

_ASCII_WORDS: Final = re.compile(r"\w+")
""":data:`WORDS` for ASCII text: no combining mark is ASCII, so both find the same words.

The plain class is checked in one step; the one with every combining mark is
several times slower per character.
"""

ASCII_WORD_BYTES: Final = frozenset(c for c in range(128) if chr(c).isalnum() or chr(c) == "_")
"""The ASCII characters that ``\\w`` matches (``[A-Za-z0-9_]``), as byte values."""

_ASCII_SPACES: Final = bytes(c if c in ASCII_WORD_BYTES else 0x20 for c in range(256))
"""A ``bytes.translate`` table turning every character but an ASCII word character to a space."""


def _spaced(text: str) -> str:
    """ASCII ``text`` with every character but a word character turned into a space."""
    return text.encode("ascii").translate(_ASCII_SPACES).decode("ascii")


def find_words(text: str) -> list[str]:
    """``WORDS.findall(text)``: the words of ``text`` in order.

    In ASCII text every character that is not a word character separates
    words, so they are found by turning those into spaces (one
    ``bytes.translate``) and splitting: a few times faster than the regular
    expression on the short fields of a decision.
    """
    if text.isascii():
        return _spaced(text).split()
    return WORDS.findall(text)


def word_spans(text: str, words: Iterable[str]) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of ``words`` in ``text``.

    ``words`` are, in order, every occurrence in ``text`` of some of its words
    (the words of :func:`find_words` for which a test holds): each is found
    after the one before it. In ASCII text a word is looked up as a whole
    word between spaces once the other characters are spaces (no regular
    expression); other text goes through :func:`iter_words`.
    """
    if not text.isascii():
        wanted = frozenset(words)
        return [m.span() for m in iter_words(text) if m.group() in wanted]
    padded = f" {_spaced(text)} "
    out: list[tuple[int, int]] = []
    at = 0
    for word in words:
        # ``start`` is where `` word `` begins in ``padded``: the word's offset in ``text``.
        start = padded.index(f" {word} ", at)
        end = start + len(word)
        out.append((start, end))
        at = end + 1  # the space after the word may lead the next one
    return out


def iter_words(text: str) -> Iterator[re.Match[str]]:
    """``WORDS.finditer(text)``: the words of ``text`` in order, with their offsets."""
    return (_ASCII_WORDS if text.isascii() else WORDS).finditer(text)


def words_within(text: str, start: int, end: int) -> list[re.Match[str]]:
    """The words of ``text`` that lie wholly within ``text[start:end]``, in order.

    Only that part of the text is matched; a word that goes on before
    ``start`` or after ``end`` is left out.
    """
    pattern = _ASCII_WORDS if text.isascii() else WORDS
    start = max(start, 0)
    found = list(pattern.finditer(text, start, end))
    if found and found[0].start() == start > 0 and pattern.match(text, start - 1, start):
        del found[0]  # it began before ``start``
    if found and found[-1].end() == end < len(text) and pattern.match(text, end, end + 1):
        found.pop()  # it goes on after ``end``
    return found


_NOT_WORD: Final = re.compile(r"\W+")


def fold_word(word: str) -> str:
    """Fold one word: NFKC, case folding, NFKD, then only its word characters.

    Applied until nothing changes (at most a few rounds), so folding a folded
    word changes nothing.
    """
    if word.isascii():  # NFKC and NFKD leave ASCII alone; case folding is lower-casing
        lowered = word.lower()
        return lowered if lowered.isalnum() else _NOT_WORD.sub("", lowered)
    for _ in range(4):
        folded = _NOT_WORD.sub(
            "", unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", word).casefold())
        )
        if folded == word:
            break
        word = folded
    return word


class Tokenizer:
    """Turns text into terms under one analysis configuration; caches each word's term.

    Args:
        language: A Snowball language of PyStemmer (checked by
            :class:`~semreport.search.Analyzer`).
        stop_words: The words removed before stemming (folded like the text).
        folding: Fold words (see the module); otherwise only lower-case them.
    """

    __slots__ = ("_fold", "_folded", "_language", "_lock", "_stemmer", "_stop", "_terms")

    def __init__(
        self,
        language: str = "english",
        stop_words: Iterable[str] = STOP_WORDS,
        *,
        folding: bool = True,
    ) -> None:
        self._language = language
        self._fold = folding
        self._stemmer = Stemmer.Stemmer(language)
        self._lock = threading.Lock()
        self._stop = frozenset(self.fold(w) for w in stop_words)
        self._folded: dict[str, str] = {}  # word as written -> folded form
        self._terms: dict[str, str | None] = {}  # word as written -> term, None if none

    def __reduce__(self) -> tuple[Callable[..., Tokenizer], tuple[str, frozenset[str], bool]]:
        # The configuration, not the caches: stop words already folded fold to themselves.
        return (_tokenizer, (self._language, self._stop, self._fold))

    @property
    def stop_words(self) -> frozenset[str]:
        """The stop words, folded."""
        return self._stop

    def fold(self, word: str) -> str:
        """The folded form of one word (not cached)."""
        return fold_word(word) if self._fold else word.lower()

    def words(self, text: str) -> list[str]:
        """Return the lower-cased words of two or more characters of ``text`` (stop words kept)."""
        return [w for w in find_words(text.lower()) if len(w) > 1]

    def folded(self, words: list[str]) -> list[str]:
        """The folded form of each word."""
        cache = self._folded
        missing = [w for w in words if w not in cache]
        if missing:
            self.learn(missing)
        return list(map(cache.__getitem__, words))

    def lookup(self, words: list[str]) -> list[str | None]:
        """The term of each word (``None`` for a stop word or a single character)."""
        cache = self._terms
        try:
            return list(map(cache.__getitem__, words))
        except KeyError:
            self.learn(words)
        return list(map(cache.__getitem__, words))

    def terms(self, text: str) -> list[str]:
        """Return the terms of ``text``, in order, stop words removed."""
        return [t for t in self.lookup(find_words(text)) if t is not None]

    def surface(self, text: str) -> dict[str, str]:
        """Map each term of ``text`` to the first word that produced it, lower-cased."""
        out: dict[str, str] = {}
        words = find_words(text.lower())
        for word, term in zip(words, self.lookup(words), strict=True):
            if term is not None and term not in out:
                out[term] = word
        return out

    def stem_words(self, words: list[str]) -> list[str]:
        """Stem folded words that are known not to be stop words (one call into Snowball)."""
        with self._lock:
            stems: list[str] = self._stemmer.stemWords(words)
        return stems

    def analyse_words(self, words: list[str]) -> list[str | None]:
        """The term of each distinct word, computed now and not cached (the caller caches)."""
        stop = self._stop
        fold = self.fold
        folded = [fold(w) for w in words]
        keep = list(dict.fromkeys(f for f in folded if f not in stop and (len(f) > 1)))
        stems = dict(zip(keep, self.stem_words(keep), strict=True))
        return [stems.get(f) for f in folded]

    def learn(self, words: Iterable[str]) -> None:
        """Fold and stem every word not seen yet, stemming the new ones in one call."""
        folded_cache = self._folded
        terms = self._terms
        fresh = [w for w in dict.fromkeys(words) if w not in terms]
        if not fresh:
            return
        stop = self._stop
        fold = self.fold
        keep: dict[str, str] = {}  # word -> folded, for the words that make terms
        for word in fresh:
            folded = folded_cache.get(word)
            if folded is None:
                folded = folded_cache[word] = fold(word)
            if folded in stop or not (len(folded) > 1):
                terms[word] = None
            else:
                keep[word] = folded
        if keep:
            distinct = list(dict.fromkeys(keep.values()))
            stems = dict(zip(distinct, self.stem_words(distinct), strict=True))
            for word, folded in keep.items():
                terms[word] = stems[folded]


def _tokenizer(language: str, stop_words: frozenset[str], folding: bool) -> Tokenizer:
    """Rebuild a pickled :class:`Tokenizer` from its configuration."""
    return Tokenizer(language, stop_words, folding=folding)
