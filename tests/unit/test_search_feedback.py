"""Pseudo-relevance feedback (RM3) and exemplar weights, on plain arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from semreport.search._feedback import (
    EXPANSION_TERMS,
    FEEDBACK_ROWS,
    MIN_TERM_ROWS,
    ORIGINAL_WEIGHT,
    Expansion,
    ExpansionTerm,
    exemplar_weights,
    expand,
    feedback_rows,
    relevance_model,
    rm3,
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


class TestRelevanceModel:
    """P(w) = sum over rows of (s(d) / sum s) * tf(w, d) / |d|."""

    def test_known_values(self) -> None:
        model = relevance_model([3.0, 1.0], [{1: 2.0, 2: 2.0}, {2: 1.0, 3: 3.0}], [4.0, 4.0])
        assert model == pytest.approx({1: 0.375, 2: 0.375 + 0.0625, 3: 0.1875})
        assert sum(model.values()) == pytest.approx(1.0)

    def test_rows_without_length_or_score_count_nothing(self) -> None:
        assert relevance_model([], [], []) == {}
        assert relevance_model([1.0], [{}], [0.0]) == {}
        assert relevance_model([1.0, 1.0], [{1: 1.0}, {}], [1.0, 0.0]) == {1: 1.0}

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
        counts = [{t: float(c) for t, c in tfs.items()} for _, tfs in rows]
        lengths = [sum(c.values()) for c in counts]
        model = relevance_model(scores, counts, lengths)
        assert sum(model.values()) == pytest.approx(1.0)
        assert all(p > 0 for p in model.values())
        assert set(model) == {t for c in counts for t in c}


def _rows() -> tuple[list[int], list[float], list[dict[int, float]], list[float]]:
    # Term 9 is everywhere, 7 in two rows, 8 in one row only (repeated there).
    counts = [{1: 1.0, 9: 2.0, 7: 1.0}, {9: 1.0, 7: 2.0, 8: 5.0}, {9: 1.0, 2: 1.0}]
    return [4, 2, 0], [3.0, 2.0, 1.0], counts, [sum(c.values()) for c in counts]


class TestRm3:
    """Expansion terms from the feedback rows, interpolated with the query."""

    def test_expands_with_terms_of_at_least_two_rows(self) -> None:
        rows, scores, counts, lengths = _rows()
        expansion = rm3({1: 2.0, 2: 2.0}, rows, scores, counts, lengths)
        assert expansion.expanded
        assert expansion.rows == (4, 2, 0)
        # 8 is frequent in one row only, 1 and 2 in one row each: only 9 and 7 qualify.
        assert [t.term for t in expansion.terms] == [9, 7]
        assert expansion.terms[0].rows == (4, 2, 0)
        assert expansion.terms[1].rows == (4, 2)
        assert sum(t.weight for t in expansion.terms) == pytest.approx(1.0)
        model = relevance_model(scores, counts, lengths)
        mass = model[9] + model[7]
        assert expansion.query == pytest.approx(
            {
                1: ORIGINAL_WEIGHT * 0.5,
                2: ORIGINAL_WEIGHT * 0.5,
                9: (1 - ORIGINAL_WEIGHT) * model[9] / mass,
                7: (1 - ORIGINAL_WEIGHT) * model[7] / mass,
            }
        )

    def test_an_original_term_gains_its_expansion_weight(self) -> None:
        rows, scores, counts, lengths = _rows()
        expansion = rm3({9: 1.0}, rows, scores, counts, lengths)
        nine = next(t for t in expansion.terms if t.term == 9)
        assert expansion.query[9] == pytest.approx(
            ORIGINAL_WEIGHT + (1 - ORIGINAL_WEIGHT) * nine.weight
        )

    def test_the_cap_and_the_row_rule(self) -> None:
        rows, scores, counts, lengths = _rows()
        one = rm3({1: 1.0}, rows, scores, counts, lengths, terms=1)
        assert [t.term for t in one.terms] == [9]
        loose = rm3({1: 1.0}, rows, scores, counts, lengths, min_rows=1)
        assert {t.term for t in loose.terms} == {1, 2, 7, 8, 9}
        strict = rm3({1: 1.0}, rows, scores, counts, lengths, min_rows=4)
        assert not strict.expanded
        assert strict.query == {1: 1.0}
        assert strict.rows == (4, 2, 0)

    def test_nothing_to_learn_from_leaves_the_query_normalised(self) -> None:
        assert rm3({1: 3.0, 2: 1.0}, [], [], [], []) == Expansion(
            query={1: 0.75, 2: 0.25}, terms=(), rows=()
        )
        rows, scores, counts, lengths = _rows()
        assert rm3({}, rows, scores, counts, lengths) == Expansion(
            query={}, terms=(), rows=(4, 2, 0)
        )
        assert rm3({1: 0.0}, rows, scores, counts, lengths).query == {}

    def test_names_break_ties_between_equally_probable_terms(self) -> None:
        counts = [{0: 1.0, 1: 1.0}, {0: 1.0, 1: 1.0}]
        by_id = rm3({0: 1.0}, [0, 1], [1.0, 1.0], counts, [2.0, 2.0], terms=1)
        assert [t.term for t in by_id.terms] == [0]
        named = rm3({0: 1.0}, [0, 1], [1.0, 1.0], counts, [2.0, 2.0], terms=1, names=["b", "a"])
        assert [t.term for t in named.terms] == [1]

    @given(
        query=st.dictionaries(st.integers(0, 15), st.integers(1, 4), min_size=1, max_size=5),
        rows=st.lists(
            st.tuples(
                st.floats(0.01, 20.0),
                st.dictionaries(st.integers(0, 15), st.integers(1, 4), min_size=1, max_size=6),
            ),
            min_size=1,
            max_size=10,
        ),
        terms=st.integers(0, 12),
    )
    def test_properties(
        self, query: dict[int, int], rows: list[tuple[float, dict[int, int]]], terms: int
    ) -> None:
        ids = list(range(len(rows)))
        scores = [s for s, _ in rows]
        counts = [{t: float(c) for t, c in tfs.items()} for _, tfs in rows]
        lengths = [sum(c.values()) for c in counts]
        weights = {t: float(w) for t, w in query.items()}
        expansion = rm3(weights, ids, scores, counts, lengths, terms=terms)
        assert sum(expansion.query.values()) == pytest.approx(1.0)
        assert all(w > 0 for w in expansion.query.values())
        assert len(expansion.terms) <= terms
        total = sum(weights.values())
        for term, weight in weights.items():
            floor = ORIGINAL_WEIGHT * weight / total if expansion.expanded else weight / total
            assert expansion.query[term] >= floor - 1e-12
        for item in expansion.terms:
            assert len(item.rows) >= MIN_TERM_ROWS
            assert list(item.rows) == [r for r in ids if counts[r].get(item.term, 0) > 0]
        assert [t.weight for t in expansion.terms] == sorted(
            (t.weight for t in expansion.terms), reverse=True
        )
        # The feedback rows' order does not change the result.
        backwards = rm3(weights, ids[::-1], scores[::-1], counts[::-1], lengths[::-1], terms=terms)
        assert [t.term for t in backwards.terms] == [t.term for t in expansion.terms]
        assert backwards.query == pytest.approx(expansion.query)


class TestExpand:
    """The defaults end to end: feedback rows of the first pass, then RM3."""

    def test_expands_from_the_first_pass(self) -> None:
        n = FEEDBACK_ROWS + 2
        counts = [{0: 1.0, 5: 1.0} if r % 2 else {0: 1.0, 6: 2.0} for r in range(n)]
        lengths = np.array([sum(c.values()) for c in counts])
        scores = np.arange(n, dtype=np.float64)  # row 0 does not match
        expansion = expand({0: 1.0}, scores, counts, lengths)
        assert expansion.rows == tuple(range(n - 1, 1, -1))
        assert {t.term for t in expansion.terms} == {0, 5, 6}
        assert len(expansion.terms) <= EXPANSION_TERMS
        excluded = expand({0: 1.0}, scores, dict(enumerate(counts)), lengths, exclude=n - 1)
        assert excluded.rows == tuple(range(n - 2, 0, -1))

    def test_a_weak_first_pass_is_not_expanded(self) -> None:
        scores = np.zeros(30)
        scores[:3] = 1.0
        counts = [{0: 1.0}] * 30
        expansion = expand({0: 2.0}, scores, counts, np.ones(30))
        assert expansion == Expansion(query={0: 1.0}, terms=(), rows=())
        assert not expansion.expanded
        assert ExpansionTerm(0, 1.0, ()) == ExpansionTerm(0, 1.0, ())


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
