"""Properties of the relevance signals (feedback, terms, graph) over generated projects."""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semreport
from _search_support import graph_shares_total
from semreport.domain import Decision
from semreport.search import HeuristicScorer, SearchResult
from semreport.search._text import Tokenizer
from semreport.search.signals import SIGNALS, Query, prepare_active
from semreport.testing import synthetic_decisions, synthetic_queries

SIZES = (30, 60, 120)
"""Projects large enough for feedback (ten first-pass matches) and a measurable agreement."""


@functools.cache
def _project(size: int, seed: int) -> tuple[Decision, ...]:
    return tuple(synthetic_decisions(size, seed=seed, project_id="p"))


@functools.cache
def _opened(size: int, seed: int) -> semreport.SemReport:
    """One project per (size, seed), recorded once: searches never change it."""
    sr = semreport.open("memory://")
    sr.record(list(_project(size, seed)))
    return sr


projects = st.tuples(st.sampled_from(SIZES), st.integers(0, 3))
texts = st.sampled_from(synthetic_queries(40, seed=9))
find_weights = st.sampled_from(
    [{}, {"graph": 2.0}, {"feedback": 0.0}, {"text": 0.0, "graph": 1.0}, {"feedback": 3.0}]
)
similar_weights = st.sampled_from([{}, {"feedback": 0.0}, {"graph": 0.5}, {"terms": 0.0}])


def _check(result: SearchResult) -> None:
    for hit in result.hits:
        assert 0.0 <= hit.score <= 1.0
        assert abs(sum(c.contribution for c in hit.explanation) - hit.score) <= 1e-9
        for entry in hit.explanation:
            assert 0.0 <= entry.normalised <= 1.0


def _query(sr: semreport.SemReport, **fields: Any) -> Query:
    scorer = sr.scorer
    assert isinstance(scorer, HeuristicScorer)
    return Query(snap=scorer.index(sr.storage, "p"), **fields)


def _weights(mode: str, given_weights: dict[str, float]) -> dict[str, float]:
    base = {s.name: s.find_weight if mode == "find" else s.similar_weight for s in SIGNALS}
    return base | given_weights


class TestScores:
    """Scores in [0, 1]; every hit's contributions add up to its score."""

    @given(projects, texts, find_weights)
    def test_find(self, project: tuple[int, int], text: str, weights: dict[str, float]) -> None:
        sr = _opened(*project)
        _check(sr.find("p", {"text": text, "weights": weights, "limit": 100}))

    @given(projects, st.data(), similar_weights)
    def test_similar(
        self, project: tuple[int, int], data: st.DataObject, weights: dict[str, float]
    ) -> None:
        sr = _opened(*project)
        exemplar = data.draw(st.sampled_from(_project(*project))).id
        result = sr.similar("p", {"decision_id": exemplar, "weights": weights, "limit": 100})
        _check(result)
        assert exemplar not in [h.decision_id for h in result.hits]
        assert all(h.score > 0 for h in result.hits)


class TestBounds:
    """Each prepared state's values lie in [0, its bound]; dense and row-wise values agree."""

    @given(projects, texts, find_weights, st.data())
    def test_bounds_are_upper_bounds(
        self,
        project: tuple[int, int],
        text: str,
        weights: dict[str, float],
        data: st.DataObject,
    ) -> None:
        sr = _opened(*project)
        decisions = _project(*project)
        if data.draw(st.booleans()):
            query = _query(sr, mode="find", text=text)
            chosen = prepare_active(query, _weights("find", weights))
        else:
            row = data.draw(st.integers(0, len(decisions) - 1))
            query = _query(sr, mode="similar", exemplar=decisions[row], exemplar_row=row)
            chosen = prepare_active(query, _weights("similar", {}))
        every = np.arange(query.snap.n, dtype=np.int64)
        some = np.array(data.draw(st.lists(st.integers(0, len(decisions) - 1))), dtype=np.int64)
        for _signal, state in chosen:
            values = state.values(every)[0]
            assert np.all(values >= 0.0)
            assert np.all(values <= state.bound)
            assert state.bound <= 1.0
            assert state.dense().tolist() == values.tolist()
            assert state.values(some)[0].tolist() == values[some].tolist()
            assert not state.idle


