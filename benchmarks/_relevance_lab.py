"""Relevance lab: the feedback and propagation building blocks on CISI, MED and ADI, beside bm25s.

Not part of ``python -m benchmarks`` (its name does not start with ``bench_``):
run it as ``python -m benchmarks._relevance_lab``. It builds BM25 arrays from
each collection itself (semreport's tokeniser and stop words, PyStemmer's
English stemmer, title words counted twice, k1 1.5, b 0.75, Lucene's idf), so
that the heuristics of ``semreport.search._feedback`` and
``semreport.search._propagation`` can be measured before the text signal
calls them. It prints nDCG@10 and its ratio to the peers of
``benchmarks/bench_quality.py``:

- find: plain BM25 and BM25 + RM3, beside bm25s;
- similar: the exemplar's BM25 weights, then RM3 without the exemplar, beside
  bm25s queried with the exemplar's text;
- CISI with its direct citations as links: similar, then one propagation step.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from pathlib import Path

import numpy as np
import numpy.typing as npt

from benchmarks.bench_quality import DEPTH, MIN_RELEVANT, _Peer
from semreport.search._feedback import BM25_B, BM25_K1, exemplar_weights, expand
from semreport.search._propagation import neighbourhood, propagate
from semreport.search._text import Tokenizer
from semreport.testing.collections import (
    RetrievalCollection,
    find_collection,
    load_collection,
    ndcg_at,
)

F64 = npt.NDArray[np.float64]
TITLE_WEIGHT = 2


class Bm25:
    """BM25 over a collection, built here from its text (no semreport index involved)."""

    def __init__(self, collection: RetrievalCollection) -> None:
        self.tokenizer = Tokenizer()
        self.ids = [d.id for d in collection.decisions]
        self.row_of = {d: i for i, d in enumerate(self.ids)}
        self.terms: dict[str, int] = {}
        self.names: list[str] = []
        self.counts: list[dict[int, float]] = []  # as the index counts: title words twice
        self.written: list[dict[int, float]] = []  # as written: every word once
        for decision in collection.decisions:
            title = self._ids(self.tokenizer.terms(decision.title))
            body = self._ids(self.tokenizer.terms(f"{decision.statement}\n{decision.rationale}"))
            counted = Counter(body)
            counted.update(title)
            self.written.append({t: float(c) for t, c in counted.items()})
            for _ in range(TITLE_WEIGHT - 1):
                counted.update(title)
            self.counts.append({t: float(c) for t, c in counted.items()})
        self.written_lengths = np.array([sum(c.values()) for c in self.written])
        self.title_once = False  # which counts the relevance model reads
        self.n = len(self.ids)
        self.lengths = np.array([sum(c.values()) for c in self.counts], dtype=np.float64)
        self.average = float(self.lengths.mean())
        df = np.zeros(len(self.names))
        for counted_row in self.counts:
            for term in counted_row:
                df[term] += 1
        self.idf = np.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * self.lengths / self.average)
        rows: list[list[int]] = [[] for _ in self.names]
        impacts: list[list[float]] = [[] for _ in self.names]
        for row, counted_row in enumerate(self.counts):
            for term, tf in counted_row.items():
                rows[term].append(row)
                impacts[term].append(self.idf[term] * tf * (BM25_K1 + 1) / (tf + norm[row]))
        self.postings = [
            (np.array(r, dtype=np.int64), np.array(i)) for r, i in zip(rows, impacts, strict=True)
        ]
        self.rank = np.argsort(np.argsort(np.array(self.ids)))  # ties: decision id order

    def _ids(self, stems: list[str]) -> list[int]:
        out = []
        for stem in stems:
            if stem not in self.terms:
                self.terms[stem] = len(self.names)
                self.names.append(stem)
            out.append(self.terms[stem])
        return out

    def query(self, text: str) -> dict[int, float]:
        """A query's known terms, each weighted by how often it occurs."""
        counted = Counter(self.terms[s] for s in self.tokenizer.terms(text) if s in self.terms)
        return {t: float(c) for t, c in counted.items()}

    def scores(self, query: dict[int, float]) -> F64:
        """Raw BM25 of every row."""
        out = np.zeros(self.n)
        for term, weight in query.items():
            rows, impacts = self.postings[term]
            out[rows] += weight * impacts
        return out

    def normalised(self, query: dict[int, float]) -> F64:
        """BM25 over the query's upper bound, in [0, 1]."""
        bound = sum(w * self.idf[t] * (BM25_K1 + 1) for t, w in query.items())
        return self.scores(query) / bound if bound > 0 else np.zeros(self.n)

    def ranked(self, values: F64, exclude: int | None = None) -> list[str]:
        """The first DEPTH rows with a value above zero: value descending, then id."""
        order = np.lexsort((self.rank, -values))
        return [self.ids[r] for r in order if values[r] > 0 and r != exclude][:DEPTH]

    def _model_counts(self) -> tuple[list[dict[int, float]], F64]:
        if self.title_once:
            return self.written, self.written_lengths
        return self.counts, self.lengths

    def find(self, text: str, *, feedback: bool) -> F64:
        query = self.query(text)
        if not feedback:
            return self.normalised(query)
        first = self.scores(query)
        expansion = expand(query, first, *self._model_counts(), rank=self.rank)
        return self.normalised(expansion.query)

    def similar(self, row: int, *, feedback: bool) -> F64:
        query = exemplar_weights(self.counts[row], float(self.lengths[row]), self.average, self.idf)
        if not feedback:
            return self.normalised(query)
        first = self.scores(query)
        expansion = expand(query, first, *self._model_counts(), exclude=row, rank=self.rank)
        return self.normalised(expansion.query)


