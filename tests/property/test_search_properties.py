"""Properties of find and similar over generated projects (hypothesis)."""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semreport
from semreport import InvalidRequest, SemReportError
from semreport.search import Analyzer, HeuristicScorer, SearchResult
from semreport.search._ranking import PRUNE_FROM
from semreport.search._text import Tokenizer
from semreport.search.signals import SIGNALS, Query, prepare_active
from semreport.testing import synthetic_decisions
from semreport.wire import to_wire

WORDS = ["fire", "timber", "floor", "steel", "wall", "acoustic", "cost", "roof", "glass", "slab"]
TAGS = ["fire", "carbon", "budget", "structure"]


@st.composite
def projects(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(min_value=1, max_value=14))
    out = []
    for i in range(count):
        links = []
        if i and draw(st.booleans()):
            links.append(
                {
                    "kind": draw(st.sampled_from(["supersedes", "relates_to", "depends_on"])),
                    "target": f"d-{draw(st.integers(0, i - 1))}",
                }
            )
        attributes: dict[str, Any] = {}
        if draw(st.booleans()):
            attributes["cost_eur"] = draw(st.integers(0, 5000))
        out.append(
            {
                "id": f"d-{i}",
                "project_id": "p",
                "title": " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))),
                "statement": " ".join(
                    draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
                ),
                "agent": draw(st.sampled_from(["a-1", "a-2"])),
                "domain": draw(st.sampled_from(["regulation", "material", "cost"])),
                "status": draw(st.sampled_from(["proposed", "accepted", "rejected"])),
                "tags": draw(st.lists(st.sampled_from(TAGS), max_size=2, unique=True)),
                "attributes": attributes,
                "elements": draw(
                    st.lists(st.sampled_from(["e-1", "e-2", "e-3"]), max_size=2, unique=True)
                ),
                "links": links,
            }
        )
    return out


criteria_st = st.fixed_dictionaries(
    {
        "text": st.lists(st.sampled_from([*WORDS, "xyzzy"]), max_size=3).map(" ".join),
        "limit": st.integers(1, 5),
    },
    optional={
        "min_score": st.sampled_from([0.0, 0.05, 0.3, 0.7]),
        "filters": st.fixed_dictionaries(
            {},
            optional={
                "domain": st.lists(
                    st.sampled_from(["regulation", "material", "cost", "lifecycle"]),
                    max_size=2,
                    unique=True,
                ),
                "status": st.lists(
                    st.sampled_from(["accepted", "proposed", "superseded"]),
                    max_size=2,
                    unique=True,
                ),
                "tags": st.lists(st.sampled_from([*TAGS, "nothing"]), max_size=2, unique=True),
                "attributes": st.just({"cost_eur": {"min": 1000, "max": 4000}}),
            },
        ),
        "weights": st.fixed_dictionaries(
            {},
            optional={"graph": st.floats(0, 2), "text": st.floats(0, 2), "facets": st.floats(0, 1)},
        ),
        "prefer": st.just({"tags": ["fire"]}),
        "near": st.just({"cost_eur": 2000}),
        "superseded": st.sampled_from(["demote", "exclude", "include"]),
    },
)


BIG_WORDS = ["concrete", "timber", "carbon", "hempcrete", "steel", "roof", "wall", "beam", "door"]


@functools.cache
def _big_project() -> tuple[semreport.SemReport, list[dict[str, Any]]]:
    """A project large enough to be pruned, recorded once (search never changes it)."""
    decisions = synthetic_decisions(PRUNE_FROM + 500, seed=11, project_id="p")
    sr = semreport.open("memory://")
    sr.record(decisions)
    return sr, [to_wire(d) for d in decisions]


