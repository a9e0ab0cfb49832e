"""One propagation step over links and shared items, weighed by its agreement with the text."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from semreport.search._propagation import (
    AGREEMENT_DEPTH,
    QUANTUM,
    Graph,
    Propagation,
    Spread,
    agreement,
    propagate,
    quantise,
)


def _csr(count: int, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """CSR of ``(row, value)`` pairs, values ascending per row."""
    by_row: list[list[int]] = [[] for _ in range(count)]
    for row, value in pairs:
        by_row[row].append(value)
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum([len(v) for v in by_row], out=indptr[1:])
    flat = [v for values in by_row for v in sorted(values)]
    return indptr, np.array(flat, dtype=np.int64)


def _graph(
    count: int, edges: list[tuple[int, int]], items: dict[int, list[int]] | None = None
) -> Graph:
    """Links both ways (each once, no self-loops) and ``row -> keys`` items."""
    undirected = {(a, b) for a, b in edges if a != b} | {(b, a) for a, b in edges if a != b}
    link_indptr, link_rows = _csr(count, sorted(undirected))
    pairs = [(row, key) for row, keys in (items or {}).items() for key in sorted(set(keys))]
    thing_indptr, thing_keys = _csr(count, pairs)
    keys = max((k for _, k in pairs), default=-1) + 1
    return Graph.build(link_indptr, link_rows, thing_indptr, thing_keys, keys)


def _brute(
    graph: Graph, seed: np.ndarray, extra_rows: set[int], extra_keys: set[int]
) -> list[float]:
    """g(i) by the definition: the mean over i's neighbours of their values."""
    out = []
    holders: dict[int, list[int]] = {}
    for row in range(graph.size):
        for key in graph.thing_keys[graph.thing_indptr[row] : graph.thing_indptr[row + 1]]:
            holders.setdefault(int(key), []).append(row)
    for row in range(graph.size):
        values = [
            float(seed[n])
            for n in graph.link_rows[graph.link_indptr[row] : graph.link_indptr[row + 1]]
        ]
        if row in extra_rows:
            values.append(1.0)
        for key in graph.thing_keys[graph.thing_indptr[row] : graph.thing_indptr[row + 1]]:
            others = [float(seed[h]) for h in holders[int(key)] if h != row]
            if int(key) in extra_keys:
                others.append(1.0)
            if others:
                values.append(sum(others) / len(others))
        out.append(sum(values) / len(values) if values else 0.0)
    return out


class TestAgreement:
    """r is Pearson's correlation; a discounts two standard errors of zero."""

    def test_known_values(self) -> None:
        values = np.array([0.9, 0.5, 0.1, 0.3])
        rows = np.arange(4, dtype=np.int64)
        r, a, s = agreement(values, values * 2 + 1, rows)
        assert r == pytest.approx(1.0)
        assert a == pytest.approx(1.0 - 2 / math.sqrt(4))
        assert s == pytest.approx(0.5)  # the graph varies twice as much as the text
        r, a, s = agreement(values, -values / 4, rows)
        assert r == pytest.approx(-1.0)
        assert a == 0.0
        assert s == pytest.approx(4.0)

    def test_the_scale_matches_the_spreads(self) -> None:
        rng = np.random.default_rng(5)
        values, graph = rng.random(50), rng.random(50) / 10
        rows = np.arange(10, 50, dtype=np.int64)
        s = agreement(values, graph, rows)[2]
        assert s * float(np.std(graph[rows])) == pytest.approx(float(np.std(values[rows])))

    def test_undefined_correlation_is_none(self) -> None:
        values = np.array([0.9, 0.5, 0.1])
        assert agreement(values, values, np.arange(2, dtype=np.int64)) == (0.0, 0.0, 1.0)
        assert agreement(values, np.ones(3), np.arange(3, dtype=np.int64)) == (0.0, 0.0, 1.0)


