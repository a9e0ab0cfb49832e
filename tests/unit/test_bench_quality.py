"""The quality benchmark measures the library as a user gets it: defaults, through the facade."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

import pytest
from collection_support import TEXTS, only_cisi_files

import semreport
from semreport.domain import Decision
from semreport.testing.collections import RetrievalCollection

pytest.importorskip("bm25s")
pytest.importorskip("Stemmer")

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_quality_under_test", ROOT / "benchmarks" / "bench_quality.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # attrs resolves the module's classes through it
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _collection() -> RetrievalCollection:
    decisions = tuple(
        Decision(
            id=str(i + 1),
            project_id="tiny",
            title=title,
            statement="-",
            rationale=text,
            agent="tiny",
        )
        for i, (title, text) in enumerate(TEXTS)
    )
    return RetrievalCollection(
        name="cisi",
        decisions=decisions,
        queries={"1": "timber floor slabs", "2": "concrete tower", "3": "nothing judged"},
        relevant={"1": ("1", "2", "6"), "2": ("4",)},
    )


class _Recording:
    """Wraps the real facade and records every search request it is given."""

    def __init__(self, facade: semreport.SemReport, calls: list[tuple[str, Any]]) -> None:
        self._facade = facade
        self._calls = calls

    def __enter__(self) -> _Recording:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._facade.close()

    @property
    def storage(self) -> Any:
        return self._facade.storage

    def find(self, project_id: str, request: Any) -> semreport.SearchResult:
        self._calls.append(("find", request))
        return self._facade.find(project_id, request)

    def similar(self, project_id: str, request: Any) -> semreport.SearchResult:
        self._calls.append(("similar", request))
        return self._facade.similar(project_id, request)


class TestDefaults:
    """The evaluation opens a default facade and asks plain requests: no weights, no options."""

    def test_evaluate_uses_the_library_defaults(self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[tuple[str, Any]] = []
        opened: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        real_open = semreport.open

        def spy(*args: Any, **kwargs: Any) -> _Recording:
            opened.append((args, kwargs))
            return _Recording(real_open(*args, **kwargs), calls)

        monkeypatch.setattr(semreport, "open", spy)
        quality = bench.evaluate(_collection())
        # One facade, opened with the URL alone: the default scorer and its default weights.
        assert opened == [(("memory://",), {})]
        assert calls == [
            ("find", {"text": "timber floor slabs", "limit": 100}),
            ("similar", {"decision_id": "1", "limit": 100}),
            ("find", {"text": "concrete tower", "limit": 100}),
        ]
        assert quality.find.queries == 2
        assert quality.similar.queries == 1
        assert 0.0 < quality.find.ours_ndcg <= 1.0
        assert 0.0 < quality.find.peer_ndcg <= 1.0
        assert quality.find.ratio == pytest.approx(quality.find.ours_ndcg / quality.find.peer_ndcg)

    def test_requests_hold_nothing_but_the_query_and_the_depth(self) -> None:
        assert bench.find_request("q") == {"text": "q", "limit": bench.DEPTH}
        assert bench.similar_request("d") == {"decision_id": "d", "limit": bench.DEPTH}
        assert bench.DEPTH == 100
        assert bench.MIN_RELEVANT == 3

    def test_a_zero_peer_gives_no_ratio(self) -> None:
        pair = bench.Pair(queries=1, ours_ndcg=0.5, ours_recall=0.5, peer_ndcg=0.0, peer_recall=0)
        assert pair.ratio != pair.ratio  # NaN: no ratio against nothing


class TestRobustness:
    """Per-query outcomes and the ratio's paired bootstrap interval."""

    @staticmethod
    def _pair(ours: tuple[float, ...], peer: tuple[float, ...]) -> Any:
        return bench.Pair(
            queries=len(ours),
            ours_ndcg=sum(ours) / len(ours) if ours else 0.0,
            ours_recall=0.0,
            peer_ndcg=sum(peer) / len(peer) if peer else 0.0,
            peer_recall=0.0,
            ours_each=ours,
            peer_each=peer,
        )

    def test_outcomes_count_each_query_once(self) -> None:
        pair = self._pair((0.5, 0.2, 0.3, 0.0), (0.4, 0.2, 0.6, 0.0))
        assert pair.outcomes() == (1, 2, 1)

    def test_an_even_gain_has_a_point_interval(self) -> None:
        pair = self._pair((0.5, 0.3, 0.8), (0.25, 0.15, 0.4))
        assert pair.interval() == pytest.approx((2.0, 2.0))

    def test_the_interval_holds_the_ratio_and_repeats(self) -> None:
        ours = tuple((i % 7) / 7 for i in range(40))
        peer = tuple(((i + 3) % 5) / 5 for i in range(40))
        pair = self._pair(ours, peer)
        low, high = pair.interval()
        assert low < pair.ratio < high
        assert pair.interval() == (low, high)  # seeded
        assert pair.interval(seed=bench.SEED + 1) != (low, high)

    def test_the_mean_interval_resamples_each_collection(self) -> None:
        even = self._pair((0.5, 0.3), (0.25, 0.15))  # 2.0 whatever the draw
        other = self._pair((0.3, 0.6, 0.9), (0.3, 0.6, 0.9))  # 1.0 whatever the draw
        assert bench.mean_interval([even, other]) == pytest.approx((1.5, 1.5))
        varied = self._pair(
            tuple((i % 7) / 7 for i in range(40)), tuple((i % 5) / 5 for i in range(40))
        )
        low, high = bench.mean_interval([even, varied])
        assert low < (2.0 + varied.ratio) / 2 < high
        assert all(math.isnan(x) for x in bench.mean_interval([even, self._pair((), ())]))
        assert all(math.isnan(x) for x in bench.mean_interval([self._pair((0.1,), (0.0,))]))

    def test_no_queries_or_no_peer_gives_no_interval(self) -> None:
        for pair in (self._pair((), ()), self._pair((0.5, 0.2), (0.0, 0.0))):
            low, high = pair.interval()
            assert math.isnan(low)
            assert math.isnan(high)


class TestSection:
    """The section lists every collection found and names the ones that are not."""

    def test_run_over_sample_files(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        only_cisi_files(tmp_path, monkeypatch, ("timber floor slabs", "concrete tower"))
        section = bench.run(quick=True)
        assert "| CISI | 2 |" in section
        assert "| CISI | 1 |" in section  # one exemplar
        assert "| CISI + links, similar (peer: exemplar text) | 1 |" in section
        assert "**mean ratio**" in section
        assert "Not found, so not measured: adi, med" in section
        assert "### Targets" in section
        assert "### How far the ratios hold" in section
        assert "| find, CISI | 2 |" in section
        assert "| similar, CISI + links | 1 |" in section
        assert "| **find, mean over the collections** | 2 |" in section
        assert "| find: mean ratio at least 1.03, no collection below 1.0 |" in section
        assert "| CISI + links, similar: gains over the same search without links |" in section

    def test_nothing_found(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in ("CISI", "MED", "ADI"):
            monkeypatch.setenv(f"SEMREPORT_{name}_DIR", str(tmp_path))
        section = bench.run(quick=False)
        assert "Not found, so not measured: adi, cisi, med" in section
        assert "CISI with its direct citations" not in section
        assert "### Targets" not in section
        assert "### How far the ratios hold" not in section