def _ratio(ours: list[float], peer: list[float]) -> tuple[float, float, float]:
    a, b = statistics.fmean(ours), statistics.fmean(peer)
    return a, b, a / b if b else math.nan


def _collection(name: str, *, links: bool = False) -> RetrievalCollection | None:
    directory = find_collection(name, Path(__file__).resolve().parent)
    return None if directory is None else load_collection(name, directory, links=links)


def _measure(title_once: bool) -> None:
    """Every collection, then CISI with links; the relevance model reads the chosen counts."""
    find_ratios: dict[str, list[float]] = {"bm25": [], "rm3": []}
    similar_ratios: dict[str, list[float]] = {"weights": [], "rm3": []}
    for name in ("cisi", "med", "adi"):
        collection = _collection(name)
        if collection is None:
            print(f"{name}: not found")
            continue
        index = Bm25(collection)
        index.title_once = title_once
        peer = _Peer(collection)
        judged = collection.judged()
        f: dict[str, list[float]] = {"peer": [], "bm25": [], "rm3": []}
        s: dict[str, list[float]] = {"peer": [], "weights": [], "rm3": []}
        for q in judged:
            relevant = set(collection.relevant[q])
            text = collection.queries[q]
            f["peer"].append(ndcg_at(peer.ranked(text, DEPTH), relevant))
            f["bm25"].append(ndcg_at(index.ranked(index.find(text, feedback=False)), relevant))
            f["rm3"].append(ndcg_at(index.ranked(index.find(text, feedback=True)), relevant))
            chosen = collection.relevant[q]
            if len(chosen) >= MIN_RELEVANT:
                exemplar, rest = chosen[0], set(chosen[1:])
                row = index.row_of[exemplar]
                base = peer.ranked(collection.text(exemplar), DEPTH + 1)
                s["peer"].append(ndcg_at([d for d in base if d != exemplar], rest))
                for key, feedback in (("weights", False), ("rm3", True)):
                    values = index.similar(row, feedback=feedback)
                    s[key].append(ndcg_at(index.ranked(values, exclude=row), rest))
        print(f"  {name.upper()} ({len(judged)} queries, {len(s['peer'])} exemplars)")
        for key in ("bm25", "rm3"):
            ours, theirs, ratio = _ratio(f[key], f["peer"])
            find_ratios[key].append(ratio)
            print(f"    find {key:10} nDCG@10 {ours:.4f}  bm25s {theirs:.4f}  ratio {ratio:.3f}")
        for key in ("weights", "rm3"):
            ours, theirs, ratio = _ratio(s[key], s["peer"])
            similar_ratios[key].append(ratio)
            print(
                f"    similar {key:7} nDCG@10 {ours:.4f}  bm25s exemplar text {theirs:.4f}  "
                f"ratio {ratio:.3f}"
            )
    print("  mean ratios over the collections")
    for key, ratios in find_ratios.items():
        print(f"    find {key:10} {statistics.fmean(ratios):.3f}")
    for key, ratios in similar_ratios.items():
        print(f"    similar {key:7} {statistics.fmean(ratios):.3f}")
    _links(title_once)


def _links(title_once: bool) -> None:
    collection = _collection("cisi", links=True)
    if collection is None:
        return
    index = Bm25(collection)
    index.title_once = title_once
    peer = _Peer(collection)
    sources, targets = [], []
    for decision in collection.decisions:
        for link in decision.links:
            if link.target in index.row_of:
                sources.append(index.row_of[decision.id])
                targets.append(index.row_of[link.target])
    indptr, indices = neighbourhood(
        index.n, np.array(sources, dtype=np.int64), np.array(targets, dtype=np.int64)
    )
    text_only: list[float] = []
    linked: list[float] = []
    baseline: list[float] = []
    weights: list[float] = []
    for q in collection.judged():
        chosen = collection.relevant[q]
        if len(chosen) < MIN_RELEVANT:
            continue
        exemplar, rest = chosen[0], set(chosen[1:])
        row = index.row_of[exemplar]
        values = index.similar(row, feedback=True)
        text_only.append(ndcg_at(index.ranked(values, exclude=row), rest))
        propagated = propagate(values, indptr, indices, exemplar=row, rank=index.rank)
        weights.append(propagated.weight)
        linked.append(ndcg_at(index.ranked(propagated.values, exclude=row), rest))
        base = peer.ranked(collection.text(exemplar), DEPTH + 1)
        baseline.append(ndcg_at([d for d in base if d != exemplar], rest))
    print(f"  CISI + links ({len(linked)} exemplars, {len(indices) // 2:,} undirected edges)")
    for label, figures in (("similar rm3", text_only), ("+ graph", linked)):
        ours, theirs, ratio = _ratio(figures, baseline)
        print(
            f"    {label:15} nDCG@10 {ours:.4f}  bm25s exemplar text {theirs:.4f}  "
            f"ratio {ratio:.3f}"
        )
    print(
        f"    graph weight a: mean {statistics.fmean(weights):.3f}, "
        f"zero for {sum(w == 0 for w in weights)} of {len(weights)} exemplars"
    )


def main() -> None:
    for title_once, label in (
        (False, "as the index counts them (title words twice)"),
        (True, "as written (every word once)"),
    ):
        print(f"== relevance model over feedback rows' terms {label}")
        _measure(title_once)


if __name__ == "__main__":
    main()