class TestGraph:
    """The query-independent columns: holders, shares, each row's neighbour count."""

    def test_columns(self) -> None:
        graph = _graph(4, [(0, 1), (1, 0), (3, 3)], {0: [0, 1], 1: [0], 2: [0, 2]})
        assert graph.link_indptr.tolist() == [0, 1, 2, 2, 2]
        assert graph.holders.tolist() == [3, 1, 1]
        assert graph.shares.tolist() == [0.5, 0.0, 0.0]
        # Row 0: one link and key 0 (key 1 nobody else holds); row 3: nothing.
        assert graph.degree.tolist() == [2.0, 2.0, 1.0, 0.0]
        assert graph.spread.tolist() == [0.5, 0.5, 0.5, 0.0]
        assert graph.key_indptr.tolist() == [0, 3, 4, 5]
        assert graph.key_rows.tolist() == [0, 1, 2, 0, 2]

    def test_quantise(self) -> None:
        values = np.array([0.0, 1.0, 1 / 3, 0.5 + QUANTUM / 4])
        rounded = quantise(values)
        assert rounded[:2].tolist() == [0.0, 1.0]
        assert rounded[2] == pytest.approx(1 / 3, abs=QUANTUM)
        assert rounded[3] == 0.5
        assert np.all(np.round(rounded / QUANTUM) * QUANTUM == rounded)


