"""Unit tests of signals, find and similar through the facade (memory://)."""

from __future__ import annotations

import pickle
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import attrs
import orjson
import pytest

import semreport
from _search_support import graph_shares_total
from semreport import (
    Decision,
    DecisionNotFound,
    Forbidden,
    FrozenDict,
    InvalidRequest,
    Principal,
    ProjectNotFound,
    Role,
    SearchResult,
    StoredRecord,
    Unauthenticated,
)
from semreport.search import (
    SIGNAL_NAMES,
    Criteria,
    Exemplar,
    Filters,
    HeuristicScorer,
    Hit,
    NumericRange,
    TimeRange,
    parse_criteria,
)
from semreport.storage.memory import MemoryStorage
from semreport.testing import synthetic_decisions
from semreport.testing.conformance import poked
from semreport.wire import from_wire, to_wire


def _d(decision_id: str, title: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": decision_id,
        "project_id": "p-1",
        "title": title,
        "statement": extra.pop("statement", title),
        "agent": extra.pop("agent", "a-1"),
    }
    base.update(extra)
    return base


PROJECT = [
    _d(
        "d-1",
        "Fire rated timber floor",
        domain="regulation",
        status="accepted",
        tags=["fire", "timber"],
        attributes={"cost_eur": 1200, "fire_resistance_min": 60},
        elements=["floor-1"],
        evidence=[{"kind": "regulation", "ref": "BR B3"}],
    ),
    _d(
        "d-2",
        "Concrete slab for the podium",
        domain="material",
        status="accepted",
        tags=["structure"],
        attributes={"cost_eur": 5000},
        elements=["slab-1"],
    ),
    _d(
        "d-3",
        "Timber floor with gypsum lining",
        domain="material",
        status="proposed",
        tags=["timber"],
        attributes={"cost_eur": 1500, "fire_resistance_min": 90},
        elements=["floor-1"],
        links=[{"kind": "supersedes", "target": "d-1"}],
    ),
    _d(
        "d-4",
        "Cost plan for the envelope",
        domain="cost",
        status="rejected",
        tags=["budget"],
        attributes={"cost_eur": 90000},
        agent="a-2",
    ),
    _d(
        "d-5",
        "Acoustic wall between flats",
        domain="regulation",
        status="accepted",
        tags=["acoustic"],
        attributes={"u_value": 0.3},
        links=[{"kind": "relates_to", "target": "d-3"}],
        evidence=[{"kind": "regulation", "ref": "BR B3"}],
    ),
]


@pytest.fixture
def sr() -> Iterator[semreport.SemReport]:
    with semreport.open("memory://") as facade:
        facade.record(PROJECT)
        yield facade


