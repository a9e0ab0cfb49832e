"""Tokenisation: lower-cased words of two or more characters, English stop words, Snowball stems."""

from __future__ import annotations

import re
from typing import Final

import Stemmer

__all__ = ["STOP_WORDS", "Tokenizer"]

STOP_WORDS: Final = frozenset(
    # Lucene's (and Elasticsearch's) default English stop set: short, general, well known.
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
"""The English stop words removed before stemming."""

_WORD: Final = re.compile(r"(?u)\b\w\w+\b")


class Tokenizer:
    """Turns text into Snowball-stemmed terms; caches each word's stem.

    The cache maps a lower-cased word to its stem (or to ``None`` for a stop
    word), so a corpus pays for stemming once per distinct word.
    """

    __slots__ = ("_cache", "_stemmer")

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("english")
        self._cache: dict[str, str | None] = {}

    def words(self, text: str) -> list[str]:
        """Return the lower-cased words of ``text`` (stop words included)."""
        return _WORD.findall(text.lower())

    def terms(self, text: str) -> list[str]:
        """Return the stemmed terms of ``text``, in order, stop words removed."""
        cache = self._cache
        out: list[str] = []
        append = out.append
        missing: list[str] = []
        words = _WORD.findall(text.lower())
        for word in words:
            if word not in cache:
                missing.append(word)  # noqa: PERF401 - a plain loop reads better here
        if missing:
            self._learn(missing)
        for word in words:
            stem = cache[word]
            if stem is not None:
                append(stem)
        return out

    def surface(self, text: str) -> dict[str, str]:
        """Map each term of ``text`` to the first word that produced it (for explanations)."""
        out: dict[str, str] = {}
        words = _WORD.findall(text.lower())
        self._learn([w for w in words if w not in self._cache])
        for word in words:
            stem = self._cache[word]
            if stem is not None and stem not in out:
                out[stem] = word
        return out

    def stem_words(self, words: list[str]) -> list[str]:
        """Stem words that are known not to be stop words (one call into Snowball)."""
        stems: list[str] = self._stemmer.stemWords(words)
        return stems

    def _learn(self, words: list[str]) -> None:
        unique = [w for w in dict.fromkeys(words) if w not in STOP_WORDS]
        for word, stem in zip(unique, self._stemmer.stemWords(unique), strict=True):
            self._cache[word] = stem
        for word in words:
            if word in STOP_WORDS:
                self._cache[word] = None
