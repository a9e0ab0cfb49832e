"""``recency``: where ``recorded_at`` lies between the project's first and latest record."""

from __future__ import annotations

import numpy as np

from semreport.search._index import F64, I64, IndexSnapshot
from semreport.search.signals._base import Evidence, Page, Prepared, Query, Signal, freeze
from semreport.wire import format_datetime

__all__ = ["RecencySignal"]


class Position(Prepared):
    """``(recorded - first) / (latest - first)``; the raw value is the age behind the latest."""

    def __init__(self, snap: IndexSnapshot) -> None:
        super().__init__()
        self.snap = snap
        self.first, self.last = snap.time_span

    def size(self) -> int:
        return self.snap.n

    def values(self, rows: I64) -> tuple[F64, F64]:
        recorded = self.snap.recorded[rows]
        if self.last > self.first:
            normalised: F64 = (recorded - self.first) / (self.last - self.first)
        else:
            normalised = np.ones(len(rows))
        return normalised, self.last - recorded

    def compute_dense(self) -> F64:
        return self.values(np.arange(self.snap.n, dtype=np.int64))[0]

    def explain(self, page: Page) -> list[Evidence]:
        recorded_at = self.snap.recorded_at
        out = []
        for row in page:
            at = recorded_at[row]
            out.append(freeze({"recorded_at": format_datetime(at) if at else None}))
        return out


class RecencySignal(Signal):
    """Newer decisions score higher."""

    name = "recency"
    kind = "time"
    description = (
        "Position of recorded_at between the project's first and latest record (1 = latest); "
        "it orders the matches and selects none."
    )
    needs = "a weight > 0"
    find_weight = 0.0
    similar_weight = 0.0

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal."""
        return True

    def selects(self, query: Query) -> bool:
        """Whether a positive value makes a match."""
        return False

    def prepare(self, query: Query) -> Position:
        """The signal's state for the request."""
        return Position(query.snap)

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        return 1.0 if snap.n else 0.0
