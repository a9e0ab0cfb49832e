"""The report cache: hits and misses, invalidation by append, the budget, single flight."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

import semreport
from semreport import (
    CacheInfo,
    Forbidden,
    InvalidRequest,
    Principal,
    ProjectNotFound,
    Role,
    SemReport,
    StoredRecord,
    Unauthenticated,
    check_inclusion,
)
from semreport.reports import DEFAULT_REPORT_CACHE_BYTES
from semreport.reports._cache import BuildCache
from semreport.storage.memory import MemoryStorage

ROWS = [
    {"id": f"d-{i}", "project_id": "p-1", "title": f"T{i}", "statement": "s", "agent": "a"}
    for i in range(1, 6)
]


class CountingStorage(MemoryStorage):
    """An in-memory storage that counts full reads of the log (one per report built)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.latest_calls = 0
        self.before_latest: threading.Barrier | None = None
        self.in_read: threading.Event | None = None
        self.release_read: threading.Event | None = None

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        self.reads += 1
        if self.in_read is not None and self.release_read is not None:
            self.in_read.set()
            assert self.release_read.wait(timeout=30)
        return super().records(project_id, after=after, as_of=as_of)

    def latest_sequence(self, project_id: str) -> int:
        self.latest_calls += 1
        if self.before_latest is not None:
            self.before_latest.wait(timeout=30)
        return super().latest_sequence(project_id)


def _facade(budget: int = DEFAULT_REPORT_CACHE_BYTES) -> tuple[SemReport, CountingStorage]:
    storage = CountingStorage()
    facade = SemReport(storage, caller=Principal.local(), report_cache_bytes=budget)
    facade.record(ROWS)
    return facade, storage