@st.composite
def big_criteria(draw: st.DrawFn) -> dict[str, Any]:
    criteria: dict[str, Any] = {
        "text": " ".join(draw(st.lists(st.sampled_from(BIG_WORDS), max_size=3))),
        "limit": draw(st.sampled_from([1, 10, 50])),
    }
    if draw(st.booleans()):
        criteria["min_score"] = draw(st.sampled_from([0.1, 0.3, 0.6]))
    if draw(st.booleans()):
        criteria["filters"] = {"domain": ["material", "regulation"]}
    if draw(st.booleans()):
        criteria["prefer"] = {"tags": ["carbon"]}
    if draw(st.booleans()):
        criteria["near"] = {"cost_eur": 9000}
    if draw(st.booleans()):
        criteria["weights"] = {"graph": draw(st.sampled_from([0.1, 0.5])), "recency": 0.2}
    criteria["superseded"] = draw(st.sampled_from(["demote", "exclude", "include"]))
    return criteria


def _open(records: list[dict[str, Any]]) -> semreport.SemReport:
    sr = semreport.open("memory://")
    sr.record(records)
    return sr


def _walk(
    sr: semreport.SemReport, call: Any, query: dict[str, Any]
) -> tuple[list[str], SearchResult]:
    seen: list[str] = []
    first: SearchResult | None = None
    cursor = None
    for _ in range(100):
        page = call("p", {**query, "cursor": cursor})
        first = first or page
        seen += [h.decision_id for h in page.hits]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert first is not None
    return seen, first


def _check_scores(result: SearchResult) -> None:
    for hit in result.hits:
        assert 0.0 <= hit.score <= 1.0
        assert abs(sum(c.contribution for c in hit.explanation) - hit.score) <= 1e-9
        for entry in hit.explanation:
            assert 0.0 <= entry.normalised <= 1.0
            assert 0.0 <= entry.weight <= 1.0


def _matches(record: dict[str, Any], filters: dict[str, Any], superseded: set[str]) -> bool:
    if "domain" in filters and filters["domain"] and record["domain"] not in filters["domain"]:
        return False
    if filters.get("status"):
        statuses = {record["status"]} | ({"superseded"} if record["id"] in superseded else set())
        if not statuses & set(filters["status"]):
            return False
    if filters.get("tags") and not set(record["tags"]) & set(filters["tags"]):
        return False
    if "attributes" in filters:
        cost = record["attributes"].get("cost_eur")
        if cost is None or not 1000 <= cost <= 4000:
            return False
    return True


class TestScores:
    """Every score and normalised signal lies in [0, 1]; contributions add up to the score."""

    @given(projects(), criteria_st)
    def test_find_scores(self, records: list[dict[str, Any]], criteria: dict[str, Any]) -> None:
        with _open(records) as sr:
            _check_scores(sr.find("p", {**criteria, "limit": 100}))

    @given(projects(), st.data())
    def test_similar_scores(self, records: list[dict[str, Any]], data: st.DataObject) -> None:
        exemplar = data.draw(st.sampled_from(records))["id"]
        with _open(records) as sr:
            result = sr.similar("p", {"decision_id": exemplar, "limit": 100})
            _check_scores(result)
            assert exemplar not in [h.decision_id for h in result.hits]
            assert all(h.score > 0 for h in result.hits)
            assert result.total == len(result.hits) <= len(records) - 1


