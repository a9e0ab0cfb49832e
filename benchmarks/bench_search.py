"""Semantic search: CISI quality beside bm25s, and speed beside bm25s, rank_bm25, FTS5, tantivy."""

from __future__ import annotations

import gc
import importlib.metadata
import re
import sqlite3
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
import bm25s
import numpy as np
import Stemmer
import tantivy
from rank_bm25 import BM25Okapi

import semreport
from semreport.limits import MAX_BATCH_DECISIONS
from semreport.search import HeuristicScorer
from semreport.search._text import STOP_WORDS
from semreport.testing import synthetic_decisions, synthetic_queries
from semreport.testing.cisi import find_cisi, load_cisi, ndcg_at, recall_at

TITLE = "Semantic search"
ORDER = 30

_WORD = re.compile(r"(?u)\b\w\w+\b")


def _median(fn: Callable[[Any], object], items: list[Any]) -> float:
    times = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@attrs.frozen
class _Timing:
    """Paired timings of one measure: medians over every round, and each round's ratio."""

    ours: float
    theirs: float
    ratios: tuple[float, ...]

    @property
    def ratio(self) -> float:
        """The median of the rounds' ratios (ours over theirs)."""
        return statistics.median(self.ratios)

    def spread(self) -> str:
        """The rounds' ratios, lowest to highest (empty for a single round)."""
        if len(self.ratios) < 2:
            return ""
        return f"{min(self.ratios):.2f}-{max(self.ratios):.2f}"


def _paired(
    ours: Callable[[Any], object],
    theirs: Callable[[Any], object],
    rounds: Sequence[Sequence[Any]],
    warm: list[Any],
) -> _Timing:
    """Both sides timed in alternation per item, in rounds, so that machine load hits both alike.

    ``warm`` items (none of them measured) warm both sides' first-use allocations.
    Every measured item is asked once over all rounds (each round brings other
    items), so no per-query cache can serve it. A round's ratio is the ratio of
    its medians; the figures are the medians over every item of every round and
    the median of the rounds' ratios, so that one slow spell of a shared
    machine moves the ratio less than it moves any one round.
    """
    for item in warm:
        ours(item)
        theirs(item)
    a: list[float] = []
    b: list[float] = []
    ratios: list[float] = []
    for items in rounds:
        a_round: list[float] = []
        b_round: list[float] = []
        for item in items:
            start = time.perf_counter()
            ours(item)
            middle = time.perf_counter()
            theirs(item)
            a_round.append(middle - start)
            b_round.append(time.perf_counter() - middle)
        ratios.append(statistics.median(a_round) / statistics.median(b_round))
        a += a_round
        b += b_round
    return _Timing(statistics.median(a), statistics.median(b), tuple(ratios))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _ratio(timing: _Timing) -> str:
    """The ratio cell: the median of the rounds' ratios, and their range."""
    spread = timing.spread()
    return f"{timing.ratio:.2f}" + (f" ({spread})" if spread else "")


def _ratio_row(label: str, size: int, timing: _Timing) -> str:
    """A table row of a measure with bm25s beside it and no other peer."""
    return (
        f"| {label} | {size:,} | {_ms(timing.ours)} | {_ms(timing.theirs)} | {_ratio(timing)} "
        "| | | |"
    )


class _Peers:
    """The peers over one corpus, each with its own query tokenisation included."""

    def __init__(self, texts: list[str], *, slow: bool) -> None:
        self.stemmer = Stemmer.Stemmer("english")
        self.bm25s = bm25s.BM25()
        self.bm25s.index(
            bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False),
            show_progress=False,
        )
        self.rank: BM25Okapi | None = None
        if slow:
            self.rank = BM25Okapi([self._tokens(t) for t in texts])
        self.sqlite = sqlite3.connect(":memory:")
        self.sqlite.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
        self.sqlite.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", enumerate(texts))
        schema = tantivy.SchemaBuilder()
        schema.add_text_field("body", stored=False, tokenizer_name="en_stem")
        schema.add_integer_field("row", stored=True, fast=True)
        self.schema = schema.build()
        self.tantivy = tantivy.Index(self.schema)
        writer = self.tantivy.writer(heap_size=50_000_000, num_threads=1)
        for row, text in enumerate(texts):
            writer.add_document(tantivy.Document(body=text, row=row))
        writer.commit()
        writer.wait_merging_threads()
        self.tantivy.reload()
        self.searcher = self.tantivy.searcher()

    def _tokens(self, text: str) -> list[str]:
        words = [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]
        return self.stemmer.stemWords(words)

    def bm25s_query(self, text: str, k: int = 10) -> Any:
        tokens = bm25s.tokenize([text], stopwords="en", stemmer=self.stemmer, show_progress=False)
        return self.bm25s.retrieve(tokens, k=k, show_progress=False)

    def bm25s_page(self, text: str) -> list[tuple[int, float]]:
        """The top 10 as (row, score) pairs: what a caller reads from either side."""
        docs, scores = self.bm25s_query(text)
        return list(zip(docs[0].tolist(), scores[0].tolist(), strict=True))

    def rank_query(self, text: str) -> Any:
        assert self.rank is not None
        scores = self.rank.get_scores(self._tokens(text))
        return np.argpartition(-scores, 10)[:10]

    def sqlite_query(self, text: str) -> Any:
        terms = " OR ".join(f'"{w}"' for w in _WORD.findall(text.lower()) if w not in STOP_WORDS)
        return self.sqlite.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (terms,)
        ).fetchall()

    def tantivy_query(self, text: str) -> Any:
        words = [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]
        query = self.tantivy.parse_query(" OR ".join(words), ["body"])
        return self.searcher.search(query, 10).hits