class TestFacadeCache:
    """report, export_report and prove reuse one report per (project, as_of_sequence)."""

    def test_second_report_is_a_hit(self) -> None:
        sr, storage = _facade()
        first = sr.report("p-1")
        second = sr.report("p-1")
        assert second is first
        assert storage.reads == 1
        info = sr.cache_info()
        assert (info.hits, info.misses, info.entries) == (1, 1, 1)
        assert 0 < info.size_bytes <= info.budget_bytes == DEFAULT_REPORT_CACHE_BYTES

    def test_export_and_prove_use_the_cached_report(self) -> None:
        sr, storage = _facade()
        report = sr.report("p-1")
        exported = sr.export_report("p-1")
        proof = sr.prove("p-1", "d-3")
        assert exported.report is report
        assert check_inclusion(proof, report.digest.records_root)
        assert storage.reads == 1
        assert sr.cache_info().hits == 2

    def test_prove_from_cached_leaves_matches_a_fresh_proof(self) -> None:
        sr, _ = _facade()
        cached = sr.prove("p-1", "d-2")
        assert sr.prove("p-1", "d-2") == cached == semreport.reports.prove(sr.report("p-1"), "d-2")

    def test_append_builds_the_new_report(self) -> None:
        sr, storage = _facade()
        before = sr.report("p-1")
        sr.record([{**ROWS[0], "id": "d-9"}])
        after = sr.report("p-1")
        assert after.as_of_sequence == 6
        assert after.digest != before.digest
        assert storage.reads == 2
        # The report as of the old sequence is still the cached one.
        assert sr.report("p-1", as_of=5) is before
        assert storage.reads == 2

    def test_as_of_past_the_latest_is_the_latest(self) -> None:
        sr, storage = _facade()
        latest = sr.report("p-1")
        assert sr.report("p-1", as_of=500) is latest
        assert storage.reads == 1

    def test_as_of_keys_are_separate(self) -> None:
        sr, storage = _facade()
        assert sr.report("p-1", as_of=2).digest.records == 2
        assert sr.report("p-1", as_of=3).digest.records == 3
        assert sr.report("p-1", as_of=0).digest.records == 0
        assert storage.reads == 3
        assert sr.cache_info().entries == 3

    def test_budget_zero_keeps_nothing(self) -> None:
        sr, storage = _facade(budget=0)
        sr.report("p-1")
        sr.report("p-1")
        assert storage.reads == 2
        info = sr.cache_info()
        assert (info.misses, info.entries, info.size_bytes) == (2, 0, 0)

    def test_budget_evicts_least_recently_used(self) -> None:
        sr, _ = _facade()
        sr.report("p-1", as_of=5)
        size = sr.cache_info().size_bytes
        small, storage = _facade(budget=size * 2 + size // 2)
        small.report("p-1", as_of=5)
        small.report("p-1", as_of=4)
        small.report("p-1", as_of=5)  # now the most recently used
        small.report("p-1", as_of=3)  # evicts as_of=4
        info = small.cache_info()
        assert info.evictions >= 1
        assert info.size_bytes <= info.budget_bytes
        reads = storage.reads
        small.report("p-1", as_of=5)
        assert storage.reads == reads
        small.report("p-1", as_of=4)
        assert storage.reads == reads + 1

    def test_bad_budget_is_refused_before_opening(self) -> None:
        for bad in (-1, 1.5, True, "1"):
            with pytest.raises(InvalidRequest) as raised:
                semreport.open("memory://", report_cache_bytes=bad)
            assert raised.value.errors[0].path == "$.report_cache_bytes"

    def test_open_passes_the_budget(self) -> None:
        with semreport.open("memory://", report_cache_bytes=12345) as sr:
            info = sr.cache_info()
        assert isinstance(info, CacheInfo)
        assert info == CacheInfo(
            hits=0, misses=0, evictions=0, entries=0, size_bytes=0, budget_bytes=12345
        )


class TestAuthorisationBeforeCache:
    """The caller is checked on every call, before the cache is consulted."""

    def test_forbidden_caller_gets_no_cached_report(self) -> None:
        storage = CountingStorage()
        sr = SemReport(storage, caller=None)
        owner = Principal("owner", roles=frozenset({Role.USER}), projects=frozenset({"p-1"}))
        sr.record(ROWS, caller=owner)
        sr.report("p-1", caller=owner)
        stranger = Principal("x", roles=frozenset({Role.USER}), projects=frozenset({"p-2"}))
        before = sr.cache_info()
        latest_calls = storage.latest_calls
        for call in (
            lambda: sr.report("p-1", caller=stranger),
            lambda: sr.export_report("p-1", caller=stranger),
            lambda: sr.prove("p-1", "d-1", caller=stranger),
        ):
            with pytest.raises(Forbidden):
                call()
        with pytest.raises(Unauthenticated):
            sr.report("p-1")
        assert sr.cache_info() == before
        assert storage.latest_calls == latest_calls

    def test_missing_project_is_not_cached(self) -> None:
        sr, _ = _facade()
        with pytest.raises(ProjectNotFound):
            sr.report("p-2")
        assert sr.cache_info().misses == 0


class TestSingleFlightFacade:
    """Concurrent first calls for one report build it once."""

    def test_concurrent_first_calls_read_the_log_once(self) -> None:
        sr, storage = _facade()
        threads = 4
        storage.before_latest = threading.Barrier(threads)
        results: list[Any] = [None] * threads

        def call(i: int) -> None:
            results[i] = sr.report("p-1")

        workers = [threading.Thread(target=call, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=30)
        assert storage.reads == 1
        assert all(result is results[0] for result in results)
        info = sr.cache_info()
        assert (info.misses, info.hits) == (1, threads - 1)


class _Observed(BuildCache[str, object]):
    """A cache that tells when a caller starts waiting for a build under way."""

    def __init__(self, budget: int, waiting: threading.Barrier) -> None:
        super().__init__(budget)
        self.waiting = waiting

    def _await(self, running: Future[object]) -> object:
        self.waiting.wait(timeout=30)
        return super()._await(running)


class TestBuildCache:
    """The cache itself: LRU by estimated bytes, single flight, failures."""

    def test_hit_and_miss(self) -> None:
        cache: BuildCache[str, object] = BuildCache(100)
        value = object()
        assert cache.get("a") is None
        assert cache.get_or_build("a", lambda: (value, 10)) is value
        assert cache.get_or_build("a", lambda: pytest.fail("built twice")) is value
        assert cache.get("a") is value
        assert cache.info() == CacheInfo(
            hits=2, misses=1, evictions=0, entries=1, size_bytes=10, budget_bytes=100
        )

    def test_lru_eviction_by_size(self) -> None:
        cache: BuildCache[str, str] = BuildCache(100)
        cache.get_or_build("a", lambda: ("A", 40))
        cache.get_or_build("b", lambda: ("B", 40))
        cache.get("a")
        cache.get_or_build("c", lambda: ("C", 40))
        assert cache.get("b") is None
        assert cache.get("a") == "A"
        assert cache.get("c") == "C"
        info = cache.info()
        assert (info.entries, info.size_bytes, info.evictions) == (2, 80, 1)

    def test_value_larger_than_the_budget_is_returned_not_kept(self) -> None:
        cache: BuildCache[str, str] = BuildCache(100)
        cache.get_or_build("a", lambda: ("A", 60))
        assert cache.get_or_build("big", lambda: ("BIG", 101)) == "BIG"
        assert cache.get("big") is None
        assert cache.get("a") == "A"
        assert cache.info().evictions == 0

    def test_failure_is_not_cached(self) -> None:
        cache: BuildCache[str, str] = BuildCache(100)

        def fail() -> tuple[str, int]:
            raise RuntimeError("storage down")

        with pytest.raises(RuntimeError, match="storage down"):
            cache.get_or_build("a", fail)
        assert cache.get_or_build("a", lambda: ("A", 1)) == "A"
        assert cache.info().misses == 2

    def test_clear(self) -> None:
        cache: BuildCache[str, str] = BuildCache(100)
        cache.get_or_build("a", lambda: ("A", 1))
        cache.clear()
        assert cache.info().entries == 0
        assert cache.get("a") is None

    def test_bad_budget(self) -> None:
        with pytest.raises(ValueError, match="number of bytes"):
            BuildCache(-5)

    @pytest.mark.parametrize("budget", [0, 1000])
    def test_single_flight(self, budget: int) -> None:
        waiters = 3
        waiting = threading.Barrier(waiters + 1)
        cache = _Observed(budget, waiting)
        started, release = threading.Event(), threading.Event()
        value = object()
        results: list[object] = []

        def build() -> tuple[object, int]:
            started.set()
            assert release.wait(timeout=30)
            return value, 10

        def first() -> None:
            results.append(cache.get_or_build("k", build))

        def other() -> None:
            results.append(cache.get_or_build("k", lambda: pytest.fail("built twice")))

        builder = threading.Thread(target=first)
        builder.start()
        assert started.wait(timeout=30)
        others = [threading.Thread(target=other) for _ in range(waiters)]
        for thread in others:
            thread.start()
        waiting.wait(timeout=30)  # every other caller now waits for the build under way
        release.set()
        for thread in [builder, *others]:
            thread.join(timeout=30)
        assert results == [value] * (waiters + 1)
        info = cache.info()
        assert (info.misses, info.hits) == (1, waiters)
        assert info.entries == (1 if budget else 0)

    def test_waiters_get_the_builders_exception(self) -> None:
        waiting = threading.Barrier(2)
        cache = _Observed(1000, waiting)
        started, release = threading.Event(), threading.Event()
        errors: list[BaseException] = []

        def build() -> tuple[object, int]:
            started.set()
            assert release.wait(timeout=30)
            raise RuntimeError("storage down")

        def call(builder: Any) -> None:
            try:
                cache.get_or_build("k", builder)
            except RuntimeError as exc:
                errors.append(exc)

        first = threading.Thread(target=call, args=(build,))
        first.start()
        assert started.wait(timeout=30)
        second = threading.Thread(target=call, args=(lambda: pytest.fail("built twice"),))
        second.start()
        waiting.wait(timeout=30)
        release.set()
        first.join(timeout=30)
        second.join(timeout=30)
        assert [str(e) for e in errors] == ["storage down", "storage down"]
        assert cache.info().entries == 0