class TestOrder:
    """Order is total and repeatable, whatever order the records were recorded in."""

    @given(projects(), criteria_st, st.randoms(use_true_random=False))
    def test_any_recording_order(
        self, records: list[dict[str, Any]], criteria: dict[str, Any], rnd: Any
    ) -> None:
        shuffled = list(records)
        rnd.shuffle(shuffled)
        query = {**criteria, "limit": 100}
        query.get("weights", {}).pop("recency", None)
        with _open(records) as one, _open(shuffled) as two, semreport.open("memory://") as three:
            # The third project receives the shuffled records in appends, searched in
            # between, so its index is extended (links may arrive before their targets).
            cut = rnd.randint(1, len(shuffled))
            for batch in (shuffled[:cut], shuffled[cut:]):
                if batch:
                    three.record(batch)
                    three.find("p", {"text": "fire"})
            a = one.find("p", query)
            b = two.find("p", query)
            c = three.find("p", query)
            assert [(h.decision_id, h.score) for h in a.hits] == [
                (h.decision_id, h.score) for h in b.hits
            ]
            assert [(h.decision_id, h.score) for h in c.hits] == [
                (h.decision_id, h.score) for h in a.hits
            ]
            assert [h.explanation for h in c.hits] == [h.explanation for h in a.hits]
            again = one.find("p", query)
            assert [h.decision_id for h in again.hits] == [h.decision_id for h in a.hits]
            keys = [(-h.score, h.decision_id) for h in a.hits]
            assert keys == sorted(keys)
            ex = records[0]["id"]
            sa = one.similar("p", {"decision_id": ex, "limit": 100})
            sb = two.similar("p", {"decision_id": ex, "limit": 100})
            assert [(h.decision_id, h.score) for h in sa.hits] == [
                (h.decision_id, h.score) for h in sb.hits
            ]


class TestPaging:
    """Walking every page yields each matching decision exactly once."""

    @given(projects(), criteria_st)
    def test_find_pages(self, records: list[dict[str, Any]], criteria: dict[str, Any]) -> None:
        with _open(records) as sr:
            seen, first = _walk(sr, sr.find, criteria)
            everything = sr.find("p", {**criteria, "limit": 100})
            assert len(seen) == len(set(seen)) == first.total == everything.total
            assert seen == [h.decision_id for h in everything.hits]

    @given(projects(), st.integers(1, 4))
    def test_similar_pages(self, records: list[dict[str, Any]], limit: int) -> None:
        with _open(records) as sr:
            query = {"decision_id": records[-1]["id"], "limit": limit}
            seen, first = _walk(sr, sr.similar, query)
            everything = sr.similar("p", {**query, "limit": 100})
            assert seen == [h.decision_id for h in everything.hits]
            assert len(seen) == len(set(seen)) == first.total
            assert records[-1]["id"] not in seen


class TestFilters:
    """No hit violates a hard filter; a filter that matches nothing gives an empty result."""

    @given(projects(), criteria_st)
    def test_no_hit_violates(self, records: list[dict[str, Any]], criteria: dict[str, Any]) -> None:
        superseded = {
            link["target"] for r in records for link in r["links"] if link["kind"] == "supersedes"
        }
        by_id = {r["id"]: r for r in records}
        filters = criteria.get("filters", {})
        with _open(records) as sr:
            result = sr.find("p", {**criteria, "limit": 100})
            for hit in result.hits:
                assert _matches(by_id[hit.decision_id], filters, superseded)
                if criteria.get("superseded") == "exclude":
                    assert hit.decision_id not in superseded
            expected = [
                r
                for r in records
                if _matches(r, filters, superseded)
                and not (criteria.get("superseded") == "exclude" and r["id"] in superseded)
            ]
            assert result.total <= len(expected)
            listing = not criteria["text"] and "prefer" not in criteria and "near" not in criteria
            if listing and not criteria.get("min_score"):
                assert result.total == len(expected)  # a listing: every decision kept

    @given(projects())
    def test_nothing_matches(self, records: list[dict[str, Any]]) -> None:
        with _open(records) as sr:
            result = sr.find("p", {"text": "fire", "filters": {"agent": ["nobody"]}})
            assert result.hits == ()
            assert result.total == 0
            assert result.next_cursor is None


