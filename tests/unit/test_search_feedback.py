"""Pseudo-relevance feedback (RM3, divergence-selected terms) and exemplar weights, on arrays."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from semreport.search._feedback import (
    EXPANSION_TERMS,
    FEEDBACK_ROWS,
    Expansion,
    ExpansionTerm,
    best_rows,
    divergent_terms,
    exemplar_weights,
    expand,
    feedback_rows,
    relevance_model,
    top_rows,
)


class TestFeedbackRows:
    """The best rows with a score above zero, or none when too few match."""

    def test_best_first_ties_by_row(self) -> None:
        scores = np.array([0.0, 2.0, 1.0, 2.0, 3.0, 0.5])
        assert feedback_rows(scores, depth=3).tolist() == [4, 1, 3]
        assert feedback_rows(scores, depth=5).tolist() == [4, 1, 3, 2, 5]

    def test_too_few_matches_give_none(self) -> None:
        scores = np.array([0.0, 2.0, 1.0, 0.0])
        assert feedback_rows(scores, depth=3).tolist() == []
        assert feedback_rows(scores, depth=0).tolist() == []
        assert len(feedback_rows(np.ones(FEEDBACK_ROWS - 1))) == 0
        assert len(feedback_rows(np.ones(FEEDBACK_ROWS))) == FEEDBACK_ROWS

    def test_the_excluded_row_never_counts(self) -> None:
        scores = np.array([5.0, 2.0, 1.0])
        assert feedback_rows(scores, depth=2, exclude=0).tolist() == [1, 2]
        assert feedback_rows(scores, depth=3, exclude=0).tolist() == []

    def test_a_rank_breaks_ties(self) -> None:
        scores = np.array([1.0, 1.0, 1.0])
        rank = np.array([2, 0, 1], dtype=np.int64)
        assert feedback_rows(scores, depth=3, rank=rank).tolist() == [1, 2, 0]

    @given(
        scores=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=0, max_size=30),
        depth=st.integers(1, 12),
    )
    def test_the_rows_are_the_top_of_the_matches(self, scores: list[float], depth: int) -> None:
        values = np.array(scores, dtype=np.float64)
        rows = feedback_rows(values, depth=depth).tolist()
        matching = int((values > 0).sum())
        if matching < depth:
            assert rows == []
            return
        assert len(rows) == depth
        assert len(set(rows)) == depth
        assert all(values[r] > 0 for r in rows)
        assert [values[r] for r in rows] == sorted((values[r] for r in rows), reverse=True)
        weakest = min(values[r] for r in rows)
        assert all(values[r] <= weakest for r in range(len(values)) if r not in rows)


def _arrays(rows: list[dict[int, float]]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    terms = [np.array(sorted(r), dtype=np.int64) for r in rows]
    counts = [np.array([r[t] for t in sorted(r)], dtype=np.float64) for r in rows]
    return terms, counts


class TestRelevanceModel:
    """P(w|R) = sum over rows of (s(d) / sum s) * tf(w, d) / |d|."""

    def test_known_values(self) -> None:
        terms, counts = _arrays([{1: 2.0, 2: 2.0}, {2: 1.0, 3: 3.0}])
        present, model, holders = relevance_model([3.0, 1.0], terms, counts, [4.0, 4.0])
        assert present.tolist() == [1, 2, 3]
        assert model.tolist() == pytest.approx([0.375, 0.375 + 0.0625, 0.1875])
        assert holders.tolist() == [1, 2, 1]
        assert model.sum() == pytest.approx(1.0)

    def test_rows_without_length_or_score_count_nothing(self) -> None:
        assert len(relevance_model([], [], [], [])[0]) == 0
        terms, counts = _arrays([{}])
        assert len(relevance_model([1.0], terms, counts, [0.0])[0]) == 0
        terms, counts = _arrays([{1: 1.0}, {}])
        present, model, _ = relevance_model([1.0, 1.0], terms, counts, [1.0, 0.0])
        assert (present.tolist(), model.tolist()) == ([1], [1.0])

    @given(
        st.lists(
            st.tuples(
                st.floats(0.01, 50.0),
                st.dictionaries(st.integers(0, 20), st.integers(1, 5), min_size=1, max_size=8),
            ),
            min_size=1,
            max_size=10,
        )
    )
    def test_a_probability_distribution(self, rows: list[tuple[float, dict[int, int]]]) -> None:
        scores = [s for s, _ in rows]
        floats = [{t: float(c) for t, c in tfs.items()} for _, tfs in rows]
        terms, counts = _arrays(floats)
        lengths = [sum(c.values()) for c in floats]
        present, model, holders = relevance_model(scores, terms, counts, lengths)
        assert model.sum() == pytest.approx(1.0)
        assert np.all(model > 0)
        assert set(present.tolist()) == {t for c in floats for t in c}
        assert holders.tolist() == [sum(t in c for c in floats) for t in present.tolist()]
        # The rows' order changes no probability (each term sums over rows, in their order).
        back = relevance_model(scores[::-1], terms[::-1], counts[::-1], lengths[::-1])
        assert back[1].tolist() == pytest.approx(model.tolist())


class TestDivergentTerms:
    """The terms the feedback rows use more than the collection, by KL divergence."""

    def test_known_values(self) -> None:
        terms = np.array([3, 5, 7], dtype=np.int64)
        model = np.array([0.5, 0.3, 0.2])
        collection = np.array([0.5, 0.1, 0.01])  # 3 is as common as in the collection
        kept = divergent_terms(terms, model, collection)
        scores = {5: 0.3 * math.log(3.0), 7: 0.2 * math.log(20.0)}
        total = sum(scores.values())
        assert [t for t, _ in kept] == [7, 5]
        assert [w for _, w in kept] == pytest.approx([scores[7] / total, scores[5] / total])

    def test_count_names_and_nothing_useful(self) -> None:
        terms = np.array([0, 1], dtype=np.int64)
        model = np.array([0.5, 0.5])
        collection = np.array([0.1, 0.1])
        assert divergent_terms(terms, model, collection, count=1) == [(0, 1.0)]
        named = divergent_terms(terms, model, collection, count=1, names=["b", "a"])
        assert named == [(1, 1.0)]
        assert divergent_terms(terms, model, collection, count=0) == []
        assert divergent_terms(terms, model, np.array([0.5, 0.9])) == []
        assert divergent_terms(terms[:0], model[:0], collection[:0]) == []
        assert divergent_terms(terms, model, np.array([0.0, 0.1])) == [(1, 1.0)]

    @given(
        data=st.lists(
            st.tuples(st.floats(0.001, 1.0), st.floats(0.0001, 1.0)), min_size=1, max_size=30
        ),
        count=st.integers(1, 12),
    )
    def test_properties(self, data: list[tuple[float, float]], count: int) -> None:
        terms = np.arange(len(data), dtype=np.int64)
        model = np.array([p for p, _ in data])
        collection = np.array([c for _, c in data])
        kept = divergent_terms(terms, model, collection, count=count)
        assert len(kept) <= count
        if kept:
            assert sum(w for _, w in kept) == pytest.approx(1.0)
        assert all(model[t] > collection[t] for t, _ in kept)
        weights = [w for _, w in kept]
        assert weights == sorted(weights, reverse=True)
        scores = model * np.log(model / collection)
        if kept:
            floor = min(scores[t] for t, _ in kept)
            dropped = [t for t in range(len(data)) if t not in {k for k, _ in kept}]
            assert all(scores[t] <= floor or model[t] <= collection[t] for t in dropped)


def rows_of(
    rows: list[tuple[np.ndarray, np.ndarray]],
) -> Callable[[list[int]], list[tuple[np.ndarray, np.ndarray]]]:
    """``rows_terms`` over a list of per-row (terms, counts)."""
    return lambda asked: [rows[r] for r in asked]


def _index(n: int) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray]:
    """Rows alternating two topics over a common term 0; term 9 is rare in the collection."""
    rows = []
    for r in range(n):
        terms = [0, 5, 9] if r % 2 else [0, 6]
        rows.append((np.array(terms, dtype=np.int64), np.ones(len(terms))))
    lengths = np.array([len(t) for t, _ in rows], dtype=np.float64)
    totals = np.zeros(10)
    for terms, counts in rows:
        totals[terms] += counts
    totals[0] += 1000  # term 0 is everywhere else in the collection too
    return rows, lengths, totals


class TestExpand:
    """The defaults end to end: feedback rows of the first pass, the model, divergent terms."""

    def test_expands_from_the_first_pass(self) -> None:
        n = FEEDBACK_ROWS + 2
        rows, lengths, totals = _index(n)
        scores = np.arange(n, dtype=np.float64)  # row 0 does not match
        expansion = expand(scores, rows_of(rows), lengths, totals, float(totals.sum()))
        assert expansion.rows == tuple(range(n - 1, 1, -1))
        assert expansion.expanded
        assert {t.term for t in expansion.terms} == {5, 6, 9}  # 0 is too common
        assert len(expansion.terms) <= EXPANSION_TERMS
        assert sum(expansion.query.values()) == pytest.approx(1.0)
        nine = next(t for t in expansion.terms if t.term == 9)
        assert nine.rows == tuple(r for r in expansion.rows if r % 2)
        excluded = expand(
            scores, rows_of(rows), lengths, totals, float(totals.sum()), exclude=n - 1
        )
        assert excluded.rows == tuple(range(n - 2, 0, -1))

    def test_a_weak_first_pass_is_not_expanded(self) -> None:
        rows, lengths, totals = _index(30)
        scores = np.zeros(30)
        scores[:3] = 1.0
        expansion = expand(scores, rows_of(rows), lengths, totals, float(totals.sum()))
        assert expansion == Expansion(terms=(), rows=())
        assert not expansion.expanded
        assert expansion.query == {}
        assert ExpansionTerm(0, 1.0, ()) == ExpansionTerm(0, 1.0, ())
        empty = expand(np.ones(30), rows_of(rows), lengths, totals, 0.0)
        assert not empty.expanded
        assert len(empty.rows) == FEEDBACK_ROWS


class TestExemplarWeights:
    """An exemplar's terms weighted by its own BM25 impacts, idf applied once."""

    def test_known_values(self) -> None:
        weights = exemplar_weights({1: 1.0, 2: 4.0}, 10.0, 10.0, {1: 2.0, 2: 0.5})
        assert weights == pytest.approx({1: 2.0 * 2.5 / 2.5, 2: 0.5 * 4 * 2.5 / 5.5})
        longer = exemplar_weights({1: 1.0}, 20.0, 10.0, [0.0, 2.0])
        assert longer[1] == pytest.approx(2.0 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 2)))
        assert exemplar_weights({1: 1.0}, 5.0, 0.0, [0.0, 1.0]) == pytest.approx({1: 1.0})

    def test_terms_without_weight_are_left_out(self) -> None:
        assert exemplar_weights({1: 0.0, 2: 1.0, 3: 1.0}, 2.0, 2.0, [0, 0, 1.0, 0.0]) == {2: 1.0}

    @given(
        counts=st.dictionaries(st.integers(0, 9), st.integers(1, 50), min_size=1, max_size=10),
        idfs=st.lists(st.floats(0.01, 10.0), min_size=10, max_size=10),
        average=st.floats(1.0, 500.0),
    )
    def test_saturated_and_monotone(
        self, counts: dict[int, int], idfs: list[float], average: float
    ) -> None:
        floats = {t: float(c) for t, c in counts.items()}
        length = sum(floats.values())
        weights = exemplar_weights(floats, length, average, idfs)
        assert set(weights) == set(counts)
        for term, weight in weights.items():
            assert 0 < weight < idfs[term] * 2.5 + 1e-9
            more = exemplar_weights({term: floats[term] + 1}, length, average, idfs)[term]
            assert more >= weight
            assert math.isfinite(weight)


