"""Unit tests of the search's parts: ranking, postings order, cursors, tokens, generators."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import attrs
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

import semreport
from _search_support import graph_shares_total
from semreport import FrozenDict, InvalidRequest
from semreport.search import _ranking, _scorer
from semreport.search._cursor import CursorState, decode_cursor, encode_cursor
from semreport.search._index import (
    DENSE_SHARE,
    F64,
    I64,
    K1,
    IndexSnapshot,
    Vocabulary,
    _counted,
    _distinct_sets,
    _Groups,
    _stable_order,
    _words,
)
from semreport.search._propagation import Spread, propagate
from semreport.search._ranking import Weighted
from semreport.search._ranking import top as _top
from semreport.search._select import sampled_candidates, sampled_rows
from semreport.search._text import WORDS, Tokenizer
from semreport.search.signals import Evidence, FacetsSignal, Page, Prepared, Query
from semreport.search.signals._base import Prior, freeze
from semreport.search.signals.facets import exemplar_keys
from semreport.search.signals.feedback import FeedbackSignal
from semreport.search.signals.graph import GraphSignal, Propagated, TextEvidence, _text_evidence
from semreport.search.signals.terms import TermsSignal
from semreport.search.signals.text import Bm25, TextSignal
from semreport.testing import synthetic_decisions, synthetic_queries
from semreport.testing.cisi import find_cisi, load_cisi, ndcg_at, recall_at


class TestTop:
    """Top-k selection: score descending, then id; a floor never changes the answer."""

    def test_matches_a_full_sort(self) -> None:
        rng = np.random.default_rng(1)
        for _ in range(50):
            n = int(rng.integers(1, 300))
            score = np.round(rng.random(n), 1) * (rng.random(n) > 0.4)
            rank = rng.permutation(n).astype(np.int64)
            mask = rng.random(n) > 0.2 if rng.random() > 0.5 else None
            k = int(rng.integers(1, 40))
            rows = [r for r in range(n) if mask is None or mask[r]]
            expected = sorted(rows, key=lambda r: (-score[r], rank[r]))[:k]
            assert _top(score, mask, rank, k).tolist() == expected
            kth = sorted((score[r] for r in rows), reverse=True)
            floor = kth[k - 1] * 0.9 if len(kth) >= k else 0.0
            assert _top(score, mask, rank, k, floor).tolist() == expected


class TestPruning:
    """Large projects rank a first page by bounds; the page equals scoring every row."""

    def test_pruned_equals_dense(self, monkeypatch: pytest.MonkeyPatch) -> None:
        decisions = synthetic_decisions(5_000, seed=11)
        queries = synthetic_queries(12, seed=4)
        full = {
            "filters": {
                "domain": ["material", "regulation"],
                "attributes": {"cost_eur": {"max": 20_000}},
            },
            "weights": {"text": 1.0, "graph": 0.2, "recency": 0.2},
        }
        requests: list[tuple[str, dict[str, object]]] = []
        for i, text in enumerate(queries):
            requests.append(("find", {"text": text, "limit": 1 + i * 7}))
            requests.append(
                ("find", {"text": text, **full, "superseded": ("demote", "include")[i % 2]})
            )
            requests.append(
                ("find", {"text": text, "prefer": {"tags": ["fire"]}, "near": {"cost_eur": 9000}})
            )
            requests.append(("similar", {"decision_id": decisions[i * 311].id, "limit": 10 + i}))
        requests.append(
            (
                "similar",
                {
                    "decision": {
                        "title": "timber floor",
                        "tags": ["fire"],
                        "attributes": {"cost_eur": 5000},
                    }
                },
            )
        )
        requests.append(
            ("similar", {"decision_id": decisions[7].id, "filters": {"tags": ["carbon"]}})
        )
        with semreport.open("memory://") as sr:
            sr.record(decisions)
            pruned = [getattr(sr, kind)("synthetic", request) for kind, request in requests]
            monkeypatch.setattr(_scorer, "PRUNE_FROM", 10**9)
            dense = [getattr(sr, kind)("synthetic", request) for kind, request in requests]
        assert pruned == dense
        assert all(result.hits for result in pruned)


class TestPromotion:
    """When the other signals' slack is too wide to prune, they join the leads."""

    @pytest.mark.parametrize(("lead_scale", "rest_weight"), [(0.1, 0.8), (1.0, 0.05)])
    def test_pruned_page_equals_the_dense_top(self, lead_scale: float, rest_weight: float) -> None:
        snap = _snapshot(synthetic_decisions(5_000, seed=5))
        rng = np.random.default_rng(7)
        lead_values = np.round(rng.random(snap.n) * lead_scale, 3)  # ties on purpose
        rest_values = np.round(rng.random(snap.n), 2)
        active = [
            Weighted("terms", _Fixed(lead_values, lead=True), 1.0 - rest_weight),
            Weighted("attributes", _Fixed(rest_values, lead=False), rest_weight),
        ]
        found = _ranking.pruned(snap, active, None, False, 11)
        assert found is not None
        expected = _assert_dense_top(snap, active, None, found)
        # The page's values are handed on: each signal's, of the page's rows, in order.
        assert found.values is not None
        for signal, (normalised, raw) in zip(active, found.values, strict=True):
            own_normalised, own_raw = signal.prepared.values(expected)
            assert normalised.tolist() == own_normalised.tolist()
            assert raw.tolist() == own_raw.tolist()


