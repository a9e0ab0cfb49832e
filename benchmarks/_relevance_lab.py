"""Relevance lab: the measured effect of each heuristic on CISI, MED and ADI, beside the peers.

Not part of ``python -m benchmarks`` (its name does not start with ``bench_``):
run it as ``python -m benchmarks._relevance_lab``. It builds BM25 arrays from
each collection itself (semreport's tokeniser, stop words and stems; k1 1.5,
b 0.75, Lucene's idf; title words counted twice unless a variant says
otherwise), keeps word positions for the proximity variants, and calls the
library's own building blocks where it has them (``semreport.search._feedback``
and ``semreport.search._propagation``). Each line gives nDCG@10 over the peer
of ``benchmarks/bench_quality.py`` (bm25s with the query text, or with the
exemplar's text), per collection, with their mean and minimum. Two signals
``x + y`` are combined with equal weights, as the scorer weighs them.

- find: field weighting (title words x1, x2, x3; BM25F), proximity (BM25TP,
  Tao and Zhai's MinDist), pseudo-relevance feedback (RM3 with the most
  probable terms, and with divergence-selected terms, the default), and
  feedback with proximity;
- similar: MoreLikeThis (the earlier default), the exemplar's BM25 impacts,
  and those with either feedback;
- CISI with its ``.X`` citations as links: similar and find with the graph
  signal, against random links as a control and against the graph without
  its agreement rule; similar also over half the citations (a sparser graph),
  over the citations with as many random links (noisy neighbourhoods), and
  over co-citations (every two documents linked to a common third one, with
  the citations or without them): links whose topic is second-hand.

``python -m benchmarks._relevance_lab --cost [N]`` measures instead what each
heuristic adds per query, through the public facade at N synthetic decisions
(default 100,000): every query is timed with the defaults and with the
heuristic weighted out, in alternation, explanations read; CPU time of the
process (``time.process_time``), medians over 200 queries after 20 warm-ups.

``python -m benchmarks._relevance_lab --short`` asks ``find`` (the library's
defaults, through the public facade, as ``bench_quality`` does) each query cut
to its first 2, 4 and 8 words that are not stop words, beside bm25s with the
same words: how far the gains hold for short queries.
"""

from __future__ import annotations

import itertools
import math
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Final

import attrs
import numpy as np
import numpy.typing as npt

import semreport
from benchmarks.bench_quality import DEPTH, MIN_RELEVANT, _Peer, evaluate
from semreport.search._feedback import best_rows, exemplar_weights, expand, relevance_model
from semreport.search._propagation import Graph, propagate
from semreport.search._text import STOP_WORDS, Tokenizer
from semreport.testing import synthetic_decisions, synthetic_queries
from semreport.testing.collections import (
    RetrievalCollection,
    find_collection,
    load_collection,
    ndcg_at,
)

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
K1, B = 1.5, 0.75
NAMES = ("cisi", "med", "adi")


