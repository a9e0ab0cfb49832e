"""A bounded, thread-safe cache of built values with single-flight builds.

The facade keeps reports here, keyed by ``(project_id, as_of_sequence)``:
Decision Memory is append-only, so the report as of a sequence number never
changes and an entry never goes stale; an append moves the latest sequence
on, so the next call asks for a new key. Entries are evicted least recently
used first once their estimated sizes exceed the budget.

Concurrent first calls for one key build it once: the first caller builds,
the others wait for its result (or its exception) instead of building too.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Final, Generic, TypeVar

import attrs

__all__ = ["DEFAULT_REPORT_CACHE_BYTES", "BuildCache", "CacheInfo"]

DEFAULT_REPORT_CACHE_BYTES: Final = 256 * 2**20
"""The default memory budget of the facade's report cache: 256 MiB."""

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@attrs.frozen
class CacheInfo:
    """Statistics of the facade's report cache (:meth:`semreport.SemReport.cache_info`).

    Attributes:
        hits: Calls answered without building: from a cached entry, or by
            waiting for a build another call had already started.
        misses: Calls that built the value.
        evictions: Entries dropped to keep the cache within its budget.
        entries: Entries held now.
        size_bytes: The estimated size of the entries held now.
        budget_bytes: The most the entries may hold together (0: nothing is kept).
    """

    hits: int
    misses: int
    evictions: int
    entries: int
    size_bytes: int
    budget_bytes: int


@attrs.define
class _Entry(Generic[V]):
    value: V
    size: int


class BuildCache(Generic[K, V]):
    """An LRU cache bounded by the estimated bytes of its values, building each key once.

    Args:
        budget_bytes: The most the entries may hold together. A value whose
            own estimate exceeds it is returned but not kept; ``0`` keeps
            nothing (concurrent builds of one key are still shared).
    """

    def __init__(self, budget_bytes: int) -> None:
        given: object = budget_bytes  # callers may pass anything at run time
        if isinstance(given, bool) or not isinstance(given, int) or given < 0:
            raise ValueError(f"expected a number of bytes (0 or more), got {budget_bytes!r}")
        self._budget = budget_bytes
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, _Entry[V]] = OrderedDict()
        self._flights: dict[K, Future[V]] = {}
        self._size = 0
        self._hits = 0
        self._misses = 0
        self._evictions = 0

    def get(self, key: K) -> V | None:
        """Return the cached value of ``key`` (counted as a hit), or ``None`` without counting."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            self._hits += 1
            return entry.value

    def get_or_build(self, key: K, build: Callable[[], tuple[V, int]]) -> V:
        """Return the value of ``key``, building it with ``build`` if nobody has.

        Args:
            key: The key.
            build: Returns the value and its estimated size in bytes. It runs
                without the cache's lock held, at most once at a time per key;
                callers arriving meanwhile wait for it and get its result, or
                its exception raised again.
        """
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self._hits += 1
                return entry.value
            running = self._flights.get(key)
            if running is None:
                flight: Future[V] = Future()
                self._flights[key] = flight
                self._misses += 1
            else:
                self._hits += 1
        if running is not None:
            return self._await(running)
        try:
            value, size = build()
        except BaseException as exc:
            with self._lock:
                del self._flights[key]
            flight.set_exception(exc)
            raise
        with self._lock:
            del self._flights[key]
            self._store(key, value, size)
        flight.set_result(value)
        return value

    def _await(self, running: Future[V]) -> V:
        """Wait for a build another caller started (a seam for the tests)."""
        return running.result()

    def _store(self, key: K, value: V, size: int) -> None:
        size = max(0, size)
        if size > self._budget:
            return
        while self._entries and self._size + size > self._budget:
            _, dropped = self._entries.popitem(last=False)
            self._size -= dropped.size
            self._evictions += 1
        self._entries[key] = _Entry(value, size)
        self._size += size

    def clear(self) -> None:
        """Drop every entry (statistics are kept)."""
        with self._lock:
            self._entries.clear()
            self._size = 0

    def info(self) -> CacheInfo:
        """Return the cache's statistics now."""
        with self._lock:
            return CacheInfo(
                hits=self._hits,
                misses=self._misses,
                evictions=self._evictions,
                entries=len(self._entries),
                size_bytes=self._size,
                budget_bytes=self._budget,
            )
