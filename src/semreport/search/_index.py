"""The per-project search index: an immutable snapshot of Decision Memory at one sequence.

A snapshot holds a sparse term structure (postings in segments, term-major),
numpy columns (lengths, times, facet codes, numeric attributes) and CSR
structures for tags, elements, evidence and links. :meth:`IndexSnapshot.extend`
returns a *new* snapshot for the records appended since: it tokenises only
the new decisions and adds one postings segment, sharing everything else.
Scores never depend on the order records arrived in: corpus statistics are
integer sums and every per-decision value is computed from the set of records.

BM25 impacts (``idf * tf * (k1 + 1) / (tf + k1 * norm)``) depend on corpus
statistics that every append changes, so every snapshot computes all of them
eagerly, vectorised, when it is built: a build or an append pays for them, a
query never does.
"""

from __future__ import annotations

import array
import functools
import itertools
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from semreport.domain import Decision, DecisionDomain, DecisionStatus, LinkKind, StoredRecord
from semreport.search._analysis import Analyzer, Expansion, Token
from semreport.search._propagation import Graph, csr_entries
from semreport.search._text import ASCII_WORD_BYTES, WORDS, find_words

__all__ = ["DENSE_SHARE", "K1", "TITLE_WEIGHT", "B", "IndexSnapshot", "KeyedSets", "Vocabulary"]

K1: Final = 1.5
"""BM25 term-frequency saturation."""
B: Final = 0.75
"""BM25 length normalisation."""
TITLE_WEIGHT: Final = 2
"""How many times a title word counts, against once for statement and rationale words."""
DENSE_SHARE: Final = 3
"""A term held by at least one in this many of a segment's rows is added to scores densely.

Adding a dense column of impacts (0 where a row lacks the term) passes over
every row of the segment, at about a third of a scatter-add's cost per
posting (numpy's ``add.at`` against a plain vectorised add; measured at
100,000 rows): from a third of the rows on, the pass is the cheaper.
"""
_MAX_SEGMENTS: Final = 8
_TAIL: Final = re.compile(r"(\w*\d)([^\W\d_]{1,2})")
_LETTER: Final = re.compile(r"[^\W\d_]")
DEMOTION: Final = 0.5
"""The factor a superseded decision's score is multiplied by under ``demote``."""

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
U64 = npt.NDArray[np.uint64]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

DOMAINS: Final = tuple(DecisionDomain)
STATUSES: Final = tuple(DecisionStatus)
_DOMAIN_CODE: Final[dict[str, int]] = {d.value: i for i, d in enumerate(DOMAINS)}
_STATUS_CODE: Final[dict[str, int]] = {s.value: i for i, s in enumerate(STATUSES)}
LINK_KINDS: Final = tuple(LinkKind)
_LINK_CODE: Final[dict[str, int]] = {k.value: i for i, k in enumerate(LINK_KINDS)}
SUPERSEDES: Final = _LINK_CODE[LinkKind.SUPERSEDES]


class Vocabulary:
    """Append-only maps shared by every snapshot of a project (codes never change)."""

    def __init__(self, analyzer: Analyzer | None = None) -> None:
        self.analyzer = analyzer if analyzer is not None else Analyzer()
        self.tokenizer = self.analyzer.tokenizer
        self.word_term: dict[str, int] = {}  # word -> term id, -1 for a stop word
        self.tails: dict[
            str, list[int]
        ] = {}  # "co2" -> ids of "co2e", "co2eq"... (see query_terms)
        self.terms: dict[str, int] = {}  # stem -> term id
        self.term_names: list[str] = []  # term id -> stem
        self.keys: dict[str, int] = {}  # "tag:fire", "agent:a-1", "element:w-3"... -> key id
        self.key_names: list[str] = []
        self.agents: dict[str, int] = {}
        self.agent_names: list[str] = []
        self.lock = threading.Lock()

    def term_ids(self, words: list[str]) -> list[int]:
        """Map words to term ids (``-1`` for stop words), learning new ones."""
        ids: list[int] = self.word_ids(words).tolist()
        return ids

    def word_ids(self, words: list[str]) -> I64:
        """:meth:`term_ids` as an array, learning only the words not seen yet.

        One lookup per word; the unseen ones (found by that lookup, not by a set
        of every word) are learnt together, as :meth:`learn` learns them.
        """
        table = self.word_term
        ids = np.fromiter(map(table.get, words, itertools.repeat(_UNSEEN)), np.int64, len(words))
        unseen = np.flatnonzero(ids == _UNSEEN).tolist()
        if unseen:
            fresh = [words[i] for i in unseen]
            self.learn(fresh)
            ids[unseen] = list(map(table.__getitem__, fresh))
        return ids

    def learn(self, words: Iterable[str]) -> None:
        """Give every unseen word a term id, folding and stemming the new ones in one call."""
        table = self.word_term
        missing = sorted(set(words).difference(table))
        if not missing:
            return
        terms = self.terms
        for word, stem in zip(missing, self.tokenizer.analyse_words(missing), strict=True):
            if stem is None:
                table[word] = -1
                continue
            tid = terms.get(stem)
            if tid is None:
                tid = terms[stem] = len(terms)
                self.term_names.append(stem)
                tail = _TAIL.fullmatch(stem)
                if tail is not None and _LETTER.search(tail[1]):
                    self.tails.setdefault(tail[1], []).append(tid)
            table[word] = tid

    def query_terms(self, text: str) -> tuple[list[int], dict[int, str]]:
        """Known term ids of ``text`` in order, and the first word of each (nothing is learned).

        Terms that expansions add (see :meth:`query_expansions`) follow the
        query's own, each once; their word is the synonym's.
        """
        analysis = self.analyzer.expand(text)
        known = self.terms
        tids: list[int] = []
        surface: dict[int, str] = {}
        for token in analysis.tokens:
            tid = known.get(token.term, -1)
            if tid >= 0:
                tids.append(tid)
                if tid not in surface:
                    surface[tid] = text[token.start : token.end].lower()
        for expansion in (*analysis.expansions, *self._tail_expansions(text, analysis.tokens)):
            synonym = self.tokenizer.surface(expansion.synonym)
            for term in expansion.terms:
                tid = known.get(term, -1)
                if tid >= 0 and tid not in surface:
                    tids.append(tid)
                    surface[tid] = synonym[term]
        return tids, surface

    def query_expansions(self, text: str) -> tuple[Expansion, ...]:
        """What the query ``text`` gains beyond its own terms.

        The analyzer's synonym groups, then, for a query word ending in a digit
        (``co2``, ``k260``), the indexed words that add one or two letters to
        it (``co2e``): units and variants written onto a number.
        """
        analysis = self.analyzer.expand(text)
        return (*analysis.expansions, *self._tail_expansions(text, analysis.tokens))

    def _tail_expansions(self, text: str, tokens: Iterable[Token]) -> list[Expansion]:
        names = self.term_names
        return [
            Expansion(text[token.start : token.end], names[tid], (names[tid],))
            for token in tokens
            for tid in self.tails.get(token.term, ())
        ]

    def lookup_terms(self, text: str) -> list[int]:
        """Map ``text`` to known term ids (unknown terms are dropped); nothing is learned."""
        return [
            tid for stem in self.tokenizer.terms(text) if (tid := self.terms.get(stem)) is not None
        ]

    def key(self, name: str) -> int:
        """Return the id of a facet or graph key, assigning one if new."""
        code = self.keys.get(name)
        if code is None:
            code = self.keys[name] = len(self.key_names)
            self.key_names.append(name)
        return code

    def agent(self, name: str) -> int:
        """Return the code of an agent, assigning one if new."""
        code = self.agents.get(name)
        if code is None:
            code = self.agents[name] = len(self.agent_names)
            self.agent_names.append(name)
        return code


