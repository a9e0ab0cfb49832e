"""Highlights: a short fragment of a hit's text with the matched words marked.

The fragment comes from the same analysis as the score: a word is marked when
its term is one of the query's matched terms, so ``Façade`` is marked for the
query ``facade`` and ``CO₂e`` for ``co2e``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from itertools import compress
from operator import itemgetter
from typing import Final, cast

import attrs

from semreport.search._analysis import Analyzer
from semreport.search._text import find_words, word_spans, words_within

__all__ = ["FRAGMENT_SIZE", "Highlight", "highlight", "highlights", "highlights_many"]

FRAGMENT_SIZE: Final = 150
"""About how many characters a fragment holds (a single longer word is kept whole)."""

_ELLIPSIS: Final = "…"
_SPACE: Final = re.compile(r"\s")


@attrs.frozen
class Highlight:
    """One field's best fragment and where the matched words stand in it.

    Attributes:
        field: The field the fragment comes from (``title``, ``statement``...).
        fragment: Plain text, cut at word boundaries; ``…`` marks a cut, and
            line breaks and tabs show as spaces.
        spans: ``(start, end)`` offsets into ``fragment`` of each matched word,
            in order and not overlapping.
    """

    field: str
    fragment: str
    spans: tuple[tuple[int, int], ...]

    def marked(self, before: str = "[", after: str = "]") -> str:
        """The fragment with each matched word between ``before`` and ``after``."""
        out = []
        last = 0
        for start, end in self.spans:
            out.append(self.fragment[last:start])
            out.append(f"{before}{self.fragment[start:end]}{after}")
            last = end
        out.append(self.fragment[last:])
        return "".join(out)


def highlight(
    analyzer: Analyzer,
    field: str,
    text: str,
    terms: Collection[str],
    *,
    size: int = FRAGMENT_SIZE,
) -> Highlight | None:
    """The best fragment of one field's ``text`` for the matched ``terms`` (``None`` if none).

    The best fragment is the window of about ``size`` characters holding the
    most distinct matched terms, then the most matched words, the earliest
    first; it is cut at word boundaries.
    """
    shown = highlights_many(analyzer, [{field: text}], terms, limit=1, size=size)[0]
    return shown[0] if shown else None


def highlights(
    analyzer: Analyzer,
    fields: Mapping[str, str],
    terms: Collection[str],
    *,
    limit: int = 2,
    size: int = FRAGMENT_SIZE,
) -> tuple[Highlight, ...]:
    """The fragments of the best matching fields (at most ``limit``), best first.

    Fields rank by distinct matched terms, then matched words, then the
    order of ``fields``.
    """
    return highlights_many(analyzer, [fields], terms, limit=limit, size=size)[0]


def highlights_many(
    analyzer: Analyzer,
    documents: Sequence[Mapping[str, str]],
    terms: Collection[str],
    *,
    limit: int = 2,
    size: int = FRAGMENT_SIZE,
) -> list[tuple[Highlight, ...]]:
    """:func:`highlights` for every document of a page.

    A field's words are looked up in the analyzer's word cache (a field's new
    words are folded and stemmed in one call). Only the fields shown are
    located, and only in part: their matched words and, in a field cut to a
    fragment, the words between the fragment's edges and its matched words,
    so a long field costs about what a short one does.
    """
    wanted = frozenset(terms)
    if not wanted:
        return [() for _ in documents]
    lookup = analyzer.tokenizer.lookup
    held = wanted.__contains__
    out: list[tuple[Highlight, ...]] = []
    for fields in documents:
        ranked: list[tuple[int, int, int, str, list[str], list[str | None], list[bool]]] = []
        for order, (name, text) in enumerate(fields.items()):
            words = find_words(text)
            terms_of = lookup(words)
            flags = list(map(held, terms_of))  # a stop word's None is never wanted
            count = flags.count(True)
            if count:
                distinct = len(set(compress(terms_of, flags)))
                ranked.append((-distinct, -count, order, name, words, terms_of, flags))
        if not ranked:
            out.append(())
            continue
        ranked.sort(key=_RANK_KEY)
        shown: list[Highlight] = []
        for *_, name, words, terms_of, flags in ranked[:limit]:  # only the fields shown are located
            text = fields[name]
            located = word_spans(text, compress(words, flags))  # only the matched words
            if len(text) <= size:  # shown whole
                shown.append(Highlight(name, _one_line(text), tuple(located)))
                continue
            # Cut at the best run of matches, widened at the words about its edges only.
            # A flagged word's term is a wanted term, never a stop word's None.
            matched = cast("list[str]", list(compress(terms_of, flags)))
            hits = [(a, b, t) for (a, b), t in zip(located, matched, strict=True)]
            start, end = _best_run(hits, size)
            shown.append(_cut(name, text, hits, *_widen(text, lookup, start, end, size)))
        out.append(tuple(shown))
    return out


def _one_line(text: str) -> str:
    """``text`` with every whitespace character (line breaks, tabs...) shown as a space.

    Every whitespace character but the space is unprintable, so printable text
    is returned as it is, without a pass of the regular expression.
    """
    return text if text.isprintable() else _SPACE.sub(" ", text)


_RANK_KEY: Final = itemgetter(0, 1, 2)


_Token = tuple[int, int, str]
"""A word with a term: its start and end in the text, and its term."""


def _cut(field: str, text: str, hits: Sequence[_Token], first: int, last: int) -> Highlight:
    """The fragment ``text[first:last]`` with the hits inside it marked."""
    head = _ELLIPSIS if first > 0 else ""
    tail = _ELLIPSIS if last < len(text) else ""
    shift = len(head) - first
    fragment = head + _one_line(text[first:last]) + tail
    spans = tuple((a + shift, b + shift) for a, b, _ in hits if a >= first and b <= last)
    return Highlight(field, fragment, spans)


def _best_run(hits: Sequence[_Token], size: int) -> tuple[int, int]:
    """From the start of the first to the end of the last hit of the best run within ``size``.

    The best run holds the most distinct terms, then the most hits, the earliest first.
    """
    best = (0, 0, 0)  # (-distinct terms, -matched words, first hit)
    chosen = (0, 1)
    # Two pointers over the hits, the window's terms counted as it slides.
    counts: dict[str, int] = {}
    right = 0
    count = len(hits)
    for left, (start, _, term) in enumerate(hits):
        if right == left:  # the window holds at least its first hit
            counts[term] = counts.get(term, 0) + 1
            right += 1
        while right < count and hits[right][1] - start <= size:
            added = hits[right][2]
            counts[added] = counts.get(added, 0) + 1
            right += 1
        score = (-len(counts), left - right, left)
        if left == 0 or score < best:
            best, chosen = score, (left, right)
        if counts[term] == 1:
            del counts[term]
        else:
            counts[term] -= 1
    return hits[chosen[0]][0], hits[chosen[1] - 1][1]


def _widen(
    text: str,
    lookup: Callable[[list[str]], list[str | None]],
    start: int,
    end: int,
    size: int,
) -> tuple[int, int]:
    """``text[start:end]`` widened to about ``size``, cut at words that have a term.

    Context goes on both sides, a little more after than before: the first
    word with a term (not a stop word) starting at or after the wanted start,
    the last ending at or before the wanted end. Only the words between the
    wanted edges and ``start:end`` are looked at, and ``lookup`` gives their
    terms.
    """
    spare = max(size - (end - start), 0)
    want_start = start - spare // 3
    want_end = end + spare - (start - max(want_start, 0))
    first = _first_with_term(words_within(text, want_start, start), lookup)
    last = _first_with_term(reversed(words_within(text, end, want_end)), lookup)
    return (start if first is None else first.start()), (end if last is None else last.end())


def _first_with_term(
    words: Iterable[re.Match[str]], lookup: Callable[[list[str]], list[str | None]]
) -> re.Match[str] | None:
    """The first of ``words`` that has a term (is not a stop word), if any.

    Words are looked up one at a time: the first or the second usually has one.
    """
    for word in words:
        if lookup([word.group()])[0] is not None:
            return word
    return None