class Index:
    """BM25 over a collection, built here from its text, with positions and per-field counts."""

    def __init__(self, collection: RetrievalCollection, title_weight: int = 2) -> None:
        tokenizer = Tokenizer()
        self.tokenizer = tokenizer
        self.ids = [d.id for d in collection.decisions]
        self.row_of = {d: i for i, d in enumerate(self.ids)}
        self.terms: dict[str, int] = {}
        self.names: list[str] = []
        self.counts: list[dict[int, float]] = []
        self.fields: list[tuple[Counter[int], Counter[int]]] = []  # title, body (each once)
        self.positions: list[dict[int, list[int]]] = []
        for decision in collection.decisions:
            title = self._ids(tokenizer.terms(decision.title))
            body = self._ids(tokenizer.terms(f"{decision.statement}\n{decision.rationale}"))
            where: dict[int, list[int]] = {}
            for at, term in enumerate([*title, -1, *body]):  # -1: no phrase spans the fields
                if term >= 0:
                    where.setdefault(term, []).append(at)
            self.positions.append(where)
            self.fields.append((Counter(title), Counter(body)))
            counted = Counter(body)
            for _ in range(title_weight):
                counted.update(title)
            self.counts.append({t: float(c) for t, c in counted.items()})
        self.n = len(self.ids)
        self.lengths = np.array([sum(c.values()) for c in self.counts])
        self.average = float(self.lengths.mean())
        df = np.zeros(len(self.names))
        totals = np.zeros(len(self.names))
        for row_counts in self.counts:
            for term, tf in row_counts.items():
                df[term] += 1
                totals[term] += tf
        self.df = df
        self.totals = totals
        self.idf = np.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
        self.norm = K1 * (1.0 - B + B * self.lengths / self.average)
        self.rank = np.argsort(np.argsort(np.array(self.ids)))  # ties: decision id order
        self.postings = self._postings(self._impacts())

    def _ids(self, stems: list[str]) -> list[int]:
        out = []
        for stem in stems:
            if stem not in self.terms:
                self.terms[stem] = len(self.names)
                self.names.append(stem)
            out.append(self.terms[stem])
        return out

    def _impacts(self) -> list[dict[int, float]]:
        return [
            {t: self.idf[t] * tf * (K1 + 1) / (tf + self.norm[r]) for t, tf in c.items()}
            for r, c in enumerate(self.counts)
        ]

    def _postings(self, impacts: list[dict[int, float]]) -> list[tuple[I64, F64]]:
        rows: list[list[int]] = [[] for _ in self.names]
        values: list[list[float]] = [[] for _ in self.names]
        for row, row_impacts in enumerate(impacts):
            for term, impact in row_impacts.items():
                rows[term].append(row)
                values[term].append(impact)
        return [
            (np.array(r, dtype=np.int64), np.array(v)) for r, v in zip(rows, values, strict=True)
        ]

    def bm25f(self, title_weight: float) -> None:
        """Score with BM25F instead: each field's length normalised on its own."""
        title_len = np.array([sum(t.values()) for t, _ in self.fields], dtype=np.float64)
        body_len = np.array([sum(b.values()) for _, b in self.fields], dtype=np.float64)
        t_norm = 1 - B + B * title_len / max(title_len.mean(), 1e-9)
        b_norm = 1 - B + B * body_len / max(body_len.mean(), 1e-9)
        impacts = []
        for row, (title, body) in enumerate(self.fields):
            tf: dict[int, float] = {}
            for term, c in title.items():
                tf[term] = tf.get(term, 0.0) + title_weight * c / t_norm[row]
            for term, c in body.items():
                tf[term] = tf.get(term, 0.0) + c / b_norm[row]
            impacts.append({t: self.idf[t] * x * (K1 + 1) / (x + K1) for t, x in tf.items()})
        self.postings = self._postings(impacts)

    def query(self, text: str) -> dict[int, float]:
        counted = Counter(self.terms[s] for s in self.tokenizer.terms(text) if s in self.terms)
        return {t: float(c) for t, c in counted.items()}

    def raw(self, query: dict[int, float]) -> F64:
        out = np.zeros(self.n)
        for term, weight in query.items():
            rows, impacts = self.postings[term]
            out[rows] += weight * impacts
        return out

    def normalised(self, query: dict[int, float]) -> F64:
        bound = sum(w * self.idf[t] * (K1 + 1) for t, w in query.items())
        return self.raw(query) / bound if bound > 0 else np.zeros(self.n)

    def row_terms(self, row: int) -> tuple[I64, F64]:
        terms = sorted(self.counts[row])
        return np.array(terms, dtype=np.int64), np.array([self.counts[row][t] for t in terms])

    def rows_terms(self, rows: list[int]) -> list[tuple[I64, F64]]:
        return [self.row_terms(row) for row in rows]

    def ranked(self, values: F64, exclude: int = -1, holds: F64 | None = None) -> list[str]:
        """The first DEPTH rows with a value above zero (holding a query term when given)."""
        order = np.lexsort((self.rank, -values))
        keep = [r for r in order if values[r] > 0 and r != exclude]
        if holds is not None:
            keep = [r for r in keep if holds[r] > 0]
        return [self.ids[r] for r in keep[:DEPTH]]


# -- the heuristics ------------------------------------------------------------------------


