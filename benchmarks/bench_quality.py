"""Search quality on public collections: semreport's find and similar beside bm25s, in one run.

For each collection (CISI, MED, ADI; see ``semreport.testing.collections``),
with the library's defaults through the public facade:

- ``find`` with each judged query's text, beside bm25s (English stop words,
  Snowball stemmer, default BM25 parameters) over title and abstract;
- ``similar`` for each query with three or more relevant documents, its first
  relevant document as exemplar (excluded from both rankings and from the
  judgements), beside bm25s queried with the exemplar's text;
- and CISI again with its ``.X`` direct citations as ``relates_to`` links.

nDCG@10 and recall@100 are means over the queries; a ratio is semreport's mean
divided by the peer's, and the mean ratio is the mean over the collections.
How far each ratio holds beyond its queries is shown per query (better, the
same, worse) and by a paired bootstrap interval over the queries.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import attrs
import bm25s
import numpy as np
import Stemmer

import semreport
from semreport.testing.collections import (
    COLLECTIONS,
    RetrievalCollection,
    find_collection,
    load_collection,
    ndcg_at,
    recall_at,
)

TITLE = "Search quality"
ORDER = 25

DEPTH = 100
"""How many results each side ranks (recall@100)."""
FIND_TARGET = 1.03
"""Issue 13: find's mean ratio to bm25s at least this, no collection below 1.0."""
SIMILAR_TARGET = 1.10
"""Issue 13: similar's mean ratio to exemplar text at least this, no collection below 1.0."""
LINKED_TARGET = 1.15
"""Issue 13: with CISI's citations as links, similar's ratio at least this."""
MIN_RELEVANT = 3
"""A query gives a ``similar`` exemplar when it has at least this many relevant documents."""
RESAMPLES = 2000
"""How many resamples of the queries a ratio's bootstrap interval is read from."""
SEED = 13
"""The resamples' seed: a run repeats its intervals."""


def find_request(text: str) -> dict[str, object]:
    """The request ``find`` gets: the query's text and the page size, nothing else."""
    return {"text": text, "limit": DEPTH}


def similar_request(decision_id: str) -> dict[str, object]:
    """The request ``similar`` gets: the exemplar's id and the page size, nothing else."""
    return {"decision_id": decision_id, "limit": DEPTH}


@attrs.frozen
class Pair:
    """Mean nDCG@10 and recall@100 of semreport and of its peer over the same queries."""

    queries: int
    ours_ndcg: float
    ours_recall: float
    peer_ndcg: float
    peer_recall: float
    ours_each: tuple[float, ...] = ()
    """semreport's nDCG@10 of each query, in order."""
    peer_each: tuple[float, ...] = ()
    """The peer's nDCG@10 of each query, in order."""

    @property
    def ratio(self) -> float:
        """semreport's nDCG@10 over the peer's."""
        return self.ours_ndcg / self.peer_ndcg if self.peer_ndcg else float("nan")

    def outcomes(self) -> tuple[int, int, int]:
        """How many queries semreport ranks better, the same and worse (by nDCG@10)."""
        pairs = list(zip(self.ours_each, self.peer_each, strict=True))
        better = sum(ours > peer for ours, peer in pairs)
        worse = sum(ours < peer for ours, peer in pairs)
        return better, len(pairs) - better - worse, worse

    def interval(self, resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
        """A 95% paired bootstrap interval of :attr:`ratio` (percentiles; NaN without queries).

        Each resample draws the queries with replacement, the same draw for both
        sides, and takes the ratio of the two means (:func:`mean_interval` of one).
        """
        return mean_interval([self], resamples, seed)


@attrs.frozen
class Quality:
    """One collection's figures: ``find`` beside bm25s, ``similar`` beside exemplar text."""

    find: Pair
    similar: Pair


class _Peer:
    """bm25s over the collection's title and abstract, as a user would set it up."""

    def __init__(self, collection: RetrievalCollection) -> None:
        self.ids = [d.id for d in collection.decisions]
        self.stemmer = Stemmer.Stemmer("english")
        self.retriever = bm25s.BM25()
        texts = [collection.text(i) for i in self.ids]
        self.retriever.index(self._tokens(texts), show_progress=False)

    def _tokens(self, texts: list[str]) -> object:
        return bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)

    def ranked(self, text: str, k: int) -> list[str]:
        docs, _ = self.retriever.retrieve(
            self._tokens([text]), k=min(k, len(self.ids)), show_progress=False
        )
        return [self.ids[int(i)] for i in docs[0]]


