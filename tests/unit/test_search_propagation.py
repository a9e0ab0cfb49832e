"""One propagation step over the decision graph, weighed by its agreement with the text."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from semreport.search._propagation import (
    AGREEMENT_DEPTH,
    agreement,
    neighbourhood,
    propagate,
)


def _graph(count: int, edges: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    sources = np.array([a for a, _ in edges], dtype=np.int64)
    targets = np.array([b for _, b in edges], dtype=np.int64)
    return neighbourhood(count, sources, targets)


class TestNeighbourhood:
    """Links count both ways, once each; self-loops not at all."""

    def test_csr_of_an_undirected_graph(self) -> None:
        indptr, indices = _graph(4, [(0, 1), (1, 0), (2, 1), (3, 3), (0, 1)])
        assert indptr.tolist() == [0, 1, 3, 4, 4]
        assert indices.tolist() == [1, 0, 2, 1]

    def test_no_edges(self) -> None:
        indptr, indices = _graph(3, [])
        assert indptr.tolist() == [0, 0, 0, 0]
        assert indices.tolist() == []
        indptr, indices = _graph(0, [])
        assert indptr.tolist() == [0]


class TestAgreement:
    """r is Pearson's correlation; a discounts two standard errors of zero."""

    def test_known_values(self) -> None:
        values = np.array([0.9, 0.5, 0.1, 0.3])
        rows = np.arange(4, dtype=np.int64)
        r, a = agreement(values, values * 2 + 1, rows)
        assert r == pytest.approx(1.0)
        assert a == pytest.approx(1.0 - 2 / math.sqrt(4))
        r, a = agreement(values, -values, rows)
        assert r == pytest.approx(-1.0)
        assert a == 0.0

    def test_undefined_correlation_is_none(self) -> None:
        values = np.array([0.9, 0.5, 0.1])
        assert agreement(values, values, np.arange(2, dtype=np.int64)) == (0.0, 0.0)
        assert agreement(values, np.ones(3), np.arange(3, dtype=np.int64)) == (0.0, 0.0)


class TestPropagate:
    """Scores in [0, 1], the text alone when the graph does not agree, explained by neighbours."""

    def test_an_agreeing_graph_lifts_the_exemplar_s_neighbours(self) -> None:
        # Two clusters: rows 0-4 (with the exemplar 0) score high in text, 5-9 low;
        # links stay within a cluster, so the graph agrees with the text.
        values = np.array([0.0, 0.8, 0.7, 0.6, 0.5, 0.2, 0.15, 0.1, 0.05, 0.0])
        edges = [(a, b) for a in range(5) for b in range(a + 1, 5)]
        edges += [(a, b) for a in range(5, 10) for b in range(a + 1, 10)]
        indptr, indices = _graph(10, edges)
        result = propagate(values, indptr, indices, exemplar=0)
        assert result.depth == 8  # the matching rows, the exemplar excluded
        assert result.correlation > 0.9
        assert result.weight == pytest.approx(max(0.0, result.correlation - 2 / math.sqrt(8)))
        assert result.weight > 0
        assert result.graph[1] == pytest.approx((1.0 + 0.7 + 0.6 + 0.5) / 4)
        assert result.values == pytest.approx(
            (values + result.weight * result.graph) / (1 + result.weight)
        )
        # Row 9 matched no text but its neighbours did: the graph alone scores it.
        assert result.values[9] > 0
        evidence = result.neighbours(1)
        assert [n for n, _ in evidence] == [0, 2, 3, 4]  # the exemplar (value 1) first
        assert sum(amount for _, amount in evidence) == pytest.approx(
            result.values[1] - result.text_share(1)
        )
        assert result.neighbours(9)[-1][0] == 8  # row 8 gave least, 9's other neighbours more

    def test_a_graph_that_disagrees_leaves_the_text(self) -> None:
        values = np.array([0.9, 0.8, 0.1, 0.05])
        indptr, indices = _graph(4, [(0, 3), (1, 2)])  # high rows linked to low rows
        result = propagate(values, indptr, indices)
        assert result.weight == 0.0
        assert result.values.tolist() == values.tolist()
        assert result.neighbours(0) == ()
        assert result.text_share(0) == pytest.approx(0.9)

    def test_rows_without_links_keep_a_graph_value_of_zero(self) -> None:
        values = np.array([0.5, 0.4, 0.3])
        indptr, indices = _graph(3, [])
        result = propagate(values, indptr, indices, exemplar=2)
        assert result.graph.tolist() == [0.0, 0.0, 0.0]
        assert result.neighbours(1) == ()
        assert result.depth == 2

    def test_depth_and_rank_choose_the_rows_measured(self) -> None:
        values = np.array([0.5, 0.5, 0.5, 0.2])
        indptr, indices = _graph(4, [(0, 1)])
        assert propagate(values, indptr, indices, depth=2).depth == 2
        assert propagate(values, indptr, indices, depth=0).depth == 0
        ranked = propagate(values, indptr, indices, rank=np.array([3, 2, 1, 0], dtype=np.int64))
        assert ranked.depth == 4
        assert AGREEMENT_DEPTH == 1000

    @given(
        values=st.lists(
            st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.5, 0.75, 1.0]), min_size=1, max_size=25
        ),
        data=st.data(),
    )
    def test_properties(self, values: list[float], data: st.DataObject) -> None:
        count = len(values)
        edges = data.draw(
            st.lists(st.tuples(st.integers(0, count - 1), st.integers(0, count - 1)), max_size=60)
        )
        exemplar = data.draw(st.none() | st.integers(0, count - 1))
        text = np.array(values)
        indptr, indices = _graph(count, edges)
        result = propagate(text, indptr, indices, exemplar=exemplar)
        assert 0.0 <= result.weight < 1.0
        assert np.all(result.values >= 0.0)
        assert np.all(result.values <= 1.0 + 1e-12)
        if result.weight == 0:
            assert result.values.tolist() == text.tolist()
        for row in range(count):
            evidence = result.neighbours(row)
            share = sum(amount for _, amount in evidence)
            assert result.text_share(row) + share == pytest.approx(float(result.values[row]))
            linked = set(indices[indptr[row] : indptr[row + 1]].tolist())
            assert {n for n, _ in evidence} <= linked
            assert all(amount > 0 for _, amount in evidence)