_OURS = frozenset({"text", "terms", "feedback", "graph"})


def _seen(result: SearchResult) -> list[tuple[str, float, tuple[Any, ...]]]:
    """Ids, scores and the relevance signals' contributions with their evidence.

    (The ``attributes`` evidence shows a spread computed in row order, which may
    differ in its last bit; it is not these signals' concern.)
    """
    return [
        (h.decision_id, h.score, tuple(c for c in h.explanation if c.signal in _OURS))
        for h in result.hits
    ]


def _shuffled(decisions: tuple[Decision, ...], seed: int) -> list[Decision]:
    """The same decisions recorded in another order (links may precede their targets)."""
    order = list(decisions)
    random.Random(seed).shuffle(order)
    return order


class TestDeterminism:
    """Feedback and propagation give the same hits, scores and evidence in any recording order."""

    @settings(max_examples=10)
    @given(projects, texts, st.integers(0, 1000), st.data())
    def test_any_recording_order(
        self, project: tuple[int, int], text: str, seed: int, data: st.DataObject
    ) -> None:
        decisions = _project(*project)
        exemplar = data.draw(st.sampled_from(decisions)).id
        with semreport.open("memory://") as one, semreport.open("memory://") as two:
            one.record(list(decisions))
            two.record(_shuffled(decisions, seed))
            for request in (
                {"text": text, "limit": 100},
                {"text": text, "limit": 100, "weights": {"graph": 2.0}},
            ):
                assert _seen(one.find("p", request)) == _seen(two.find("p", request))
            request = {"decision_id": exemplar, "limit": 100}
            a, b = one.similar("p", request), two.similar("p", request)
            assert _seen(a) == _seen(b)
            again = one.similar("p", request)
            assert again.hits == a.hits


def _stems(text: str) -> set[str]:
    return set(Tokenizer().terms(text))


class TestEvidence:
    """What feedback and the graph say about a hit is true of it, and adds up."""

    @given(projects, texts)
    def test_feedback_evidence(self, project: tuple[int, int], text: str) -> None:
        sr = _opened(*project)
        by_id = {d.id: d for d in _project(*project)}
        result = sr.find("p", {"text": text, "limit": 100})
        query_terms = _stems(text)
        for hit in result.hits:
            decision = by_id[hit.decision_id]
            held = _stems(f"{decision.title} {decision.statement} {decision.rationale}")
            assert held & query_terms  # feedback orders; it never makes a match in find
            feedback = hit.contribution("feedback")
            if feedback is None:
                continue
            sources = set(feedback.evidence["feedback_decisions"])  # type: ignore[arg-type]
            assert len(sources) == 10
            expansion = feedback.evidence["expansion_terms"]
            assert isinstance(expansion, semreport.FrozenDict)
            assert set(expansion) <= held
            assert (feedback.raw > 0) == bool(expansion)
            for item in expansion.values():
                assert isinstance(item, semreport.FrozenDict)
                assert set(item["from"]) <= sources  # type: ignore[arg-type]
                assert 0 < item["weight"] <= 1  # type: ignore[operator]

    @given(projects, st.data())
    def test_graph_evidence_adds_up(self, project: tuple[int, int], data: st.DataObject) -> None:
        sr = _opened(*project)
        decisions = _project(*project)
        exemplar = data.draw(st.sampled_from(decisions)).id
        result = sr.similar("p", {"decision_id": exemplar, "limit": 100})
        for hit in result.hits:
            graph = hit.contribution("graph")
            if graph is None:
                continue
            agreement = graph.evidence["agreement"]
            assert isinstance(agreement, semreport.FrozenDict)
            assert graph.normalised <= agreement["weight"] + 1e-12  # type: ignore[operator]
            assert graph_shares_total(graph.evidence) == pytest.approx(graph.normalised, abs=1e-9)