class TestFind:
    """find ranks by text, explains each hit and names the heuristic scorer."""

    def test_text_ranks_matching_decisions_first(self, sr: semreport.SemReport) -> None:
        result = sr.find("p-1", {"text": "timber floor"})
        assert isinstance(result, SearchResult)
        assert [h.decision_id for h in result.hits][:2] == ["d-3", "d-1"] or [
            h.decision_id for h in result.hits
        ][:2] == ["d-1", "d-3"]
        assert result.total == 2  # only the decisions holding a query term
        assert all(h.contribution("text").raw > 0 for h in result.hits)  # type: ignore[union-attr]
        assert result.scorer.name == "heuristic"
        assert result.scorer.model_inference is False
        top = result.hits[0]
        text = top.contribution("text")
        assert text is not None
        assert set(text.evidence["matched_terms"]) == {"timber", "floor"}  # type: ignore[arg-type]
        assert abs(sum(c.contribution for c in top.explanation) - top.score) < 1e-9

    @pytest.mark.parametrize("huge", [1e308, 1.7976931348623157e308])
    def test_huge_weights_count_by_their_ratios(self, sr: semreport.SemReport, huge: float) -> None:
        plain = sr.find("p-1", {"text": "timber floor", "weights": {"text": 2.0, "recency": 1.0}})
        scaled = sr.find(
            "p-1", {"text": "timber floor", "weights": {"text": huge, "recency": huge / 2}}
        )
        assert [h.decision_id for h in scaled.hits] == [h.decision_id for h in plain.hits]
        for hit, same in zip(scaled.hits, plain.hits, strict=True):
            assert hit.score == pytest.approx(same.score)
            assert 0 <= hit.score <= 1
            assert [c.weight for c in hit.explanation] == pytest.approx([2 / 3, 1 / 3])

    def test_superseded_is_demoted_by_default_and_excluded_on_request(
        self, sr: semreport.SemReport
    ) -> None:
        demoted = sr.find("p-1", {"text": "fire rated timber floor"})
        d1 = next(h for h in demoted.hits if h.decision_id == "d-1")
        assert d1.superseded
        assert d1.demotion == 0.5
        included = sr.find("p-1", {"text": "fire rated timber floor", "superseded": "include"})
        assert included.hits[0].decision_id == "d-1"
        assert next(h for h in included.hits if h.decision_id == "d-1").score > d1.score
        excluded = sr.find("p-1", {"text": "timber", "superseded": "exclude"})
        assert [h.decision_id for h in excluded.hits] == ["d-3"]
        assert excluded.total == 1

    def test_filters_are_a_mask(self, sr: semreport.SemReport) -> None:
        result = sr.find(
            "p-1",
            Criteria(
                text="timber",
                filters=Filters(
                    domain=frozenset({"material"}), attributes={"cost_eur": NumericRange(max=2000)}
                ),
            ),
        )
        assert [h.decision_id for h in result.hits] == ["d-3"]
        assert result.total == 1
        status = sr.find("p-1", {"filters": {"status": ["superseded"]}})
        assert [h.decision_id for h in status.hits] == ["d-1"]
        agents = sr.find("p-1", {"filters": {"agent": ["a-2"], "tags": ["budget"]}})
        assert [h.decision_id for h in agents.hits] == ["d-4"]
        later = sr.find("p-1", {"filters": {"recorded": {"after": "2999-01-01T00:00:00Z"}}})
        assert later.hits == ()
        assert later.total == 0

    def test_signal_weights_graph_recency_near_prefer(self, sr: semreport.SemReport) -> None:
        result = sr.find(
            "p-1",
            {
                "text": "floor",
                "weights": {"text": 1, "graph": 0.5, "recency": 0.5},
                "near": {"cost_eur": 1400},
                "prefer": {"tags": ["timber"]},
            },
        )
        names = {c.signal for c in result.hits[0].explanation}
        # Five decisions are too few for feedback (ten first-pass matches) or for the
        # graph to show that it agrees with the text: both are left out, not weighted in.
        assert names == {"text", "recency", "attributes", "facets"}
        for hit in result.hits:
            assert abs(sum(c.contribution for c in hit.explanation) - hit.score) < 1e-9
            assert 0.0 <= hit.score <= 1.0
        assert abs(sum(c.weight for c in result.hits[0].explanation) - 1.0) < 1e-12

    def test_pages_with_cursor(self, sr: semreport.SemReport) -> None:
        seen: list[str] = []
        cursor = None
        while True:
            page = sr.find("p-1", {"limit": 2, "cursor": cursor})
            seen += [h.decision_id for h in page.hits]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert seen == ["d-1", "d-2", "d-3", "d-4", "d-5"]  # a listing: id order

    def test_cursor_survives_an_append(self, sr: semreport.SemReport) -> None:
        first = sr.find("p-1", {"text": "timber", "limit": 1})
        sr.record([_d("d-6", "Timber stair")])
        second = sr.find("p-1", {"text": "timber", "limit": 1, "cursor": first.next_cursor})
        assert second.as_of_sequence == first.as_of_sequence
        assert not {h.decision_id for h in second.hits} & {h.decision_id for h in first.hits}

    def test_wire_form_and_html(self, sr: semreport.SemReport) -> None:
        sr.record([_d("d-9", "<script>alert(1)</script> timber")])
        result = sr.find("p-1", {"text": "timber"})
        wire = to_wire(result)
        assert wire["scorer"] == {"name": "heuristic", "version": "3.2", "model_inference": False}
        assert wire["hits"][0]["explanation"][0]["signal"] == "text"
        page = result._repr_html_()
        assert "<script>" not in page
        assert "&lt;script&gt;" in page
        assert len(result) == len(result.hits)
        assert to_wire(Criteria(text="x"))["filters"]["domain"] == []

    def test_every_signal_explains_in_plain_json(self) -> None:
        # orjson takes only exact builtin types: a numpy scalar in some evidence fails it.
        with semreport.open("memory://") as store:
            decisions = synthetic_decisions(300, seed=5)
            store.record(decisions)
            every = dict.fromkeys(SIGNAL_NAMES, 1.0)
            results = [
                store.find(
                    "synthetic",
                    {
                        "text": decisions[0].title,
                        "weights": every,
                        "prefer": {"domain": ["material"]},
                        "near": {"cost_eur": 1000.0},
                    },
                ),
                store.find("synthetic", {"weights": every}),
                store.similar("synthetic", {"decision_id": decisions[1].id, "weights": every}),
            ]
        for result in results:
            signals = {e.signal for hit in result.hits for e in hit.explanation}
            assert len(signals) >= 2
            assert orjson.loads(orjson.dumps(to_wire(result))) == to_wire(result)