def _page(result: semreport.SearchResult) -> list[tuple[str, float]]:
    """The page as (decision id, score) pairs: what a caller reads from either side."""
    return [(hit.decision_id, hit.score) for hit in result.hits]


def _explained(result: semreport.SearchResult) -> list[object]:
    """The page as a user reads it by default: ids, scores and explanations."""
    return [(hit.decision_id, hit.score, hit.explanation) for hit in result.hits]


def _text(decision: semreport.Decision) -> str:
    return f"{decision.title}\n{decision.statement}\n{decision.rationale}"


def _record(sr: semreport.SemReport, decisions: list[semreport.Decision]) -> None:
    """Record decisions in batches the facade accepts."""
    for first in range(0, len(decisions), MAX_BATCH_DECISIONS):
        sr.record(decisions[first : first + MAX_BATCH_DECISIONS])


def _cisi_section() -> str:
    directory = find_cisi(Path(__file__).resolve().parent)
    if directory is None:
        return "CISI not found (set SEMREPORT_CISI_DIR); quality not measured.\n"
    rows = []
    for links in (False, True):
        collection = load_cisi(directory, links=links)
        ids = [d.id for d in collection.decisions]
        peers = _Peers([collection.text(i) for i in ids], slow=False)
        judged = [q for q in collection.queries if q in collection.relevant]
        with semreport.open("memory://") as sr:
            # Through the storage port: two CISI documents cite more documents than a
            # recording request may link (limits.MAX_LINKS).
            sr.storage.record(collection.decisions)
            f_n, f_r, b_n, b_r, s_n, s_r, p_n, p_r = ([] for _ in range(8))
            for q in judged:
                relevant = set(collection.relevant[q])
                ranked = [
                    h.decision_id
                    for h in sr.find("cisi", {"text": collection.queries[q], "limit": 100}).hits
                ]
                f_n.append(ndcg_at(ranked, relevant))
                f_r.append(recall_at(ranked, relevant))
                docs, _ = peers.bm25s_query(collection.queries[q], 100)
                base = [ids[int(i)] for i in docs[0]]
                b_n.append(ndcg_at(base, relevant))
                b_r.append(recall_at(base, relevant))
                chosen = collection.relevant[q]
                if len(chosen) >= 3:
                    exemplar, rest = chosen[0], set(chosen[1:])
                    hits = sr.similar("cisi", {"decision_id": exemplar, "limit": 100}).hits
                    ranked = [h.decision_id for h in hits]
                    s_n.append(ndcg_at(ranked, rest))
                    s_r.append(recall_at(ranked, rest))
                    docs, _ = peers.bm25s_query(collection.text(exemplar), 101)
                    base = [ids[int(i)] for i in docs[0] if ids[int(i)] != exemplar][:100]
                    p_n.append(ndcg_at(base, rest))
                    p_r.append(recall_at(base, rest))
        label = "with `.X` cross-references as links" if links else "title and abstract only"
        mean = statistics.fmean
        if not links:
            rows.append(
                f"| find, {label} ({len(judged)} queries) | {mean(f_n):.4f} | {mean(f_r):.4f} "
                f"| bm25s query | {mean(b_n):.4f} | {mean(b_r):.4f} |"
            )
        rows.append(
            f"| similar, {label} ({len(s_n)} exemplars) | {mean(s_n):.4f} | {mean(s_r):.4f} "
            f"| bm25s exemplar text | {mean(p_n):.4f} | {mean(p_r):.4f} |"
        )
    return (
        "### Quality on CISI\n\n"
        "| semreport | nDCG@10 | recall@100 | peer | nDCG@10 | recall@100 |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        "With the cross-references as links the graph signal counts as much as the links "
        "agree with the text (see `docs/searching.md`); all collections: `bench_quality`.\n"
    )