def _pair(ours: list[list[str]], peers: list[list[str]], relevant: list[set[str]]) -> Pair:
    mean = statistics.fmean
    ours_each = tuple(ndcg_at(r, rel) for r, rel in zip(ours, relevant, strict=True))
    peer_each = tuple(ndcg_at(r, rel) for r, rel in zip(peers, relevant, strict=True))
    return Pair(
        queries=len(relevant),
        ours_ndcg=mean(ours_each),
        ours_recall=mean(recall_at(r, rel, DEPTH) for r, rel in zip(ours, relevant, strict=True)),
        peer_ndcg=mean(peer_each),
        peer_recall=mean(recall_at(r, rel, DEPTH) for r, rel in zip(peers, relevant, strict=True)),
        ours_each=ours_each,
        peer_each=peer_each,
    )


def evaluate(collection: RetrievalCollection) -> Quality:
    """Run every judged query through semreport (library defaults) and bm25s."""
    peer = _Peer(collection)
    project = collection.decisions[0].project_id
    judged = collection.judged()
    find_ours: list[list[str]] = []
    find_peer: list[list[str]] = []
    find_relevant: list[set[str]] = []
    sim_ours: list[list[str]] = []
    sim_peer: list[list[str]] = []
    sim_relevant: list[set[str]] = []
    with semreport.open("memory://") as sr:
        # Written through the storage port, as stored data: two CISI documents cite more
        # documents than a recording request may link (limits.MAX_LINKS), and the benchmark
        # measures search over the collection as it is, not the request limits.
        sr.storage.record(collection.decisions)
        for query in judged:
            text = collection.queries[query]
            find_ours.append([h.decision_id for h in sr.find(project, find_request(text)).hits])
            find_peer.append(peer.ranked(text, DEPTH))
            find_relevant.append(set(collection.relevant[query]))
            chosen = collection.relevant[query]
            if len(chosen) >= MIN_RELEVANT:
                exemplar = chosen[0]
                hits = sr.similar(project, similar_request(exemplar)).hits
                sim_ours.append([h.decision_id for h in hits if h.decision_id != exemplar])
                ranked = peer.ranked(collection.text(exemplar), DEPTH + 1)
                sim_peer.append([d for d in ranked if d != exemplar][:DEPTH])
                sim_relevant.append(set(chosen[1:]))
    return Quality(
        find=_pair(find_ours, find_peer, find_relevant),
        similar=_pair(sim_ours, sim_peer, sim_relevant),
    )


def _row(label: str, pair: Pair) -> str:
    return (
        f"| {label} | {pair.queries} | {pair.ours_ndcg:.4f} | {pair.ours_recall:.4f} "
        f"| {pair.peer_ndcg:.4f} | {pair.peer_recall:.4f} | {pair.ratio:.3f} |"
    )