class TestSimilar:
    """similar ranks by resemblance and never returns the exemplar."""

    def test_by_id(self, sr: semreport.SemReport) -> None:
        result = sr.similar("p-1", {"decision_id": "d-1"})
        ids = [h.decision_id for h in result.hits]
        assert "d-1" not in ids
        assert ids[0] == "d-3"
        assert result.total == 4
        # Too few decisions for the graph to agree measurably with the text: left out.
        assert result.hits[0].contribution("graph") is None
        assert result.hits[0].contribution("terms") is not None

    def test_without_text_the_graph_counts_fully(self, sr: semreport.SemReport) -> None:
        result = sr.similar(
            "p-1",
            Exemplar(
                decision=semreport.search.PartialDecision(
                    elements=frozenset({"floor-1"}),
                    links=(semreport.Link("relates_to", "d-5"),),
                )
            ),
        )
        # d-5: the exemplar links to it (1), among three neighbours (d-3, BR B3 shared
        # with d-1). d-3 and d-1 share floor-1 with it (its other holders' mean: 1/2),
        # among three neighbours each; d-1 is superseded, so demoted.
        assert [h.decision_id for h in result.hits] == ["d-5", "d-3", "d-1"]
        graph = result.hits[0].contribution("graph")
        assert graph is not None
        assert graph.raw == pytest.approx(1 / 3)
        assert graph.evidence["agreement"] == {
            "correlation": 0.0,
            "weight": 1.0,
            "rows": 0,
            "scale": 1.0,
        }
        assert dict(graph.evidence["linked"]) == {"exemplar": pytest.approx(1 / 3)}  # type: ignore[arg-type]
        d3 = result.hits[1].contribution("graph")
        assert d3 is not None
        assert dict(d3.evidence["elements"]) == {"floor-1": pytest.approx(1 / 6)}  # type: ignore[arg-type]
        assert dict(d3.evidence["linked"]) == {}  # type: ignore[arg-type]

    def test_an_agreeing_graph_counts_on_the_texts_scale(self) -> None:
        # Two topics of 40 decisions each; every decision links to the next three of its
        # topic, and each holds a few of its topic's words, so the links agree with the text.
        topics = (
            ("timber", "floor", "joist", "spruce", "glulam", "deck"),
            ("concrete", "wall", "rebar", "cement", "formwork", "pour"),
        )
        decisions = []
        for t, words in enumerate(topics):
            for i in range(40):
                picked = [words[(i + k) % len(words)] for k in range(i % 3 + 2)]
                targets = [f"t{t}-{(i + k) % 40}" for k in (1, 2, 3)]
                decisions.append(
                    _d(
                        f"t{t}-{i}",
                        " ".join(picked),
                        statement=f"Use {words[i % len(words)]} item {i}.",
                        links=[{"kind": "relates_to", "target": x} for x in targets],
                    )
                )
        with semreport.open("memory://") as sr:
            sr.record(decisions)
            result = sr.similar("p-1", {"decision_id": "t0-0", "limit": 20})
        graphs = [h.contribution("graph") for h in result.hits]
        assert all(g is not None for g in graphs)
        agreement = graphs[0].evidence["agreement"]  # type: ignore[union-attr]
        assert isinstance(agreement, semreport.FrozenDict)
        weight, scale = agreement["weight"], agreement["scale"]
        assert isinstance(weight, float)
        assert isinstance(scale, float)
        assert weight > 0
        assert scale > 1  # a mean over neighbours varies less than the text
        for hit, graph in zip(result.hits, graphs, strict=True):
            assert graph is not None
            assert graph.normalised == pytest.approx(weight * min(1.0, scale * graph.raw))
            assert 0.0 <= graph.normalised <= weight
            assert graph_shares_total(graph.evidence) == pytest.approx(graph.normalised)
            assert sum(c.contribution for c in hit.explanation) == pytest.approx(hit.score)
        assert {h.decision_id[:2] for h in result.hits[:10]} == {"t0"}

    def test_inline_exemplar(self, sr: semreport.SemReport) -> None:
        result = sr.similar(
            "p-1",
            Exemplar(
                decision=semreport.search.PartialDecision(
                    title="acoustic wall",
                    tags=frozenset({"acoustic"}),
                    attributes={"u_value": 0.3},
                    links=(semreport.Link("relates_to", "d-3"),),
                    domain="regulation",
                )
            ),
        )
        assert result.hits[0].decision_id == "d-5"
        assert "d-2" not in [h.decision_id for h in result.hits]  # it shares nothing
        assert result.total == len(result.hits)
        assert all(h.score > 0 for h in result.hits)

    def test_exemplar_words_no_decision_holds_leave_terms_out(
        self, sr: semreport.SemReport
    ) -> None:
        unshared = {"decision": {"title": "xyzzy qwerty", "tags": ["acoustic"]}}
        result = sr.similar("p-1", unshared)
        assert result.hits
        for hit in result.hits:
            assert hit.contribution("terms") is None
            assert hit.contribution("feedback") is None
            assert hit.contribution("facets") is not None

    def test_unknown_exemplar(self, sr: semreport.SemReport) -> None:
        with pytest.raises(DecisionNotFound):
            sr.similar("p-1", {"decision_id": "d-404"})

    def test_exemplar_needs_exactly_one_form(self, sr: semreport.SemReport) -> None:
        with pytest.raises(InvalidRequest) as info:
            sr.similar("p-1", {})
        assert info.value.errors[0].path == "$.decision_id"


class TestSignals:
    """signals describes every signal with the project's coverage and values."""

    def test_catalogue(self, sr: semreport.SemReport) -> None:
        catalogue = sr.signals("p-1")
        names = [s.name for s in catalogue.signals]
        assert names == ["text", "terms", "feedback", "facets", "attributes", "graph", "recency"]
        assert catalogue.facets["domain"]["regulation"] == 2
        assert catalogue.facets["status"]["superseded"] == 1
        assert catalogue.facets["tags"]["timber"] == 2
        cost = next(a for a in catalogue.attributes if a.name == "cost_eur")
        assert (cost.count, cost.min, cost.max) == (4, 1200.0, 90000.0)
        assert catalogue.signal("attributes").coverage == 1.0
        assert catalogue.superseded_policies[0] == "demote"
        assert to_wire(catalogue)["scorer"]["model_inference"] is False
        with pytest.raises(KeyError):
            catalogue.signal("nope")