def feedback(index: Index, first: F64, exclude: int = -1, *, divergent: bool = True) -> F64:
    """The expansion's normalised BM25: divergence-selected terms (default) or most probable."""
    if divergent:
        expansion = expand(
            first,
            index.rows_terms,
            index.lengths,
            index.totals,
            float(index.totals.sum()),
            exclude=exclude if exclude >= 0 else None,
            rank=index.rank,
            names=index.names,
        )
        return index.normalised(expansion.query) if expansion.expanded else np.zeros(index.n)
    rows = best_rows(first, 10, exclude=exclude, rank=index.rank)
    if len(rows) < 10:
        return np.zeros(index.n)
    read = [index.row_terms(int(r)) for r in rows]
    terms, model, _ = relevance_model(
        [float(first[r]) for r in rows],
        [t for t, _ in read],
        [c for _, c in read],
        [float(index.lengths[r]) for r in rows],
    )
    top = np.argsort(-model, kind="stable")[:10]
    mass = float(model[top].sum())
    return index.normalised({int(terms[i]): float(model[i]) / mass for i in top})


def bm25tp(index: Index, query: dict[int, float]) -> tuple[F64, float]:
    """Büttcher, Clarke and Lushman's (2006) proximity part, raw, and its bound."""
    out = np.zeros(index.n)
    for row in np.flatnonzero(index.raw(query) > 0):
        where = index.positions[row]
        hits = sorted((at, t) for t in query if t in where for at in where[t])
        acc: dict[int, float] = {}
        for (p1, t1), (p2, t2) in itertools.pairwise(hits):
            if t1 != t2:
                acc[t1] = acc.get(t1, 0.0) + index.idf[t2] / (p2 - p1) ** 2
                acc[t2] = acc.get(t2, 0.0) + index.idf[t1] / (p2 - p1) ** 2
        out[row] = sum(
            min(1.0, index.idf[t]) * a * (K1 + 1) / (a + index.norm[row]) for t, a in acc.items()
        )
    return out, sum(min(1.0, index.idf[t]) * (K1 + 1) * w for t, w in query.items())


def min_distance(index: Index, query: dict[int, float]) -> F64:
    """Tao and Zhai's (2007) ``log(0.3 + exp(-MinDist)) - log(0.3)`` per row (0: under 2 terms)."""
    out = np.zeros(index.n)
    for row in np.flatnonzero(index.raw(query) > 0):
        where = index.positions[row]
        held = [np.array(where[t]) for t in query if t in where]
        if len(held) < 2:
            continue
        best = min(
            int(np.abs(a[:, None] - b[None, :]).min())
            for i, a in enumerate(held)
            for b in held[i + 1 :]
        )
        out[row] = math.log(0.3 + math.exp(-best)) - math.log(0.3)
    return out


# -- evaluation ------------------------------------------------------------------------------

Find = Callable[[Index, str], F64]
Similar = Callable[[Index, int], F64]


def _find_variants() -> dict[str, tuple[int | str, Find]]:
    def plain(index: Index, text: str) -> F64:
        return index.normalised(index.query(text))

    def with_feedback(divergent: bool) -> Find:
        def run(index: Index, text: str) -> F64:
            query = index.query(text)
            extra = feedback(index, index.raw(query), divergent=divergent)
            return (index.normalised(query) + extra) / 2

        return run

    def with_tp(index: Index, text: str) -> F64:
        query = index.query(text)
        part, bound = bm25tp(index, query)
        total = sum(w * index.idf[t] * (K1 + 1) for t, w in query.items()) + bound
        return (index.raw(query) + part) / total if total else np.zeros(index.n)

    def with_min_distance(index: Index, text: str) -> F64:
        query = index.query(text)
        return index.raw(query) + min_distance(index, query)

    def feedback_tp(index: Index, text: str) -> F64:
        query = index.query(text)
        return (with_tp(index, text) + feedback(index, index.raw(query))) / 2

    return {
        "BM25, title words x1 (= bm25s)": (1, plain),
        "BM25, title words x2 (default)": (2, plain),
        "BM25, title words x3": (3, plain),
        "BM25F, title weight 2": ("bm25f", plain),
        "BM25 + proximity (BM25TP)": (2, with_tp),
        "BM25 + proximity (MinDist)": (2, with_min_distance),
        "text + feedback, most probable terms (RM3)": (2, with_feedback(False)),
        "text + feedback, divergent terms (default)": (2, with_feedback(True)),
        "text + feedback + proximity (BM25TP)": (2, feedback_tp),
    }


def _mlt(index: Index, row: int) -> F64:
    """MoreLikeThis as the earlier default: 25 terms by tf x idf, boosted by score / best."""
    counts = index.counts[row]
    scored = sorted(
        ((tf * index.idf[t], t) for t, tf in counts.items() if index.df[t] >= 2),
        key=lambda item: (-item[0], index.names[item[1]]),
    )[:25]
    if not scored:
        return np.zeros(index.n)
    return index.normalised({t: s / scored[0][0] for s, t in scored})