def _table(peer: str, rows: list[str], mean: float | None) -> list[str]:
    lines = [
        f"| collection | queries | semreport nDCG@10 | recall@100 | {peer} nDCG@10 "
        "| recall@100 | ratio |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ]
    if mean is not None:
        lines.append(f"| **mean ratio** | | | | | | **{mean:.3f}** |")
    return lines


def mean_interval(
    pairs: list[Pair], resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """A 95% bootstrap interval of the mean ratio over collections (NaN if one has no queries).

    Each resample draws every collection's queries with replacement (each
    collection from its own queries, the same draw for both sides) and takes
    the mean of the collections' ratios.
    """
    rng = np.random.default_rng(seed)
    total = np.zeros(resamples)
    for pair in pairs:
        ours = np.asarray(pair.ours_each, dtype=np.float64)
        peer = np.asarray(pair.peer_each, dtype=np.float64)
        if not len(ours):
            return float("nan"), float("nan")
        draws = rng.integers(0, len(ours), size=(resamples, len(ours)))
        sums = peer[draws].sum(axis=1)
        ratios = np.divide(
            ours[draws].sum(axis=1), sums, out=np.full(resamples, np.nan), where=sums > 0
        )
        total += ratios
    means = total[~np.isnan(total)] / max(len(pairs), 1)
    if not len(means):
        return float("nan"), float("nan")
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def _robustness(rows: list[tuple[str, Pair]], means: list[tuple[str, list[Pair]]]) -> list[str]:
    """Per query, better, the same or worse than the peer; the ratio's bootstrap interval."""
    lines = [
        "### How far the ratios hold\n",
        "Per query, semreport's nDCG@10 against the peer's (better, the same, worse), and a 95% "
        f"interval of the ratio from {RESAMPLES:,} resamples of the queries (paired bootstrap, "
        f"percentiles, seed {SEED}: a run repeats it). An interval reaching below 1.0 means "
        "the collection's queries do not show the gain beyond chance. The mean ratio's "
        "interval resamples each collection's queries on its own.\n",
        "| search | queries | better | same | worse | ratio | 95% interval |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, pair in rows:
        better, same, worse = pair.outcomes()
        low, high = pair.interval()
        lines.append(
            f"| {label} | {pair.queries} | {better} | {same} | {worse} | {pair.ratio:.3f} "
            f"| {low:.3f}-{high:.3f} |"
        )
    for label, pairs in means:
        counts = [pair.outcomes() for pair in pairs]
        better, same, worse = (sum(c[i] for c in counts) for i in range(3))
        low, high = mean_interval(pairs)
        mean = statistics.fmean(pair.ratio for pair in pairs)
        lines.append(
            f"| **{label}** | {sum(p.queries for p in pairs)} | {better} | {same} | {worse} "
            f"| **{mean:.3f}** | {low:.3f}-{high:.3f} |"
        )
    return [*lines, ""]


def _verdict(met: bool) -> str:
    return "met" if met else "**not met**"


def _targets(found: dict[str, Quality], order: list[str], linked: Quality | None) -> list[str]:
    """The issue's targets beside the figures above."""
    find = [found[n].find.ratio for n in order]
    similar = [found[n].similar.ratio for n in order]
    lines = [
        "### Targets\n",
        "| target | figure | status |",
        "|---|---|---|",
        f"| find: mean ratio at least {FIND_TARGET:.2f}, no collection below 1.0 "
        f"| mean {statistics.fmean(find):.3f}, lowest {min(find):.3f} "
        f"| {_verdict(statistics.fmean(find) >= FIND_TARGET and min(find) >= 1.0)} |",
        f"| similar: mean ratio at least {SIMILAR_TARGET:.2f}, no collection below 1.0 "
        f"| mean {statistics.fmean(similar):.3f}, lowest {min(similar):.3f} "
        f"| {_verdict(statistics.fmean(similar) >= SIMILAR_TARGET and min(similar) >= 1.0)} |",
    ]
    if linked is not None and "cisi" in found:
        ratio = linked.similar.ratio
        gain = linked.similar.ours_ndcg / found["cisi"].similar.ours_ndcg
        lines += [
            f"| CISI + links, similar: ratio at least {LINKED_TARGET:.2f} | {ratio:.3f} "
            f"| {_verdict(ratio >= LINKED_TARGET)} |",
            f"| CISI + links, similar: gains over the same search without links | {gain:.3f} "
            f"| {_verdict(gain > 1.0)} |",
        ]
    return [*lines, ""]


def run(quick: bool) -> str:
    del quick  # the collections are small: every query is asked in every run
    found: dict[str, Quality] = {}
    missing: list[str] = []
    linked: Quality | None = None
    for name in COLLECTIONS:
        directory = find_collection(name, Path(__file__).resolve().parent)
        if directory is None:
            missing.append(name)
            continue
        found[name] = evaluate(load_collection(name, directory))
        if name == "cisi":
            linked = evaluate(load_collection(name, directory, links=True))
    order = [n for n in ("cisi", "med", "adi") if n in found]
    find_rows = [_row(n.upper(), found[n].find) for n in order]
    similar_rows = [_row(n.upper(), found[n].similar) for n in order]
    find_mean = statistics.fmean(found[n].find.ratio for n in order) if order else None
    similar_mean = statistics.fmean(found[n].similar.ratio for n in order) if order else None
    lines = [
        "The public collections CISI, MED and ADI (`../shared/data/`, or "
        "`SEMREPORT_<NAME>_DIR`), each as one project, searched through the public facade "
        '(`semreport.open("memory://")`) with the library\'s defaults. The peer is bm25s '
        "(English stop words, Snowball stemmer, default BM25 parameters) over each document's "
        "title and abstract. Each figure is the mean over the judged queries; a ratio is "
        "semreport's nDCG@10 over the peer's; the mean ratio is the mean over the collections.\n",
        "### find (query text) beside bm25s\n",
        *_table("bm25s", find_rows, find_mean),
        "",
        "### similar beside bm25s queried with the exemplar's text\n",
        f"For each query with {MIN_RELEVANT} or more relevant documents, its first relevant "
        "document is the exemplar; it is left out of both rankings and of the judgements.\n",
        *_table("bm25s exemplar text", similar_rows, similar_mean),
        "",
    ]
    if linked is not None:
        lines += [
            "### CISI with its direct citations as links\n",
            "The `.X` cross-references of every document become `relates_to` links; the peer "
            "sees text only.\n",
            *_table(
                "bm25s",
                [
                    _row("CISI + links, find", linked.find),
                    _row("CISI + links, similar (peer: exemplar text)", linked.similar),
                ],
                None,
            ),
            "",
        ]
    if order:
        robust = [(f"find, {n.upper()}", found[n].find) for n in order]
        robust += [(f"similar, {n.upper()}", found[n].similar) for n in order]
        if linked is not None:
            robust.append(("similar, CISI + links", linked.similar))
        means = [
            ("find, mean over the collections", [found[n].find for n in order]),
            ("similar, mean over the collections", [found[n].similar for n in order]),
        ]
        lines += _robustness(robust, means)
        lines += _targets(found, order, linked)
    if missing:
        lines.append(
            f"Not found, so not measured: {', '.join(missing)} (set `SEMREPORT_<NAME>_DIR`).\n"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(run(quick=False))