class TestTextOnly:
    """Ranking BM25 signals alone: the pruned page equals the dense top, whatever the weights."""

    @pytest.mark.parametrize(
        "weights",
        [(1.0,), (0.5, 0.5), (1e-300, 1.0), (1.0, 1e-300), (0.2, 0.3, 0.5), (0.7, 1e-12, 0.3)],
    )
    @pytest.mark.parametrize("demote", [False, True])
    def test_pruned_page_equals_the_dense_top(
        self, weights: tuple[float, ...], demote: bool
    ) -> None:
        snap = _snapshot(synthetic_decisions(5_000, seed=5))
        queries = synthetic_queries(len(weights), seed=9)
        total = sum(weights)
        active = []
        for weight, text in zip(weights, queries, strict=True):
            terms, _ = snap.vocab.query_terms(text)
            state = Bm25(snap, dict.fromkeys(terms, 1.0), {})
            active.append(Weighted("text", state, weight / total))
        found = _ranking.text_only(snap, active, None, demote, 11)
        _assert_dense_top(snap, active, snap.demotion if demote else None, found)


def _assert_dense_top(
    snap: IndexSnapshot,
    active: list[Weighted],
    demotion: F64 | None,
    found: _ranking.Best | None,
) -> I64:
    """Assert that ``found`` is the top 11 of every row's exact score; return those rows."""
    assert found is not None
    dense = _ranking.exact(active, demotion, np.arange(snap.n))
    expected = _top(dense, None, snap.id_rank, 11)
    assert found.rows.tolist() == expected.tolist()
    assert found.scores.tolist() == dense[expected].tolist()
    return expected


class _Fixed(Prepared):
    """A signal state over given values (for the ranking's tests)."""

    def __init__(self, values: F64, *, lead: bool) -> None:
        super().__init__()
        self._values = values
        self.lead = lead

    def size(self) -> int:
        return len(self._values)

    def values(self, rows: I64) -> tuple[F64, F64]:
        return self._values[rows], self._values[rows]

    def explain(self, page: Page) -> list[Evidence]:
        return [Evidence() for _ in page]


class TestFacetCounts:
    """Packed-bit counts, their fallbacks and a brute-force count agree."""

    def test_every_way_agrees(self, monkeypatch: pytest.MonkeyPatch) -> None:
        decisions = synthetic_decisions(700, seed=2)
        snap = _snapshot(decisions)
        by_id = {d.id: d for d in decisions}
        superseded = {snap.ids[r] for r in snap.superseded_rows.tolist()}
        labels = snap.facet_labels

        def brute(match: np.ndarray) -> list[int]:
            chosen = [by_id[i] for i, keep in zip(snap.ids, match.tolist(), strict=True) if keep]
            return [
                sum(
                    1
                    for d in chosen
                    if (facet == "domain" and d.domain.value == value)
                    or (facet == "status" and value == "superseded" and d.id in superseded)
                    or (facet == "status" and d.status.value == value)
                    or (facet == "agent" and d.agent == value)
                    or (facet == "tags" and value in d.tags)
                )
                for facet, value in labels
            ]

        some = np.random.default_rng(4).random(snap.n) < 0.3
        most = np.ones(snap.n, dtype=np.bool_)
        most[[3, 70, 699]] = False  # few left out: the totals less theirs
        everyone = np.ones(snap.n, dtype=np.bool_)
        expected = {"some": brute(some), "most": brute(most), "all": brute(everyone)}
        assert snap.value_counts(None).tolist() == expected["all"]

        def check() -> None:
            assert snap.value_counts(some).tolist() == expected["some"]
            assert snap.value_counts(most).tolist() == expected["most"]
            assert snap.value_counts(most, int(most.sum())).tolist() == expected["most"]
            assert snap.value_counts(everyone).tolist() == expected["all"]
            assert snap.value_counts(np.zeros(snap.n, dtype=np.bool_)).sum() == 0

        check()
        monkeypatch.delattr(np, "bitwise_count", raising=False)
        check()
        monkeypatch.setattr(snap, "facet_bits", None)
        check()