class TestPropagation:
    """g(i) is the mean of i's neighbours' values, an item standing for its other holders."""

    def test_known_values(self) -> None:
        # 0-1 linked; 0, 1 and 2 hold key 0; 3 links to 2.
        graph = _graph(4, [(0, 1), (3, 2)], {0: [0], 1: [0], 2: [0]})
        seed = np.array([1.0, 0.5, 0.25, 0.0])
        sources = np.arange(4, dtype=np.int64)
        propagation = Propagation(graph, sources, seed)
        g, degree = propagation.dense()
        assert degree.tolist() == [2.0, 2.0, 2.0, 1.0]
        assert g.tolist() == pytest.approx(
            [(0.5 + (0.5 + 0.25) / 2) / 2, (1.0 + 1.25 / 2) / 2, (0.0 + 1.5 / 2) / 2, 0.25]
        )
        assert propagation.values(np.array([3, 1], dtype=np.int64))[0].tolist() == pytest.approx(
            [g[3], g[1]]
        )
        shares = propagation.contributions(1)
        assert [(c.kind, c.node) for c in shares] == [("link", 0), ("thing", 0)]
        assert sum(c.amount for c in shares) == pytest.approx(g[1])
        assert propagation.contributions(3) == propagation.contributions(3)
        assert [c.node for c in propagation.contributions(3)] == [2]

    def test_contributions_are_plain_floats(self) -> None:
        # Explanations carry them: a numpy scalar is a float subclass that strict
        # JSON encoders (orjson) refuse.
        graph = _graph(4, [(0, 1), (3, 2)], {0: [0], 1: [0], 2: [0]})
        propagation = Propagation(
            graph, np.arange(4, dtype=np.int64), np.array([1.0, 0.5, 0.25, 0.0])
        )
        amounts = [c.amount for row in range(4) for c in propagation.contributions(row)]
        assert {c.kind for row in range(4) for c in propagation.contributions(row)} == {
            "link",
            "thing",
        }
        assert amounts
        assert {type(amount) for amount in amounts} == {float}

    def test_sources_only_pass_values(self) -> None:
        graph = _graph(3, [(0, 1), (1, 2)])
        propagation = Propagation(graph, np.array([2], dtype=np.int64), np.array([0.5]))
        assert propagation.dense()[0].tolist() == [0.0, 0.25, 0.0]
        assert propagation.contributions(0) == []

    def test_an_inline_exemplar_joins_as_a_node(self) -> None:
        # Key 1 is held by row 2 only: shared with the exemplar, it becomes a neighbour.
        graph = _graph(4, [(0, 1)], {0: [0], 1: [0], 2: [1]})
        propagation = Propagation(
            graph,
            np.zeros(0, dtype=np.int64),
            np.zeros(0),
            extra_rows=[3],
            extra_keys=[1, 0, 99],
        )
        g, degree = propagation.dense()
        assert degree.tolist() == [2.0, 2.0, 1.0, 1.0]
        assert g.tolist() == pytest.approx([0.25, 0.25, 1.0, 1.0])
        assert [(c.kind, c.node) for c in propagation.contributions(3)] == [("link", -1)]
        assert [(c.kind, c.node) for c in propagation.contributions(2)] == [("thing", 1)]

    @given(
        values=st.lists(
            st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.5, 0.75, 1.0]), min_size=1, max_size=20
        ),
        data=st.data(),
    )
    def test_matches_the_definition(self, values: list[float], data: st.DataObject) -> None:
        count = len(values)
        row = st.integers(0, count - 1)
        edges = data.draw(st.lists(st.tuples(row, row), max_size=40))
        items = data.draw(st.dictionaries(row, st.lists(st.integers(0, 5), max_size=3)))
        extra_rows = data.draw(st.sets(row, max_size=2))
        extra_keys = data.draw(st.sets(st.integers(0, 6), max_size=2))
        graph = _graph(count, edges, items)
        seed = np.array(values)
        propagation = Propagation(
            graph,
            np.arange(count, dtype=np.int64),
            seed,
            extra_rows=sorted(extra_rows),
            extra_keys=sorted(extra_keys),
        )
        g, _ = propagation.dense()
        expected = _brute(graph, quantise(seed), extra_rows, {k for k in extra_keys if k < 6})
        assert g.tolist() == pytest.approx(expected, abs=1e-8)
        assert np.all((g >= 0) & (g <= 1))
        rows = np.array(data.draw(st.lists(row, max_size=8)), dtype=np.int64)
        assert propagation.values(rows)[0].tolist() == g[rows].tolist()
        # The first sources' values, read from the items found for the seed, in any order.
        order = np.array(data.draw(st.permutations(list(range(count)))), dtype=np.int64)
        shuffled = Propagation(
            graph, order, seed[order], extra_rows=sorted(extra_rows), extra_keys=sorted(extra_keys)
        )
        first = data.draw(st.integers(0, count))
        assert shuffled.source_values(first)[0].tolist() == g[order[:first]].tolist()
        for r in range(count):
            shares = propagation.contributions(r)
            assert sum(c.amount for c in shares) == pytest.approx(g[r], abs=1e-8)
            assert all(c.amount > 0 for c in shares)
        # A page's shares, read at once, are each row's contributions (the same floats).
        page = data.draw(st.lists(row, max_size=8))
        assert propagation.shares_of(page) == [
            [(c.kind, c.node, c.amount) for c in propagation.contributions(r)] for r in page
        ]

    @given(data=st.data())
    def test_sums_do_not_depend_on_row_order(self, data: st.DataObject) -> None:
        count = data.draw(st.integers(2, 12))
        row = st.integers(0, count - 1)
        edges = data.draw(st.lists(st.tuples(row, row), max_size=30))
        items = data.draw(st.dictionaries(row, st.lists(st.integers(0, 4), max_size=3)))
        seed = np.array(data.draw(st.lists(st.floats(0, 1), min_size=count, max_size=count)))
        order = data.draw(st.permutations(list(range(count))))
        where = {old: new for new, old in enumerate(order)}
        one = Propagation(_graph(count, edges, items), np.arange(count), seed).dense()[0]
        moved = _graph(
            count,
            [(where[a], where[b]) for a, b in edges],
            {where[r]: keys for r, keys in items.items()},
        )
        two = Propagation(moved, np.arange(count), seed[order]).dense()[0]
        assert two.tolist() == one[order].tolist()  # exact, not approximate


