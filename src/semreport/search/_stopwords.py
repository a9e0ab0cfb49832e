"""Stop word lists per Snowball language.

Sources and licences:

* English (the default): Lucene's (and Elasticsearch's) default English stop
  set, Apache-2.0: short and general, so search quality stays as it was.
* Every other language with a list: the Snowball project's stop word lists
  (snowballstem.org), BSD-3-Clause, as shipped unchanged by PostgreSQL 15
  (``share/postgresql/15/tsearch_data/<language>.stop``). They are the files
  of ``stopwords/`` beside this module, with the licence text in
  ``stopwords/LICENSE``. :func:`snowball_stop_words` gives the Snowball
  English list too, for those who want the longer one.

A language without a list (Snowball stems more languages than it has stop
lists for) gets no stop words by default.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Final

__all__ = ["LUCENE_ENGLISH", "SNOWBALL_LISTS", "default_stop_words", "snowball_stop_words"]

LUCENE_ENGLISH: Final = frozenset(
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
"""Lucene's default English stop set (the English default)."""

SNOWBALL_LISTS: Final = frozenset(
    {
        "danish",
        "dutch",
        "english",
        "finnish",
        "french",
        "german",
        "hungarian",
        "italian",
        "nepali",
        "norwegian",
        "portuguese",
        "russian",
        "spanish",
        "swedish",
        "turkish",
    }
)
"""The languages the Snowball project publishes a stop word list for."""

_ALIASES: Final = {"porter": "english", "dutch_porter": "dutch"}


@functools.cache
def snowball_stop_words(language: str) -> frozenset[str]:
    """The Snowball stop word list of ``language`` (empty if Snowball has none)."""
    name = _ALIASES.get(language, language)
    if name not in SNOWBALL_LISTS:
        return frozenset()
    text = resources.files("semreport.search").joinpath(f"stopwords/{name}.txt").read_text("utf-8")
    return frozenset(word for line in text.splitlines() if (word := line.strip()))


def default_stop_words(language: str) -> frozenset[str]:
    """The stop words an :class:`~semreport.search.Analyzer` of ``language`` removes by default.

    English (and the ``porter`` stemmer) keep Lucene's short English set;
    other languages get the Snowball list, or none if Snowball has none.
    """
    if language in ("english", "porter"):
        return LUCENE_ENGLISH
    return snowball_stop_words(language)