class TestErrors:
    """Bad requests are clear SemReportErrors with field paths."""

    @pytest.mark.parametrize(
        ("criteria", "path"),
        [
            ({"text": "x" * 4097}, "$.text"),
            ({"limit": 0}, "$.limit"),
            ({"limit": 101}, "$.limit"),
            ({"weights": {"magic": 1}}, "$.weights.magic"),
            ({"weights": {"text": -1}}, "$.weights.text"),
            ({"filters": {"tags": [f"t{i}" for i in range(257)]}}, "$.filters"),
            (
                {"filters": {"attributes": {"cost_eur": {"min": 5, "max": 1}}}},
                "$.filters.attributes.cost_eur",
            ),
            ({"cursor": "garbage"}, "$.cursor"),
            ({"near": {"cost_eur": float("nan")}}, "$.near.cost_eur"),
        ],
    )
    def test_invalid_criteria(
        self, sr: semreport.SemReport, criteria: dict[str, Any], path: str
    ) -> None:
        with pytest.raises(InvalidRequest) as info:
            sr.find("p-1", criteria)
        assert path in [e.path for e in info.value.errors]

    def test_not_a_mapping(self, sr: semreport.SemReport) -> None:
        with pytest.raises(InvalidRequest):
            sr.find("p-1", "timber")  # type: ignore[arg-type]
        with pytest.raises(InvalidRequest):
            sr.similar("p-1", "d-1")  # type: ignore[arg-type]

    def test_tampered_foreign_and_other_query_cursors(self, sr: semreport.SemReport) -> None:
        page = sr.find("p-1", {"text": "timber", "limit": 1})
        assert page.next_cursor is not None
        body, _, tag = page.next_cursor.partition(".")
        tampered = body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1] + "." + tag
        for cursor in (tampered, page.next_cursor + "x"):
            with pytest.raises(InvalidRequest) as info:
                sr.find("p-1", {"text": "timber", "limit": 1, "cursor": cursor})
            assert info.value.errors[0].path == "$.cursor"
        with semreport.open("memory://") as other:
            other.record(PROJECT)
            with pytest.raises(InvalidRequest) as info:
                other.find("p-1", {"text": "timber", "limit": 1, "cursor": page.next_cursor})
            assert info.value.errors[0].path == "$.cursor"
        with pytest.raises(InvalidRequest):
            sr.find("p-1", {"text": "floor", "limit": 1, "cursor": page.next_cursor})

    def test_a_cursor_outlives_the_snapshots_kept(self) -> None:
        # The index as of the cursor's sequence is built again from the records.
        with semreport.open("memory://", scorer=HeuristicScorer(keep_snapshots=1)) as sr:
            sr.record(PROJECT)
            first = sr.find("p-1", {"text": "timber", "limit": 1})
            second = sr.find("p-1", {"text": "timber", "limit": 1, "cursor": first.next_cursor})
            sr.record([_d("d-7", "Timber door"), _d("d-8", "Timber stair")])
            sr.find("p-1", {"text": "timber"})  # the index moves on
            again = sr.find("p-1", {"text": "timber", "limit": 1, "cursor": first.next_cursor})
            assert again == second
            assert again.as_of_sequence == first.as_of_sequence

    def test_a_cursor_from_another_process_after_an_append(self) -> None:
        key = b"k" * 32
        storage = semreport.open("memory://").storage

        def process() -> semreport.SemReport:  # a facade of its own over the shared storage
            scorer = HeuristicScorer(cursor_key=key)
            return semreport.SemReport(storage, caller=Principal.local(), scorer=scorer)

        storage.record([from_wire(row, semreport.Decision) for row in PROJECT])
        issuer = process()
        first = issuer.find("p-1", {"text": "timber", "limit": 1})
        second = issuer.find("p-1", {"text": "timber", "limit": 1, "cursor": first.next_cursor})
        storage.record([from_wire(_d("d-7", "Timber door"), semreport.Decision)])
        page = process().find("p-1", {"text": "timber", "limit": 1, "cursor": first.next_cursor})
        assert page == second

    def test_a_cursor_beyond_the_memory_is_refused(self) -> None:
        key = b"k" * 32
        with semreport.open("memory://", cursor_key=key) as sr:
            sr.record(PROJECT)
            sr.record([_d("d-7", "Timber door")])
            page = sr.find("p-1", {"text": "timber", "limit": 1})
        with semreport.open("memory://", cursor_key=key) as shorter:
            shorter.record(PROJECT)
            with pytest.raises(InvalidRequest) as info:
                shorter.find("p-1", {"text": "timber", "limit": 1, "cursor": page.next_cursor})
            assert info.value.errors[0].path == "$.cursor"
            assert "has not reached" in info.value.errors[0].message

    def test_auth_before_project_lookup(self, sr: semreport.SemReport) -> None:
        stranger = Principal("s", roles={Role.USER}, projects={"other"})
        for call in (
            lambda c: sr.find("p-1", {"text": "x"}, caller=c),
            lambda c: sr.similar("p-1", {"decision_id": "d-1"}, caller=c),
            lambda c: sr.signals("p-1", caller=c),
            lambda c: sr.find("missing", {"text": "x"}, caller=c),
        ):
            with pytest.raises(Forbidden):
                call(stranger)
        with (
            semreport.open("memory://", require_caller=True) as strict,
            pytest.raises(Unauthenticated),
        ):
            strict.find("p-1", {"text": "x"})
        with pytest.raises(ProjectNotFound):
            sr.find("missing", {"text": "x"})
        with pytest.raises(ProjectNotFound):
            sr.signals("missing")
        with pytest.raises(InvalidRequest):
            sr.find("bad id!", {"text": "x"})