class TestHolds:
    """Which rows hold which terms, and each row's terms, agree with the decisions' text."""

    def test_equals_the_postings(self) -> None:
        decisions = synthetic_decisions(900, seed=6)
        snap = _appended_snapshot(decisions, 300)
        by_id = {d.id: d for d in decisions}
        rng = np.random.default_rng(8)
        known = len(snap.vocab.term_names)
        for size in [1, 3, 8, 9, 12, 40] * 4:  # each way of looking them up
            terms = rng.integers(0, known + 3, size).tolist()  # repeats, ids no row holds
            rows = rng.choice(snap.n, 15, replace=False).astype(np.int64)
            brute = np.zeros((len(terms), len(rows)), dtype=np.bool_)
            for j, row in enumerate(rows.tolist()):
                held = set(snap.term_counts(by_id[snap.ids[row]]))  # from the text itself
                for i, term in enumerate(terms):
                    brute[i, j] = term in held
            page = Page(snap, rows.tolist())
            assert page.holds(terms) == brute.T.tolist()
            assert page.holds(terms) == brute.T.tolist()  # read once, asked again
        rows = rng.choice(snap.n, 40, replace=False).astype(np.int64)
        for row, (terms, counts) in zip(rows.tolist(), snap.rows_terms(rows), strict=True):
            want = snap.term_counts(by_id[snap.ids[row]])
            assert terms.tolist() == sorted(want)
            assert counts.tolist() == [want[t] for t in sorted(want)]
            assert [a.tolist() for a in snap.row_terms(row)] == [terms.tolist(), counts.tolist()]
        held = snap.held_terms(rows.tolist())
        assert held == [frozenset(terms.tolist()) for terms, _ in snap.rows_terms(rows)]
        assert snap.held_terms([]) == []
        assert snap.rows_terms([]) == []
        assert Page(snap, rows.tolist()).holds([]) == [[] for _ in rows]
        assert Page(snap, []).holds(terms) == []

    def test_a_page_is_its_rows(self) -> None:
        snap = _appended_snapshot(synthetic_decisions(60, seed=6), 20)
        page = Page(snap, [7, 3, 41])
        assert list(page) == [7, 3, 41]
        assert len(page) == 3
        assert page[1] == 3
        assert page[1:] == (3, 41)
        assert page.array.tolist() == [7, 3, 41]
        assert page.array.dtype == np.int64
        assert repr(page) == "Page([7, 3, 41])"
        assert not Page(snap, [])


class TestTextScores:
    """BM25 sums apply each query weight to the stored impacts in float64, term by term."""

    def test_equals_the_float64_sum_in_stem_order(self) -> None:
        snap = _appended_snapshot(synthetic_decisions(600, seed=9), 200)
        names = snap.vocab.term_names
        rng = np.random.default_rng(4)
        chosen = rng.choice(len(names), 12, replace=False).tolist()
        # Weights float32 cannot hold exactly, and a weight of 1.
        weights = dict(zip(chosen, [0.1, 1 / 3, 1.0, 2.718281828459045] * 3, strict=True))
        scores, bound = snap.text_scores(weights)
        want = _float64_sums(snap, weights)
        assert scores.tolist() == want
        assert any(value > 0 for value in want)
        assert bound == pytest.approx(
            sum(w * snap.idf(t) * (K1 + 1.0) for t, w in weights.items()), rel=1e-12
        )

    def test_common_terms_add_densely_to_the_same_floats(self) -> None:
        snap = _appended_snapshot(synthetic_decisions(600, seed=9), 200)
        names = snap.vocab.term_names
        dense = sorted({term for part in snap._postings for term in part.columns})
        assert dense  # some synthetic words are in a third of a segment's rows or more
        sparse = [t for t in range(len(names)) if t not in set(dense)][:6]
        terms = [*dense, *sparse]
        weights = {t: [0.1, 1 / 3, 1.0, 2.718281828459045][i % 4] for i, t in enumerate(terms)}
        scores, _ = snap.text_scores(weights)
        assert scores.tolist() == _float64_sums(snap, weights)

    def test_a_dense_column_holds_the_postings_impacts(self) -> None:
        snap = _appended_snapshot(synthetic_decisions(600, seed=9), 200)
        for part, segment in zip(snap._postings, snap.segments, strict=True):
            rows = segment.stop - segment.start
            held = np.diff(segment.indptr)
            assert sorted(part.columns) == np.flatnonzero(held * DENSE_SHARE >= rows).tolist()
            for term, column in part.columns.items():
                lo, hi = segment.span(term)
                local = segment.docs[lo:hi] - segment.start
                assert column.dtype == np.float64  # the float32 impacts, widened once
                assert len(column) == rows
                assert column[local].tolist() == part.impacts[lo:hi].tolist()
                assert np.count_nonzero(column) == hi - lo


def _float64_sums(snap: IndexSnapshot, weights: dict[int, float]) -> list[float]:
    """Each row's weighted impacts summed in Python floats (float64), term by term in stem order."""
    names = snap.vocab.term_names
    want = [0.0] * snap.n
    for term in sorted(weights, key=names.__getitem__):
        for segment, impacts in zip(snap.segments, snap.segment_impacts, strict=True):
            lo, hi = segment.span(term)
            held = zip(segment.docs[lo:hi].tolist(), impacts[lo:hi].tolist(), strict=True)
            for row, impact in held:
                want[row] += impact * weights[term]
    return want