class _Segment:
    """Postings of the decisions in rows ``[start, stop)``, term-major, rows ascending per term.

    Term frequencies are float32 (small whole numbers, exact); rows are the
    platform's index type, since numpy's scatter-add (``np.add.at``) takes its
    fast path only for native index arrays and queries scatter-add postings.
    """

    __slots__ = ("_by_row", "_totals", "docs", "indptr", "start", "stop", "tfs")

    def __init__(self, start: int, stop: int, indptr: I64, docs: I32 | I64, tfs: F32) -> None:
        self.start = start
        self.stop = stop
        self.indptr = indptr
        self.docs: I64 = docs.astype(np.int64, copy=False)
        self.tfs: F32 = tfs.astype(np.float32, copy=False)
        self._by_row: tuple[I64, I32] | None = None
        self._totals: F64 | None = None

    def span(self, term: int) -> tuple[int, int]:
        """Where ``term``'s postings lie in :attr:`docs` (empty if the segment lacks it)."""
        if term + 1 >= len(self.indptr):
            return 0, 0
        return int(self.indptr[term]), int(self.indptr[term + 1])

    @classmethod
    def from_coo(  # noqa: PLR0917 - internal
        cls, start: int, stop: int, vocab_size: int, terms: I32, docs: I32 | I64, tfs: F32
    ) -> _Segment:
        order = _stable_order(terms, vocab_size)
        counts = np.bincount(terms, minlength=vocab_size)
        indptr = np.zeros(vocab_size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return cls(start, stop, indptr, docs[order], tfs[order])

    def counts(self) -> I64:
        """How many postings each term has in the segment (its document frequency here)."""
        result: I64 = np.diff(self.indptr)
        return result

    def terms(self) -> I32:
        """The term of each posting (computed when asked, not kept)."""
        return np.repeat(np.arange(len(self.indptr) - 1, dtype=np.int32), self.counts())

    def coo(self) -> tuple[I32, I64, F32]:
        return self.terms(), self.docs, self.tfs

    # -- row-major reads (relevance feedback, exemplars), built once per segment --------

    def by_row(self) -> tuple[I64, I32]:
        """Row-major access to the postings: ``(offsets, positions)``, built once.

        Row ``start + i``'s postings are at ``positions[offsets[i]:offsets[i + 1]]``
        of :attr:`docs` and :attr:`tfs`, in term order. Built on first use and kept
        (a segment never changes).
        """
        if self._by_row is None:
            size = self.stop - self.start
            local = (self.docs - self.start).astype(np.int32)
            offsets = np.zeros(size + 1, dtype=np.int64)
            np.cumsum(np.bincount(local, minlength=size), out=offsets[1:])
            self._by_row = (offsets, _stable_order(local, size).astype(np.int32))
        return self._by_row

    def row_postings(self, local: I64) -> tuple[I64, I64]:
        """The postings of rows ``start + local``, row after row in term order.

        Returns positions into :attr:`docs` and :attr:`tfs`, and for each the
        index into ``local`` of its row.
        """
        offsets, order = self.by_row()
        runs, owners = csr_entries(offsets, local)
        positions: I64 = order[runs].astype(np.int64)
        return positions, owners

    def term_totals(self) -> F64:
        """Each term's frequency summed over the segment's rows (whole numbers, exact)."""
        if self._totals is None:
            running = np.zeros(len(self.tfs) + 1)
            np.cumsum(self.tfs, dtype=np.float64, out=running[1:])
            self._totals = running[self.indptr[1:]] - running[self.indptr[:-1]]
        return self._totals


_COUNT_THE_REST: Final = 16
"""Facet counts subtract the rows left out of a match when at most 1/16 of the rows are."""
_EMPTY_I32: Final[I32] = np.zeros(0, dtype=np.int32)
_EMPTY_F64: Final[F64] = np.zeros(0, dtype=np.float64)
_EMPTY_I64: Final[I64] = np.zeros(0, dtype=np.int64)


def _stable_order(keys: I32, size: int) -> I64:
    """A stable argsort of non-negative integers below ``size``.

    Keys that fit 16 bits take numpy's radix sort; wider ones its stable sort
    (as fast here as two radix passes, with half their transient memory).
    """
    if size <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    return np.argsort(keys, kind="stable")


class _Groups:
    """Rows of integer keys gathered flat (no list per row): what :meth:`KeyedSets.extend` takes."""

    __slots__ = ("keys", "lengths")

    def __init__(self) -> None:
        self.keys = array.array("i")
        self.lengths = array.array("i")  # a row's key count: 32 bits hold it, in half the memory

    def add(self, rows: list[list[int]]) -> None:
        """Append rows, each a list of keys."""
        self.add_flat(map(len, rows), itertools.chain.from_iterable(rows))

    def add_flat(self, lengths: Iterable[int], keys: Iterable[int]) -> None:
        """Append rows given by their lengths and their keys, row after row."""
        self.keys.extend(keys)
        self.lengths.extend(lengths)

    def arrays(self) -> tuple[I64, I32]:
        """Every row's length and the keys, row after row."""
        lengths: I64 = np.frombuffer(self.lengths, dtype=np.int32).astype(np.int64)
        return lengths, np.frombuffer(self.keys, dtype=np.int32)


def _distinct_sets(*groups: _Groups) -> tuple[I64, I32]:
    """Each row's keys in all ``groups`` (the same rows in each), sorted ascending, each once.

    A row's keys may repeat, within a group or across them, in any order: one
    sort of every (row, key) pair makes them distinct and sorted, instead of a
    sorted set per row. Returns each row's key count and the keys, row after row.
    """
    parts = [group.arrays() for group in groups]
    rows = len(parts[0][0]) if parts else 0
    keys = np.concatenate([part for _, part in parts]) if parts else _EMPTY_I32
    if not len(keys):
        return np.zeros(rows, dtype=np.int64), keys
    width = int(keys.max()) + 1
    row_ids = np.arange(rows, dtype=np.int64)
    pairs = np.concatenate([np.repeat(row_ids, lengths) for lengths, _ in parts])
    pairs *= width  # in place: the build's peak memory holds one array of pairs
    pairs += keys
    distinct = _counted(pairs)[0]
    counts: I64 = np.bincount(distinct // width, minlength=rows)
    return counts, (distinct % width).astype(np.int32)


class KeyedSets:
    """Per-decision sets of integer keys in CSR form, with derived forms built on first use.

    The key-major transpose and the key weights depend on how many key ids the
    shared vocabulary holds, which appends grow; each is kept for the size it
    was built for and rebuilt for a larger one.
    """

    __slots__ = ("_owner", "_stats", "_transpose", "indptr", "keys")

    def __init__(self, indptr: I64, keys: I32) -> None:
        self.indptr = indptr
        self.keys = keys
        self._owner: I32 | None = None
        self._transpose: tuple[I64, I32] | None = None
        self._stats: tuple[F64, F64] | None = None

    @property
    def rows(self) -> int:
        """How many decisions (rows) the sets describe."""
        return len(self.indptr) - 1

    def of(self, row: int) -> I32:
        """The keys of one decision."""
        return self.keys[self.indptr[row] : self.indptr[row + 1]]

    def extend(self, lengths: I64, flat: I32) -> KeyedSets:
        """These sets followed by rows of ``lengths`` keys each, ``flat`` row after row."""
        indptr = np.concatenate([self.indptr, self.indptr[-1] + np.cumsum(lengths)])
        return KeyedSets(indptr, np.concatenate([self.keys, flat]))

    @property
    def owner(self) -> I32:
        """The row each stored key belongs to."""
        if self._owner is None:
            self._owner = np.repeat(np.arange(self.rows, dtype=np.int32), np.diff(self.indptr))
        return self._owner

    def transpose(self, size: int) -> tuple[I64, I32]:
        """Key-major form: ``(indptr over key ids, rows)``, for ``size`` key ids."""
        cached = self._transpose
        if cached is not None and len(cached[0]) == size + 1:
            return cached
        order = _stable_order(self.keys, size)
        counts = np.bincount(self.keys, minlength=size)
        indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        result = self._transpose = (indptr, self.owner[order])
        return result

    def key_stats(self, size: int) -> tuple[F64, F64]:
        """``log(1 + N / df)`` per key id (0 for keys no row holds), and each row's sum of them."""
        cached = self._stats
        if cached is not None and len(cached[0]) == size:
            return cached
        df = np.bincount(self.keys, minlength=size).astype(np.float64)
        weights = _quantise(np.where(df > 0, np.log1p(self.rows / np.maximum(df, 1.0)), 0.0))
        totals = np.bincount(self.owner, weights=weights[self.keys], minlength=self.rows)
        result = self._stats = (weights, totals.astype(np.float64))
        return result


class _Keys(dict[Any, int]):
    """Key ids by value for one build: a value's key name is formatted on first use only."""

    def __init__(self, vocab: Vocabulary, name: Callable[[Any], str]) -> None:
        super().__init__()
        self._vocab = vocab
        self._name = name

    def __missing__(self, value: Any) -> int:
        code = self[value] = self._vocab.key(self._name(value))
        return code


class _Heads(dict[tuple[str, str, str], tuple[int, int, int, list[int]]]):
    """Per (domain, agent, status): their codes and facet keys, looked up once per build."""

    def __init__(self, vocab: Vocabulary) -> None:
        super().__init__()
        self._vocab = vocab

    def __missing__(self, fixed: tuple[str, str, str]) -> tuple[int, int, int, list[int]]:
        domain, agent, status = fixed
        vocab = self._vocab
        keys = [vocab.key(f"domain:{domain}"), vocab.key(f"agent:{agent}")]
        keys.append(vocab.key(f"status:{status}"))
        found = self[fixed] = (_DOMAIN_CODE[domain], vocab.agent(agent), _STATUS_CODE[status], keys)
        return found


def _empty_sets() -> KeyedSets:
    return KeyedSets(np.zeros(1, dtype=np.int64), _EMPTY_I32)


def _room(scratch: F64, size: int) -> F64:
    """``scratch``, or a buffer at least twice as large when it holds fewer than ``size``."""
    return scratch if len(scratch) >= size else np.empty(max(size, 2 * len(scratch)))


class _Postings(NamedTuple):
    """One segment's postings as :meth:`IndexSnapshot.text_scores` reads them."""

    start: int
    indptr: I64
    docs: I64
    impacts: F32
    columns: dict[int, F64]


class IndexSnapshot:
    """The index of one project as of one sequence number (immutable once built)."""

    def __init__(self, project_id: str, vocab: Vocabulary | None = None) -> None:
        self.project_id = project_id
        self.vocab = vocab if vocab is not None else Vocabulary()
        self.sequence = 0
        self.n = 0
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.titles: list[str] = []  # row -> title
        self.recorded_at: list[datetime | None] = []  # row -> recorded_at
        self.segments: tuple[_Segment, ...] = ()
        self.df: I64 = np.zeros(0, dtype=np.int64)
        self.doc_len: I64 = np.zeros(0, dtype=np.int64)
        self.total_len = 0
        self.recorded: F64 = _EMPTY_F64
        self.domain: npt.NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self.status: npt.NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self.agent: I32 = _EMPTY_I32
        self.facets = _empty_sets()  # domain, agent, status and tag keys
        self.tags = _empty_sets()  # tag keys only (filters)
        self.things = _empty_sets()  # element and evidence keys (graph)
        self.edge_src: I32 = _EMPTY_I32
        self.edge_dst: I32 = _EMPTY_I32
        self.edge_kind: npt.NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self.edge_target: list[str] = []
        self.attributes: dict[str, F64] = {}
        self.idfs: F64 = _EMPTY_F64  # Lucene's idf per term
        self.segment_impacts: tuple[F32, ...] = ()  # BM25 impact per posting, per segment
        self._attribute_values: dict[str, npt.NDArray[np.float32] | None] = {}
        self._scales: dict[str, float] = {}

    # -- building ---------------------------------------------------------------------

    def extend(self, records: Iterable[StoredRecord]) -> IndexSnapshot:
        """Return a new snapshot holding this one's decisions and ``records`` after them.

        The records (as :meth:`~semreport.DecisionMemory.records` yields them,
        in sequence order) are consumed in chunks: only what the index keeps of
        them (postings, columns, titles) outlives a chunk.
        """
        stream = iter(records)
        first = next(stream, None)
        if first is None:
            return self
        vocab = self.vocab
        with vocab.lock:
            return self._extended(itertools.chain([first], stream))

    def _extended(self, stream: Iterator[StoredRecord]) -> IndexSnapshot:  # noqa: PLR0912, PLR0915 - one pass
        vocab = self.vocab
        start = self.n
        new = IndexSnapshot(self.project_id, vocab)
        if len(self.ids) == start:
            new.ids, new.row_of = self.ids, self.row_of
            new.titles, new.recorded_at = self.titles, self.recorded_at
        else:  # this snapshot was extended before: branch off with copies
            new.ids = self.ids[:start]
            new.titles = self.titles[:start]
            new.recorded_at = self.recorded_at[:start]
            new.row_of = {i: r for i, r in self.row_of.items() if r < start}

        # Key names are formatted once per build, not once per decision.
        tag_keys = _Keys(vocab, "tag:{}".format)
        element_keys = _Keys(vocab, "element:{}".format)
        evidence_keys = _Keys(vocab, lambda cited: "evidence:{}:{}".format(*cited))
        heads = _Heads(vocab)
        facet_groups = _Groups()
        tag_groups = _Groups()
        element_groups = _Groups()
        evidence_groups = _Groups()
        domain = array.array("b")
        status = array.array("b")
        agent = array.array("i")
        recorded = array.array("d")
        edges_src = array.array("i")
        edges_kind = array.array("b")
        edges_target: list[str] = []
        numeric: dict[str, tuple[array.array[int], array.array[float]]] = {}
        parts: list[tuple[I32, I32, F32]] = []
        lengths: list[I64] = []
        titles: list[str] = []
        bodies: list[str] = []
        row = start
        sequence = self.sequence

        # Records are read a few at a time and only what the index keeps of them outlives
        # their batch; the texts gather for one postings chunk. Few long-lived containers
        # (flat arrays, not a list per decision) keep the garbage collector's passes short.
        while True:
            batch = [record.wire for record in itertools.islice(stream, _BATCH)]
            fixed = [heads[w["domain"], w["agent"], w["status"]] for w in batch]
            domain.extend([f[0] for f in fixed])
            agent.extend([f[1] for f in fixed])
            status.extend([f[2] for f in fixed])
            tags = [[tag_keys[t] for t in w["tags"]] for w in batch]  # the wire form sorts them
            tag_groups.add(tags)
            facet_groups.add([f[3] + t for f, t in zip(fixed, tags, strict=True)])
            # Repeats and order do not matter here: each row's element and evidence keys
            # are made distinct and sorted once, for every row at the end.
            elements = [w["elements"] for w in batch]
            element_groups.add_flat(
                map(len, elements),
                map(element_keys.__getitem__, itertools.chain.from_iterable(elements)),
            )
            evidence = [w["evidence"] for w in batch]
            evidence_groups.add_flat(
                map(len, evidence),
                [evidence_keys[item["kind"], item["ref"]] for items in evidence for item in items],
            )
            for offset, w in enumerate(batch, row):
                for link in w["links"]:
                    edges_src.append(offset)
                    edges_kind.append(_LINK_CODE[link["kind"]])
                    edges_target.append(link["target"])
                for name, value in w["attributes"].items():
                    kind = type(value)
                    if kind is float or kind is int:
                        pairs = numeric.get(name)
                        if pairs is None:
                            pairs = numeric[name] = (array.array("q"), array.array("d"))
                        pairs[0].append(offset)
                        pairs[1].append(value)
            if batch:
                sequence = batch[-1]["sequence"]
                ids = [w["id"] for w in batch]
                new.ids += ids
                new.row_of.update(zip(ids, range(row, row + len(ids)), strict=True))
                batch_titles = [w["title"] for w in batch]
                new.titles += batch_titles
                titles += batch_titles
                bodies += [f"{w['statement']}\n{w['rationale']}" for w in batch]
                times = list(map(datetime.fromisoformat, [w["recorded_at"] for w in batch]))
                new.recorded_at += times
                recorded.extend(map(datetime.timestamp, times))
                row += len(batch)
            if titles and (len(titles) >= _CHUNK or not batch):
                postings, chunk_lengths = _chunk_postings(vocab, titles, bodies, row - len(titles))
                parts.append(postings)
                lengths.append(chunk_lengths)
                titles, bodies = [], []
            if not batch:
                break

        count = row - start
        batch_len = np.concatenate(lengths)
        segment = _segment(parts, start, row, len(vocab.terms))
        parts.clear()
        n = start + count
        new.n = n
        new.sequence = sequence
        vocab_size = len(vocab.terms)
        segments = (*self.segments, segment)
        if len(segments) > _MAX_SEGMENTS:
            segments = (_merge(segments, vocab_size),)
        new.segments = segments
        df = np.zeros(vocab_size, dtype=np.int64)
        df[: len(self.df)] = self.df
        df[: len(segment.indptr) - 1] += segment.counts()
        new.df = df
        new.doc_len = np.concatenate([self.doc_len, batch_len])
        new.total_len = self.total_len + int(batch_len.sum())
        new.recorded = np.concatenate([self.recorded, np.frombuffer(recorded, dtype=np.float64)])
        new.domain = np.concatenate([self.domain, np.frombuffer(domain, dtype=np.int8)])
        new.status = np.concatenate([self.status, np.frombuffer(status, dtype=np.int8)])
        new.agent = np.concatenate([self.agent, np.frombuffer(agent, dtype=np.int32)])
        new.facets = self.facets.extend(*facet_groups.arrays())
        new.tags = self.tags.extend(*tag_groups.arrays())
        new.things = self.things.extend(*_distinct_sets(element_groups, evidence_groups))

        new.edge_src = np.concatenate([self.edge_src, np.frombuffer(edges_src, dtype=np.int32)])
        new.edge_kind = np.concatenate([self.edge_kind, np.frombuffer(edges_kind, dtype=np.int8)])
        new.edge_target = [*self.edge_target, *edges_target]
        # Link targets resolve against the whole snapshot: a link recorded before its
        # target is resolved once the target arrives, so the order of recording never matters.
        # Edges resolved before stay resolved (rows never move); only the unresolved
        # ones and the new ones are looked up.
        row_of = new.row_of
        old_dst = self.edge_dst.copy()
        pending = np.flatnonzero(old_dst < 0).tolist()
        if pending:
            targets = self.edge_target
            old_dst[pending] = [row_of.get(targets[i], -1) for i in pending]
        new_dst = np.fromiter(
            (row_of.get(t, -1) for t in edges_target), dtype=np.int32, count=len(edges_target)
        )
        new.edge_dst = np.concatenate([old_dst, new_dst])
        if len(new.edge_dst):
            new.edge_dst[new.edge_dst >= n] = -1

        attributes: dict[str, F64] = {}
        for name in sorted(set(self.attributes) | set(numeric)):
            column = np.full(n, np.nan)
            old = self.attributes.get(name)
            if old is not None:
                column[:start] = old
            found = numeric.get(name)
            if found is not None:
                column[np.frombuffer(found[0], np.int64)] = np.frombuffer(found[1], np.float64)
            attributes[name] = column
        new.attributes = attributes
        new._compute_impacts()
        return new

    def build_columns(self) -> None:
        """Compute every query-independent derived column now, not on a query's time.

        Id ranks, supersession, adjacency, key weights and their transposes are
        index structures like the impacts: a build or an append pays for them.
        """
        size = len(self.vocab.key_names)
        for name in (
            "_postings",
            "id_rank",
            "superseded_rows",
            "demotion",
            "degree",
            "node_stats",
            "facet_code",
            "tag_codes",
            "facet_bits",
            "value_totals",
        ):
            getattr(self, name)
        for sets in (self.facets, self.things, self.tags):
            sets.key_stats(size)
            sets.transpose(size)
        self.build_relevance_columns()
        for name in self.attributes:
            self.attribute_values(name)
            self.scale(name)

    def _compute_impacts(self) -> None:
        """Every posting's BM25 impact under this snapshot's corpus statistics (vectorised)."""
        df = self.df.astype(np.float64)
        self.idfs = np.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
        # float32 impacts: half the memory, and ample precision for a ranking.
        idf_k1 = (self.idfs * (K1 + 1.0)).astype(np.float32)
        norm = self.norm.astype(np.float32)
        impacts = []
        for segment in self.segments:
            tfs = segment.tfs
            impact = np.add(tfs, norm[segment.docs])
            np.divide(tfs, impact, out=impact)
            impact *= np.repeat(idf_k1[: len(segment.indptr) - 1], segment.counts())
            impacts.append(impact)
        self.segment_impacts = tuple(impacts)

    # -- text ------------------------------------------------------------------------

    @functools.cached_property
    def norm(self) -> F64:
        """``k1 * (1 - b + b * len / avg_len)`` per decision."""
        avg = self.total_len / self.n if self.n and self.total_len else 1.0
        result: F64 = K1 * (1.0 - B + B * (self.doc_len / avg))
        return result

    def idf(self, term: int) -> float:
        """Lucene's BM25 idf, ``log(1 + (N - df + 0.5) / (df + 0.5))``."""
        return float(self.idfs[term]) if term < len(self.idfs) else _UNSEEN_IDF(self.n)

    def _segments_of(self, rows: I64) -> Iterator[tuple[_Segment, I64]]:
        """Each segment holding some of ``rows``, with the indices into ``rows`` of those."""
        for segment in self.segments:
            inside = np.flatnonzero((rows >= segment.start) & (rows < segment.stop))
            if len(inside):
                yield segment, inside

    @functools.cached_property
    def _postings(self) -> tuple[_Postings, ...]:
        """Per segment: its first row, term offsets, rows, impacts and its common terms' columns.

        A term held by at least one in :data:`DENSE_SHARE` of the segment's rows
        also has its impacts as a dense column over the segment's rows (0 where a
        row lacks it), which :meth:`text_scores` adds in one pass. The column holds
        the float32 impacts widened to float64 once, at build: a query then adds
        (or weights) it without widening every row again.
        """
        out = []
        for segment, impacts in zip(self.segments, self.segment_impacts, strict=True):
            rows = segment.stop - segment.start
            indptr = segment.indptr
            common = np.flatnonzero(np.diff(indptr) * DENSE_SHARE >= max(rows, 1)).tolist()
            columns: dict[int, F64] = {}
            for term in common:
                lo, hi = int(indptr[term]), int(indptr[term + 1])
                column = np.zeros(rows)
                column[segment.docs[lo:hi] - segment.start] = impacts[lo:hi]
                columns[term] = column
            out.append(_Postings(segment.start, indptr, segment.docs, impacts, columns))
        return tuple(out)

    def text_scores(self, weighted_terms: dict[int, float]) -> tuple[F64, float]:
        """BM25 scores of every decision for weighted terms, and their upper bound."""
        scores = np.zeros(self.n)
        bound = 0.0
        # Add term by term in stem order, not id order: ids depend on the order records
        # arrived in. Each row's sum then runs over its terms in stem order, whatever
        # order the rows were recorded in, so equal records give equal floats. A term's
        # rows are distinct, and each row lies in one segment only.
        names = self.vocab.term_names
        idfs = self.idfs
        known = len(idfs)
        postings = self._postings
        add = np.add.at
        scratch = _EMPTY_F64  # weighted impacts, reused across terms
        for term in sorted(weighted_terms, key=names.__getitem__):
            weight = weighted_terms[term]
            bound += weight * (float(idfs[term]) if term < known else self.idf(term)) * (K1 + 1.0)
            for start, indptr, docs, impacts, columns in postings:
                column = columns.get(term)
                if column is not None:
                    # A common term: one pass over the segment's rows. A row without the
                    # term adds 0, and a row with it the same widened, weighted impact
                    # as the scatter-add below, so the sums are the same floats.
                    part = scores[start : start + len(column)]
                    if weight != 1.0:
                        scratch = _room(scratch, len(column))
                        values = np.multiply(column, weight, out=scratch[: len(column)])
                        np.add(part, values, out=part)
                    else:
                        np.add(part, column, out=part)
                elif term + 1 < len(indptr):
                    lo = indptr[term]
                    hi = indptr[term + 1]
                    if hi > lo:
                        # Widened into float64 scratch, then weighted there: numpy's
                        # scatter-add takes its fast path only when the values match the
                        # scores' type, and multiplying the float32 impacts directly would
                        # round every product (and the weight) to float32.
                        scratch = _room(scratch, hi - lo)
                        values = scratch[: hi - lo]
                        np.copyto(values, impacts[lo:hi])
                        if weight != 1.0:
                            values *= weight
                        add(scores, docs[lo:hi], values)
        return scores, bound

    def term_counts(self, decision: Decision) -> dict[int, float]:
        """The weighted term frequencies of a stored decision's text (words it indexed)."""
        vocab = self.vocab
        title = [t for t in vocab.term_ids(find_words(decision.title.lower())) if t >= 0]
        body_text = f"{decision.statement}\n{decision.rationale}"
        body = [t for t in vocab.term_ids(find_words(body_text.lower())) if t >= 0]
        counts: Counter[int] = Counter(body)
        for _ in range(TITLE_WEIGHT):
            counts.update(title)
        return dict(counts)

    # -- relevance: row-major reads, corpus frequencies, the propagation graph ---------

    def build_relevance_columns(self) -> None:
        """Compute what feedback and propagation read (part of :meth:`build_columns`)."""
        for segment in self.segments:
            segment.by_row()
        for name in ("term_totals", "propagation_graph"):
            getattr(self, name)

    def row_terms(self, row: int) -> tuple[I64, F64]:
        """The terms ``row`` holds (ascending ids) and their frequencies (title words twice)."""
        return self.rows_terms([row])[0]

    def rows_terms(self, rows: Sequence[int]) -> list[tuple[I64, F64]]:
        """:meth:`row_terms` of each of ``rows``, read together."""
        out: list[tuple[I64, F64]] = [(_EMPTY_I64, _EMPTY_F64)] * len(rows)
        for segment, slots, terms, positions, ends in self._row_postings(rows):
            tfs = segment.tfs[positions].astype(np.float64)
            start = 0
            for slot, end in zip(slots, ends, strict=True):
                out[slot] = (terms[start:end], tfs[start:end])
                start = end
        return out

    def held_terms(self, rows: Sequence[int]) -> list[frozenset[int]]:
        """The term ids each of ``rows`` holds (what a page's explanations ask about)."""
        out: list[frozenset[int]] = [frozenset()] * len(rows)
        for _, slots, terms, _, ends in self._row_postings(rows):
            held: list[int] = terms.tolist()
            start = 0
            for slot, end in zip(slots, ends, strict=True):
                out[slot] = frozenset(held[start:end])
                start = end
        return out

    def _row_postings(
        self, rows: Sequence[int]
    ) -> Iterator[tuple[_Segment, list[int], I64, I64, list[int]]]:
        """Per segment holding some of ``rows``, their postings read row-major.

        Yields the segment, the indices into ``rows`` of its rows, and for
        their postings (row after row, each row's in term order) the term ids
        and the positions, with the end of each row's run.
        """
        asked = np.asarray(rows, dtype=np.int64)
        for segment, inside in self._segments_of(asked):
            positions, owners = segment.row_postings(asked[inside] - segment.start)
            found = np.searchsorted(segment.indptr, positions, side="right") - 1
            ends: list[int] = np.cumsum(np.bincount(owners, minlength=len(inside))).tolist()
            yield segment, inside.tolist(), found.astype(np.int64, copy=False), positions, ends

    @functools.cached_property
    def term_totals(self) -> F64:
        """Each term's frequency summed over every decision (title words twice)."""
        totals = np.zeros(len(self.vocab.term_names))
        for segment in self.segments:
            part = segment.term_totals()
            totals[: len(part)] += part
        return totals

    @functools.cached_property
    def propagation_graph(self) -> Graph:
        """Links (both ways), shared elements and evidence: what the ``graph`` signal walks."""
        links = self.neighbours
        size = len(self.vocab.key_names)
        return Graph.build(
            links.indptr,
            links.keys,
            self.things.indptr,
            self.things.keys,
            size,
            by_key=self.things.transpose(size),
        )

    # -- derived columns --------------------------------------------------------------

    @functools.cached_property
    def id_rank(self) -> I64:
        """Each decision's position in id order (for tie-breaking)."""
        order = np.argsort(np.array(self.ids[: self.n]), kind="stable")
        rank = np.empty(self.n, dtype=np.int64)
        rank[order] = np.arange(self.n)
        return rank

    @functools.cached_property
    def facet_code(self) -> I64:
        """Per decision, one code for (agent, domain, status, superseded): facets count at once."""
        code = self.agent.astype(np.int64) * len(DOMAINS) + self.domain
        code *= len(STATUSES)
        code += self.status
        code *= 2
        code += self.superseded
        return code

    def facet_code_shape(self) -> tuple[int, int, int, int]:
        """The axes :attr:`facet_code` flattens: agents, domains, statuses, superseded.

        Agents count as many as the shared vocabulary holds now (at least this
        snapshot's).
        """
        return (max(len(self.vocab.agent_names), 1), len(DOMAINS), len(STATUSES), 2)

    def facet_counts(self, rows: I64) -> tuple[I64, I64, I64, I64]:
        """Counts per agent, domain, status and superseded flag over ``rows``."""
        shape = self.facet_code_shape()
        flat = np.bincount(self.facet_code[rows], minlength=int(np.prod(shape)))
        counts = flat[: int(np.prod(shape))].reshape(shape)
        return (
            counts.sum(axis=(1, 2, 3)),
            counts.sum(axis=(0, 2, 3)),
            counts.sum(axis=(0, 1, 3)),
            counts.sum(axis=(0, 1, 2)),
        )

    @functools.cached_property
    def tag_codes(self) -> tuple[I32, list[str]]:
        """Dense tag codes per stored tag (CSR order of :attr:`tags`) and their tag names."""
        present, codes = np.unique(self.tags.keys, return_inverse=True)
        names = self.vocab.key_names
        return codes.astype(np.int32), [names[k].removeprefix("tag:") for k in present.tolist()]

    def tag_counts(self, rows: I64) -> I64:
        """How many of ``rows`` hold each tag (by dense tag code)."""
        codes, names = self.tag_codes
        indptr = self.tags.indptr
        starts = indptr[rows]
        lengths = indptr[rows + 1] - starts
        total = int(lengths.sum())
        if not total:
            return np.zeros(len(names), dtype=np.int64)
        # Positions of every tag of ``rows``: each row's start, then +1 within it.
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        offsets += np.arange(total)
        result: I64 = np.bincount(codes[offsets], minlength=len(names))
        return result

    @functools.cached_property
    def facet_labels(self) -> list[tuple[str, str]]:
        """Every facet value as (facet, value): domains, statuses, superseded, agents, tags."""
        return (
            [("domain", d.value) for d in DOMAINS]
            + [("status", s.value) for s in STATUSES]
            + [("status", "superseded")]
            + [("agent", a) for a in self.vocab.agent_names[: self._agents]]
            + [("tags", t) for t in self.tag_codes[1]]
        )

    @functools.cached_property
    def held_names(self) -> dict[str, frozenset[str]]:
        """The names the snapshot's decisions hold, by kind: ``tag``, ``agent``, ``attribute``.

        Numeric attributes only (the ones filters, ``near`` and the
        ``attributes`` signal use).
        """
        return {
            "tag": frozenset(self.tag_codes[1]),
            "agent": frozenset(self.vocab.agent_names[: self._agents]),
            "attribute": frozenset(self.attributes),
        }

    @functools.cached_property
    def _agents(self) -> int:
        return int(self.agent.max()) + 1 if self.n else 0

    @functools.cached_property
    def facet_bits(self) -> U64 | None:
        """One packed bit row per facet value (:attr:`facet_labels`), or ``None`` if too many.

        Counting the matches holding a value is then a popcount of
        ``bits & packed(match)``: a few thousand words per value.
        """
        labels = self.facet_labels
        if len(labels) > _PACKED_VALUES or not self.n:
            return None
        dense = np.zeros((len(labels), self.n), dtype=np.bool_)
        everyone = np.arange(self.n)
        dense[self.domain, everyone] = True
        offset = len(DOMAINS)
        dense[offset + self.status, everyone] = True
        offset += len(STATUSES)
        dense[offset] = self.superseded
        offset += 1
        dense[offset + self.agent, everyone] = True
        offset += self._agents
        dense[offset + self.tag_codes[0], self.tags.owner] = True
        return packed_words(dense)

    def value_counts(self, match: Bool | None, total: int | None = None) -> I64:
        """How many rows of ``match`` hold each facet value (:attr:`facet_labels` order).

        ``None`` counts every row. The smaller side is counted: when few rows
        are left out of ``match`` (``total`` of them match, if known), the
        counts are every row's less the rows left out.
        """
        if match is None:
            return self.value_totals
        kept = int(np.count_nonzero(match)) if total is None else total
        if self.n - kept <= self.n // _COUNT_THE_REST:
            return self.value_totals - self._rows_value_counts(np.flatnonzero(~match))
        bits = self.facet_bits
        if bits is not None:
            counted: I64 = popcount(bits & packed_words(match)).sum(axis=1, dtype=np.int64)
            return counted
        return self._rows_value_counts(np.flatnonzero(match))

    @functools.cached_property
    def value_totals(self) -> I64:
        """How many decisions hold each facet value (:attr:`facet_labels` order)."""
        return self._rows_value_counts(np.arange(self.n, dtype=np.int64))

    def _rows_value_counts(self, rows: I64) -> I64:
        agents, domains, statuses, superseded = self.facet_counts(rows)
        return np.concatenate(
            [domains, statuses, superseded[1:], agents[: self._agents], self.tag_counts(rows)]
        ).astype(np.int64)

    @functools.cached_property
    def superseded(self) -> Bool:
        """Which decisions another decision of the snapshot supersedes."""
        flags = np.zeros(self.n, dtype=np.bool_)
        chosen = (self.edge_kind == SUPERSEDES) & (self.edge_dst >= 0)
        flags[self.edge_dst[chosen]] = True
        return flags

    @functools.cached_property
    def demotion(self) -> F64:
        """Per decision, the factor ``demote`` applies: 0.5 when superseded, else 1."""
        return np.where(self.superseded, DEMOTION, 1.0)

    @functools.cached_property
    def superseded_rows(self) -> I64:
        """The rows of the superseded decisions."""
        return np.flatnonzero(self.superseded)

    def superseded_by(self, row: int) -> list[str]:
        """Ids of the decisions that supersede ``row``."""
        chosen = (self.edge_kind == SUPERSEDES) & (self.edge_dst == row)
        return sorted(self.ids[int(src)] for src in self.edge_src[chosen])

    @functools.cached_property
    def neighbours(self) -> KeyedSets:
        """Undirected adjacency (resolved links of any kind), as CSR over rows."""
        ok = self.edge_dst >= 0
        src = np.concatenate([self.edge_src[ok], self.edge_dst[ok]])
        dst = np.concatenate([self.edge_dst[ok], self.edge_src[ok]])
        if len(src):
            pairs = _counted(src.astype(np.int64) * max(self.n, 1) + dst)[0]
            src = (pairs // max(self.n, 1)).astype(np.int32)
            dst = (pairs % max(self.n, 1)).astype(np.int32)
        counts = np.bincount(src, minlength=self.n)
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return KeyedSets(indptr, dst.astype(np.int32))

    @functools.cached_property
    def degree(self) -> F64:
        """Links (either way), elements and evidence per decision: how connected it is."""
        links = np.diff(self.neighbours.indptr)
        things = np.diff(self.things.indptr)
        result: F64 = (links + things).astype(np.float64)
        return result

    @functools.cached_property
    def time_span(self) -> tuple[float, float]:
        """The earliest and latest ``recorded_at`` (epoch seconds)."""
        if not self.n:
            return (0.0, 0.0)
        return (float(self.recorded.min()), float(self.recorded.max()))

    def facet_weight_sums(self, keys: Sequence[int]) -> F64:
        """Per decision, the summed weight (:meth:`key_weights`) of the facet ``keys`` it holds.

        Domain, agent and status keys are looked up per decision through its
        :attr:`facet_code` (one table of their sums); tags are added from their
        postings. Weights are multiples of 2**-20, so the sums are exact in any order.
        """
        size = len(self.vocab.key_names)
        weights = self.key_weights(self.facets)
        names = self.vocab.key_names
        shape = self.facet_code_shape()
        # A table per agent: with very many agents, every key is added from its postings.
        table = np.zeros(shape) if shape[0] <= max(self.n, 1024) // 64 else None
        tabled = 0
        posted: list[int] = []
        for key in sorted(set(keys)):
            if key >= size:
                continue
            kind, _, value = names[key].partition(":")
            if table is None or kind not in ("domain", "status", "agent"):
                posted.append(key)
                continue
            if kind == "domain":
                table[:, _DOMAIN_CODE[value]] += weights[key]
            elif kind == "status":
                table[:, :, _STATUS_CODE[value]] += weights[key]
            else:
                # An agent a later append brought in (the vocabulary is shared): none here.
                agent = self.vocab.agents.get(value, shape[0])
                if agent >= shape[0]:
                    continue
                table[agent] += weights[key]
            tabled += 1
        held: F64
        if table is not None and tabled:
            held = np.take(table.reshape(-1), self.facet_code)
        else:
            held = np.zeros(self.n)
        indptr, rows = self.facets.transpose(size)
        for key in posted:
            np.add.at(held, rows[indptr[key] : indptr[key + 1]], weights[key])
        return held

    def key_weights(self, sets: KeyedSets) -> F64:
        """``log(1 + N / df)`` per key of ``sets`` (0 for keys no decision holds)."""
        return sets.key_stats(len(self.vocab.key_names))[0]

    def key_totals(self, sets: KeyedSets) -> F64:
        """The summed key weight of each decision's set."""
        return sets.key_stats(len(self.vocab.key_names))[1]

    @functools.cached_property
    def node_stats(self) -> tuple[F64, F64]:
        """Weights of node keys (a decision and its neighbours) and each decision's total."""
        degree = np.diff(self.neighbours.indptr).astype(np.float64)
        weights = _quantise(np.log1p(self.n / (degree + 1.0)))
        nb = self.neighbours
        totals: F64 = weights + np.bincount(nb.owner, weights=weights[nb.keys], minlength=self.n)
        return weights, totals

    def attribute_values(self, name: str) -> npt.NDArray[np.float32] | None:
        """A numeric attribute as float32, missing values as +inf (closeness exp(-inf) = 0)."""
        cache = self._attribute_values
        if name in cache:
            return cache[name]
        column = self.attributes.get(name)
        found = None
        if column is not None:
            found = np.where(np.isnan(column), np.inf, column).astype(np.float32)
        cache[name] = found
        return found

    def scale(self, name: str) -> float:
        """The spread-based scale of a numeric attribute (IQR / 1.349, else std, else 1)."""
        cache = self._scales
        found = cache.get(name)
        if found is not None:
            return found
        column = self.attributes.get(name)
        values = column[~np.isnan(column)] if column is not None else _EMPTY_F64
        scale = 1.0
        if len(values) >= 2:
            q1, q3 = np.percentile(values, [25, 75])
            scale = float(q3 - q1) / 1.349
            if not scale > 0:
                scale = float(values.std())
            if not scale > 0:
                scale = max(abs(float(values.mean())) * 0.1, 1.0)
        cache[name] = scale
        return scale


_PACKED_VALUES: Final = 256
"""Up to this many facet values, facets are counted on packed bit rows."""
_POPCOUNT: Final = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def packed_words(bits: Bool) -> U64:
    """Bits along the last axis packed into 64-bit words (zero-padded)."""
    packed = np.packbits(bits, axis=-1)
    width = packed.shape[-1]
    if width % 8:
        padded = np.zeros((*packed.shape[:-1], width + (-width) % 8), dtype=np.uint8)
        padded[..., :width] = packed
        packed = padded
    words: U64 = packed.view(np.uint64)
    return words


def popcount(words: U64) -> I64:
    """Set bits per word (``np.bitwise_count`` where numpy has it)."""
    count = getattr(np, "bitwise_count", None)
    if count is not None:
        result: I64 = count(words)
        return result
    as_bytes = words.view(np.uint8)
    per_byte = _POPCOUNT[as_bytes].reshape(*words.shape, 8)
    summed: I64 = per_byte.sum(axis=-1, dtype=np.int64)
    return summed


def _UNSEEN_IDF(n: int) -> float:
    return float(np.log(1.0 + (n + 0.5) / 0.5))


_UNSEEN: Final = -3
"""What :meth:`Vocabulary.word_ids` reads for a word not learnt yet (-1 is a stop word's id)."""
_SEPARATOR: Final = "\x01"
_BREAK: Final = "Q"  # upper case: no lower-cased text holds it
# For ASCII text, \w is [A-Za-z0-9_]: every other character separates words. One
# character for one keeps str.translate on its fast path.
_ASCII_SPLIT: Final = str.maketrans(
    {chr(c): " " for c in range(128) if c not in ASCII_WORD_BYTES} | {_SEPARATOR: _BREAK}
)


_CHUNK: Final = 8192
"""Texts split at once: bounds the word strings alive during a build."""
_BATCH: Final = 32
"""Records read at once during a build: their wire forms die young, before the garbage
collector's first generation fills (700 container allocations by default)."""


def _words(vocab: Vocabulary, texts: list[str], chunk: int = _CHUNK) -> tuple[I64, I64]:
    """Term ids of the words of ``texts`` (stop words dropped) and the text each belongs to.

    The words are those of ``WORDS`` (runs of word characters and combining
    marks, lower-cased); the vocabulary's analyzer folds and stems them.
    Texts go in chunks; an ASCII chunk is split in one pass over its joined
    text, with a marker word between texts; others take the regular
    expression per text.
    """
    if len(texts) <= chunk:
        return _chunk_words(vocab, texts)
    ids: list[I64] = []
    rows: list[I64] = []
    for first in range(0, len(texts), chunk):
        chunk_ids, chunk_rows = _chunk_words(vocab, texts[first : first + chunk])
        ids.append(chunk_ids)
        rows.append(chunk_rows + first)
    return np.concatenate(ids), np.concatenate(rows)


def _chunk_words(vocab: Vocabulary, texts: list[str]) -> tuple[I64, I64]:
    joined = f" {_SEPARATOR} ".join(texts)
    table = vocab.word_term
    if joined.isascii() and joined.count(_SEPARATOR) == len(texts) - 1:
        words = joined.lower().translate(_ASCII_SPLIT).split()
        table[_BREAK] = -2
        ids = vocab.word_ids(words)
        rows = np.cumsum(ids == -2)
    else:
        findall = WORDS.findall
        lists = [findall(text.lower()) for text in texts]
        flat = list(itertools.chain.from_iterable(lists))
        ids = vocab.word_ids(flat)
        lengths = np.fromiter(map(len, lists), np.int64, len(lists))
        rows = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    kept = ids >= 0
    return ids[kept], rows[kept]


def _chunk_postings(
    vocab: Vocabulary, titles: list[str], bodies: list[str], first_row: int
) -> tuple[tuple[I32, I32, F32], I64]:
    """Postings (term, row, tf) of a chunk, term-major with rows ascending, and its lengths.

    Every word goes through one dictionary lookup; the (term, row) pairs are
    counted after one sort (title words count twice).
    """
    size = len(titles)
    title_ids, title_rows = _words(vocab, titles)
    body_ids, body_rows = _words(vocab, bodies)
    keys, tfs = _counted(
        np.concatenate(
            [*(title_ids * size + title_rows,) * TITLE_WEIGHT, body_ids * size + body_rows]
        )
    )
    rows = (keys % size).astype(np.int32)
    lengths = np.bincount(rows, weights=tfs, minlength=size).astype(np.int64)
    postings = ((keys // size).astype(np.int32), rows + np.int32(first_row), tfs.astype(np.float32))
    return postings, lengths


def _segment(parts: list[tuple[I32, I32, F32]], start: int, stop: int, vocab_size: int) -> _Segment:
    """One segment from chunks' postings (chunks in row order)."""
    if len(parts) == 1:
        terms, docs, tfs = parts[0]
        indptr = np.zeros(vocab_size + 1, dtype=np.int64)
        np.cumsum(np.bincount(terms, minlength=vocab_size), out=indptr[1:])
        return _Segment(start, stop, indptr, docs, tfs)
    # A stable sort by term keeps each term's rows ascending across chunks.
    return _Segment.from_coo(
        start,
        stop,
        vocab_size,
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


def _counted(values: I64) -> tuple[I64, I64]:
    """The distinct values in ascending order, and how often each occurs.

    What ``np.unique(values, return_counts=True)`` gives, by one sort: numpy's
    hash-based ``unique`` is many times slower on large integer arrays.
    """
    ordered = np.sort(values)
    if not len(ordered):
        return ordered, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    counts = np.diff(np.append(starts, len(ordered)))
    return ordered[starts], counts


def _quantise(values: F64) -> F64:
    """Round weights to multiples of 2**-20 so that any sum of them is exact.

    Exact sums do not depend on the order of their terms, and that order
    follows row and key ids, which follow the order records arrived in.
    """
    result: F64 = np.round(values * _QUANTUM) / _QUANTUM
    return result


_QUANTUM: Final = float(1 << 20)


def _merge(segments: tuple[_Segment, ...], vocab_size: int) -> _Segment:
    parts = [segment.coo() for segment in segments]
    terms = np.concatenate([p[0] for p in parts])
    docs = np.concatenate([p[1] for p in parts])
    tfs = np.concatenate([p[2] for p in parts])
    return _Segment.from_coo(segments[0].start, segments[-1].stop, vocab_size, terms, docs, tfs)