class TestResults:
    """Results are plain values: built whole, equal, hashable, picklable; hits say what they are."""

    @staticmethod
    def _page(sr: semreport.SemReport, **extra: Any) -> SearchResult:
        return sr.find("p-1", {"text": "timber floor", "limit": 1, **extra})

    def test_a_hit_says_what_it_is(self, sr: semreport.SemReport) -> None:
        hit = sr.find("p-1", {"text": "timber floor"}).hits[1]
        assert (hit.decision_id, hit.title, hit.superseded, hit.demotion) == (
            "d-1",
            "Fire rated timber floor",
            True,
            0.5,
        )
        assert (hit.domain.value, hit.status.value, hit.agent) == ("regulation", "accepted", "a-1")
        assert hit.recorded_at is not None
        assert hit.explanation[0].contribution == pytest.approx(hit.score)
        assert hit.explanation[0].evidence["matched_terms"] == ("floor", "timber")
        assert hit.contribution("text") is hit.explanation[0]
        assert hit.contribution("graph") is None

    def test_values_compare_hash_pickle_and_round_trip(self, sr: semreport.SemReport) -> None:
        page = self._page(sr)
        again = self._page(sr)
        assert page == again
        assert hash(page.hits[0]) == hash(again.hits[0])
        assert repr(page) == repr(again)
        assert to_wire(page) == to_wire(again)
        assert pickle.loads(pickle.dumps(page)) == page
        rebuilt = SearchResult(
            project_id=page.project_id,
            as_of_sequence=page.as_of_sequence,
            hits=tuple(Hit(**attrs.asdict(h, recurse=False)) for h in page.hits),
            total=page.total,
            next_cursor=page.next_cursor,
            scorer=page.scorer,
            facets=page.facets,
        )
        assert rebuilt == page
        assert hash(rebuilt) == hash(page)

    def test_explain_false_leaves_explanations_empty(self, sr: semreport.SemReport) -> None:
        plain = self._page(sr, explain=False)
        explained = self._page(sr)
        assert plain.explained is False
        assert explained.explained is True
        assert plain.hits[0].explanation == ()
        assert plain.hits[0].score == explained.hits[0].score
        assert to_wire(plain)["explained"] is False
        # explain does not change the query: the cursors of both page on.
        assert plain.next_cursor is not None
        rest = sr.find("p-1", {"text": "timber floor", "cursor": plain.next_cursor})
        assert [h.decision_id for h in rest.hits] == ["d-1"]

    def test_min_score_drops_weaker_hits(self, sr: semreport.SemReport) -> None:
        every = sr.find("p-1", {"text": "timber floor"})
        threshold = (every.hits[0].score + every.hits[1].score) / 2
        strong = sr.find("p-1", {"text": "timber floor", "min_score": threshold})
        assert [h.decision_id for h in strong.hits] == [every.hits[0].decision_id]
        assert strong.total == 1
        assert sr.find("p-1", {"min_score": 0.5}).total == 0  # a listing scores 0
        with pytest.raises(InvalidRequest) as info:
            sr.find("p-1", {"text": "x", "min_score": 1.5})
        assert info.value.errors[0].path == "$.min_score"

    def test_only_real_matches(self, sr: semreport.SemReport) -> None:
        nothing = sr.find("p-1", {"text": "xyzzyqwerty"})
        assert (nothing.hits, nothing.total) == ((), 0)
        assert dict(nothing.facets.domain) == {}
        preferred = sr.find("p-1", {"prefer": {"tags": ["budget"]}})
        assert [h.decision_id for h in preferred.hits] == ["d-4"]
        listing = sr.find("p-1", {"filters": {"domain": ["material", "regulation"]}})
        assert [h.decision_id for h in listing.hits] == ["d-1", "d-2", "d-3", "d-5"]
        assert {h.score for h in listing.hits} == {0.0}
        similar = sr.similar("p-1", {"decision_id": "d-4"})
        assert all(h.score > 0 for h in similar.hits)
        assert similar.total == len(similar.hits)

    def test_plain_requests_parse_like_the_converter(self) -> None:
        for data in (
            {"text": "x", "limit": 3},
            {"text": "x", "cursor": None, "explain": False},
            {"limit": 7, "min_score": 0.5},
            {"text": "x", "filters": {"domain": ["cost"]}},
        ):
            assert parse_criteria(data) == from_wire(data, Criteria)
        with pytest.raises(InvalidRequest):
            parse_criteria({"text": "x", "limit": True})

    def test_text_weighted_out_still_selects(self, sr: semreport.SemReport) -> None:
        only_text = sr.find("p-1", {"text": "timber", "weights": {"text": 0}})
        assert [h.decision_id for h in only_text.hits] == ["d-1", "d-3"]  # listed, id order
        assert {h.score for h in only_text.hits} == {0.0}
        preferred = sr.find(
            "p-1", {"text": "timber", "weights": {"text": 0}, "prefer": {"tags": ["fire"]}}
        )
        assert [h.decision_id for h in preferred.hits] == ["d-1"]  # a term and a preference

    def test_similar_takes_min_score_and_explain(self, sr: semreport.SemReport) -> None:
        every = sr.similar("p-1", {"decision_id": "d-1"})
        best = sr.similar("p-1", {"decision_id": "d-1", "min_score": every.hits[0].score})
        assert [h.decision_id for h in best.hits] == [every.hits[0].decision_id]
        plain = sr.similar("p-1", {"decision_id": "d-1", "explain": False})
        assert plain.explained is False
        assert all(h.explanation == () for h in plain.hits)
        assert [h.score for h in plain.hits] == [h.score for h in every.hits]

    def test_facet_counts_cover_every_match(self, sr: semreport.SemReport) -> None:
        result = sr.find("p-1", {"text": "timber floor", "limit": 1})
        facets = result.facets
        assert list(facets.domain.items()) == [("material", 1), ("regulation", 1)]
        assert sum(facets.domain.values()) == result.total == 2
        assert dict(facets.status) == {"accepted": 1, "proposed": 1, "superseded": 1}
        assert dict(facets.agent) == {"a-1": 2}
        assert list(facets.tags.items()) == [("timber", 2), ("fire", 1)]
        wire = to_wire(result)["facets"]
        assert wire["tags"] == {"timber": 2, "fire": 1}