class TestTopRows:
    """The best candidates by a partition, the same as a full sort."""

    @given(
        values=st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=0, max_size=40),
        depth=st.integers(0, 45),
        data=st.data(),
    )
    def test_matches_a_full_sort(
        self, values: list[float], depth: int, data: st.DataObject
    ) -> None:
        array = np.array(values, dtype=np.float64)
        candidates = np.array(
            sorted(data.draw(st.sets(st.integers(0, max(len(values) - 1, 0))))) if values else [],
            dtype=np.int64,
        )
        rank = np.array(data.draw(st.permutations(list(range(len(values))))), dtype=np.int64)
        expected = sorted(candidates.tolist(), key=lambda r: (-array[r], rank[r]))[:depth]
        assert top_rows(array, candidates, depth, rank).tolist() == expected
        plain = sorted(candidates.tolist(), key=lambda r: (-array[r], r))[:depth]
        assert top_rows(array, candidates, depth).tolist() == plain


class TestBestRows:
    """The best rows above zero by a sampled floor: the same as sorting every qualifying row."""

    @given(
        values=st.lists(
            st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), min_size=0, max_size=3000
        ),
        depth=st.integers(0, 40),
        data=st.data(),
    )
    def test_matches_a_full_sort(
        self, values: list[float], depth: int, data: st.DataObject
    ) -> None:
        array = np.array(values, dtype=np.float64)
        count = len(values)
        exclude = data.draw(st.integers(-1, max(count - 1, -1)))
        eligible = np.array(data.draw(st.lists(st.booleans(), min_size=count, max_size=count)))
        rank = np.arange(count, dtype=np.int64)[::-1].copy()  # ties: higher row first
        chosen = [r for r in range(count) if array[r] > 0 and r != exclude and eligible[r]]
        expected = sorted(chosen, key=lambda r: (-array[r], rank[r]))[:depth]
        got = best_rows(
            array, depth, exclude=exclude, eligible=eligible if count else None, rank=rank
        )
        assert got.tolist() == expected

    def test_large_arrays_take_the_sampled_floor(self) -> None:
        rng = np.random.default_rng(3)
        values = np.round(rng.random(200_000), 3)  # many ties
        values[rng.integers(0, 200_000, 5000)] = 0.0
        rank = rng.permutation(200_000).astype(np.int64)
        for depth in (1, 10, 1000):
            expected = np.lexsort((rank, -values))[:depth]
            assert best_rows(values, depth, exclude=int(expected[0]), rank=rank).tolist() == (
                np.lexsort((rank, -values))[1 : depth + 1].tolist()
            )
