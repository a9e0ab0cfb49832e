"""Opt-in Prometheus metrics (``create_app(..., metrics=True)``; extra ``metrics``).

Counts and latency histograms per route template, method and status; the
running and queued requests of each executor lane; requests refused because
a lane was full; and, when the facade reports them (a ``cache_info()``
method answering ``hits``, ``misses``, ``evictions``, ``entries`` and
``size_bytes``), its report cache's figures (per process). With several
worker processes set ``PROMETHEUS_MULTIPROC_DIR`` (as prometheus-client
documents) and every worker answers for all of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from semreport.domain import MissingExtra

__all__ = ["METRICS_MEDIA_TYPE", "Metrics"]

METRICS_MEDIA_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
"""The media type of the Prometheus text exposition format."""

_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


def _member(value: object, name: str) -> float:
    found = value.get(name, 0) if isinstance(value, Mapping) else getattr(value, name, 0)
    return float(found) if isinstance(found, int | float) else 0.0


class Metrics:
    """The application's Prometheus metrics, in a registry of its own.

    Args:
        cache_info: A callable answering the facade's cache counters
            (``hits``, ``misses``), or ``None``.

    Raises:
        MissingExtra: prometheus-client is not installed.
    """

    def __init__(self, cache_info: Callable[[], object] | None = None) -> None:
        try:
            import prometheus_client as prom  # noqa: PLC0415 - optional
            from prometheus_client import multiprocess  # noqa: PLC0415
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise MissingExtra(
                "metrics need prometheus-client: pip install 'semreport[metrics]'"
            ) from exc
        self._prom = prom
        self.registry = prom.CollectorRegistry(auto_describe=True)
        self._multiprocess = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
        # In multiprocess mode the values live in files; the registry only collects them.
        target = None if self._multiprocess else self.registry
        if self._multiprocess:
            multiprocess.MultiProcessCollector(self.registry)  # type: ignore[no-untyped-call] # untyped upstream
        labels = ("route", "method", "status")
        self.requests = prom.Counter(
            "semreport_http_requests",
            "HTTP requests answered, by route template, method and status.",
            labels,
            registry=target,
        )
        self.latency = prom.Histogram(
            "semreport_http_request_duration_seconds",
            "Time from a request's arrival to its last byte, by route template, method and status.",
            labels,
            buckets=_BUCKETS,
            registry=target,
        )
        self.running = prom.Gauge(
            "semreport_http_lane_running",
            "Requests running on an executor lane.",
            ("lane",),
            registry=target,
            multiprocess_mode="livesum",
        )
        self.queued = prom.Gauge(
            "semreport_http_lane_queued",
            "Requests waiting for a thread of an executor lane (its queue depth).",
            ("lane",),
            registry=target,
            multiprocess_mode="livesum",
        )
        self.refused = prom.Counter(
            "semreport_http_lane_refused",
            "Requests refused with 503 because their lane's queue was full.",
            ("lane",),
            registry=target,
        )
        self.timed_out = prom.Counter(
            "semreport_http_timed_out",
            "Requests answered 503 because they passed their use case's time limit.",
            ("route",),
            registry=target,
        )
        if cache_info is not None and not self._multiprocess:
            self.registry.register(_CacheCollector(prom, cache_info))

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        """Count one answered request and its duration."""
        self.requests.labels(route, method, str(status)).inc()
        self.latency.labels(route, method, str(status)).observe(seconds)

    def lane_observer(self, lane: str) -> Callable[[int, int], None]:
        """A callback keeping the gauges of ``lane`` current: ``(running, queued)``."""
        running = self.running.labels(lane)
        queued = self.queued.labels(lane)

        def changed(now_running: int, now_queued: int) -> None:
            running.set(now_running)
            queued.set(now_queued)

        return changed

    def render(self) -> bytes:
        """The metrics in the Prometheus text format."""
        data: bytes = self._prom.generate_latest(self.registry)
        return data


class _CacheCollector:
    """Reads the facade's cache counters at each scrape."""

    def __init__(self, prom: Any, cache_info: Callable[[], object]) -> None:
        self._prom = prom
        self._cache_info = cache_info

    def describe(self) -> list[Any]:
        return []

    def collect(self) -> Iterator[Any]:
        info = self._cache_info()
        core = self._prom.metrics_core
        for name in ("hits", "misses", "evictions"):
            counter = core.CounterMetricFamily(
                f"semreport_report_cache_{name}", f"Report cache {name} of the facade."
            )
            counter.add_metric([], _member(info, name))
            yield counter
        for name, text in (("entries", "Reports held"), ("size_bytes", "Their estimated size")):
            gauge = core.GaugeMetricFamily(
                f"semreport_report_cache_{name}", f"{text} in the facade's report cache."
            )
            gauge.add_metric([], _member(info, name))
            yield gauge