class _BlockingStorage(MemoryStorage):
    """Holds a read of one project's records until released (to overlap builds)."""

    def __init__(self, blocked: str) -> None:
        super().__init__()
        self.blocked = blocked
        self.reading = threading.Event()
        self.release = threading.Event()

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        if project_id == self.blocked:
            self.reading.set()
            assert self.release.wait(timeout=60)
        return super().records(project_id, after=after, as_of=as_of)


class _CountingReads(MemoryStorage):
    """Lists the ids of every call that reads records by id (one list per call)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[list[str]] = []

    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:
        self.reads.append([decision_id])
        return super().get_record(project_id, decision_id)

    def get_records(self, project_id: str, decision_ids: Sequence[str]) -> list[StoredRecord]:
        self.reads.append(list(decision_ids))
        return super().get_records(project_id, decision_ids)


class _LaggingMemory(MemoryStorage):
    """Reports a stale latest sequence once (another thread has indexed further since)."""

    def __init__(self) -> None:
        super().__init__()
        self.stale: int | None = None

    def latest_sequence(self, project_id: str) -> int:
        if self.stale is not None:
            stale, self.stale = self.stale, None
            return stale
        return super().latest_sequence(project_id)


class TestIndex:
    """The index follows Decision Memory's sequence incrementally."""

    def test_a_build_holds_up_no_other_project(self) -> None:
        storage = _BlockingStorage("big")
        storage.record(synthetic_decisions(40, project_id="big"))
        storage.record(synthetic_decisions(40, project_id="small"))
        sr = semreport.SemReport(storage, caller=Principal.local())
        done: list[int] = []
        builder = threading.Thread(target=lambda: done.append(sr.find("big", {}).total))
        builder.start()
        assert storage.reading.wait(timeout=60)  # the build of "big" is under way
        try:
            assert sr.find("small", {}).total == 40  # served while "big" is still building
            assert not done
        finally:
            storage.release.set()
            builder.join(timeout=60)
        assert done == [40]

    def test_a_stale_latest_sequence_keeps_the_newer_index(self) -> None:
        storage = _LaggingMemory()
        storage.record(synthetic_decisions(30, project_id="p-1"))
        scorer = HeuristicScorer()
        current = scorer.index(storage, "p-1")
        storage.stale = 20  # read before another thread indexed up to 30
        assert scorer.index(storage, "p-1") is current

    def test_append_extends_instead_of_rebuilding(self) -> None:
        with semreport.open("memory://") as sr:
            sr.record(synthetic_decisions(300, project_id="p-1"))
            scorer = sr.scorer
            assert isinstance(scorer, HeuristicScorer)
            before = scorer.index(sr.storage, "p-1")
            sr.record(synthetic_decisions(320, project_id="p-1", seed=0)[300:])
            after = scorer.index(sr.storage, "p-1")
            assert after is not before
            assert after.vocab is before.vocab
            assert len(after.segments) == 2
            assert after.segments[0] is before.segments[0]
            assert after.n == 320
            assert before.n == 300
            incremental = sr.find("p-1", {"text": "fire rated timber floor", "limit": 20})
        with semreport.open("memory://") as fresh:
            fresh.record(synthetic_decisions(320, project_id="p-1"))
            rebuilt = fresh.find("p-1", {"text": "fire rated timber floor", "limit": 20})
        assert [(h.decision_id, h.score) for h in incremental.hits] == [
            (h.decision_id, h.score) for h in rebuilt.hits
        ]

    def test_many_appends_merge_segments(self) -> None:
        decisions = synthetic_decisions(60, project_id="p-1")
        with semreport.open("memory://") as sr:
            for start in range(0, 60, 5):
                sr.record(decisions[start : start + 5])
                sr.find("p-1", {"text": "timber"})
            scorer = sr.scorer
            assert isinstance(scorer, HeuristicScorer)
            assert len(scorer.index(sr.storage, "p-1").segments) <= 8
            result = sr.find("p-1", {"text": "timber", "limit": 5})
        with semreport.open("memory://") as fresh:
            fresh.record(decisions)
            assert [h.score for h in fresh.find("p-1", {"text": "timber", "limit": 5}).hits] == [
                h.score for h in result.hits
            ]

    def test_custom_scorer_plugs_in(self) -> None:
        class Constant:
            def describe(self) -> semreport.ScorerInfo:
                return semreport.ScorerInfo("constant", "0")

            def score(self, memory: Any, project_id: str, query: Any) -> SearchResult:
                return SearchResult(project_id, 1, (), 0, None, self.describe())

            def signals(self, memory: Any, project_id: str) -> Any:
                return None

        with semreport.open("memory://", scorer=Constant()) as sr:
            sr.record(PROJECT)
            assert sr.find("p-1", {"text": "x"}).scorer.name == "constant"
            assert sr.signals("p-1") is None  # the port names the types; no run-time check

    def test_repr_and_decision_model(self) -> None:
        scorer = HeuristicScorer()
        assert "heuristic" in repr(scorer).lower()
        assert Decision(id="d", project_id="p", title="t", statement="s", agent="a").title == "t"
        assert datetime(2024, 1, 1, tzinfo=UTC).year == 2024