def _exemplar(index: Index, row: int) -> dict[int, float]:
    counts = {t: tf for t, tf in index.counts[row].items() if index.df[t] >= 2}
    return exemplar_weights(counts, float(index.lengths[row]), index.average, index.idf)


def _similar_variants() -> dict[str, Similar]:
    def weights(index: Index, row: int) -> F64:
        return index.normalised(_exemplar(index, row))

    def with_feedback(divergent: bool) -> Similar:
        def run(index: Index, row: int) -> F64:
            query = _exemplar(index, row)
            extra = feedback(index, index.raw(query), row, divergent=divergent)
            return (index.normalised(query) + extra) / 2

        return run

    return {
        "MoreLikeThis, 25 terms (earlier default)": _mlt,
        "exemplar's BM25 impacts (terms)": weights,
        "terms + feedback, most probable terms (RM3)": with_feedback(False),
        "terms + feedback, divergent terms (default)": with_feedback(True),
    }


def _collection(name: str, *, links: bool = False) -> RetrievalCollection | None:
    directory = find_collection(name, Path(__file__).resolve().parent)
    return None if directory is None else load_collection(name, directory, links=links)


def _line(label: str, ratios: list[float]) -> str:
    cells = " | ".join(f"{r:.3f}" for r in ratios)
    return (
        f"| {label} | {cells} | {statistics.fmean(ratios):.3f} | {min(ratios):.3f} |"
        if ratios
        else f"| {label} | |"
    )


def _measure() -> list[str]:
    collections = {n: c for n in NAMES if (c := _collection(n)) is not None}
    find_rows: dict[str, list[float]] = {}
    similar_rows: dict[str, list[float]] = {}
    for collection in collections.values():
        peer = _Peer(collection)
        judged = collection.judged()
        built: dict[int | str, Index] = {}
        peer_find = [
            ndcg_at(peer.ranked(collection.queries[q], DEPTH), set(collection.relevant[q]))
            for q in judged
        ]
        for label, (form, run) in _find_variants().items():
            if form not in built:
                built[form] = Index(collection, 2 if form == "bm25f" else int(form))
                if form == "bm25f":
                    built[form].bm25f(2.0)
            index = built[form]
            ours = []
            for q in judged:
                text = collection.queries[q]
                holds = index.raw(index.query(text))
                ours.append(
                    ndcg_at(
                        index.ranked(run(index, text), holds=holds), set(collection.relevant[q])
                    )
                )
            find_rows.setdefault(label, []).append(
                statistics.fmean(ours) / statistics.fmean(peer_find)
            )
        index = built[2]
        exemplars = [q for q in judged if len(collection.relevant[q]) >= MIN_RELEVANT]
        peer_similar = []
        for q in exemplars:
            first, *rest = collection.relevant[q]
            ranked = [d for d in peer.ranked(collection.text(first), DEPTH + 1) if d != first]
            peer_similar.append(ndcg_at(ranked, set(rest)))
        for label, run_similar in _similar_variants().items():
            ours = []
            for q in exemplars:
                first, *rest = collection.relevant[q]
                row = index.row_of[first]
                ours.append(ndcg_at(index.ranked(run_similar(index, row), exclude=row), set(rest)))
            similar_rows.setdefault(label, []).append(
                statistics.fmean(ours) / statistics.fmean(peer_similar)
            )
    header = " | ".join(n.upper() for n in collections)
    rule = "|".join("---" for _ in range(len(collections) + 3))
    lines = ["### find: nDCG@10 over bm25s\n", f"| variant | {header} | mean | min |", f"|{rule}|"]
    lines += [_line(label, ratios) for label, ratios in find_rows.items()]
    lines += ["", "### similar: nDCG@10 over bm25s with the exemplar's text\n"]
    lines += [f"| variant | {header} | mean | min |", f"|{rule}|"]
    lines += [_line(label, ratios) for label, ratios in similar_rows.items()]
    return lines


GRAPHS: Final = (
    "citations",
    "random links",
    "half the citations",
    "citations + random links",
    "co-citations",
    "co-citations, not citations",
)
"""The graphs over CISI: its citations; as many random links (the control); a random
half of the citations (a sparser graph); the citations and as many random links (half
of every neighbourhood is noise); every two documents that the citations link to a
common third one (co-citation lists, about twelve times as many links); those of them
that are not citations themselves."""