class TestCounted:
    """Counting distinct values by one sort gives what ``np.unique`` gives."""

    @given(st.lists(st.integers(-(2**62), 2**62), max_size=300), st.integers(1, 40))
    def test_equals_unique(self, values: list[int], spread: int) -> None:
        array = np.array([v % spread if spread < 40 else v for v in values], dtype=np.int64)
        got_values, got_counts = _counted(array)
        want_values, want_counts = np.unique(array, return_counts=True)
        assert got_values.tolist() == want_values.tolist()
        assert got_counts.tolist() == want_counts.tolist()


class TestGroups:
    """Rows of keys gathered flat; made distinct and sorted per row by one sort when asked."""

    @given(st.lists(st.lists(st.integers(0, 30), max_size=6), max_size=30))
    def test_distinct_sorts_each_row_and_drops_repeats(self, rows: list[list[int]]) -> None:
        groups = _Groups()
        groups.add(rows[: len(rows) // 2])
        groups.add(rows[len(rows) // 2 :])
        lengths, keys = _distinct_sets(groups)
        assert lengths.tolist() == [len(set(row)) for row in rows]
        assert keys.tolist() == [key for row in rows for key in sorted(set(row))]
        assert keys.dtype == np.int32
        plain_lengths, plain_keys = groups.arrays()
        assert plain_lengths.tolist() == [len(row) for row in rows]
        assert plain_keys.tolist() == [key for row in rows for key in row]

    @given(
        st.lists(
            st.tuples(
                st.lists(st.integers(0, 30), max_size=5), st.lists(st.integers(0, 30), max_size=5)
            ),
            max_size=30,
        )
    )
    def test_distinct_sets_join_each_rows_keys_across_groups(
        self, rows: list[tuple[list[int], list[int]]]
    ) -> None:
        first, second = _Groups(), _Groups()
        first.add_flat([len(a) for a, _ in rows], [key for a, _ in rows for key in a])
        second.add([b for _, b in rows])
        lengths, keys = _distinct_sets(first, second)
        joined = [sorted(set(a) | set(b)) for a, b in rows]
        assert lengths.tolist() == [len(row) for row in joined]
        assert keys.tolist() == [key for row in joined for key in row]
        assert keys.dtype == np.int32

    def test_the_index_holds_each_decisions_elements_and_evidence_once(self) -> None:
        decisions = synthetic_decisions(300, seed=4)
        snap = _appended_snapshot(decisions, 70)
        names = snap.vocab.key_names
        for decision in decisions:
            row = snap.row_of[decision.id]
            held = [names[k] for k in snap.things.of(row).tolist()]
            wanted = {f"element:{e}" for e in decision.elements} | {
                f"evidence:{ev.kind.value}:{ev.ref}" for ev in decision.evidence
            }
            assert sorted(held) == sorted(wanted)
            assert snap.things.of(row).tolist() == sorted(snap.things.of(row).tolist())


class TestStableOrder:
    """Postings are grouped by term with rows kept in order, for any vocabulary size."""

    @pytest.mark.parametrize("size", [10, 70_000])
    def test_stable(self, size: int) -> None:
        keys = np.random.default_rng(2).integers(0, size, 5_000).astype(np.int32)
        assert (_stable_order(keys, size) == np.argsort(keys, kind="stable")).all()


class TestCursor:
    """Cursors round-trip and refuse anything altered or malformed."""

    def test_round_trip_and_refusals(self) -> None:
        state = CursorState(7, 0.1 + 0.2, "d-1")
        token = encode_cursor(b"k" * 32, "f" * 32, state)
        assert decode_cursor(b"k" * 32, token, "f" * 32) == state
        for bad in ("", "no-dot", "!!!.???", token + "A", "x" * 2000):
            with pytest.raises(InvalidRequest):
                decode_cursor(b"k" * 32, bad, "f" * 32)
        with pytest.raises(InvalidRequest):
            decode_cursor(b"j" * 32, token, "f" * 32)
        with pytest.raises(InvalidRequest):
            decode_cursor(b"k" * 32, token, "g" * 32)


class TestTokenizer:
    """Words are lower-cased, stop words dropped, the rest Snowball-stemmed."""

    def test_terms(self) -> None:
        tokens = Tokenizer()
        assert tokens.terms("The Fire-rated floors and walls") == ["fire", "rate", "floor", "wall"]
        assert tokens.surface("Floors floor") == {"floor": "floors"}
        assert tokens.words("A b cd") == ["cd"]

    @pytest.mark.parametrize(("ascii_only", "chunk"), [(True, 8192), (False, 8192), (True, 7)])
    def test_bulk_words_match_the_regular_expression(self, ascii_only: bool, chunk: int) -> None:
        rng = np.random.default_rng(3)
        alphabet = list("abcQ_ 0123-,.;\n\t'\x02") + ([] if ascii_only else ["é", "ß", "—"])
        texts = ["".join(rng.choice(alphabet, int(rng.integers(0, 40)))) for _ in range(200)]
        vocab = Vocabulary()
        ids, rows = _words(vocab, texts, chunk)
        expected = [
            (vocab.word_term[w], r)
            for r, text in enumerate(texts)
            for w in WORDS.findall(text.lower())
            if vocab.word_term[w] >= 0
        ]
        assert list(zip(ids.tolist(), rows.tolist(), strict=True)) == expected

    def test_word_ids_learn_only_the_unseen_words_as_learn_does(self) -> None:
        learnt, looked_up = Vocabulary(), Vocabulary()
        first = ["fire", "rated", "timber", "floors", "and", "the", "fire", "walls"]
        second = ["timber", "walls", "of", "stone", "the", "floors", "stones"]
        for words in (first, second):
            learnt.learn(words)
            want = learnt.term_ids(words)
            assert looked_up.word_ids(words).tolist() == want
        assert looked_up.word_term == learnt.word_term
        assert looked_up.term_names == learnt.term_names
        assert looked_up.word_ids([]).tolist() == []


class TestGenerators:
    """The synthetic generator is seeded and realistic; CISI loads from its files."""

    def test_synthetic_is_deterministic(self) -> None:
        one = synthetic_decisions(200, seed=5)
        assert one == synthetic_decisions(200, seed=5)
        assert one != synthetic_decisions(200, seed=6)
        assert any(d.supersedes for d in one)
        assert {d.domain.value for d in one} >= {"regulation", "material", "cost", "lifecycle"}
        assert any("cost_eur" in d.attributes for d in one)
        assert len(synthetic_queries(5)) == 5

    def test_cisi_loader(self, tmp_path: Path) -> None:
        (tmp_path / "CISI.ALL").write_text(
            ".I 1\n.T\nA title\n.A\nSomeone\n.W\nAn abstract\nover lines.\n.X\n2\t1\t1\n1\t1\t1\n"
            ".I 2\n.T\nOther\n.W\nText\n",
            encoding="latin-1",
        )
        (tmp_path / "CISI.QRY").write_text(".I 1\n.W\nWhat about titles?\n", encoding="latin-1")
        (tmp_path / "CISI.REL").write_text("1 2 0 0.0\n1 1 0 0.0\n", encoding="latin-1")
        collection = load_cisi(tmp_path, links=True)
        first = collection.decisions[0]
        assert (first.id, first.title, first.rationale) == (
            "1",
            "A title",
            "An abstract over lines.",
        )
        assert [link.target for link in first.links] == ["2"]
        assert collection.queries == {"1": "What about titles?"}
        assert collection.relevant == {"1": ("1", "2")}
        assert collection.text("2") == "Other\nText"
        with pytest.raises(KeyError):
            collection.text("3")
        assert ndcg_at(["2", "1"], {"1"}, 10) == pytest.approx(1 / np.log2(3))
        assert recall_at(["2"], {"1", "2"}) == 0.5
        assert ndcg_at([], set()) == 0.0

    def test_find_cisi(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("SEMREPORT_CISI_DIR", str(tmp_path))
        assert find_cisi() is None
        (tmp_path / "CISI.ALL").write_text("", encoding="latin-1")
        assert find_cisi() == tmp_path
        monkeypatch.delenv("SEMREPORT_CISI_DIR")
        assert find_cisi(tmp_path) is None
        shared = tmp_path / "shared" / "data" / "cisi"
        shared.mkdir(parents=True)
        (shared / "CISI.ALL").write_text("", encoding="latin-1")
        (tmp_path / "repo").mkdir()
        assert find_cisi(tmp_path / "repo") == shared.resolve()


_SAMPLED_VALUES = st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), max_size=400)
"""Row values with many ties, for the sampled selections."""


def _drawn_selection(data: st.DataObject, count: int) -> tuple[npt.NDArray[np.bool_] | None, int]:
    """A drawn ``keep`` mask over ``count`` rows (or none) and ``exclude`` row (or -1)."""
    keep = None
    if data.draw(st.booleans()):
        flags = data.draw(st.lists(st.booleans(), min_size=count, max_size=count))
        keep = np.array(flags, dtype=np.bool_)
    return keep, data.draw(st.integers(-1, max(count - 1, -1)))


class TestSampledCandidates:
    """A floor read from a sample leaves every row that can be among the k best, and few more."""

    @given(values=_SAMPLED_VALUES, k=st.integers(1, 30), sample=st.integers(4, 64), data=st.data())
    def test_every_row_of_the_k_best_is_a_candidate(
        self, values: list[float], k: int, sample: int, data: st.DataObject
    ) -> None:
        array = np.array(values, dtype=np.float64)
        count = len(values)
        keep, exclude = _drawn_selection(data, count)
        factor = (
            np.array(
                data.draw(st.lists(st.sampled_from([0.5, 1.0]), min_size=count, max_size=count))
            )
            if data.draw(st.booleans())
            else None
        )
        margin = data.draw(st.sampled_from([0.0, 1e-9]))
        found = sampled_candidates(
            array, k, keep=keep, exclude=exclude, factor=factor, margin=margin, sample=sample
        )
        if found is None:
            return
        scaled = array if factor is None else array * factor
        allowed = [
            r for r in range(count) if (keep is None or keep[r]) and r != exclude and scaled[r] > 0
        ]
        assert found.tolist() == sorted(set(found.tolist()))
        assert all((keep is None or keep[r]) and r != exclude for r in found.tolist())
        assert len(allowed) >= k
        kth = sorted((scaled[r] for r in allowed), reverse=True)[k - 1]
        assert {r for r in allowed if scaled[r] >= kth} <= set(found.tolist())

    def test_small_projects_are_not_sampled(self) -> None:
        assert sampled_candidates(np.ones(100), 10) is None
        assert sampled_candidates(np.zeros(10_000), 10) is None
        assert sampled_candidates(np.ones(10_000), 0) is None

    def test_the_optimistic_floor_keeps_few_rows(self) -> None:
        rng = np.random.default_rng(5)
        values = rng.random(100_000)
        found = sampled_candidates(values, 10)
        assert found is not None
        assert 10 <= len(found) < 2_000  # the safe floor alone keeps about 1,000
        assert set(np.argsort(-values)[:10].tolist()) <= set(found.tolist())

    def test_a_floor_too_few_rows_reach_falls_back_to_the_safe_one(self) -> None:
        # Only the sampled rows (every 9th) score: the optimistic floor is reached by
        # about 9 rows, fewer than the 40 wanted, so the 40th best sampled value is used.
        values = np.zeros(10_000)
        values[::9] = np.linspace(1.0, 0.5, len(values[::9]))
        found = sampled_candidates(values, 40)
        assert found is not None
        assert found.tolist() == np.argsort(-values, kind="stable")[:40].tolist()


class TestSampledRows:
    """Values computed on demand: the candidates and their values hold every row of the k best."""

    @given(values=_SAMPLED_VALUES, k=st.integers(1, 30), sample=st.integers(4, 64), data=st.data())
    def test_every_row_of_the_k_best_is_a_candidate(
        self, values: list[float], k: int, sample: int, data: st.DataObject
    ) -> None:
        array = np.array(values, dtype=np.float64)
        count = len(values)
        keep, exclude = _drawn_selection(data, count)

        def values_of(rows: I64) -> F64:
            result: F64 = array[rows]
            return result

        def reaching(floor: float) -> npt.NDArray[np.bool_]:
            return array >= floor

        rows, found = sampled_rows(
            values_of, reaching, count, k, keep=keep, exclude=exclude, sample=sample
        )
        allowed = [
            r for r in range(count) if (keep is None or keep[r]) and r != exclude and array[r] > 0
        ]
        assert rows.tolist() == sorted(set(rows.tolist()))
        assert found.tolist() == array[rows].tolist()
        assert set(rows.tolist()) <= set(allowed)
        best = sorted(allowed, key=lambda r: -array[r])[:k]
        assert set(best) <= set(rows.tolist())

    def test_only_the_rows_reaching_the_floor_are_computed(self) -> None:
        rng = np.random.default_rng(5)
        values = rng.random(100_000)
        asked: list[int] = []

        def values_of(rows: I64) -> F64:
            asked.append(len(rows))
            result: F64 = values[rows]
            return result

        rows, found = sampled_rows(values_of, lambda floor: values >= floor, len(values), 10)
        assert set(np.argsort(-values)[:10].tolist()) <= set(rows.tolist())
        assert found.tolist() == values[rows].tolist()
        assert sum(asked) < 5_000  # the sample and the few rows above its floor

    def test_a_small_project_computes_every_row(self) -> None:
        values = np.array([0.0, 0.5, 0.2, 0.0, 0.9])
        rows, found = sampled_rows(
            lambda rows: values[rows], lambda floor: values >= floor, 5, 2, exclude=4
        )
        assert rows.tolist() == [1, 2]
        assert found.tolist() == [0.5, 0.2]


class TestCheaperBounds:
    """``scaled`` and ``reaching``: within rounding of the normalised values, never fewer rows."""

    def test_bm25_scaled_and_reaching_agree_with_the_dense_values(self) -> None:
        snap = _snapshot(synthetic_decisions(3_000, seed=2))
        text = synthetic_queries(1, seed=9)[0]
        state = TextSignal().prepare(Query("find", snap, text=text))
        dense = state.dense()
        scaled = state.scaled(0.3, np.empty(snap.n))
        assert np.allclose(scaled, dense * 0.3, rtol=1e-12, atol=0.0)
        for floor in (1e-6, 0.1, 0.35, 0.6):
            reach = state.reaching(floor)
            assert not np.any((dense >= floor) & ~reach)
            assert not np.any(reach & (dense < floor * (1 - 1e-8)))

    def test_the_default_reads_the_dense_values(self) -> None:
        values = np.array([0.0, 0.25, 0.5, 1.0])
        state = _Fixed(values, lead=False)
        assert state.scaled(2.0, np.empty(4)).tolist() == [0.0, 0.5, 1.0, 2.0]
        assert state.reaching(0.5).tolist() == [False, False, True, True]


class TestTextEvidence:
    """The graph's text evidence, computed for some rows, equals the weighted mean of every row."""

    def test_values_equal_the_dense_weighted_mean(self) -> None:
        rng = np.random.default_rng(3)
        first, second = rng.random(500), np.round(rng.random(500), 1)
        evidence = TextEvidence(
            [(_Fixed(first, lead=True), 0.25), (_Fixed(second, lead=True), 0.75)]
        )
        dense = np.multiply(first, 0.25)
        dense += np.multiply(second, 0.75)
        rows = rng.permutation(500)[:37].astype(np.int64)
        assert evidence.values(rows).tolist() == dense[rows].tolist()
        for floor in (0.2, 0.5, 0.9):
            assert not np.any((dense >= floor) & ~evidence.reaching(floor))

    def test_the_graph_signal_equals_propagating_the_dense_evidence(self) -> None:
        decisions = synthetic_decisions(10_000, seed=6)  # large enough to be sampled
        snap = _snapshot(decisions)
        weights = _scorer.SIMILAR_WEIGHTS
        for index in (3, 1_234, 7_777):
            row = snap.row_of[decisions[index].id]
            query = Query("similar", snap, exemplar=decisions[index], exemplar_row=row)
            earlier = [
                Prior(signal.name, signal.kind, signal.prepare(query), weights[signal.name])
                for signal in (TermsSignal(), FeedbackSignal())
            ]
            dense = _text_evidence(query, earlier).values(np.arange(snap.n, dtype=np.int64))
            expected = propagate(snap.propagation_graph, dense, exemplar=row, rank=snap.id_rank)
            found = GraphSignal().prepare_after(query, earlier)
            assert isinstance(found, Propagated)
            ours, theirs = found.found, expected
            assert (ours.correlation, ours.weight, ours.rows, ours.scale) == (
                theirs.correlation,
                theirs.weight,
                theirs.rows,
                theirs.scale,
            )
            assert found.propagation.seed.tolist() == expected.propagation.seed.tolist()

    def test_explanations_add_up_where_the_scaled_value_is_cut(self) -> None:
        decisions = synthetic_decisions(2_000, seed=6)
        snap = _snapshot(decisions)
        row = snap.row_of[decisions[5].id]
        found = propagate(snap.propagation_graph, np.zeros(snap.n), exemplar=row)
        g = found.propagation.dense()[0]
        rows = np.flatnonzero(g > 0)[:40].astype(np.int64)
        scale = 1.5 / float(np.median(g[rows]))  # cuts about half of the rows at 1
        signal = Propagated(snap, Spread(found.propagation, 0.6, 0.5, 100, scale))
        values = signal.values(rows)[0]
        assert values.max() == 0.5
        assert values.min() < 0.5
        explained = signal.explain(Page(snap, rows.tolist()))
        for value, evidence in zip(values.tolist(), explained, strict=True):
            assert graph_shares_total(evidence) == pytest.approx(value)
            assert evidence["agreement"]["scale"] == scale  # type: ignore[index]

    def test_any_positive_leaves_the_exemplar_out(self) -> None:
        values = np.array([0.0, 0.7, 0.0])
        evidence = TextEvidence([(_Fixed(values, lead=True), 1.0)])
        assert evidence.any_positive(-1)
        assert not evidence.any_positive(1)
        assert not TextEvidence(()).any_positive(-1)
        assert TextEvidence(()).values(np.arange(2, dtype=np.int64)).tolist() == [0.0, 0.0]


class TestStoredExemplar:
    """A stored exemplar is read from the index: the same keys and targets as its record."""

    def test_keys_and_targets_equal_the_decisions(self) -> None:
        decisions = synthetic_decisions(600, seed=8)
        snap = _snapshot(decisions)
        for decision in decisions[::7]:
            row = snap.row_of[decision.id]
            stored = Query("similar", snap, exemplar_row=row)
            inline = Query("similar", snap, exemplar=decision)
            assert stored.has_exemplar
            assert stored.targets == inline.targets
            assert sorted(exemplar_keys(stored)) == sorted(exemplar_keys(inline))
        assert not Query("find", snap).has_exemplar


def _appended_snapshot(decisions: list[semreport.Decision], batch: int) -> IndexSnapshot:
    """The index of ``decisions`` recorded ``batch`` at a time, indexed after each (segments)."""
    with semreport.open("memory://") as sr:
        scorer = sr.scorer
        assert isinstance(scorer, semreport.search.HeuristicScorer)
        for first in range(0, len(decisions), batch):
            sr.record(decisions[first : first + batch])
            snap = scorer.index(sr.storage, "synthetic")
    assert len(snap.segments) > 1
    return snap


def _snapshot(decisions: list[semreport.Decision]) -> IndexSnapshot:
    with semreport.open("memory://") as sr:
        sr.record(decisions)
        snap: IndexSnapshot = sr.scorer.index(sr.storage, "synthetic")  # type: ignore[attr-defined]
        return snap


class TestFacetOverlap:
    """The facets signal: a row's value is the same computed alone or with the whole column."""

    @pytest.mark.parametrize("agents", [None, 40])  # 40 agents: too many for a table of 600
    def test_weight_sums_match_the_definition(self, agents: int | None) -> None:
        decisions = synthetic_decisions(600, seed=2)
        if agents is not None:
            decisions = [
                attrs.evolve(d, agent=f"agent-{i % agents}") for i, d in enumerate(decisions)
            ]
        snap = _snapshot(decisions)
        weights = snap.key_weights(snap.facets)
        names = snap.vocab.key_names
        for decision in decisions[:40]:
            named = (
                f"domain:{decision.domain.value}",
                f"agent:{decision.agent}",
                f"status:{decision.status.value}",
                *(f"tag:{t}" for t in decision.tags),
            )
            # An unknown key (past the known ones) holds nothing.
            keys = [*sorted(snap.vocab.keys[name] for name in named), len(names) + 3]
            wanted = set(keys)
            expected = [
                sum(float(weights[k]) for k in snap.facets.of(row).tolist() if k in wanted)
                for row in range(snap.n)
            ]
            assert snap.facet_weight_sums(keys).tolist() == expected  # exact: quantised

    def test_an_agent_a_later_append_brought_counts_nothing(self) -> None:
        decisions = synthetic_decisions(300, seed=6)
        with semreport.open("memory://") as sr:
            sr.record(decisions[:200])
            scorer = sr.scorer
            assert isinstance(scorer, semreport.search.HeuristicScorer)
            early = scorer.index(sr.storage, "synthetic")
            sr.record([attrs.evolve(d, agent="late-agent") for d in decisions[200:]])
            scorer.index(sr.storage, "synthetic")  # the shared vocabulary learns the agent
        key = early.vocab.keys["agent:late-agent"]
        assert not early.facet_weight_sums([key]).any()
        # Seen mid-append: the key is known but the agent's code is not assigned yet.
        code = early.vocab.agents.pop("late-agent")
        try:
            assert not early.facet_weight_sums([key]).any()
        finally:
            early.vocab.agents["late-agent"] = code

    def test_rows_alone_equal_the_column(self) -> None:
        decisions = synthetic_decisions(600, seed=4)
        snap = _snapshot(decisions)
        signal = FacetsSignal()
        rows = np.array([0, 5, 17, 599, 42, 5], dtype=np.int64)
        for i in (0, 9, 300):
            query = Query("similar", snap, exemplar=decisions[i], exemplar_row=i)
            state = signal.prepare(query)
            alone = state.values(rows)
            assert state.lead
            column = state.dense()
            assert alone[0].tolist() == column[rows].tolist()
            assert np.all((column >= 0) & (column <= 1))
            assert column[i] == 1.0  # the exemplar shares all its keys with itself
            assert state.values(np.arange(snap.n))[0].tolist() == column.tolist()
        prefer = ("domain:cost", "tag:fire")
        state = signal.prepare(Query("find", snap, text="x", prefer=prefer))
        assert not state.lead
        alone = state.values(rows)[0]
        column = state.dense()
        assert alone.tolist() == column[rows].tolist()
        assert np.all((column >= 0) & (column <= 1))
        both = [r for r, d in enumerate(decisions) if d.domain.value == "cost" and "fire" in d.tags]
        assert both
        assert all(column[r] == 1.0 for r in both)


class TestFreeze:
    """Evidence built from dicts, lists and scalars becomes JSON values that cannot change."""

    def test_nested_values(self) -> None:
        shared = FrozenDict({"rows": 3})
        frozen = freeze(
            {
                "b": [1, 2],
                "a": {"c": ("x",), "d": None, "e": {"f": [0.5]}},
                "shared": shared,
                "view": MappingProxyType({"z": 1, "y": [True]}),
                "number": np.float64(0.25),
            }
        )
        assert list(frozen) == ["a", "b", "number", "shared", "view"]
        assert frozen["b"] == (1, 2)
        inner = frozen["a"]
        assert isinstance(inner, FrozenDict)
        assert inner == {"c": ("x",), "d": None, "e": {"f": (0.5,)}}
        assert isinstance(inner["e"], FrozenDict)
        assert frozen["shared"] is shared  # frozen already: kept
        assert frozen["view"] == FrozenDict({"y": (True,), "z": 1})
        assert frozen["number"] == 0.25