def _speed_section(quick: bool) -> str:
    sizes = (2_000, 5_000) if quick else (10_000, 100_000)
    small = min(_FIXED_PART_SIZE, sizes[0])  # the project the fixed part is measured over
    n_rounds = 1 if quick else _ROUNDS
    n_queries = 60 if quick else 600  # per round
    # Distinct queries, so none is asked twice (nothing per query is cached on either side).
    distinct = list(dict.fromkeys(synthetic_queries(n_queries * n_rounds * 2, seed=7)))
    assert len(distinct) >= n_queries * n_rounds, "too few distinct synthetic queries"
    rounds = [distinct[r * n_queries : (r + 1) * n_queries] for r in range(n_rounds)]
    queries = rounds[0]
    warm = synthetic_queries(10, seed=70)  # warm-up only: never among the measured queries
    lines = [
        "### Speed (synthetic projects, medians)\n",
        f"{n_rounds} round(s) of {n_queries} queries per figure, each query asked once (ten "
        "other queries warm both sides first), timed in alternation with the peer; a figure is "
        "the median over every query, a ratio the median of the rounds' ratios (their range in "
        "brackets); single-threaded; query tokenisation "
        "included on both sides. semreport is called through the public facade (`sr.find`, "
        "`sr.similar`), and both sides' figures include reading the page's ids and scores. "
        "semreport's include authorisation, request checking, the page's hits (title, "
        "domain, status, agent, time) with their explanations (built for the page, and "
        "read), the total, the facet counts over every match and the next page's signed "
        "cursor; the rows 'explain: false' ask for no explanations. Both builds compute "
        "every BM25 impact; semreport's also reads the decisions from `memory://` and "
        "builds its facet, graph, attribute and ranking columns.\n",
        "| measure | decisions | semreport | bm25s | ratio | rank_bm25 | SQLite FTS5 | tantivy |",
        "|---|---|---|---|---|---|---|---|",
    ]
    extra: list[str] = []
    timings: dict[str, _Timing] = {}
    floors: dict[str, _Timing] = {}
    ratios: dict[str, float] = {}
    for size in sizes:
        decisions = synthetic_decisions(size, seed=3)
        texts = [_text(d) for d in decisions]
        gc.collect()
        peers = _Peers(texts, slow=size <= 10_000 or quick)
        with semreport.open("memory://") as sr:
            _record(sr, decisions)
            sr.scorer.index(sr.storage, "synthetic")  # type: ignore[attr-defined]
            # Builds alternate with the peer's, median of three (one in a quick run): both
            # include tokenisation and every BM25 impact; ours also its facet, graph and
            # attribute columns.
            ours_builds: list[float] = []
            peer_builds: list[float] = []
            for _ in range(1 if quick else 3):
                gc.collect()
                started = time.perf_counter()
                HeuristicScorer().index(sr.storage, "synthetic")
                ours_builds.append(time.perf_counter() - started)
                gc.collect()
                started = time.perf_counter()
                bm25s.BM25().index(
                    bm25s.tokenize(
                        texts, stopwords="en", stemmer=peers.stemmer, show_progress=False
                    ),
                    show_progress=False,
                )
                peer_builds.append(time.perf_counter() - started)
            build = statistics.median(ours_builds)
            peer_build = statistics.median(peer_builds)
            found = _paired(
                lambda q: _explained(sr.find("synthetic", {"text": q})),
                peers.bm25s_page,
                rounds,
                warm,
            )
            plain = _paired(
                lambda q: _page(sr.find("synthetic", {"text": q, "explain": False})),
                peers.bm25s_page,
                [queries],
                warm,
            )
            rank = _ms(_median(peers.rank_query, queries[:50])) if peers.rank else "n/a"
            fts = _median(peers.sqlite_query, queries)
            tan = _median(peers.tantivy_query, queries)
            lines.append(
                f"| text-only find, top 10, explanations read | {size:,} | {_ms(found.ours)} | "
                f"{_ms(found.theirs)} | {_ratio(found)} | {rank} | {_ms(fts)} | {_ms(tan)} |"
            )
            lines.append(_ratio_row("text-only find, top 10, explain: false", size, plain))
            timings["find"] = found
            if size == sizes[-1]:
                full = {
                    "filters": {
                        "domain": ["material", "regulation"],
                        "tags": ["fire", "carbon", "structure"],
                        "attributes": {"cost_eur": {"max": 20_000}},
                    },
                    "weights": {"text": 1.0, "graph": 0.2, "recency": 0.2},
                }
                full_timing = _paired(
                    lambda q, full=full: _explained(sr.find("synthetic", {"text": q, **full})),
                    peers.bm25s_page,
                    [queries],
                    warm,
                )
                lines.append(
                    _ratio_row(
                        "full criteria (text, 2 facet filters, numeric range, graph + recency)",
                        size,
                        full_timing,
                    )
                )
                # Exemplars spread evenly over the project; each round shifts them by one
                # row, so that no exemplar is asked twice.
                step = max(1, size // n_queries)
                exemplar_rounds = [
                    [decisions[i * step + r].id for i in range(n_queries)] for r in range(n_rounds)
                ]
                by_id = {d.id: d for d in decisions}
                exemplar_warm = [decisions[i * step + n_rounds].id for i in range(10)]
                for label, explain in (
                    ("similar by id, explanations read (peer: bm25s, exemplar's text)", True),
                    ("similar by id, explain: false", False),
                ):
                    similar = _paired(
                        lambda e, explain=explain: _explained(
                            sr.similar("synthetic", {"decision_id": e, "explain": explain})
                        ),
                        lambda e, by_id=by_id, peers=peers: peers.bm25s_page(_text(by_id[e])),
                        exemplar_rounds if explain else exemplar_rounds[:1],
                        exemplar_warm,
                    )
                    lines.append(_ratio_row(label, size, similar))
                    if explain:
                        timings["similar"] = similar
                # The part of a request that does not grow with the project: the same requests
                # over its first decisions alone, beside the peer's query over all of them.
                fixed = _fixed_part(
                    decisions[:small],
                    peers,
                    queries,
                    warm,
                    [decisions[i * max(1, small // n_queries)].id for i in range(n_queries)],
                    [decisions[small - 1 - i].id for i in range(10)],
                )
                for key, timing in fixed.items():
                    label = _FIXED_LABELS[key].format(small=small, size=size)
                    lines.append(_ratio_row(label, small, timing))
                    floors[key] = timing
                lines.append(
                    f"| index build (median of {len(ours_builds)}, alternating) | {size:,} "
                    f"| {build:.2f} s | {peer_build:.2f} s | {build / peer_build:.2f} | | | |"
                )
                # Five appends of 1,000 in a row (100,000 -> 105,000), each followed by a
                # query that brings the index up to date; the median is reported.
                appends = 1 if quick else 5
                more = synthetic_decisions(size + 1_000 * appends, seed=3)[size:]
                stored_times: list[float] = []
                appended_times: list[float] = []
                for r in range(appends):
                    batch = more[r * 1_000 : (r + 1) * 1_000]
                    started = time.perf_counter()
                    sr.record(batch)
                    stored_times.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    sr.find("synthetic", {"text": queries[r]})
                    appended_times.append(time.perf_counter() - started)
                appended = statistics.median(appended_times)
                lines.append(
                    f"| append 1,000 then query (index update + query; median of {appends}) "
                    f"| {size:,} -> {size + 1_000 * appends:,} | {appended:.3f} s "
                    f"| full build {build:.2f} s | {appended / build:.3f} of a build | | | |"
                )
                extra.append(
                    "Storing each 1,000 appended decisions in `memory://` took "
                    f"{statistics.median(stored_times):.2f} s (storage, not search); the "
                    f"appends ranged from {min(appended_times):.3f} s to "
                    f"{max(appended_times):.3f} s."
                )
        # Peak memory of the two builds, measured apart (tracemalloc slows what it watches).
        if size == sizes[-1]:
            with semreport.open("memory://") as sr:
                _record(sr, decisions)
                gc.collect()
                tracemalloc.start()
                HeuristicScorer().index(sr.storage, "synthetic")
                ours_peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
            gc.collect()
            tracemalloc.start()
            retriever = bm25s.BM25()
            retriever.index(
                bm25s.tokenize(texts, stopwords="en", stemmer=peers.stemmer, show_progress=False),
                show_progress=False,
            )
            theirs_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            extra.append(
                f"Peak memory of the index build at {size:,} decisions (tracemalloc): semreport "
                f"{ours_peak / 2**20:.0f} MiB, bm25s {theirs_peak / 2**20:.0f} MiB."
            )
            ratios["memory"] = ours_peak / theirs_peak
            ratios["build"] = build / peer_build
        gc.collect()
    extra.append(
        f"Peers: bm25s {bm25s.__version__} (numpy {np.__version__}), rank_bm25, SQLite "
        f"{sqlite3.sqlite_version} FTS5, tantivy {_version('tantivy')}."
    )
    cells = {key: (ratio, f"{ratio:.2f}") for key, ratio in ratios.items()}
    cells.update({key: (timing.ratio, _ratio(timing)) for key, timing in timings.items()})
    body = "\n".join(lines) + "\n\n" + "\n\n".join(extra) + "\n\n"
    return body + _targets(cells, sizes[-1]) + _room(floors, small, sizes[-1])


_ROUNDS: Final = 3
"""Rounds of the paired timings of the bounded measures in a full run (each with other queries)."""

_FIXED_PART_SIZE: Final = 1_000
"""How many decisions the fixed part of a request is measured over (at most the smallest size)."""

_FIXED_LABELS: Final = {
    "find": "fixed part: text-only find over {small:,} decisions, explanations read "
    "(peer: bm25s over {size:,})",
    "similar": "fixed part: similar by id over {small:,} decisions, explanations read "
    "(peer: bm25s over {size:,}, exemplar's text)",
}


def _fixed_part(
    decisions: list[semreport.Decision],
    peers: _Peers,
    queries: list[str],
    warm: list[str],
    exemplars: list[str],
    exemplar_warm: list[str],
) -> dict[str, _Timing]:
    """``find`` and ``similar`` over a small project, paired with the peer over the large one.

    A request's checking, its page (records read and highlighted, every signal
    explained), the facet counts and the cursor cost about as much over 1,000
    decisions as over 100,000; only the passes over the rows grow. Timed beside
    the peer's query over the large project, the small project's requests are
    about the least a request over the large one can cost: when that ratio
    reaches a bound, no speed-up of the passes over rows can meet it on this
    machine.
    """
    by_id = {d.id: d for d in decisions}
    with semreport.open("memory://") as small:
        _record(small, decisions)
        small.scorer.index(small.storage, "synthetic")  # type: ignore[attr-defined]
        return {
            "find": _paired(
                lambda q: _explained(small.find("synthetic", {"text": q})),
                peers.bm25s_page,
                [queries],
                warm,
            ),
            "similar": _paired(
                lambda e: _explained(small.similar("synthetic", {"decision_id": e})),
                lambda e: peers.bm25s_page(_text(by_id[e])),
                [exemplars],
                exemplar_warm,
            ),
        }


def _room(floors: dict[str, _Timing], small: int, size: int) -> str:
    """Whether the bounds leave room above the fixed part of a request, on this machine.

    The fixed part's ratio is about the least the ratio at ``size`` can be,
    whatever the passes over the rows cost.
    """
    if not floors:
        return ""
    # The loosest bound of each measure: the one for the relevance heuristics.
    bounds = {key: max(limit for k, _, limit in _TARGETS if k == key) for key in floors}
    rows = [
        f"| {key} | {bounds[key]:.1f} | {timing.ratio:.2f} | "
        f"{'room' if timing.ratio < bounds[key] else 'none'} |"
        for key, timing in floors.items()
    ]
    return (
        "\n### Room above the fixed part (this machine)\n\n"
        f"A request over {small:,} decisions beside the peer's query over "
        f"{size:,}: the part of a request that does not grow with the project, as a ratio "
        "to the query the bound is measured against. Where it reaches the bound, no speed-up "
        "of the passes over the rows can meet the bound on this machine.\n\n"
        "| request | bound | fixed part's ratio | room left |\n"
        "|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


_TARGETS: Final = (
    ("find", "text-only find, explanations read", 1.5),
    ("find", "text-only find, explanations read (bound for the relevance heuristics)", 2.0),
    ("similar", "similar by id, explanations read (peer: exemplar's text)", 2.0),
    ("similar", "similar by id, explanations read (bound for the relevance heuristics)", 2.5),
    ("build", "index build", 1.0),
    ("memory", "peak index build memory", 1.5),
)


def _targets(cells: dict[str, tuple[float, str]], size: int) -> str:
    """The issue's targets beside this run's ratios to bm25s, at the largest size.

    ``cells`` holds each measure's ratio and how it is shown (with the rounds'
    range, when timed in rounds); a bound is met when the ratio (for rounds,
    the median of theirs) is within it.
    """
    rows = [
        f"| {label} at {size:,} | {limit:.1f} | {cells[key][1]} | "
        f"{'met' if cells[key][0] <= limit else 'not met'} |"
        for key, label, limit in _TARGETS
        if key in cells
    ]
    return (
        "### Targets (ratio to bm25s, at most)\n\n"
        "| measure | target | this run (range of the rounds) | status |\n"
        "|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def run(quick: bool) -> str:
    return _cisi_section() + "\n" + _speed_section(quick)