class TestHighlights:
    """Hits carry fragments of their best matching fields, marked from the score's analysis."""

    def test_find_marks_the_matched_words(self, sr: semreport.SemReport) -> None:
        result = sr.find("p-1", {"text": "timber floors"})
        top = {h.decision_id: h for h in result.hits}["d-3"]
        assert top.highlights
        first = top.highlights[0]
        assert first.field == "title"
        assert first.marked() == "[Timber] [floor] with gypsum lining"
        assert to_wire(top)["highlights"][0] == {
            "field": "title",
            "fragment": "Timber floor with gypsum lining",
            "spans": [[0, 6], [7, 12]],
        }

    def test_no_text_gives_no_highlights(self, sr: semreport.SemReport) -> None:
        result = sr.find("p-1", {"filters": {"tags": ["timber"]}})
        assert result.hits
        assert all(h.highlights == () for h in result.hits)

    def test_a_page_reads_its_records_in_one_call(self) -> None:
        storage = _CountingReads()
        sr = semreport.SemReport(storage, caller=Principal.local())
        sr.record(PROJECT)
        result = sr.find("p-1", {"text": "timber floors fire"})
        assert len(result.hits) > 1
        assert storage.reads == [[h.decision_id for h in result.hits]]

    def test_similar_marks_the_exemplar_terms(self, sr: semreport.SemReport) -> None:
        result = sr.similar("p-1", {"decision_id": "d-3"})
        marked = {h.decision_id: h for h in result.hits}["d-1"]
        assert any("[" in shown.marked() for shown in marked.highlights)

    def test_the_notebook_view_marks_and_escapes(self) -> None:
        with semreport.open("memory://") as facade:
            facade.record([_d("d-9", "Fire <script> door", statement="A fire door & frame")])
            result = facade.find("p-1", {"text": "fire"})
        shown = result._repr_html_()
        assert "<mark>Fire</mark> &lt;script&gt; door" in shown
        assert "<script>" not in shown


class TestWarnings:
    """Names the project does not hold come back as warnings with the closest names it holds."""

    def test_a_tag_in_another_case(self, sr: semreport.SemReport) -> None:
        result = sr.find("p-1", {"filters": {"tags": ["Fire"]}})
        assert result.hits == ()
        (warning,) = result.warnings
        assert isinstance(warning, semreport.SearchWarning)
        assert (warning.field, warning.value, warning.kind) == ("filters.tags", "Fire", "tag")
        assert warning.suggestions[0] == "fire"
        assert "'fire'" in warning.message
        assert to_wire(result)["warnings"][0]["suggestions"][0] == "fire"

    def test_every_kind_of_name_is_checked(self, sr: semreport.SemReport) -> None:
        result = sr.find(
            "p-1",
            {
                "text": "timber",
                "filters": {"agent": ["a-3"], "attributes": {"cost_euro": {"max": 9}}},
                "prefer": {"tags": ["timbr"], "agent": ["a-1"]},
                "near": {"u_valu": 0.2, "cost_eur": 1000},
            },
        )
        assert [(w.field, w.value) for w in result.warnings] == [
            ("filters.agent", "a-3"),
            ("filters.attributes", "cost_euro"),
            ("prefer.tags", "timbr"),
            ("near", "u_valu"),
        ]
        assert result.warnings[1].suggestions == ("cost_eur",)
        assert result.warnings[3].suggestions == ("u_value",)

    def test_similar_checks_its_filters(self, sr: semreport.SemReport) -> None:
        result = sr.similar("p-1", {"decision_id": "d-3", "filters": {"tags": ["acoustics"]}})
        assert [w.value for w in result.warnings] == ["acoustics"]
        assert result.warnings[0].suggestions == ("acoustic",)

    def test_known_names_give_none(self, sr: semreport.SemReport) -> None:
        result = sr.find("p-1", {"text": "timber", "filters": {"tags": ["fire"]}})
        assert result.warnings == ()
        assert to_wire(result)["warnings"] == []


class TestExpandedEvidence:
    """The text signal says which matched words a synonym or a unit brought in."""

    def test_a_synonym_is_named_in_the_evidence(self) -> None:
        analyzer = semreport.Analyzer(synonyms=[["clt", "cross-laminated timber"]])
        scorer = HeuristicScorer(analyzer=analyzer)
        with semreport.open("memory://", scorer=scorer) as facade:
            facade.record(
                [
                    _d("d-1", "Cross-laminated timber floor"),
                    _d("d-2", "CLT walls"),
                    _d("d-3", "Steel frame"),
                ]
            )
            result = facade.find("p-1", {"text": "CLT"})
        by_id = {hit.decision_id: hit for hit in result.hits}
        assert set(by_id) == {"d-1", "d-2"}
        first = by_id["d-1"].contribution("text")
        assert first is not None
        assert first.evidence["expanded"] == {
            "cross": "CLT",
            "laminated": "CLT",
            "timber": "CLT",
        }
        own = by_id["d-2"].contribution("text")
        assert own is not None
        assert own.evidence["matched_terms"] == ("clt",)
        assert "expanded" not in own.evidence
        for hit in result.hits:
            assert abs(sum(c.contribution for c in hit.explanation) - hit.score) <= 1e-12
            assert hit.highlights

    def test_a_unit_written_onto_a_number(self) -> None:
        with semreport.open("memory://") as facade:
            facade.record([_d("d-1", "Embodied CO2e of the slab")])
            hit = facade.find("p-1", {"text": "co2"}).hits[0]
        text = hit.contribution("text")
        assert text is not None
        assert text.evidence["expanded"] == {"co2e": "co2"}