class TestErrors:
    """Bad requests raise a clear SemReportError and change nothing."""

    @given(
        projects(),
        st.sampled_from(
            [
                {"text": "x" * 4097},
                {"limit": 0},
                {"limit": 101},
                {"limit": True},
                {"weights": {"gnn": 1.0}},
                {"cursor": "AAAA.BBBB"},
                {"filters": {"domain": ["space"]}},
                {"unknown": 1},
            ]
        ),
    )
    def test_invalid_find(self, records: list[dict[str, Any]], bad: dict[str, Any]) -> None:
        with _open(records) as sr:
            before = sr.find("p", {"text": "fire", "limit": 100})
            with pytest.raises(SemReportError) as info:
                sr.find("p", bad)
            assert info.value.code == "INVALID_REQUEST"
            assert isinstance(info.value, InvalidRequest)
            assert all(e.path.startswith("$") for e in info.value.errors)
            assert sr.latest_sequence("p") == len(records)
            assert sr.find("p", {"text": "fire", "limit": 100}) == before

    @given(projects(), st.text(alphabet="abcxyz-", min_size=1, max_size=8))
    def test_unknown_exemplar(self, records: list[dict[str, Any]], name: str) -> None:
        with _open(records) as sr:
            with pytest.raises(SemReportError) as info:
                sr.similar("p", {"decision_id": f"zz-{name}"})
            assert info.value.code == "DECISION_NOT_FOUND"
            assert sr.latest_sequence("p") == len(records)


# -- against a brute-force reference -------------------------------------------------------


def _stems(text: str) -> set[str]:
    return set(Tokenizer().terms(text))


def _facets(records: list[dict[str, Any]], ids: set[str], superseded: set[str]) -> dict[str, Any]:
    """Facet counts of the records ``ids``, counted one by one."""
    chosen = [r for r in records if r["id"] in ids]
    status = Counter(r["status"] for r in chosen)
    status.update({"superseded": sum(1 for r in chosen if r["id"] in superseded)})
    return {
        "domain": dict(Counter(r["domain"] for r in chosen)),
        "status": {k: v for k, v in status.items() if v},
        "agent": dict(Counter(r["agent"] for r in chosen)),
        "tags": dict(Counter(t for r in chosen for t in r["tags"])),
    }


def _reference(
    sr: semreport.SemReport,
    records: list[dict[str, Any]],
    criteria: dict[str, Any],
    superseded: set[str],
) -> list[tuple[str, float]]:
    """Every decision scored exactly (one signal value per row), filtered, then sorted.

    The signals' values come from the registry; everything else (filters, term
    matching, selection, min_score, order) is done here, row by row.
    """
    scorer = sr.scorer
    assert isinstance(scorer, HeuristicScorer)
    snap = scorer.index(sr.storage, "p")
    query = Query(
        "find",
        snap,
        text=criteria.get("text", ""),
        prefer=tuple(f"tag:{t}" for t in sorted(criteria.get("prefer", {}).get("tags", []))),
        near=dict(criteria.get("near", {})),
    )
    weights = {s.name: s.find_weight for s in SIGNALS} | {
        k: float(v) for k, v in criteria.get("weights", {}).items()
    }
    prepared = prepare_active(query, weights)  # registry order, idle states left out
    chosen = [s for s, _ in prepared]
    total_weight = sum(weights[s.name] for s in chosen)
    everything = np.arange(snap.n, dtype=np.int64)
    values = {s.name: state.values(everything)[0].tolist() for s, state in prepared}
    policy = criteria.get("superseded", "demote")
    filters = criteria.get("filters", {})
    words = _stems(query.text)
    out = []
    by_id = {r["id"]: r for r in records}
    for row, decision_id in enumerate(snap.ids[: snap.n]):
        as_dict = by_id[decision_id]
        if not _matches(as_dict, filters, superseded):
            continue
        if policy == "exclude" and decision_id in superseded:
            continue
        if query.text.strip() and not words & _stems(
            f"{as_dict['title']} {as_dict['statement']} {as_dict.get('rationale', '')}"
        ):
            continue
        selecting = [s for s in chosen if s.selects(query)]
        if (
            not query.text.strip()
            and selecting
            and not any(values[s.name][row] > 0 for s in selecting)
        ):
            continue
        score = 0.0
        for s in chosen:
            score += weights[s.name] / total_weight * values[s.name][row]
        if policy == "demote" and decision_id in superseded:
            score *= 0.5
        if score < criteria.get("min_score", 0.0) or (
            query.text.strip() and selecting and score <= 0
        ):
            continue
        out.append((decision_id, score))
    out.sort(key=lambda item: (-item[1], item[0]))
    return out


