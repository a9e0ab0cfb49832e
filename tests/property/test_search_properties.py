"""Properties of find and similar over generated projects (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import semreport
from semreport import InvalidRequest, SemReportError
from semreport.search import SearchResult

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
        "text": st.lists(st.sampled_from(WORDS), max_size=3).map(" ".join),
        "limit": st.integers(1, 5),
    },
    optional={
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
            assert result.total == len(records) - 1


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
            seen, first = _walk(sr, sr.similar, {"decision_id": records[-1]["id"], "limit": limit})
            assert sorted(seen) == sorted(r["id"] for r in records[:-1])
            assert first.total == len(records) - 1


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
            assert result.total == len(expected)

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