class TestPropagate:
    """Sources are the text's top rows; a graph that does not agree counts nothing."""

    def test_an_agreeing_graph_counts(self) -> None:
        # Two clusters: rows 0-4 (with the exemplar 0) score high, 5-9 low; links stay inside.
        text = np.array([0.0, 0.8, 0.7, 0.6, 0.5, 0.2, 0.15, 0.1, 0.05, 0.0])
        edges = [(a, b) for a in range(5) for b in range(a + 1, 5)]
        edges += [(a, b) for a in range(5, 10) for b in range(a + 1, 10)]
        spread = propagate(_graph(10, edges), text, exemplar=0)
        assert spread.rows == 8  # the matching rows, the exemplar excluded
        assert spread.correlation > 0.9
        assert spread.weight == pytest.approx(spread.correlation - 2 / math.sqrt(8))
        g = spread.propagation.dense()[0]
        assert g[1] == pytest.approx((1.0 + 0.7 + 0.6 + 0.5) / 4)
        assert g[9] > 0  # no text, but its neighbours have
        rows = np.arange(1, 9, dtype=np.int64)  # the measured rows, best first (no ties)
        assert spread.scale == pytest.approx(float(np.std(text[rows]) / np.std(g[rows])))
        value = spread.value(g)
        assert value.tolist() == (spread.weight * np.minimum(1.0, spread.scale * g)).tolist()
        assert float(value.min()) >= 0.0
        assert float(value.max()) <= spread.weight

    def test_the_value_is_cut_at_the_weight(self) -> None:
        spread = propagate(_graph(3, [(0, 1)]), np.zeros(3), exemplar=0)
        cut = Spread(spread.propagation, 0.5, 0.4, 10, 3.0)
        assert cut.value(np.array([0.0, 0.1, 0.5])).tolist() == pytest.approx([0.0, 0.12, 0.4])

    def test_a_graph_that_disagrees_counts_nothing(self) -> None:
        text = np.array([0.9, 0.8, 0.7, 0.1, 0.05, 0.02])
        spread = propagate(_graph(6, [(0, 5), (1, 4), (2, 3)]), text)
        assert spread.weight == 0.0
        assert spread.correlation < 0

    def test_without_text_the_graph_counts_fully(self) -> None:
        spread = propagate(_graph(3, [(0, 1)]), np.zeros(3), exemplar=0)
        assert (spread.correlation, spread.weight, spread.rows) == (0.0, 1.0, 0)
        assert spread.scale == 1.0
        assert spread.propagation.dense()[0].tolist() == [0.0, 1.0, 0.0]

    def test_rows_without_neighbours_are_not_measured(self) -> None:
        spread = propagate(_graph(4, [(0, 1)]), np.array([0.5, 0.4, 0.3, 0.2]))
        assert spread.rows == 2
        assert spread.weight == 0.0
        assert AGREEMENT_DEPTH == 1000


class TestKeyMajor:
    """A caller's key-major form of the items gives the same graph as computing it."""

    def test_same_graph(self) -> None:
        items = {0: [2, 0], 1: [0], 3: [2, 1]}
        plain = _graph(4, [(0, 1)], items)
        pairs = sorted((key, row) for row, keys in items.items() for key in keys)
        key_indptr = np.zeros(4, dtype=np.int64)
        np.cumsum(np.bincount([k for k, _ in pairs], minlength=3), out=key_indptr[1:])
        given = Graph.build(
            plain.link_indptr,
            plain.link_rows,
            plain.thing_indptr,
            plain.thing_keys,
            3,
            by_key=(key_indptr, np.array([r for _, r in pairs], dtype=np.int32)),
        )
        assert given.key_rows.tolist() == plain.key_rows.tolist()
        assert given.key_indptr.tolist() == plain.key_indptr.tolist()
        assert given.degree.tolist() == plain.degree.tolist()