def _check_against_reference(
    sr: semreport.SemReport,
    records: list[dict[str, Any]],
    criteria: dict[str, Any],
    *,
    walk: bool,
) -> None:
    superseded = {
        link["target"] for r in records for link in r["links"] if link["kind"] == "supersedes"
    }
    expected = _reference(sr, records, criteria, superseded)
    result = sr.find("p", criteria)
    assert result.total == len(expected)
    got = [(h.decision_id, h.score) for h in result.hits]
    want = expected[: criteria["limit"]]
    assert [i for i, _ in got] == [i for i, _ in want]
    for (_, score), (_, reference) in zip(got, want, strict=True):
        assert score == pytest.approx(reference, abs=1e-12)
        assert score >= criteria.get("min_score", 0.0)
    _check_scores(result)
    words = _stems(criteria.get("text", ""))
    by_id = {r["id"]: r for r in records}
    for hit in result.hits:
        record = by_id[hit.decision_id]
        assert _matches(record, criteria.get("filters", {}), superseded)
        if words:
            text = f"{record['title']} {record['statement']} {record.get('rationale', '')}"
            assert words & _stems(text)
        assert (hit.domain.value, hit.status.value, hit.agent) == (
            record["domain"],
            record["status"],
            record["agent"],
        )
    facets = result.facets
    brute = _facets(records, {i for i, _ in expected}, superseded)
    assert {name: dict(getattr(facets, name)) for name in brute} == brute
    assert sum(facets.domain.values()) == result.total
    for counts in (facets.domain, facets.status, facets.agent, facets.tags):
        items = list(counts.items())
        assert items == sorted(items, key=lambda item: (-item[1], item[0]))
    if walk:
        seen, _ = _walk(sr, sr.find, {**criteria, "limit": max(criteria["limit"], 25)})
        assert seen == [i for i, _ in expected]


class TestReference:
    """find equals a brute-force reference: matches, scores, order, total, facets, pages."""

    @given(projects(), criteria_st)
    def test_small_projects(self, records: list[dict[str, Any]], criteria: dict[str, Any]) -> None:
        with _open(records) as sr:
            _check_against_reference(sr, records, criteria, walk=True)

    @settings(max_examples=15)
    @given(big_criteria())
    def test_at_pruning_scale(self, criteria: dict[str, Any]) -> None:
        sr, records = _big_project()
        assert len(records) >= PRUNE_FROM
        _check_against_reference(sr, records, criteria, walk=False)


class TestHighlights:
    """Highlights come from the score's analysis: spans inside the fragment, on query terms."""

    @given(projects(), criteria_st)
    def test_spans_mark_matched_query_terms(
        self, records: list[dict[str, Any]], criteria: dict[str, Any]
    ) -> None:
        analyzer = Analyzer()
        wanted = {token.term for token in analyzer.analyse(criteria["text"])}
        with _open(records) as sr:
            result = sr.find("p", {**criteria, "limit": 100})
        for hit in result.hits:
            text = hit.contribution("text")
            if text is not None and text.raw > 0:
                assert hit.highlights  # a hit holding a query term shows where
            for shown in hit.highlights:
                assert shown.field in {"title", "statement", "rationale"}
                last = 0
                for start, end in shown.spans:
                    assert last <= start < end <= len(shown.fragment)
                    last = end
                    terms = [t.term for t in analyzer.analyse(shown.fragment[start:end])]
                    assert len(terms) == 1
                    assert terms[0] in wanted