def co_citations(pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Every two distinct rows (lower first) that ``pairs``, either way, tie to a common row."""
    neighbours: dict[int, set[int]] = {}
    for a, b in pairs:
        if a != b:
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
    return {
        pair for around in neighbours.values() for pair in itertools.combinations(sorted(around), 2)
    }


def _graph(index: Index, collection: RetrievalCollection, variant: str) -> Graph:
    """CISI's citations as an undirected graph, or a variant of it (:data:`GRAPHS`)."""
    pairs = {
        (index.row_of[d.id], index.row_of[link.target])
        for d in collection.decisions
        for link in d.links
        if link.target in index.row_of
    }
    rng = np.random.default_rng(0)
    noise = {(int(a), int(b)) for a, b in rng.integers(0, index.n, (len(pairs), 2))}
    if variant == "random links":
        pairs = noise
    elif variant == "half the citations":
        ordered = sorted(pairs)
        pairs = {ordered[i] for i in rng.permutation(len(ordered))[: len(ordered) // 2].tolist()}
    elif variant == "citations + random links":
        pairs |= noise
    elif variant == "co-citations":
        pairs = co_citations(pairs)
    elif variant == "co-citations, not citations":
        cited = pairs | {(b, a) for a, b in pairs}
        pairs = co_citations(pairs) - cited
    edges = {(a, b) for a, b in pairs if a != b} | {(b, a) for a, b in pairs if a != b}
    ordered = sorted(edges)
    indptr = np.zeros(index.n + 1, dtype=np.int64)
    np.cumsum(np.bincount([a for a, _ in ordered], minlength=index.n), out=indptr[1:])
    rows = np.array([b for _, b in ordered], dtype=np.int64)
    empty = np.zeros(index.n + 1, dtype=np.int64)
    return Graph.build(indptr, rows, empty, np.zeros(0, dtype=np.int64), 0)


def _links() -> list[str]:
    collection = _collection("cisi", links=True)
    if collection is None:
        return []
    index = Index(collection)
    peer = _Peer(collection)
    graphs = {name: _graph(index, collection, name) for name in GRAPHS}
    text_similar = _similar_variants()["terms + feedback, divergent terms (default)"]
    text_find = _find_variants()["text + feedback, divergent terms (default)"][1]
    figures: dict[str, list[float]] = {}
    weights: dict[str, list[float]] = {}
    scales: dict[str, list[float]] = {}

    def add(label: str, value: float) -> None:
        figures.setdefault(label, []).append(value)

    for q in collection.judged():
        relevant = collection.relevant[q]
        text = collection.queries[q]
        holds = index.raw(index.query(text))
        values = text_find(index, text)
        add("find: text + feedback", ndcg_at(index.ranked(values, holds=holds), set(relevant)))
        add("find: peer", ndcg_at(peer.ranked(text, DEPTH), set(relevant)))
        spread = propagate(graphs["citations"], values, rank=index.rank)
        g = spread.propagation.dense()[0]
        combined = (values + spread.value(g)) / (1 + spread.weight)
        add(
            "find: + graph (an option)", ndcg_at(index.ranked(combined, holds=holds), set(relevant))
        )
        if len(relevant) < MIN_RELEVANT:
            continue
        first, *rest = relevant
        row = index.row_of[first]
        values = text_similar(index, row)
        ranked = [d for d in peer.ranked(collection.text(first), DEPTH + 1) if d != first]
        add("similar: peer", ndcg_at(ranked, set(rest)))
        add("similar: terms + feedback", ndcg_at(index.ranked(values, exclude=row), set(rest)))
        for name, graph in graphs.items():
            spread = propagate(graph, values, exemplar=row, rank=index.rank)
            g = spread.propagation.dense()[0]
            weights.setdefault(name, []).append(spread.weight)
            scales.setdefault(name, []).append(spread.scale)
            combined = (values + spread.value(g)) / (1 + spread.weight)
            label = f"similar: + graph over {name} (default)"
            add(label, ndcg_at(index.ranked(combined, exclude=row), set(rest)))
            if name == "citations":
                whole = attrs.evolve(spread, weight=1.0)  # on the text's scale, fully counted
                add(
                    "similar: + graph over citations, no agreement rule (a = 1)",
                    ndcg_at(index.ranked((values + whole.value(g)) / 2, exclude=row), set(rest)),
                )
    find_peer = statistics.fmean(figures.pop("find: peer"))
    similar_peer = statistics.fmean(figures.pop("similar: peer"))
    lines = [
        "### CISI with its citations as links: nDCG@10 over the peer\n",
        "| variant | ratio |",
        "|---|---|",
    ]
    for label, values_ in figures.items():
        peer_mean = find_peer if label.startswith("find") else similar_peer
        lines.append(f"| {label} | {statistics.fmean(values_) / peer_mean:.3f} |")
    lines.append("")
    for name, found in weights.items():
        lines.append(
            f"Graph weight a over {name}: mean {statistics.fmean(found):.3f}, zero for "
            f"{sum(w == 0 for w in found)} of {len(found)} exemplars; scale s: median "
            f"{statistics.median(scales[name]):.2f}."
        )
    return lines


def _cost(size: int) -> list[str]:
    sr = semreport.open("memory://")
    sr.storage.record(synthetic_decisions(size, seed=3, project_id="p"))
    sr.find("p", {"text": "timber"})  # builds the index
    queries = synthetic_queries(220, seed=5)
    exemplars = [f"d-{(i * 7919) % size:06d}" for i in range(220)]

    def timed(call: Callable[[], semreport.SearchResult]) -> float:
        start = time.process_time()
        for hit in call().hits:
            for contribution in hit.explanation:
                _ = contribution.evidence
        return time.process_time() - start

    def paired(
        mode: str, items: list[str], weights: dict[str, float], without: dict[str, float]
    ) -> tuple[float, float]:
        key = "text" if mode == "find" else "decision_id"
        search = getattr(sr, mode)
        times: tuple[list[float], list[float]] = ([], [])
        for i, item in enumerate(items):
            for side, given in enumerate((weights, without)):
                request = {key: item, "weights": given}
                took = timed(lambda request=request: search("p", request))
                if i >= 20:
                    times[side].append(took)
        return statistics.median(times[0]) * 1e3, statistics.median(times[1]) * 1e3

    measures = [
        ("find: feedback (default)", "find", queries, {}, {"feedback": 0.0}),
        (
            "similar: feedback (default; graph off on both sides)",
            "similar",
            exemplars,
            {"graph": 0.0},
            {"graph": 0.0, "feedback": 0.0},
        ),
        ("similar: graph (default)", "similar", exemplars, {}, {"graph": 0.0}),
        ("find: graph (an option, weight 2)", "find", queries, {"graph": 2.0}, {}),
    ]
    lines = [
        f"### Cost per query at {size:,} synthetic decisions (CPU, medians)\n",
        "| heuristic | with | without | added |",
        "|---|---|---|---|",
    ]
    for label, mode, items, weights, without in measures:
        a, b = paired(mode, items, weights, without)
        lines.append(f"| {label} | {a:.2f} ms | {b:.2f} ms | +{a - b:.2f} ms ({a / b:.2f}x) |")
    return lines


_QUERY_WORD = re.compile(r"(?u)\b\w\w+\b")


def short_query(text: str, words: int) -> str:
    """The first ``words`` words of ``text`` that are not stop words."""
    kept = [w for w in _QUERY_WORD.findall(text) if w.lower() not in STOP_WORDS]
    return " ".join(kept[:words])


def _short() -> list[str]:
    """find's ratio to bm25s with every query cut short, and the per-query outcomes."""
    collections = {n: c for n in NAMES if (c := _collection(n)) is not None}
    lines = [
        "| words kept | " + " | ".join(n.upper() for n in collections) + " |",
        "|---|" + "---|" * len(collections),
    ]
    for words in (2, 4, 8):
        cells = []
        for collection in collections.values():
            queries = {q: short_query(t, words) for q, t in collection.queries.items()}
            found = evaluate(attrs.evolve(collection, queries=queries)).find
            better, same, worse = found.outcomes()
            cells.append(f"{found.ratio:.3f} ({better} / {same} / {worse})")
        lines.append(f"| {words} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--short":
        print("\n".join(_short()))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--cost":
        size = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
        print("\n".join(_cost(size)))
        return
    print("\n".join([*_measure(), "", *_links()]))


if __name__ == "__main__":
    main()