class TestCatalogueViews:
    """The signal catalogue has a short repr and a notebook table."""

    def test_repr_is_short(self, sr: semreport.SemReport) -> None:
        catalogue = sr.signals("p-1")
        shown = repr(catalogue)
        assert shown.startswith("SignalCatalogue(project_id='p-1', as_of_sequence=5")
        assert "signals=7" in shown
        assert len(shown) < 300

    def test_a_long_project_id_is_cut(self, sr: semreport.SemReport) -> None:
        catalogue = attrs.evolve(sr.signals("p-1"), project_id="p" * 500)
        assert len(repr(catalogue)) < 300

    def test_html_shows_signals_analyzer_facets_and_ranges(self, sr: semreport.SemReport) -> None:
        shown = sr.signals("p-1")._repr_html_()
        for part in (
            "<code>text</code>",
            "<code>recency</code>",
            "english",
            "timber (2)",
            "<code>cost_eur</code>",
            "model inference: no",
        ):
            assert part in shown

    def test_many_facet_values_are_cut(self, sr: semreport.SemReport) -> None:
        catalogue = sr.signals("p-1")
        many = FrozenDict({f"t-{i:02}": 1 for i in range(25)})
        shown = attrs.evolve(catalogue, facets=FrozenDict({"tags": many}))._repr_html_()
        assert "t-19 (1), … 5 more" in shown
        assert "t-20" not in shown

    def test_html_without_analyzer_or_attributes(self, sr: semreport.SemReport) -> None:
        catalogue = attrs.evolve(sr.signals("p-1"), analyzer=None, attributes=())
        shown = catalogue._repr_html_()
        assert "Text:" not in shown
        assert "<th>attribute</th>" not in shown


def _any(value: object) -> Any:
    """A value of the wrong type, passed where the types forbid it (as untyped code would)."""
    return value


class TestRequestsBuiltInCode:
    """Criteria and exemplars built in Python are checked exactly as their JSON form is."""

    @pytest.mark.parametrize(
        ("built", "path", "reason"),
        [
            (lambda: Criteria(text=_any(5)), "$.text", "expected a string, got a number"),
            (
                lambda: Criteria(text="x", explain=_any("yes")),
                "$.explain",
                "expected a boolean, got a string",
            ),
            (
                lambda: Criteria(text="x", limit=_any("10")),
                "$.limit",
                "expected an integer, got a string",
            ),
            (
                lambda: Criteria(text="x", filters=Filters(agent=[_any(5)])),
                "$.filters.agent[0]",
                "expected a string identifier, got a number",
            ),
            (
                lambda: Criteria(
                    text="x", filters=Filters(attributes={"cost_eur": NumericRange(_any("a"))})
                ),
                "$.filters.attributes.cost_eur.min",
                "expected a number, got a string",
            ),
            (
                lambda: Criteria(text="x", near={_any(5): 1.0}),
                "$.near[5]",
                "expected a string attribute name, got a number",
            ),
            (
                lambda: Exemplar(decision_id=_any(5)),
                "$.decision_id",
                "expected a string identifier, got a number",
            ),
            (
                lambda: Exemplar(decision_id="d-1", explain=_any(None)),
                "$.explain",
                "expected a boolean, got null",
            ),
        ],
    )
    def test_a_bad_field_is_named(
        self, sr: semreport.SemReport, built: Any, path: str, reason: str
    ) -> None:
        request = built()
        search: Any = sr.find if isinstance(request, Criteria) else sr.similar
        with pytest.raises(InvalidRequest) as caught:
            search("p-1", request)
        assert [(e.path, e.message) for e in caught.value.errors] == [(path, reason)]

    @pytest.mark.parametrize(
        ("built", "error", "message"),
        [
            (lambda: Criteria(filters=_any("x")), TypeError, "filters must be a Filters, got str"),
            (
                lambda: Criteria(prefer=_any(None)),
                TypeError,
                "prefer must be a FacetSelection, got NoneType",
            ),
            (
                lambda: Exemplar(decision=_any("x")),
                TypeError,
                "decision must be None or a PartialDecision, got str",
            ),
            (
                lambda: TimeRange(after=_any("2026-01-01")),
                TypeError,
                "after must be a datetime, got str",
            ),
            (
                lambda: TimeRange(before=datetime(2026, 1, 1)),  # noqa: DTZ001 - the naive time is the point
                ValueError,
                "before must be timezone-aware (naive datetimes are refused)",
            ),
        ],
    )
    def test_a_part_of_the_wrong_kind_is_refused_when_built(
        self, built: Any, error: type[Exception], message: str
    ) -> None:
        with pytest.raises(error) as caught:
            built()
        assert str(caught.value) == message

    def test_a_valid_object_finds_what_its_json_form_finds(self, sr: semreport.SemReport) -> None:
        criteria = Criteria(
            text="timber floor",
            filters=Filters(
                domain={"material", "regulation"},
                recorded=TimeRange(after=datetime(2000, 1, 1, tzinfo=UTC)),
            ),
            weights={"text": 1.0},
        )
        by_object = sr.find("p-1", criteria)
        by_json = sr.find("p-1", to_wire(criteria))
        assert [(h.decision_id, h.score) for h in by_object.hits] == [
            (h.decision_id, h.score) for h in by_json.hits
        ]
        assert by_object.hits

    def test_an_object_altered_after_construction_is_refused(self, sr: semreport.SemReport) -> None:
        altered = poked(Criteria(text="timber"), filters="x")
        with pytest.raises(InvalidRequest) as caught:
            sr.find("p-1", altered)
        assert [(e.path, e.message) for e in caught.value.errors] == [
            ("$", "the Criteria's fields do not form a JSON object")
        ]
